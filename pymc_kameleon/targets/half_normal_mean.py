"""The mean of ``n`` iid half-normals ``|U_0|``: its density and a quadrature rule (NumPy/SciPy).

The skew-normal ABC summary contains the mean ``T`` of ``n`` half-normals
(:mod:`pymc_kameleon.targets.abc_exact`); this module gives its density and a quadrature rule
for ``E f(T)``.

The density of ``T``
--------------------
``p_T`` has no closed form. The moment generating function of one half-normal is
``M(z) = 2 exp(z**2 / 2) Phi(z) = erfcx(-z / sqrt 2)``, an entire function, so the density of
the sum ``S = n T`` is the inversion integral along any vertical line ``Re z = c``:

``p_S(s) = (1 / 2 pi) int exp(n log M(c + i v) - (c + i v) s) dv``.

Taking ``c`` at the saddle point (``n K'(c) = s`` with ``K = log M``) makes the integrand
smooth, non-oscillating near ``v = 0`` and of width ``1 / sqrt(n K''(c))``, so a trapezoid rule
gives ``p_T`` with about 1e-12 relative accuracy in the bulk *and* far in both tails. Its
tails decay like ``|v|**-n`` (the jump of the half-normal density at 0), which this needs to
be small: ``n_draws >= 6`` (:data:`MIN_N_DRAWS`).

The quadrature over ``t``
-------------------------
:func:`mean_of_half_normals_grid` is a trapezoid rule on ``t_j = j h`` up to ``t_max``, past
which ``T`` has probability below ``exp(-200)`` (``|U_0|`` is 1-Lipschitz in ``U_0``, so
``P(T - E T > x) <= exp(-n x**2 / 2)``). Since ``p_T`` vanishes like ``t**(n - 1)`` at 0 and
the Gaussian factor is smooth, the rule converges spectrally: its mean and variance match
``E|U_0| = sqrt(2 / pi)`` and ``(1 - 2 / pi) / n`` to rounding error."""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from pymc_kameleon.core.checks import check_int
from pymc_kameleon.targets.abc_skew_normal import ABC_N_DRAWS

__all__ = [
    "MIN_N_DRAWS",
    "check_n_draws",
    "grid_end",
    "mean_of_half_normals_grid",
    "mean_of_half_normals_logpdf",
]

MIN_N_DRAWS = 6
"""Fewest draws per data set for which the density of their mean is computed."""

_SQRT2 = math.sqrt(2.0)
_HALF_NORMAL_MEAN = math.sqrt(2.0 / math.pi)
#: ``log`` of the bound on the probability of ``T`` beyond the grid
_TAIL_LOG_MASS = 200.0
#: trapezoid step and relative truncation error of the inversion integral (in units of its width)
_INVERSION_STEP = 0.1
_INVERSION_TOL = 1e-12
#: complex evaluations per block of the inversion (memory bound)
_BLOCK = 2_000_000


def _log_mgf_half_normal(z: np.ndarray) -> np.ndarray:
    """``log M(z)`` of the half-normal at complex ``z``, without overflow.

    ``M(z) = erfcx(-z / sqrt 2)``; where ``Re z > |Im z|`` that grows like ``2 exp(z**2 / 2)``
    and is written ``exp(z**2 / 2) (2 - exp(-z**2 / 2) erfcx(z / sqrt 2))`` instead.
    """
    z = np.asarray(z, dtype=np.complex128)
    out = np.empty_like(z)
    big = z.real > np.abs(z.imag)
    zb = z[big]
    out[big] = 0.5 * zb**2 + np.log(2.0 - np.exp(-0.5 * zb**2) * special.erfcx(zb / _SQRT2))
    out[~big] = np.log(special.erfcx(-z[~big] / _SQRT2))
    return out


def _saddle_point(mean: np.ndarray) -> np.ndarray:
    """``c`` with ``K'(c) = mean`` for the half-normal's cumulant function ``K`` (bisection).

    ``K'(c) = c + sqrt(2 / pi) / M(c)`` is increasing, below ``mean`` at ``-1 / mean - 2``
    and above it at ``mean + 2``. Any ``c`` gives an exact inversion formula; the saddle point
    only makes it well conditioned, so 60 halvings are plenty.
    """
    lo, hi = -1.0 / mean - 2.0, mean + 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        below = mid + _HALF_NORMAL_MEAN / special.erfcx(-mid / _SQRT2) < mean
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def _second_cumulant(c: np.ndarray, log_m: np.ndarray) -> np.ndarray:
    """``K''(c) = 1 - r (c + r)`` with ``r = sqrt(2 / pi) / M(c)``; about ``1 / c**2`` far left.

    Only the scale of the inversion variable, so the asymptote (which the formula loses to
    cancellation there) is accurate enough below ``c = -30``.
    """
    ratio = _HALF_NORMAL_MEAN / np.exp(log_m)
    with np.errstate(invalid="ignore"):
        return np.where(c < -30.0, 1.0 / c**2, 1.0 - ratio * (c + ratio))


def _inversion_extent(n_draws: int) -> float:
    """Upper end of the inversion integral, in units of its width.

    In those units the integrand decays no slower than ``(1 + x**2 / n)**(-n / 2)`` (the
    tilted sum of half-normals is at worst a Gamma(n) variable, far in the left tail), so the
    tail beyond ``X`` is below ``n**(n / 2) X**(1 - n) / (n - 1)`` relative to the integral.
    """
    n = n_draws
    log_x = (0.5 * n * math.log(n) - math.log(n - 1) - math.log(_INVERSION_TOL)) / (n - 1)
    return max(30.0, math.exp(log_x))


def _log_density_of_sum(s: np.ndarray, n_draws: int) -> np.ndarray:
    """Log density of the sum of ``n_draws`` iid half-normals at ``s > 0`` (1-D array)."""
    c = _saddle_point(s / n_draws)
    log_m = np.log(special.erfcx(-c / _SQRT2))
    width = 1.0 / np.sqrt(n_draws * _second_cumulant(c, log_m))
    x = np.arange(0.0, _inversion_extent(n_draws) + _INVERSION_STEP, _INVERSION_STEP)
    weights = np.full(x.size, _INVERSION_STEP)
    weights[0] *= 0.5  # the integrand is Hermitian: twice the half line, half weight at 0
    integral = np.empty(s.size)
    rows = max(1, _BLOCK // x.size)
    for start in range(0, s.size, rows):
        block = slice(start, start + rows)
        v = width[block, None] * x
        log_g = n_draws * (_log_mgf_half_normal(c[block, None] + 1j * v) - log_m[block, None])
        integral[block] = np.exp(log_g - 1j * v * s[block, None]).real @ weights
    return n_draws * log_m - c * s + np.log(width * integral / math.pi)


def check_n_draws(n_draws: int) -> int:
    """``n_draws`` as an int of at least :data:`MIN_N_DRAWS`, or a ValueError that says why.

    Parameters
    ----------
    n_draws : int

    Returns
    -------
    int
    """
    return check_int(
        "n_draws",
        n_draws,
        minimum=MIN_N_DRAWS,
        hint=f"The density of a mean of fewer than {MIN_N_DRAWS} half-normals is not computed "
        "here: its inversion integral decays too slowly; use n_draws >= 6.",
    )


def mean_of_half_normals_logpdf(t: np.ndarray, n_draws: int = ABC_N_DRAWS) -> np.ndarray:
    """Log density of ``T``, the mean of ``n_draws`` iid standard half-normals ``|U_0|``.

    Computed by saddle-point-centred Fourier inversion (module docstring), accurate to about
    1e-12 relative both in the bulk and far in the tails.

    Parameters
    ----------
    t : array_like
        Points; any shape.
    n_draws : int, default 10
        Number of half-normals averaged (at least :data:`MIN_N_DRAWS`).

    Returns
    -------
    numpy.ndarray
        ``log p_T(t)`` with the shape of ``t``; ``-inf`` where ``t <= 0``.

    Raises
    ------
    ValueError
        If ``t`` is not finite or ``n_draws`` is below :data:`MIN_N_DRAWS`.
    """
    n_draws = check_n_draws(n_draws)
    t = np.asarray(t, dtype=np.float64)
    if not np.all(np.isfinite(t)):
        raise ValueError("t must contain only finite values; found NaN or inf")
    out = np.full(t.shape, -np.inf)
    positive = t > 0
    out[positive] = _log_density_of_sum(n_draws * t[positive], n_draws) + math.log(n_draws)
    return out


def grid_end(n_draws: int) -> float:
    """``t_max`` with ``P(T > t_max) <= exp(-200)`` (Gaussian concentration): the grid's end.

    Parameters
    ----------
    n_draws : int

    Returns
    -------
    float
    """
    return _HALF_NORMAL_MEAN + math.sqrt(2.0 * _TAIL_LOG_MASS / n_draws)


@functools.lru_cache(maxsize=16)
def _cached_grid(n_draws: int, n_points: int) -> tuple[np.ndarray, np.ndarray]:
    step = grid_end(n_draws) / n_points
    t_grid = step * np.arange(1, n_points + 1)
    log_weights = mean_of_half_normals_logpdf(t_grid, n_draws) + math.log(step)
    log_weights -= special.logsumexp(log_weights)  # the raw sum is 1 to ~1e-15
    t_grid.setflags(write=False)
    log_weights.setflags(write=False)
    return t_grid, log_weights


def mean_of_half_normals_grid(
    n_draws: int = ABC_N_DRAWS, n_points: int = 3000
) -> tuple[np.ndarray, np.ndarray]:
    """A quadrature rule for the distribution of the mean of ``n_draws`` half-normals.

    Trapezoid weights ``h p_T(t_j)`` at ``t_j = j h``, ``j = 1, ..., n_points``, up to the
    point past which ``T`` has probability below ``exp(-200)``; normalised to sum to 1 (they
    do to ~1e-15 before). ``sum_j w_j f(t_j)`` approximates ``E f(T)`` with an error that falls
    faster than any power of ``h`` for smooth ``f`` that vary on scales above a few ``h``.
    Results are cached and read-only.

    Parameters
    ----------
    n_draws : int, default 10
        Number of half-normals averaged (at least :data:`MIN_N_DRAWS`).
    n_points : int, default 3000
        Number of grid points (at least 100).

    Returns
    -------
    t_grid : numpy.ndarray
        Points, shape ``(n_points,)``, increasing.
    log_weights : numpy.ndarray
        Log weights, shape ``(n_points,)``; ``exp`` of them sums to 1.

    Raises
    ------
    ValueError
        If ``n_draws < 6`` or ``n_points < 100``.
    """
    n_draws = check_n_draws(n_draws)
    n_points = check_int("n_points", n_points, minimum=100)
    return _cached_grid(n_draws, n_points)
