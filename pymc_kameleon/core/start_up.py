"""A chain's start-up: climb to a mode, and start from its Gaussian when the shape is Gaussian.

A chain started far out in a narrow direction of a strongly correlated posterior
spends its warm-up random-walking toward the bulk and learning the covariance, and may never
get there. :func:`gaussian_start_up` first climbs from the chain's own point
(:func:`~pymc_kameleon.core.mode_start.find_mode_and_curvature`), then decides whether the
Gaussian at the top is a fair summary of the posterior:

- the curvature there must be positive definite at a converged mode;
- along each principal axis, both ways at 3 sds, the log-density must drop by 4.5 (a
  Gaussian's drop) within a factor 2 (:data:`AXIS_DROP_FACTOR`). The two sides are averaged,
  which cancels a mode that is slightly off. On the project's real models the largest drops
  are 4.5–5.4 (garch11 7.8; nile-arma11, near its stationarity boundary, 78); Haario's
  bananas B(0.01 ... 0.1, 100) give 11–45 and the flower 24.

When it is, the chain starts at an overdispersed draw of that Gaussian and the warm-up takes its
covariance as the first whitening map; when it is not, the step keeps the chain at its initial
point with the ordinary warm-up (a climb that ends at a funnel's neck or a saddle is no better
a start). Every evaluation is counted.

**Several modes**. Where the climbs find separate modes, each gets its share of the
posterior by its Laplace approximation, ``p(m) sqrt(det Sigma_m)`` normalised
(:func:`laplace_shares`). A chain starts at a mode drawn in proportion to those shares, never
always the highest: on a mixture the highest mode is the heaviest component, and sending every
chain there loses the others' mass where R-hat cannot see it. The modes that hold at least
:data:`MIN_ANCHOR_SHARE` become the independence proposal's anchors (:meth:`StartUp.anchors`),
so that a chain can jump between them; a spurious local mode far below the others (a share of
``e^-40``) is neither a start nor an anchor.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pymc_kameleon.core.mode_start import ModeStart, axis_drops
from pymc_kameleon.core.multi_start import climb_from_starts, distinct_modes

__all__ = [
    "AXIS_DROP_FACTOR",
    "COMPARABLE_SHARE",
    "MIN_ANCHOR_SHARE",
    "START_SPREAD",
    "START_UP_STATUSES",
    "StartUp",
    "default_start_up_budget",
    "draw_mode",
    "gaussian_start_up",
    "laplace_shares",
    "minimum_start_up_budget",
]

#: the ``start_up`` stat's values: 1 starts from the Gaussian, 2-8 fall back
START_UP_STATUSES = {
    "off": 0,
    "gaussian": 1,
    "not_gaussian": 2,
    "indefinite": 3,
    "no_curvature": 4,
    "not_converged": 5,
    "out_of_budget": 6,
    "non_finite_start": 7,
    "near_bound": 8,
}
#: the axis test: a drop at 3 sds within this factor of a Gaussian's 4.5
AXIS_DROP_FACTOR = 2.0
#: the start is drawn from the Gaussian with its sds multiplied by this (overdispersed)
START_SPREAD = 1.5
_AXIS_DISTANCE = 3.0
_MAX_DRAWS = 10
#: a mode with at least this Laplace share of the posterior is an independence anchor
MIN_ANCHOR_SHARE = 1e-3
#: modes with at least this share are of comparable mass: the start-up warns about them
COMPARABLE_SHARE = 0.01


@dataclass(frozen=True)
class StartUp:
    """The result of :func:`gaussian_start_up`.

    Attributes
    ----------
    status : str
        A key of :data:`START_UP_STATUSES`.
    point : numpy.ndarray, shape (d,)
        Where the chain starts, if :attr:`relocates`.
    log_density : float
        The log-density there.
    mean, covariance : numpy.ndarray or None
        The Gaussian the warm-up starts from (None when it falls back).
    n_evals : int
        Log-density evaluations spent.
    modes : tuple of ModeStart
        Each separate mode the climbs found (with a positive definite curvature), highest
        first.
    shares : tuple of float
        Each mode's share of the posterior by its Laplace approximation (sum 1).
    chosen : int
        The index in ``modes`` of the mode tested and started from (drawn in proportion to
        ``shares``); 0 when there is none.
    n_climbs : int
        Climbs made.
    highest_log_density : float
        The highest log-density any climb reached, finished or not.
    n_screened : int
        Prior draws screened for further climbs.
    """

    status: str
    point: np.ndarray
    log_density: float
    mean: np.ndarray | None
    covariance: np.ndarray | None
    n_evals: int
    modes: tuple[ModeStart, ...] = ()
    shares: tuple[float, ...] = ()
    chosen: int = 0
    n_climbs: int = 1
    highest_log_density: float = -np.inf
    n_screened: int = 0

    @property
    def uses_gaussian(self) -> bool:
        """Whether the warm-up starts from the Gaussian."""
        return self.covariance is not None

    @property
    def relocates(self) -> bool:
        """Whether the chain moves to :attr:`point`: from the Gaussian, or to a mode drawn
        among several of comparable mass (so that the chains spread over them)."""
        return self.uses_gaussian or len(self.comparable_modes) > 1

    @property
    def mode_log_densities(self) -> tuple[float, ...]:
        """The log-density at each separate mode, highest first."""
        return tuple(m.log_density for m in self.modes)

    @property
    def mode(self) -> np.ndarray | None:
        """The mode tested (None without a positive definite curvature at a converged mode)."""
        return self.modes[self.chosen].mode if self.modes else None

    @property
    def mode_covariance(self) -> np.ndarray | None:
        """The inverse of the curvature at :attr:`mode`, whether or not the Gaussian was
        trusted (None without one)."""
        return self.modes[self.chosen].covariance if self.modes else None

    @property
    def comparable_modes(self) -> tuple[int, ...]:
        """Indices of the modes with a share of at least :data:`COMPARABLE_SHARE`."""
        return tuple(i for i, share in enumerate(self.shares) if share >= COMPARABLE_SHARE)

    def anchors(self) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """``(mode, covariance, weight)`` of each mode with a share of at least
        :data:`MIN_ANCHOR_SHARE`, for independence moves between them.

        The weights are half the Laplace shares and half equal (renormalised over the
        anchors): a Laplace share can be far off on a non-Gaussian mode, and every anchor
        must keep being proposed.

        Returns
        -------
        list of tuple
        """
        kept = [i for i, share in enumerate(self.shares) if share >= MIN_ANCHOR_SHARE]
        if not kept:
            return []
        shares = np.array([self.shares[i] for i in kept])
        weights = 0.5 * shares / shares.sum() + 0.5 / len(kept)
        return [
            (self.modes[i].mode, self.modes[i].covariance, float(w))
            for i, w in zip(kept, weights, strict=True)
        ]


def draw_mode(shares: np.ndarray, rng: np.random.Generator) -> int:
    """The index of the mode a chain starts from, drawn in proportion to ``shares``.

    With one mode (or none) nothing is drawn, so the chain's generator is where it would be
    without the start-up's search for modes.

    Parameters
    ----------
    shares : numpy.ndarray, shape (k,)
        Sum 1 (:func:`laplace_shares`).
    rng : numpy.random.Generator

    Returns
    -------
    int
    """
    return int(rng.choice(len(shares), p=shares)) if len(shares) > 1 else 0


def laplace_shares(modes) -> np.ndarray:
    """Each mode's share of the posterior by its Laplace approximation.

    ``p(m) sqrt(det Sigma_m)``, normalised: the mass of the Gaussian that matches the
    log-density and its curvature at the mode.

    Parameters
    ----------
    modes : sequence of ModeStart
        With covariances.

    Returns
    -------
    numpy.ndarray, shape (len(modes),)
    """
    if not modes:
        return np.empty(0)
    log_mass = np.array([m.log_density + 0.5 * np.linalg.slogdet(m.covariance)[1] for m in modes])
    weights = np.exp(log_mass - log_mass.max())
    return weights / weights.sum()


def minimum_start_up_budget(dim: int) -> int:
    """The fewest evaluations worth a start-up: one curvature, the axis test and the draws.

    ``d (d + 1)`` for the Hessian and the gradient (two per coordinate and two per pair), as
    many again per coordinate for finding the difference steps, ``2 d`` for the axis test and
    ten for the start draw: ``d^2 + 5 d + 10``. With less, the start-up does not run.

    Parameters
    ----------
    dim : int

    Returns
    -------
    int
    """
    return dim * dim + 5 * dim + _MAX_DRAWS


def default_start_up_budget(warmup_length: int) -> int:
    """Evaluations the start-up may spend at most by default: half of the warm-up's.

    Measured on the real-model suite (benchmarks/notes/lab-notes.md, "The start-up"), one climb
    spends 4-9 % of a 3000-iteration warm-up on most models and 26 % on longley's ridge, which a
    quarter cuts off at the margin; the second climb, from a prior draw, costs as much again and
    more from a far start (lynx-hare-ode: 940 evaluations from PyMC's initial point, 390-970 from
    prior draws), and a third of the warm-up left it no room. The start-up stops after two climbs
    that agree, so on a single-mode posterior the cap is rarely reached.

    Parameters
    ----------
    warmup_length : int
        Warm-up iterations (one log-density evaluation each).

    Returns
    -------
    int
    """
    return max(0, int(warmup_length) // 2)


def gaussian_start_up(
    log_density: Callable[[np.ndarray], float],
    start: np.ndarray,
    budget: int,
    rng: np.random.Generator,
    more_starts: Callable[[int], np.ndarray | None] | None = None,
    stop_at_one_mode: bool = True,
) -> StartUp:
    """Climb from ``start``; if the top is Gaussian, draw the chain's start from that Gaussian.

    With ``more_starts`` the climbs continue from further starts as
    :func:`~pymc_kameleon.core.multi_start.climb_from_starts` decides. Where they found
    several separate modes, the one tested (and started from) is drawn in proportion to the
    modes' Laplace shares; where it is not Gaussian but other modes hold a comparable share,
    the chain still starts at that mode (:attr:`StartUp.relocates`).

    Parameters
    ----------
    log_density : callable
        ``x -> log p(x)``, deterministic.
    start : numpy.ndarray, shape (d,)
        The chain's initial point.
    budget : int
        Evaluations allowed in all (climbs, axis test and start draws).
    rng : numpy.random.Generator
        For the start draw.
    more_starts : callable, optional
        ``k -> x``, further starts for the climbs (None: one climb, from ``start``).
    stop_at_one_mode : bool
        As for :func:`~pymc_kameleon.core.multi_start.climb_from_starts`.

    Returns
    -------
    StartUp
    """
    d = np.size(start)
    reserve = 2 * d + _MAX_DRAWS  # the axis test and the draws
    climbs = climb_from_starts(
        log_density, start, max(1, budget - reserve), more_starts, stop_at_one_mode
    )
    spent = climbs.n_evals
    modes = tuple(distinct_modes(climbs.modes))
    shares = laplace_shares(modes)
    chosen = draw_mode(shares, rng)
    found = modes[chosen] if modes else climbs.best

    def result(status, point, value, mean=None, covariance=None, extra=0):
        return StartUp(
            status, point, value, mean, covariance, spent + extra, modes,
            tuple(float(s) for s in shares), chosen, climbs.n_climbs, climbs.highest,
            climbs.n_screened,
        )  # fmt: skip

    if found.covariance is None:
        return result(found.status, found.mode, found.log_density)
    drops = axis_drops(log_density, found.mode, found.log_density, found.covariance, _AXIS_DISTANCE)
    spent += drops.size
    symmetric = 0.5 * (drops[0::2] + drops[1::2])
    expected = 0.5 * _AXIS_DISTANCE**2
    gaussian = np.all(np.abs(np.log(symmetric / expected)) <= math.log(AXIS_DROP_FACTOR))
    if not gaussian:  # (NaN-free: an infinite drop fails the test)
        return result("not_gaussian", found.mode, found.log_density)
    point, value, draws = _overdispersed_draw(log_density, found, rng)
    return result(found.status, point, value, found.mode, found.covariance, draws)


def _overdispersed_draw(log_density, found, rng) -> tuple[np.ndarray, float, int]:
    """A draw of ``N(mode, (START_SPREAD sd)^2)`` with a finite log-density (else the mode)."""
    low = np.linalg.cholesky(found.covariance)
    for draw in range(1, _MAX_DRAWS + 1):
        point = found.mode + START_SPREAD * (low @ rng.standard_normal(found.mode.size))
        value = float(log_density(point))
        if math.isfinite(value):
            return point, value, draw
    return found.mode, found.log_density, _MAX_DRAWS
