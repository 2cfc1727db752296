"""An independence proposal: a heavy-tailed Student t around the warm-up's whitening map.

:class:`IndependenceProposal` draws candidates that do not depend on the current state, from a
multivariate t with ``df`` degrees of freedom centred at the map's shift ``c`` with shape
``A A^T`` (the map ``u = A^{-1}(x - c)`` of
:class:`~pymc_kameleon.core.proposals.WhitenedProposal`, whose windows estimate the posterior's
mean and covariance). When the map is close to the posterior's moments and the posterior is
close to elliptical, about half of its candidates are accepted, each a nearly independent draw:
a warm-up of a thousand iterations then leaves a history of hundreds of draws instead of the
dozen a random walk's leaves in nine dimensions (GP classification on Glass). Where the
posterior is far from elliptical (bananas, funnels) its candidates are rejected and cost one
evaluation each, which is why the steps give it a weight that follows its acceptance.

The heavy tails keep the importance ratio ``pi / q`` bounded in more directions than a Gaussian
would: a proposal narrower than the posterior makes an independence sampler stick in the tails.
For the same reason the t's kept after warm-up are defensive mixtures
(:meth:`IndependenceMixing.freeze`): a share of their draws, :data:`DEFENSIVE_WEIGHT` (KMCStep:
0.1 to 0.5 by how far its t falls short, :mod:`~pymc_kameleon.core.proposals.tail_shortfall`),
come from a copy whose scale is :data:`WIDE_SCALE` times larger. A warm-up that has not yet been
far into a long tail (a ridge that runs out to the prior, as ``log K_m`` and ``log V_m`` of a
saturable PK model) leaves moments that are too narrow there, and a chain whose only way into
the tail is a random walk along it goes there too rarely for its MCSEs to notice. Far out, where
both t's densities fall as ``r^-(df + d)``, the wide copy raises the proposal's density by about
``DEFENSIVE_WEIGHT * WIDE_SCALE^df`` (8 at 0.1, 3 and 4), which bounds the importance ratio
``pi / q`` there that much lower; near the centre, where the draws that are accepted come from, it
takes only the weight's share of the moves away from the t. An even mixture had kept the heavy
tails right at the cost of a third to a half of the effective sample size of every ordinary
posterior (benchmarks/notes/lab-notes.md, "The defensive tail at its cheapest"), so KMCStep
keeps it for chains whose t falls short of their warm-up's states. The weight is set at the end
of warm-up from warm-up states alone and the scale is a constant, so after warm-up neither
depends on the chain's state or kept draws: the kept moves are one Metropolis-Hastings kernel
whose proposal density, the mixture's, is the one in its ratio: exact. During warm-up the t's
stay single: wide draws accepted there fed KMCStep's step size and left divergent trajectories
after warm-up on a plain location-scale model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from scipy.special import gammaln

from pymc_kameleon.core.adaptation import RunningMoments
from pymc_kameleon.core.proposals.affine import AffineMap
from pymc_kameleon.core.proposals.protocol import ComparedByState, Proposal, Transition
from pymc_kameleon.core.proposals.tail_shortfall import (
    RecentStates,
    defensive_weight_for,
    tail_shortfall,
)
from pymc_kameleon.core.windowed_covariance import whitening_map

__all__ = [
    "DEFENSIVE_WEIGHT",
    "INDEPENDENCE_BOUND",
    "INDEPENDENCE_STATS",
    "IndependenceMixing",
    "IndependenceProposal",
    "independence_share",
    "independence_stats",
    "student_t_log_density",
]

#: the independence moves' share from the acceptance rate :data:`FULL_WEIGHT_ACCEPTANCE` to
#: :data:`RISE_START_ACCEPTANCE`
BASE_INDEPENDENCE_WEIGHT = 0.5
#: below this acceptance rate the share is in proportion to it (the base share at the rate)
FULL_WEIGHT_ACCEPTANCE = 0.1
#: the largest share of the moves: a fifth stay the other proposal's, which is what moves the
#: chain where the t fits badly (a tail, a curved ridge)
MAX_INDEPENDENCE_WEIGHT = 0.8
#: from this acceptance rate the share rises linearly, to the largest at
#: :data:`TOP_WEIGHT_ACCEPTANCE`. A t accepted this often is close to the posterior; one
#: accepted about 30 % of the time can fit the bulk and miss a funnel's neck (the non-centred
#: eight schools: its chains mixed worse with 0.8 there). At 0.5 a t accepted 65 % of
#: the time on a 3-D ODE gave KameleonStep a min ESS of 637-683 at PyMC's default budget, with
#: this rise 970-1187 (benchmarks/notes/lab-notes.md, "Independence moves where the t fits").
RISE_START_ACCEPTANCE = 0.4
#: the acceptance rate from which the share is the largest
TOP_WEIGHT_ACCEPTANCE = 0.6
#: the smallest share, so that a proposal that starts badly can still show it is good
MIN_INDEPENDENCE_WEIGHT = 0.02
#: the scale of the wide copy of each t (the defensive mixture) relative to its map's
WIDE_SCALE = 3.0
#: the wide copy's weight in each t kept after warm-up: small, because near the posterior's
#: centre a wide draw is a move taken from the t, while far out 0.1 already raises the
#: proposal's density eightfold (see the module docstring and :meth:`IndependenceMixing.freeze`)
DEFENSIVE_WEIGHT = 0.1
#: states kept after warm-up, per dimension, before their moments shape the followed t
MIN_KEPT_PER_DIM = 10
#: the bound of a chain's independence moves: a move is rejected unevaluated where the current
#: state or the candidate lies more than this many whitened units out (in some coordinate) of
#: every map's centre (the wide half's draws reach 20 units in 0.6 % of moves, where an
#: expensive model can take minutes, and a state there is almost never accepted)
INDEPENDENCE_BOUND = 20.0


#: the sampler stats of the independence moves: which kind of draw the iteration's move was
#: (-1 none, 0 from the t's, 1 from their wide copies), the moves' share, the copies' weight
INDEPENDENCE_STATS: dict[str, tuple[Any, list]] = {
    "independence_move": (np.int64, []),
    "independence_share": (np.float64, []),
    "defensive_weight": (np.float64, []),
}


def independence_stats(mixing: IndependenceMixing | None, made: bool) -> dict[str, Any]:
    """The values of :data:`INDEPENDENCE_STATS` for an iteration.

    Parameters
    ----------
    mixing : IndependenceMixing or None
        The chain's independence moves, if it has any in use (share and weight 0 without).
    made : bool
        Whether the iteration's move was an independence move.

    Returns
    -------
    dict
    """
    if mixing is None:
        return {"independence_move": -1, "independence_share": 0.0, "defensive_weight": 0.0}
    proposal = mixing.proposal
    kind = int(bool(proposal.last_wide)) if made else -1
    return {
        "independence_move": kind,
        "independence_share": float(mixing.weight),
        "defensive_weight": proposal.defensive_weight,
    }


def independence_share(rate: float, top: float = MAX_INDEPENDENCE_WEIGHT) -> float:
    """The share of independence moves earned by their acceptance rate.

    In proportion to ``rate`` up to :data:`BASE_INDEPENDENCE_WEIGHT` at
    :data:`FULL_WEIGHT_ACCEPTANCE`, that share up to :data:`RISE_START_ACCEPTANCE`, then rising
    linearly to ``top`` at :data:`TOP_WEIGHT_ACCEPTANCE` and above; never under
    :data:`MIN_INDEPENDENCE_WEIGHT`. A t accepted often gives a nearly independent
    draw per acceptance, where a random walk moves a fraction of the posterior's width, so a t
    that fits well gets most of the iterations.

    Parameters
    ----------
    rate : float
        The independence moves' acceptance rate so far, in [0, 1].
    top : float, default :data:`MAX_INDEPENDENCE_WEIGHT`
        The largest share, at least the base (``BASE_INDEPENDENCE_WEIGHT`` keeps the share there
        at every rate from :data:`FULL_WEIGHT_ACCEPTANCE` on).

    Returns
    -------
    float
    """
    if rate < FULL_WEIGHT_ACCEPTANCE:
        return max(
            MIN_INDEPENDENCE_WEIGHT, BASE_INDEPENDENCE_WEIGHT * rate / FULL_WEIGHT_ACCEPTANCE
        )
    rise = (rate - RISE_START_ACCEPTANCE) / (TOP_WEIGHT_ACCEPTANCE - RISE_START_ACCEPTANCE)
    rise = min(1.0, max(0.0, rise))
    return BASE_INDEPENDENCE_WEIGHT + rise * (top - BASE_INDEPENDENCE_WEIGHT)


def student_t_log_density(u: np.ndarray, df: float) -> np.ndarray:
    """Log-density of the standard multivariate t with ``df`` degrees of freedom, per row.

    Parameters
    ----------
    u : numpy.ndarray, shape (d,) or (n, d)
    df : float
        Degrees of freedom (> 0).

    Returns
    -------
    float or numpy.ndarray of shape (n,)
    """
    u = np.asarray(u, dtype=float)
    d = u.shape[-1]
    norm = gammaln(0.5 * (df + d)) - gammaln(0.5 * df) - 0.5 * d * math.log(df * math.pi)
    return norm - 0.5 * (df + d) * np.log1p(np.sum(u * u, axis=-1) / df)


class IndependenceProposal(Proposal):
    """``q(x' | x) = t_df(x'; c, A A^T)`` with ``(c, A)`` the map handed to :meth:`set_map`.

    With anchors (maps kept whatever :meth:`set_map` hands in, e.g. one at each mode the
    start-up found) ``q`` is a mixture of t's: the anchors' share in proportion to
    ``anchor_weights``, and, once a map is followed, half to the followed map's t.

    Parameters
    ----------
    dim : int
        Dimension of the states.
    df : float, default 4.0
        Degrees of freedom of the t (heavier tails than a Gaussian; variance ``df / (df - 2)``
        times the map's covariance, twice it at 4).
    anchor : AffineMap or sequence of AffineMap, optional
        Maps kept whatever :meth:`set_map` hands in.
    anchor_weights : sequence of float, optional
        Their relative weights (default equal).
    wide_scale : float, default 1.0
        Each map's t is the mixture ``(1 - w) t_df(c, A A^T) + w t_df(c, s^2 A A^T)`` with
        ``s = wide_scale`` and ``w = wide_weight``; 1 gives the single t (see :meth:`widen`).
    wide_weight : float, default 0.5
        ``w`` above, in (0, 1).
    bound : float, default inf
        :meth:`propose` gives no candidate (NaN: the step rejects the move unevaluated) where the
        current state or the candidate is outside the region within ``bound`` whitened units, in
        every coordinate, of some map's centre. The rule treats a move and its reverse alike
        (both states must be inside), so the chain stays exact; the Hastings terms are the
        untruncated densities. :meth:`propose_many` (a population's moves) is not bounded.

    Attributes
    ----------
    anchors : tuple of AffineMap
        The anchors.
    followed : AffineMap or None
        The last map handed in by :meth:`set_map`.
    last_wide : bool or None
        Whether the last :meth:`propose` drew from the wide copies (None before one).
    """

    symmetric = False
    stats_dtypes: ClassVar[dict[str, tuple[Any, list]]] = {}

    def __init__(
        self,
        dim: int,
        *,
        df: float = 4.0,
        anchor: AffineMap | Sequence[AffineMap] | None = None,
        anchor_weights: Sequence[float] | None = None,
        wide_scale: float = 1.0,
        wide_weight: float = 0.5,
        bound: float = math.inf,
    ) -> None:
        if not (math.isfinite(df) and df > 0.0):
            raise ValueError(f"IndependenceProposal: `df` must be finite and > 0, got {df!r}.")
        self.widen(wide_scale, wide_weight)
        self.last_wide: bool | None = None
        self.dim = int(dim)
        self.df = float(df)
        if anchor is None:
            self.anchors: tuple[AffineMap, ...] = ()
        elif isinstance(anchor, AffineMap):
            self.anchors = (anchor,)
        else:
            self.anchors = tuple(anchor)
        weights = np.ones(len(self.anchors)) if anchor_weights is None else anchor_weights
        weights = np.asarray(weights, dtype=float)
        if weights.shape != (len(self.anchors),) or not np.all(weights > 0.0):
            raise ValueError(
                "IndependenceProposal: `anchor_weights` must be positive, one per anchor, got "
                f"{anchor_weights!r} for {len(self.anchors)} anchors."
            )
        #: the anchors' relative weights (sum 1)
        self.anchor_weights = weights / weights.sum() if weights.size else weights
        self.followed: AffineMap | None = None
        self.bound = float(bound)

    def inside(self, x: np.ndarray) -> bool:
        """Whether ``x`` is within :attr:`bound` whitened units of some map's centre.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        bool
        """
        if self.bound == math.inf:
            return True
        row = np.asarray(x, dtype=float)[None, :]
        return any(float(np.max(np.abs(m.to_kernel(row)))) <= self.bound for m in self.maps)

    def widen(self, wide_scale: float, wide_weight: float = 0.5) -> None:
        """Make each map's t a mixture with a copy ``wide_scale`` times as wide.

        Parameters
        ----------
        wide_scale : float
            At least 1 (1: the single t).
        wide_weight : float, default 0.5
            The wide copy's weight, in (0, 1).
        """
        if not (math.isfinite(wide_scale) and wide_scale >= 1.0):
            raise ValueError(
                f"IndependenceProposal: `wide_scale` must be finite and >= 1, got {wide_scale!r}."
            )
        if not 0.0 < wide_weight < 1.0:
            raise ValueError(
                f"IndependenceProposal: `wide_weight` must be in (0, 1), got {wide_weight!r}."
            )
        self.wide_scale = float(wide_scale)
        self.wide_weight = float(wide_weight)

    @property
    def defensive_weight(self) -> float:
        """The wide copies' weight in the mixture (0 while the t's are single)."""
        return 0.0 if self.wide_scale == 1.0 else self.wide_weight

    @property
    def anchor(self) -> AffineMap | None:
        """The first anchor (None without one)."""
        return self.anchors[0] if self.anchors else None

    @property
    def maps(self) -> tuple[AffineMap, ...]:
        """The maps whose t's are mixed: the anchors, then the followed map."""
        return self.anchors + (() if self.followed is None else (self.followed,))

    @property
    def weights(self) -> np.ndarray:
        """The mixture weight of each of :attr:`maps` (the followed map's is 1/2)."""
        if self.followed is None:
            return self.anchor_weights.copy()
        if not self.anchors:
            return np.ones(1)
        return np.append(0.5 * self.anchor_weights, 0.5)

    def set_map(self, affine: AffineMap | None) -> None:
        """Centre and shape a t by ``affine`` from now on (mixed with the anchors', if any).

        Parameters
        ----------
        affine : AffineMap or None
        """
        self.followed = affine

    def _draw(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``n`` draws of the mixture, and which of them come from the wide copies."""
        maps = self.maps
        if not maps:
            raise FloatingPointError(
                "IndependenceProposal has no centre and shape yet: call set_map first."
            )
        z = rng.standard_normal((n, self.dim))
        u = z / np.sqrt(rng.chisquare(self.df, size=(n, 1)) / self.df)
        wide = np.zeros(n, dtype=bool)
        if self.wide_scale != 1.0:
            wide = rng.random(n) < self.wide_weight
            u[wide] *= self.wide_scale
        if len(self.anchors) > 1:
            which = rng.choice(len(maps), size=n, p=self.weights)
        elif len(maps) > 1:  # one anchor and the followed map: equal weights
            which = rng.integers(len(maps), size=n)
        else:
            which = np.zeros(n, dtype=int)
        x = np.empty_like(u)
        for k, affine in enumerate(maps):
            x[which == k] = affine.to_states(u[which == k])
        return x, wide

    def _log_q(self, x: np.ndarray) -> np.ndarray:
        """Log-density of the mixture of the maps' t's at each row of ``x`` (``(n, d)``)."""
        terms = np.array([self._log_t(m.to_kernel(x)) - m.log_det for m in self.maps])
        weights = self.weights
        if np.all(weights == weights[0]):  # (equal weights: the sum as it always was)
            return np.logaddexp.reduce(terms, axis=0) - math.log(len(terms))
        return np.logaddexp.reduce(terms + np.log(weights)[:, None], axis=0)

    def _log_t(self, u: np.ndarray) -> np.ndarray:
        """Log-density of the standard t (or its mixture with the wide copy) at rows ``u``."""
        narrow = student_t_log_density(u, self.df)
        if self.wide_scale == 1.0:
            return narrow
        s, w = self.wide_scale, self.wide_weight
        wide = student_t_log_density(u / s, self.df) - self.dim * math.log(s)
        return np.logaddexp(narrow + math.log1p(-w), wide + math.log(w))

    def propose(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Draw a candidate from the t, whatever ``x`` is.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The current state (only its dtype is used).
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
            NaN where ``x`` or the draw is outside :attr:`bound` (no candidate).
        log_q_forward : float
            NaN with no candidate.

        Raises
        ------
        FloatingPointError
            Before :meth:`set_map`.
        """
        x_new, wide = self._draw(1, rng)
        self.last_wide = bool(wide[0])
        if not (self.inside(x_new[0]) and self.inside(x)):  # (after the draw: same draws)
            return np.full_like(np.asarray(x), np.nan), math.nan
        return x_new[0].astype(np.asarray(x).dtype, copy=False), float(self._log_q(x_new)[0])

    def propose_many(
        self, x: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """A candidate for each row of ``x``, all from the same t.

        Parameters
        ----------
        x : numpy.ndarray, shape (n, d)
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (n, d)
        log_q_forward : numpy.ndarray, shape (n,)
        """
        x_new, _ = self._draw(x.shape[0], rng)
        return x_new.astype(x.dtype, copy=False), self._log_q(x_new)

    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """``log t_df(to; c, A A^T)`` (``frm`` is unused); NaN without a map.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """
        if not self.maps:
            return math.nan
        return float(self._log_q(np.asarray(to, dtype=float)[None, :])[0])

    def log_density_many(self, to: np.ndarray, frm: np.ndarray) -> np.ndarray:
        """:meth:`log_density` for every row.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (n, d)

        Returns
        -------
        numpy.ndarray, shape (n,)
        """
        if not self.maps:
            return np.full(to.shape[0], math.nan)
        return self._log_q(np.asarray(to, dtype=float))

    def covariance(self, x: np.ndarray) -> np.ndarray:
        """The mixture's covariance (infinite entries for ``df <= 2``).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            Unused.

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        maps, weights = self.maps, self.weights
        if self.df <= 2.0:
            return np.full((self.dim, self.dim), np.inf)
        centre = np.average([m.shift for m in maps], axis=0, weights=weights)
        w = self.defensive_weight
        spread = self.df / (self.df - 2.0) * (1.0 - w + w * self.wide_scale**2)
        parts = [
            spread * m.matrix @ m.matrix.T + np.outer(m.shift - centre, m.shift - centre)
            for m in maps
        ]
        return np.average(parts, axis=0, weights=weights)

    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Nothing to learn: the map is handed in by :meth:`set_map`.

        Parameters
        ----------
        transition : Transition
        rng : numpy.random.Generator
        """

    def end_warmup(self) -> None:
        """Nothing changes at the end of warm-up."""

    def reset(self) -> None:
        """Forget the followed map (the anchor stays)."""
        self.followed = None

    def stats(self) -> dict[str, Any]:
        """No stats.

        Returns
        -------
        dict
        """
        return {}


class IndependenceMixing(ComparedByState):
    """Mixes independence moves into another proposal's, with a share that follows acceptance.

    Each iteration is an independence move with probability ``w``, else a move of the other
    proposal, and its Hastings ratio is that of the move made (a mixture of Metropolis–Hastings
    kernels: each leaves the target invariant, so their mixture does, even when the other
    proposal moves one coordinate at a time and has no density on the whole space). The caller
    must ask :meth:`log_density` for the reverse move of the last :meth:`propose`. The weight
    ``w`` follows the independence moves' acceptance rate ``r`` (half an acceptance in one try
    as prior), by :func:`independence_share`. It is meant for warm-up, where a kernel that
    changes with the chain's past is allowed; :meth:`freeze` fixes it for the draws after.

    Parameters
    ----------
    proposal : IndependenceProposal
    defensive_weight : float, optional
        The wide copies' base weight from :meth:`freeze` on (default :data:`DEFENSIVE_WEIGHT`,
        read when the mixing is made), raised up to ``top_defensive_weight`` where the t falls
        short of the warm-up's late states (:mod:`~pymc_kameleon.core.proposals.tail_shortfall`).
    max_weight : float, optional
        The largest share (default :data:`MAX_INDEPENDENCE_WEIGHT`, read when the mixing is
        made; see :func:`independence_share`).
    top_defensive_weight : float, optional
        The wide copies' weight where the t falls short of the warm-up's latest states by
        :data:`~pymc_kameleon.core.proposals.tail_shortfall.SHORTFALL_FULL` or more (default:
        the base weight, which then never rises).
    low_defensive_weight : float, optional
        The wide copies' weight where the t covers the warm-up's latest states about as evenly
        as a Gaussian's t does (a shortfall of at most
        :data:`~pymc_kameleon.core.proposals.tail_shortfall.SHORTFALL_LOW`; default: the base
        weight, no dip). Used only where the weight can rise.

    Attributes
    ----------
    tries, accepted : int, float
        Independence moves made, and the sum of their acceptance probabilities.
    chosen : bool
        Whether the last move was an independence move.
    shortfall : float
        What :meth:`freeze` measured (NaN before, with too few warm-up states, or when the
        weight cannot rise).
    """

    def __init__(
        self,
        proposal: IndependenceProposal,
        defensive_weight: float | None = None,
        max_weight: float | None = None,
        top_defensive_weight: float | None = None,
        low_defensive_weight: float | None = None,
    ) -> None:
        self.proposal = proposal
        self.base_defensive_weight = (
            DEFENSIVE_WEIGHT if defensive_weight is None else defensive_weight
        )
        self.top_defensive_weight = (
            self.base_defensive_weight if top_defensive_weight is None else top_defensive_weight
        )
        self.low_defensive_weight = (
            self.base_defensive_weight if low_defensive_weight is None else low_defensive_weight
        )
        self.defensive_weight = self.base_defensive_weight
        self.max_weight = MAX_INDEPENDENCE_WEIGHT if max_weight is None else max_weight
        if not BASE_INDEPENDENCE_WEIGHT <= self.max_weight < 1.0:
            raise ValueError(
                f"max_weight must be in [{BASE_INDEPENDENCE_WEIGHT}, 1), got {self.max_weight}"
            )
        self.tries = 0
        self.accepted = 0.0
        self.chosen = False
        #: the share fixed by :meth:`freeze` (None while it follows the acceptance)
        self.frozen_weight: float | None = None
        #: moments of the states kept after warm-up (see :meth:`follow_kept`)
        self.kept = RunningMoments(proposal.dim)
        #: the latest warm-up states and their log-densities, for :meth:`freeze`
        self.recent = RecentStates(proposal.dim)
        self.shortfall = math.nan

    def freeze(self) -> None:
        """Keep the current share from now on (a fixed kernel, for the draws after warm-up), and
        mix each t with its copy :data:`WIDE_SCALE` times as wide, at weight
        :attr:`defensive_weight` (see the module docstring): the base weight, raised by how far
        the t falls short of the warm-up's latest states
        (:func:`~pymc_kameleon.core.proposals.tail_shortfall.defensive_weight_for`). Both are
        set here from warm-up states alone and stay fixed after."""
        self.frozen_weight = self.weight
        if self.ready and self.can_raise_weight:
            states, log_densities = self.recent.arrays()
            if len(states):
                self.shortfall = tail_shortfall(
                    log_densities, self.proposal.log_density_many(states, states)
                )
        self.defensive_weight = defensive_weight_for(
            self.shortfall,
            self.base_defensive_weight,
            self.top_defensive_weight,
            self.low_defensive_weight,
        )
        self.proposal.widen(WIDE_SCALE, self.defensive_weight)

    def follow_kept(self, x: np.ndarray, refresh: bool) -> bool:
        """Count a kept state; with ``refresh``, shape the followed t by the kept states.

        For vanishing adaptation after warm-up: the t that followed the warm-up's last window,
        estimated from a few hundred states at most, follows the mean and covariance of every
        state kept since, once there are :data:`MIN_KEPT_PER_DIM` per dimension and the chain
        has moved. The anchor's t stays, so a poor estimate cannot take the proposal away.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The state kept at this iteration.
        refresh : bool
            Whether the followed t may change at this iteration.

        Returns
        -------
        bool
            Whether it changed.
        """
        self.kept.update(np.asarray(x, dtype=np.float64))
        enough = self.kept.count >= MIN_KEPT_PER_DIM * self.proposal.dim
        if not (refresh and enough and self.kept.has_spread()):
            return False
        try:
            self.proposal.set_map(whitening_map(self.kept.mean, self.kept.covariance()))
        except ValueError:  # (LinAlgError is one) a singular covariance keeps the old t
            return False
        return True

    @property
    def can_raise_weight(self) -> bool:
        """Whether :meth:`freeze` may raise the wide copies' weight (else nothing is recorded
        or measured for it)."""
        return self.top_defensive_weight > self.base_defensive_weight

    @property
    def ready(self) -> bool:
        """Whether the t's have a centre (an anchor, or a window's moments to follow)."""
        return bool(self.proposal.maps)

    @property
    def weight(self) -> float:
        """The current share of independence moves."""
        if self.frozen_weight is not None:
            return self.frozen_weight
        return independence_share((self.accepted + 0.5) / (self.tries + 1.0), self.max_weight)

    def propose(
        self, other: Proposal, x: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, float]:
        """An independence move with probability :attr:`weight`, else a move of ``other``.

        Parameters
        ----------
        other : Proposal
            The proposal the chain would use otherwise.
        x : numpy.ndarray, shape (d,)
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
        log_q_forward : float
            The forward log-density of the move made.
        """
        self.chosen = bool(rng.random() < self.weight)
        return (self.proposal if self.chosen else other).propose(x, rng)

    def log_density(self, other: Proposal, to: np.ndarray, frm: np.ndarray) -> float:
        """``log q(to | frm)`` of the kind of move :meth:`propose` made last.

        Parameters
        ----------
        other : Proposal
        to, frm : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """
        return (self.proposal if self.chosen else other).log_density(to, frm)

    def symmetric(self, other: Proposal) -> bool:
        """Whether the last move's proposal is symmetric (an independence move's is not).

        Parameters
        ----------
        other : Proposal

        Returns
        -------
        bool
        """
        return not self.chosen and other.symmetric

    def learned(self, transition: Transition) -> Transition:
        """Count an independence move's acceptance; what the other proposal should learn.

        Parameters
        ----------
        transition : Transition

        Returns
        -------
        Transition
            ``transition`` itself after the other proposal's move; after an independence move,
            a copy without the acceptance (the other proposal records the state only).
        """
        if transition.tuning and self.frozen_weight is None and self.can_raise_weight:
            self.recent.add(transition.state, transition.log_density)
        if not self.chosen or transition.accept_prob is None:
            return transition
        if self.frozen_weight is not None:
            return transition.without_acceptance()
        self.tries += 1
        self.accepted += min(1.0, transition.accept_prob / transition.target_factor)
        return transition.without_acceptance()
