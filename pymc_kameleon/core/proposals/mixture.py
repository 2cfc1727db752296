"""A weighted mixture of proposals, with the mixture density in the Metropolis–Hastings ratio.

:class:`MixtureProposal` picks component ``k`` with probability ``w_k`` and draws from it. Its
density is the mixture density ``q(a | b) = sum_k w_k q_k(a | b)``, so the Hastings ratio is the
exact one for the mixture, whichever component made the move.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.special import logsumexp

from pymc_kameleon.core.proposals.protocol import Proposal, Transition

__all__ = ["MixtureProposal", "log_sum_exp"]


def log_sum_exp(values: Sequence[float]) -> float:
    """``log(sum(exp(values)))`` without overflow; ``-inf`` if every value is ``-inf``.

    Parameters
    ----------
    values : sequence of float

    Returns
    -------
    float
    """
    top = max(values)
    if top == -math.inf:
        return -math.inf
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


class MixtureProposal(Proposal):
    """Propose from component ``k`` with probability ``w_k``; density ``sum_k w_k q_k``.

    Every component learns from every state the chain visits; only the component that made the
    move learns from its acceptance probability (``Transition.accept_prob`` is None for the
    others), so each scale is tuned to its own moves.

    Parameters
    ----------
    components : sequence of (Proposal, float)
        The proposals and their weights (positive, finite; normalised here).

    Attributes
    ----------
    proposals : list of Proposal
    weights : numpy.ndarray
        Normalised weights.
    chosen : int
        Index of the component that made the last proposal (-1 before the first).

    A component with an ``in_use`` attribute that is False (a Kameleon move whose kernel was
    measured non-local) gets weight zero: it is neither chosen nor evaluated, and the others'
    weights are renormalised. The flags are read at each call, so the forward and the reverse
    density of one iteration use the same weights.

    Notes
    -----
    Stats: ``component`` (the chosen index), each component's stats prefixed with ``move<k>_``,
    and the first (primary) component's stats also without the prefix, so that a step whose
    main move is the first component reports that move's stats under their usual names
    (``scaling`` is NaN if the first component reports none).
    """

    def __init__(self, components: Sequence[tuple[Proposal, float]]) -> None:
        components = list(components)
        if not components:
            raise ValueError("MixtureProposal needs at least one (proposal, weight) pair.")
        for proposal, weight in components:
            if not isinstance(proposal, Proposal):
                raise TypeError(f"MixtureProposal: {proposal!r} is not a Proposal.")
            if not (math.isfinite(weight) and weight > 0.0):
                raise ValueError(
                    f"MixtureProposal: weights must be finite and > 0, got {weight!r}."
                )
        self.proposals = [proposal for proposal, _ in components]
        #: dimension of the states (the first component's ``dim``; None if it has none)
        self.dim = getattr(self.proposals[0], "dim", None)
        weights = np.array([float(weight) for _, weight in components])
        self.set_weights(weights)
        self.initial_weights = self.weights.copy()
        self.symmetric = all(proposal.symmetric for proposal in self.proposals)
        self.stats_dtypes = {
            "component": (np.int64, []),
            "scaling": (np.float64, []),
            **self.proposals[0].stats_dtypes,
        }
        for k, proposal in enumerate(self.proposals):
            for name, dtype_shape in proposal.stats_dtypes.items():
                self.stats_dtypes[f"move{k}_{name}"] = dtype_shape
        self.chosen = -1
        #: per row, the component of the last :meth:`propose_many` (None before the first)
        self.chosen_rows: np.ndarray | None = None

    def propose(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Pick a component by weight and draw from it; the forward density is the mixture's.

        The chosen index is kept in :attr:`chosen` (for :meth:`learn` and :meth:`stats`).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The current state (not modified).
        rng : numpy.random.Generator
            Source of the component choice and of the component's draw.

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
            The chosen component's candidate.
        log_q_forward : float
            ``log sum_k w_k q_k(x_new | x)``; NaN if some component has no density at ``x``.

        Raises
        ------
        FloatingPointError
            If the chosen component cannot form its proposal at ``x``.
        """
        weights, log_weights = self.live_weights()
        u = rng.random()
        k = min(int(np.searchsorted(np.cumsum(weights), u, side="right")), len(weights) - 1)
        while weights[k] == 0.0:  # u within rounding of a cumulative sum's end
            k -= 1
        self.chosen = k
        x_new, log_q_chosen = self.proposals[k].propose(x, rng)
        terms = [
            log_weights[j] + (log_q_chosen if j == k else proposal.log_density(x_new, x))
            for j, proposal in enumerate(self.proposals)
            if weights[j] > 0.0
        ]
        return x_new, _mixture_value(terms)

    def live_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """The weights in use now: zero for components not ``in_use``, the rest renormalised.

        Returns
        -------
        weights, log_weights : numpy.ndarray
            :attr:`weights` and :attr:`log_weights` themselves when every component is in use
            (or none is).
        """
        live = np.array([bool(getattr(p, "in_use", True)) for p in self.proposals])
        if live.all() or not live.any():
            return self.weights, self.log_weights
        weights = np.where(live, self.weights, 0.0)
        weights /= weights.sum()
        with np.errstate(divide="ignore"):
            return weights, np.log(weights)

    def propose_many(
        self, x: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """A component per row by weight, each drawing for its rows; the mixture's densities.

        The chosen indices are kept in :attr:`chosen_rows`.

        Parameters
        ----------
        x : numpy.ndarray, shape (n, d)
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (n, d)
        log_q_forward : numpy.ndarray, shape (n,)
            ``log sum_k w_k q_k(x_new[i] | x[i])``; NaN where some component has no density.
        """
        weights, log_weights = self.live_weights()
        picks = np.searchsorted(np.cumsum(weights), rng.random(x.shape[0]), side="right")
        picks = np.minimum(picks, len(weights) - 1)
        for k in range(len(weights) - 1, 0, -1):  # as in :meth:`propose`: never a dead component
            picks = np.where((picks == k) & (weights[k] == 0.0), k - 1, picks)
        x_new = np.empty_like(x)
        terms = np.full((len(self.proposals), x.shape[0]), -np.inf)
        for k, proposal in enumerate(self.proposals):
            rows = picks == k
            if rows.any():
                x_new[rows], terms[k, rows] = proposal.propose_many(x[rows], rng)
        # a chosen component's draw came with its density: only the other rows need one
        for k, proposal in enumerate(self.proposals):
            rows = picks != k
            if rows.any() and weights[k] > 0.0:
                terms[k, rows] = proposal.log_density_many(x_new[rows], x[rows])
        self.chosen_rows = picks
        return x_new, self._mixture_of(terms, log_weights)

    def log_density_many(self, to: np.ndarray, frm: np.ndarray) -> np.ndarray:
        """The mixture log-density for every row; NaN where some component has none.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (n, d)

        Returns
        -------
        numpy.ndarray, shape (n,)
        """
        weights, log_weights = self.live_weights()
        terms = np.full((len(self.proposals), np.shape(to)[0]), -np.inf)
        for k, proposal in enumerate(self.proposals):
            if weights[k] > 0.0:
                terms[k] = proposal.log_density_many(to, frm)
        return self._mixture_of(terms, log_weights)

    def _mixture_of(self, terms: np.ndarray, log_weights: np.ndarray) -> np.ndarray:
        """``log sum_k w_k q_k`` per column of the components' log-densities (NaN if any is)."""
        terms = terms + log_weights[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            total = logsumexp(terms, axis=0)
        return np.where(np.isnan(terms).any(axis=0), np.nan, total)

    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """``log sum_k w_k q_k(to | frm)``; NaN if some component has no density at ``frm``.

        Parameters
        ----------
        to : numpy.ndarray, shape (d,)
            The state moved to.
        frm : numpy.ndarray, shape (d,)
            The state moved from.

        Returns
        -------
        float
            The mixture log-density, or NaN.
        """
        weights, log_weights = self.live_weights()
        terms = [
            log_weights[k] + proposal.log_density(to, frm)
            for k, proposal in enumerate(self.proposals)
            if weights[k] > 0.0
        ]
        return _mixture_value(terms)

    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Every component records the state; the chosen one also learns from the acceptance.

        Parameters
        ----------
        transition : Transition
            The iteration just finished. The component that made the move gets it as it is; the
            others get a copy with ``accept_prob`` None.
        rng : numpy.random.Generator
            Passed to every component's :meth:`~Proposal.learn`.
        """
        for k, proposal in enumerate(self.proposals):
            own = transition if k == self.chosen else _without_acceptance(transition)
            proposal.learn(own, rng)

    def observe(self, states: np.ndarray, iteration: int, rng: np.random.Generator) -> None:
        """Every component learns from the other chains' states.

        Parameters
        ----------
        states : numpy.ndarray, shape (k, d)
        iteration : int
        rng : numpy.random.Generator
        """
        for proposal in self.proposals:
            proposal.observe(states, iteration, rng)

    def covariance(self, x: np.ndarray) -> np.ndarray:
        """Covariance of the mixture's move at ``x``: ``sum_k w_k C_k(x)``.

        Exact when every component is centred at ``x`` (random walks), as here.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        pairs = zip(self.live_weights()[0], self.proposals, strict=True)
        return sum(w * proposal.covariance(x) for w, proposal in pairs if w > 0.0)

    def set_map(self, affine: Any) -> None:
        """Hand the coordinates ``affine`` to every component that works in mapped coordinates.

        Parameters
        ----------
        affine : AffineMap or None
            See :meth:`~pymc_kameleon.core.proposals.GaussianRandomWalk.set_map`.
        """
        for proposal in self.proposals:
            if hasattr(proposal, "set_map"):
                proposal.set_map(affine)

    def end_warmup(self) -> None:
        """Every component ends its warm-up."""
        for proposal in self.proposals:
            proposal.end_warmup()

    def set_weights(self, weights: Sequence[float]) -> None:
        """Use new component weights (positive, finite; normalised here).

        Parameters
        ----------
        weights : sequence of float
            One per component.
        """
        weights = np.asarray(weights, dtype=float)
        if weights.shape != (len(self.proposals),) or not np.all(
            np.isfinite(weights) & (weights > 0)
        ):
            raise ValueError(
                f"MixtureProposal: need {len(self.proposals)} finite weights > 0, got {weights!r}."
            )
        self.weights = weights / weights.sum()
        self.log_weights = np.log(self.weights)

    def reset(self) -> None:
        """Every component forgets what it learned; the weights are the initial ones again."""
        for proposal in self.proposals:
            proposal.reset()
        self.set_weights(self.initial_weights)
        self.chosen = -1
        self.chosen_rows = None

    def stats(self) -> dict[str, Any]:
        """``component``, ``scaling`` and the components' stats (see the class notes).

        Returns
        -------
        dict of str to object
            The keys of :attr:`stats_dtypes`: ``component`` (int), ``scaling`` (float, NaN if
            the first component reports none), ``move<k>_<name>`` for each component's
            entries, and the first component's entries unprefixed.
        """
        stats: dict[str, Any] = {"component": self.chosen, "scaling": math.nan}
        for k, proposal in enumerate(self.proposals):
            for name, value in proposal.stats().items():
                stats[f"move{k}_{name}"] = value
                if k == 0:
                    stats[name] = value
        stats["scaling"] = float(stats["scaling"])
        return stats


def _mixture_value(terms: list[float]) -> float:
    if any(math.isnan(term) for term in terms):
        return math.nan
    return log_sum_exp(terms)


def _without_acceptance(transition: Transition) -> Transition:
    return Transition(
        transition.state, None, transition.iteration, transition.tuning, transition.target_factor
    )
