"""A chain's start-up: climb to a mode, and start from its Gaussian when the shape is Gaussian.

Issue 30: a chain started far out in a narrow direction of a strongly correlated posterior
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
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pymc_kameleon.core.mode_start import axis_drops
from pymc_kameleon.core.multi_start import climb_from_starts, distinct_modes

__all__ = [
    "AXIS_DROP_FACTOR",
    "START_SPREAD",
    "START_UP_STATUSES",
    "StartUp",
    "default_start_up_budget",
    "gaussian_start_up",
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


@dataclass(frozen=True)
class StartUp:
    """The result of :func:`gaussian_start_up`.

    Attributes
    ----------
    status : str
        A key of :data:`START_UP_STATUSES`.
    point : numpy.ndarray, shape (d,)
        Where the chain starts.
    log_density : float
        The log-density there.
    mean, covariance : numpy.ndarray or None
        The Gaussian the warm-up starts from (None when it falls back).
    n_evals : int
        Log-density evaluations spent.
    mode_log_densities : tuple of float
        The log-density at each separate mode the climbs found, highest first (empty if none
        had a positive definite curvature).
    n_climbs : int
        Climbs made.
    mode, mode_covariance : numpy.ndarray or None
        The mode tested and the inverse of the curvature there, whether or not the Gaussian
        was trusted (None without a positive definite curvature at a converged mode).
    highest_log_density : float
        The highest log-density any climb reached, finished or not.
    """

    status: str
    point: np.ndarray
    log_density: float
    mean: np.ndarray | None
    covariance: np.ndarray | None
    n_evals: int
    mode_log_densities: tuple[float, ...] = ()
    n_climbs: int = 1
    highest_log_density: float = -np.inf
    mode: np.ndarray | None = None
    mode_covariance: np.ndarray | None = None

    @property
    def uses_gaussian(self) -> bool:
        """Whether the warm-up starts from the Gaussian."""
        return self.covariance is not None


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

    Measured on the real-model suite (BENCHMARKS.md, "The start-up"), one climb spends 4-9 % of
    a 3000-iteration warm-up on most models and 26 % on longley's ridge, which a quarter cuts
    off at the margin; the second climb, from a prior draw, costs as much again and more from
    a far start (lynx-hare-ode: 940 evaluations from PyMC's initial point, 390-970 from prior
    draws), and a third of the warm-up left it no room. The start-up stops after two climbs
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
    :func:`~pymc_kameleon.core.multi_start.climb_from_starts` decides, and the highest mode
    found is the one tested.

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
    found, spent = climbs.best, climbs.n_evals
    found_modes = tuple(m.log_density for m in distinct_modes(climbs.modes))

    def result(status, point, value, mean=None, covariance=None, extra=0):
        return StartUp(
            status, point, value, mean, covariance, spent + extra, found_modes, climbs.n_climbs,
            climbs.highest, found.mode, found.covariance,
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
