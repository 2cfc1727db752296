"""A warm-up that finds the posterior's scales and correlations before a proposal relies on them.

:class:`WhitenedProposal` wraps a main proposal that can work in mapped coordinates (any
:class:`~pymc_kameleon.core.proposals.GaussianRandomWalk`, or a
:class:`~pymc_kameleon.core.proposals.MixtureProposal` of them) and gives it coordinates in which
the posterior is roughly standard normal, learned from the chain itself:

1. **start**: a :class:`~pymc_kameleon.core.proposals.coordinate_walk.CoordinateRandomWalk`
   learns one scale per coordinate from one-coordinate moves, so that a chain whose proposals
   start a thousand times too long or too short in some direction finds its size; at the end
   the main proposal gets the per-coordinate standardisation these scales imply;
2. **windows** of doubling length: the main proposal moves the chain; each window's states give
   a covariance estimate (:class:`~pymc_kameleon.core.windowed_covariance.WindowedCovariance`,
   shrunk toward its diagonal) from that window only, and the main proposal is re-expressed in
   the coordinates it whitens (:func:`~pymc_kameleon.core.windowed_covariance.whitening_map`).
   The stuck start is forgotten; the main proposal learns only from states after the start.
   No direction may shrink by more than a factor 2 in sd per window (:func:`limit_shrinkage`),
   which keeps a direction the chain explored badly in one window from collapsing the map;
3. **settle**: the last stretch of warm-up keeps the final map so that the scales adapt to it;
4. **frozen** after warm-up: the map no longer changes, so the kept draws come from one fixed
   Metropolis–Hastings kernel (the map's Jacobian cancels in the Hastings ratio but is included
   in every log-density anyway).

With the number of warm-up iterations known (:meth:`WhitenedProposal.plan_warmup`; the steps
pass PyMC's ``tune``) the windows are fitted into it (:func:`planned_window_stops`); without it
they keep doubling until warm-up ends and an unfinished last window is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pymc_kameleon.core.coordinate_scales import gaussian_coordinate_scale
from pymc_kameleon.core.proposals.affine import AffineMap, diagonal_map
from pymc_kameleon.core.proposals.coordinate_walk import CoordinateRandomWalk
from pymc_kameleon.core.proposals.independence import (
    INDEPENDENCE_BOUND,
    INDEPENDENCE_STATS,
    IndependenceMixing,
    IndependenceProposal,
    independence_stats,
)
from pymc_kameleon.core.proposals.protocol import Proposal, Transition
from pymc_kameleon.core.windowed_covariance import WindowedCovariance, whitening_map

__all__ = [
    "MIN_VARIANCE_RATIO",
    "WARMUP_STAGES",
    "WhitenedProposal",
    "default_first_window",
    "default_start_length",
    "limit_shrinkage",
    "planned_window_stops",
    "settle_length",
    "shortest_warmup",
]

#: the ``warmup_stage`` stat's values
WARMUP_STAGES = {"start": 0, "windows": 1, "settle": 2, "frozen": 3}


def default_start_length(dim: int) -> int:
    """Iterations of the per-coordinate start: ``max(100, 25 * dim)``.

    About 25 one-coordinate moves per coordinate bring a scale that is 1000 times off to within a
    few times its right value (see :mod:`pymc_kameleon.core.coordinate_scales`); the windows do
    the rest.

    Parameters
    ----------
    dim : int

    Returns
    -------
    int
    """
    return max(100, 25 * int(dim))


def default_first_window(dim: int) -> int:
    """Length of the first covariance window: ``max(50, 10 * dim)`` iterations.

    Parameters
    ----------
    dim : int

    Returns
    -------
    int
    """
    return max(50, 10 * int(dim))


def settle_length(warmup_length: int) -> int:
    """Iterations at the end of warm-up that keep the final map: ``max(50, warmup_length // 10)``.

    Parameters
    ----------
    warmup_length : int

    Returns
    -------
    int
    """
    return max(50, int(warmup_length) // 10)


def shortest_warmup(dim: int, span: int | None = None) -> int:
    """Fewest warm-up iterations whose plan holds ``span`` iterations of learning.

    The plan (:meth:`WhitenedProposal.plan_warmup`) gives the per-coordinate start
    :func:`default_start_length` iterations, but at most a quarter of warm-up, and keeps the
    last :func:`settle_length` for settling; what lies between is where the covariance windows
    (and a Hamiltonian step's surrogate) learn. Below this length there is less of it than one
    first window: the kernel sampled after warm-up has barely adapted.

    Parameters
    ----------
    dim : int
    span : int, optional
        Iterations needed between the start and the settling stretch; default
        :func:`default_first_window`.

    Returns
    -------
    int
    """
    start = default_start_length(dim)
    need = default_first_window(dim) if span is None else int(span)
    length = need
    # (not a closed form: the integer divisions make the span grow unevenly with the length)
    while length - settle_length(length) - min(start, length // 4) < need:
        length += 1
    return length


#: smallest factor by which one window may shrink the variance of any direction of the map
MIN_VARIANCE_RATIO = 0.25


def limit_shrinkage(cov: np.ndarray, affine: AffineMap) -> np.ndarray:
    """A window's covariance, with no direction shrunk below ``MIN_VARIANCE_RATIO`` of the map's.

    A window in which the chain hardly moved along some direction estimates a small variance
    there; whitening by it shortens the moves along that direction, the next window's spread is
    smaller still, and the map can collapse until the chain is confined to a slab of the
    posterior. In the current coordinates ``u = A^{-1}(x - c)`` the estimate is ``A^{-1} C
    A^{-T}``, about the identity for a good map; its eigenvalues are raised to at least
    ``MIN_VARIANCE_RATIO``, so a direction's sd shrinks by at most a factor 2 per window, while
    growth is not limited (the per-coordinate start finds the smallest, conditional scales, and
    the windows mostly have to widen them).

    Parameters
    ----------
    cov : numpy.ndarray, shape (d, d)
        The window's covariance estimate (symmetric positive definite).
    affine : AffineMap
        The current map (its ``matrix`` ``A`` and ``inverse`` ``A^{-1}`` are used).

    Returns
    -------
    numpy.ndarray, shape (d, d)
    """
    in_map = affine.inverse @ cov @ affine.inverse.T
    values, vectors = np.linalg.eigh(0.5 * (in_map + in_map.T))
    limited = (vectors * np.maximum(values, MIN_VARIANCE_RATIO)) @ vectors.T
    out = affine.matrix @ limited @ affine.matrix.T
    return 0.5 * (out + out.T)


def planned_window_stops(start: int, warmup_length: int, first_window: int) -> tuple[int, ...]:
    """Ends of doubling windows from ``start`` that leave a settling stretch before the end.

    The windows cover ``[start, warmup_length - settle)`` with
    ``settle = max(50, warmup_length // 10)``; they have lengths ``first_window``,
    ``2 first_window``, ... and the last is stretched to the end of the span when what would be
    left after it is shorter than twice its length. A span shorter than ``first_window`` gives one
    window if it holds at least half of ``first_window`` states, else none.

    Parameters
    ----------
    start : int
        First iteration of the first window.
    warmup_length : int
        Number of warm-up iterations.
    first_window : int
        Nominal length of the first window.

    Returns
    -------
    tuple of int
        The iteration count at which each window closes, increasing.
    """
    stop = warmup_length - settle_length(warmup_length)
    if stop - start < first_window:
        return (stop,) if stop - start >= first_window // 2 else ()
    stops, length, at = [], first_window, start
    while at < stop:
        end = at + length
        if stop - end < 2 * length:  # the next, doubled window would not fit: take the rest
            end = stop
        stops.append(end)
        at, length = end, 2 * length
    return tuple(stops)


class WhitenedProposal(Proposal):
    """Per-coordinate start, then a main proposal in coordinates whitened window by window.

    Parameters
    ----------
    main : Proposal
        The proposal used after the start; it must have ``set_map(affine)`` (Gaussian random
        walks and mixtures of them do) and the attribute ``dim``.
    start_length : int, optional
        Iterations of the per-coordinate start (default :func:`default_start_length`).
    first_window : int, optional
        Length of the first covariance window (default :func:`default_first_window`); each next
        one is twice as long.
    shrinkage : float, default 0.0
        Weight, in states, of the diagonal in each window's estimate (see
        :class:`~pymc_kameleon.core.windowed_covariance.WindowedCovariance`). 0 by default:
        every window holds at least ten states per dimension, and any shrinkage toward the
        diagonal inflates the narrow directions of a strongly correlated posterior (with a
        correlation of 0.99999, a weight of 0.5 % makes the narrow sd seven times too large).
        ``initial_states`` with fewer than ``10 * dim`` rows are shrunk with a weight of 5.
    initial_states : numpy.ndarray of shape (n, dim), optional
        States that already cover the posterior (e.g. a pilot run): the start is skipped and the
        main proposal begins in the coordinates that whiten them.
    learn_map : bool, default True
        Whether the windows re-estimate the map. False needs ``initial_states``: their map is
        then kept for the whole run.

    Attributes
    ----------
    main : Proposal
    start : CoordinateRandomWalk
    affine : AffineMap or None
        The coordinates the main proposal works in (None during the start).
    n_windows : int
        Covariance estimates used so far.
    """

    def __init__(
        self,
        main: Proposal,
        *,
        start_length: int | None = None,
        first_window: int | None = None,
        shrinkage: float = 0.0,
        initial_states: np.ndarray | None = None,
        learn_map: bool = True,
    ) -> None:
        if not learn_map and initial_states is None:
            raise ValueError(
                "WhitenedProposal: learn_map=False keeps the map of `initial_states`, but none "
                "were given; pass initial_states or leave learn_map=True."
            )
        if not hasattr(main, "set_map"):
            raise TypeError(
                f"WhitenedProposal: the main proposal {type(main).__name__} cannot work in "
                "mapped coordinates (it has no set_map); use a GaussianRandomWalk or a "
                "MixtureProposal of them."
            )
        self.main = main
        self.dim = int(main.dim)
        self.start = CoordinateRandomWalk(self.dim)
        self.start_length = default_start_length(self.dim) if start_length is None else start_length
        self.first_window = default_first_window(self.dim) if first_window is None else first_window
        self.windows = WindowedCovariance(self.dim, shrinkage=shrinkage)
        self.initial_states = initial_states
        self.learn_map = bool(learn_map)
        self.warmup_length: int | None = None
        self.stats_dtypes = {
            "warmup_stage": (np.int64, []),
            "n_windows": (np.int64, []),
            **INDEPENDENCE_STATS,
            **main.stats_dtypes,
        }
        self.reset()

    # ----------------------------------------------------------------------------------------
    @property
    def symmetric(self) -> bool:  # type: ignore[override]
        """Whether the proposal in use is symmetric."""
        mixing = self.mixing
        return self.active.symmetric if mixing is None else mixing.symmetric(self.active)

    @property
    def mixing(self) -> IndependenceMixing | None:
        """The independence moves mixed in (None when there are none, or after warm-up).

        Without an anchor they wait for the first window's moments (a t needs a centre).
        """
        mixing = self.independence
        if mixing is None or not mixing.ready:
            return None
        return None if self.frozen and not self.keep_independence else mixing

    @property
    def active(self) -> Proposal:
        """The proposal that makes the moves now: ``start`` or ``main``."""
        return self.start if self.in_start else self.main

    def plan_warmup(
        self, warmup_length: int | None, rng: np.random.Generator | None = None
    ) -> None:
        """Fit the stages into a known number of warm-up iterations, and reset (``rng`` unused).

        With ``warmup_length`` the start takes at most a quarter of it, the windows end at
        ``warmup_length - settle`` with ``settle = max(50, warmup_length // 10)`` (the last one
        stretched to reach it), and the last stretch only lets the scales settle to the final
        map. With None the windows double until warm-up ends and an unfinished last window is
        dropped (so the scales never meet a map they were not tuned to).

        Parameters
        ----------
        warmup_length : int or None
            The number of warm-up iterations (PyMC's ``tune``), if known.
        rng : numpy.random.Generator, optional
            Unused (the protocol's).
        """
        self.warmup_length = None if warmup_length is None else int(warmup_length)
        self.reset()

    def reset(self) -> None:
        """Back to the start stage (or to the map of ``initial_states``), nothing learned."""
        self.start.reset()
        self.main.reset()
        self.windows.reset()
        self.independence: IndependenceMixing | None = None
        self.keep_independence = False
        self.affine = None
        self.n_windows = 0
        self.frozen = False
        self.in_start = self.initial_states is None
        start = 0 if self.initial_states is not None else self.start_length
        if self.warmup_length is not None and self.initial_states is None:
            start = min(start, self.warmup_length // 4)
        self.start_stop = start
        if not self.learn_map:
            self.planned_stops: tuple[int, ...] | None = ()
        elif self.warmup_length is None:
            self.planned_stops = None
        else:
            self.planned_stops = planned_window_stops(start, self.warmup_length, self.first_window)
        self.window_length = self.first_window
        self.window_stop = self._next_stop(start)
        if self.initial_states is not None:
            self._use_initial_map()

    def _next_stop(self, after: int) -> int | None:
        """End of the window that starts at ``after`` (None: no more windows)."""
        if self.planned_stops is None:
            return after + self.window_length
        later = [stop for stop in self.planned_stops if stop > after]
        return later[0] if later else None

    def start_from(self, mean: np.ndarray, covariance: np.ndarray) -> None:
        """Skip the per-coordinate start: begin in the coordinates that whiten ``covariance``.

        For a chain whose start-up found the posterior's shape (the Gaussian at a mode, see
        :mod:`pymc_kameleon.core.start_up`): the main proposal works in those coordinates from
        the next iteration, and the windows (from here, as if the start had ended) refine them.

        Parameters
        ----------
        mean : numpy.ndarray, shape (d,)
        covariance : numpy.ndarray, shape (d, d)
            Symmetric positive definite.
        """
        self.in_start = False
        self.start_stop = 0
        self.windows.reset()
        if self.learn_map and self.warmup_length is not None:
            self.planned_stops = planned_window_stops(0, self.warmup_length, self.first_window)
        self.window_length = self.first_window
        self.window_stop = self._next_stop(0) if self.learn_map else None
        self._use_map(whitening_map(mean, covariance))

    def mix_independence(
        self,
        anchors: Sequence[tuple[np.ndarray, np.ndarray, float]],
        keep_after_warmup: bool = False,
        defensive_weight: float | None = None,
        max_weight: float | None = None,
        top_defensive_weight: float | None = None,
        low_defensive_weight: float | None = None,
    ) -> None:
        """Mix moves of Student t's at modes into every move.

        For a chain whose start-up found modes and their curvatures, Gaussian or not: the t's
        (:class:`~pymc_kameleon.core.proposals.independence.IndependenceProposal`), one at each
        mode, propose nearly independent draws wherever the posterior is roughly elliptical
        about its modes, so that the warm-up's history covers the posterior and the chain can
        jump between separate modes; their share follows their acceptance
        (:class:`~pymc_kameleon.core.proposals.independence.IndependenceMixing`). Each window
        adds its moments' t to the modes' (a defensive mixture: the modes' t's keep covering
        the posterior if a window's estimate is poor). Without modes (a start-up that stopped
        at a saddle, or ran out of budget) the moves begin at the first window's end, about its
        moments, and follow each window's: the random walk alone leaves a 10-D warm-up of a
        thousand iterations a history too short to learn from (benchmarks/notes/lab-notes.md,
        "Independence moves without a mode").

        Parameters
        ----------
        anchors : sequence of (mean, covariance, weight)
            Each mode's centre (shape (d,)), shape (symmetric positive definite, (d, d)) and
            relative weight (> 0); empty: the windows' moments only.
        keep_after_warmup : bool, default False
            Keep the independence moves after warm-up, with their share and t's fixed there;
            otherwise they stop with warm-up.
        defensive_weight : float, optional
            The weight of the t's wide copies after warm-up (default
            :data:`~pymc_kameleon.core.proposals.independence.DEFENSIVE_WEIGHT`).
        max_weight : float, optional
            The largest share of independence moves (default
            :data:`~pymc_kameleon.core.proposals.independence.MAX_INDEPENDENCE_WEIGHT`).
        top_defensive_weight : float, optional
            The wide copies' weight where the t falls short of the warm-up's states (default:
            ``defensive_weight``, no rise; see
            :mod:`~pymc_kameleon.core.proposals.tail_shortfall`).
        low_defensive_weight : float, optional
            The wide copies' weight where the t covers the warm-up's states about as evenly as a
            Gaussian's t does (default: ``defensive_weight``, no dip; used only with a rise).
        """
        maps = [whitening_map(mean, covariance) for mean, covariance, _ in anchors]
        weights = [weight for _, _, weight in anchors]
        proposal = IndependenceProposal(
            self.dim, anchor=maps, anchor_weights=weights, bound=INDEPENDENCE_BOUND
        )
        self.independence = IndependenceMixing(
            proposal, defensive_weight, max_weight, top_defensive_weight, low_defensive_weight
        )
        self.keep_independence = bool(keep_after_warmup)

    def _use_initial_map(self) -> None:
        states = np.asarray(self.initial_states, dtype=np.float64)
        few = states.shape[0] < 10 * self.dim
        shrinkage = max(self.windows.shrinkage, 5.0) if few else self.windows.shrinkage
        pilot = WindowedCovariance(self.dim, shrinkage=shrinkage, min_states=2)
        pilot.update_batch(states)
        mean, cov = pilot.mean, pilot.close()
        if cov is not None:
            self._use_map(whitening_map(mean, cov))

    def _use_map(self, affine: AffineMap) -> None:
        self.affine = affine
        self.main.set_map(affine)

    # ----------------------------------------------------------------------------------------
    def propose(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Draw from the proposal in use; see :meth:`Proposal.propose`.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
        log_q_forward : float
        """
        if self.mixing is not None:
            return self.mixing.propose(self.active, x, rng)
        return self.active.propose(x, rng)

    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """``log q(to | frm)`` of the proposal in use.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """
        if self.mixing is not None:
            return self.mixing.log_density(self.active, to, frm)
        return self.active.log_density(to, frm)

    def covariance(self, x: np.ndarray) -> np.ndarray:
        """Covariance of the move the proposal in use makes from ``x``.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        return self.active.covariance(x)

    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Learn from the iteration: scales in the start, windows and the main proposal after.

        Parameters
        ----------
        transition : Transition
        rng : numpy.random.Generator
        """
        t = transition.iteration
        if self.mixing is not None:
            transition = self.mixing.learned(transition)
        if self.in_start:
            self.start.learn(transition, rng)
            if t + 1 >= self.start_stop and transition.tuning and not self.frozen:
                self._end_start(transition.state, t)
            return
        self.main.learn(transition, rng)
        if self.frozen or not transition.tuning or self.window_stop is None:
            return
        self.windows.update(np.asarray(transition.state, dtype=np.float64))
        if t + 1 >= self.window_stop:
            self._close_window()
            self.window_length *= 2
            self.window_stop = self._next_stop(t + 1)

    def observe(self, states: np.ndarray, iteration: int, rng: np.random.Generator) -> None:
        """Other chains' states: into the current window, and to the main proposal.

        During the per-coordinate start they are ignored (each chain finds its own scales, and
        the other chains may still be stuck at their starts).

        Parameters
        ----------
        states : numpy.ndarray, shape (k, d)
        iteration : int
        rng : numpy.random.Generator
        """
        if self.in_start or self.frozen:
            return
        if self.window_stop is not None:
            for x in states:
                self.windows.update(np.asarray(x, dtype=np.float64))
        self.main.observe(states, iteration, rng)

    def _end_start(self, x: np.ndarray, t: int) -> None:
        """Standardise each coordinate by the sd its learned scale implies; open window 1."""
        sds = self.start.scales / gaussian_coordinate_scale(self.start.coordinate_scales.target)
        self._use_map(diagonal_map(np.asarray(x, dtype=np.float64), sds))
        self.in_start = False
        self.windows.reset()

    def _close_window(self) -> None:
        mean = self.windows.mean
        cov = self.windows.close()
        if cov is None:  # a window in which some coordinate never moved keeps the old map
            return
        if self.affine is not None:
            cov = limit_shrinkage(cov, self.affine)
        self._use_map(whitening_map(mean, cov))
        self.n_windows += 1
        if self.independence is not None:  # a window's moments: mixed with the mode's t
            self.independence.proposal.set_map(self.affine)

    def end_warmup(self) -> None:
        """Freeze the map (an unfinished window is dropped); the main proposal settles."""
        self.windows.reset()
        self.frozen = True
        self.main.end_warmup()
        if self.independence is not None:
            self.independence.freeze()

    def stats(self) -> dict[str, Any]:
        """``warmup_stage`` (see :data:`WARMUP_STAGES`), ``n_windows``, the independence moves'
        (:data:`~pymc_kameleon.core.proposals.independence.INDEPENDENCE_STATS`) and the main
        proposal's.

        Returns
        -------
        dict of str to object
        """
        mixing = self.mixing
        return {
            "warmup_stage": WARMUP_STAGES[self.stage],
            "n_windows": self.n_windows,
            **independence_stats(mixing, mixing is not None and mixing.chosen),
            **self.main.stats(),
        }

    @property
    def stage(self) -> str:
        """The current stage: ``"start"``, ``"windows"``, ``"settle"`` or ``"frozen"``."""
        if self.frozen:
            return "frozen"
        if self.in_start:
            return "start"
        return "windows" if self.window_stop is not None else "settle"
