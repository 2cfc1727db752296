"""A derivative-free mode and the curvature there: where a chain could start, and its shape.

The first building block of issue 30's start-up (not yet used by the steps): a chain started
far out in a narrow direction of a strongly correlated posterior spends its warm-up
random-walking toward the bulk and learning the covariance, and often never gets there (longley's
coefficient ridge; a 6-D Gaussian with standard deviations from 1e-3 to 1e3). When the
log-density is deterministic and cheap to probe, the mode and the curvature there give both at
once.

:func:`find_mode_and_curvature` runs SciPy's Powell search (no gradients) from the chain's own
point, then Newton steps on finite differences. Each takes a central-difference Hessian whose
step in each coordinate is that coordinate's conditional standard deviation, found by probing
(so the result does not depend on the variables' units: a quadratic's Hessian is exact with any
step, and steps of one conditional standard deviation keep the differences well above
rounding). Where the
negative Hessian is positive definite its inverse is the Gaussian approximation's covariance;
where it is not (a saddle, a flat direction, a search that did not converge) the result says so
and the caller falls back to its ordinary warm-up. Every evaluation is counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize

__all__ = [
    "ModeStart",
    "conditional_scales",
    "find_mode_and_curvature",
    "finite_difference_gradient",
    "finite_difference_hessian",
]

#: what an evaluation that is not finite counts as in the search (a huge, finite penalty keeps
#: Powell's bracketing arithmetic finite)
_PENALTY = 1e300
#: the drop of the log-density, from the mode, at one conditional standard deviation
_HALF = 0.5
#: probing for a conditional standard deviation: accept a drop within this factor of 0.5
_DROP_TOLERANCE = 4.0
_MAX_PROBES = 80
#: Newton's predicted gain (log-density units) below which the point is the mode: a
#: thousandth of a unit is far below what matters for a start, and above the floor that
#: differences with steps of one standard deviation leave on a non-quadratic density
_CONVERGED_GAIN = 1e-3
_MAX_HALVINGS = 20
#: a predicted gain that no step along it realises, below this, is finite-difference noise
_NOISE_GAIN = 0.1


@dataclass(frozen=True)
class ModeStart:
    """The result of :func:`find_mode_and_curvature`.

    Attributes
    ----------
    mode : numpy.ndarray, shape (d,)
        The best point found (the start itself if the search could not begin).
    log_density : float
        The log-density there.
    covariance : numpy.ndarray of shape (d, d), or None
        The inverse of the negative Hessian at ``mode``; None unless ``status == "gaussian"``.
    status : str
        ``"gaussian"`` (a positive definite curvature at a converged mode), ``"indefinite"``
        (the negative Hessian is not positive definite), ``"not_converged"`` (the Newton steps
        ran out), ``"no_curvature"`` (a coordinate along which the log-density does not curve
        down: flat, or curving up as at a saddle), or ``"non_finite_start"`` (the log-density
        at the start is not finite).
    n_evals : int
        Log-density evaluations spent, search and curvature together.
    """

    mode: np.ndarray
    log_density: float
    covariance: np.ndarray | None
    status: str
    n_evals: int


class _Counted:
    """A log-density that counts its calls and never returns NaN."""

    def __init__(self, log_density: Callable[[np.ndarray], float]) -> None:
        self.log_density = log_density
        self.calls = 0

    def __call__(self, x: np.ndarray) -> float:
        self.calls += 1
        value = float(self.log_density(np.asarray(x, dtype=float)))
        return value if not math.isnan(value) else -math.inf

    def negative(self, x: np.ndarray) -> float:
        value = -self(x)
        return value if math.isfinite(value) else _PENALTY


def conditional_scales(
    log_density: Callable[[np.ndarray], float], mode: np.ndarray, value_at_mode: float
) -> np.ndarray | None:
    """Per coordinate, the step from ``mode`` at which the log-density drops by about 0.5.

    For a Gaussian that is the conditional standard deviation of the coordinate given the
    others. Found by multiplying or dividing a trial step by 3 until the drop (the mean of the
    two sides) is within a factor 4 of 0.5 (a factor 3 in the step is 9 in the drop, so it
    cannot jump over that 16-fold window), then rescaling it as for a quadratic.

    Parameters
    ----------
    log_density : callable
        ``x -> log p(x)``.
    mode, value_at_mode : numpy.ndarray of shape (d,), and float
        Where to probe (any point, not only a mode: the two sides cancel the slope), and the
        log-density there.

    Returns
    -------
    numpy.ndarray of shape (d,), or None
        None if some coordinate shows no drop (flat) or no finite one within the probes.
    """
    scales = np.empty(mode.size)
    for i in range(mode.size):
        step = max(abs(float(mode[i])), 1.0) * 1e-3
        for _ in range(_MAX_PROBES):
            drop = _mean_drop(log_density, mode, value_at_mode, i, step)
            if not math.isfinite(drop) or drop > _HALF * _DROP_TOLERANCE:
                step /= 3.0
            elif drop < _HALF / _DROP_TOLERANCE:
                step *= 3.0
            else:
                break
        else:
            return None
        if not (drop > 0.0 and math.isfinite(drop)):
            return None
        scales[i] = step * math.sqrt(_HALF / drop)  # exact for a quadratic
    return scales


def _mean_drop(log_density, mode, value_at_mode, i, step) -> float:
    shifted = mode.copy()
    shifted[i] += step
    up = log_density(shifted)
    shifted[i] = mode[i] - step
    down = log_density(shifted)
    return value_at_mode - 0.5 * (up + down)


def finite_difference_hessian(
    log_density: Callable[[np.ndarray], float],
    x: np.ndarray,
    value_at_x: float,
    steps: np.ndarray,
) -> np.ndarray:
    """Central-difference Hessian of ``log_density`` at ``x``, step ``steps[i]`` in coordinate i.

    ``2 d^2`` evaluations: two per diagonal entry and four per pair. Exact for a quadratic.

    Parameters
    ----------
    log_density : callable
        ``x -> log p(x)``.
    x : numpy.ndarray, shape (d,)
    value_at_x : float
        ``log_density(x)``.
    steps : numpy.ndarray, shape (d,)
        Positive steps.

    Returns
    -------
    numpy.ndarray, shape (d, d)
        Symmetric.
    """
    d = x.size
    hessian = np.empty((d, d))
    for i in range(d):
        e_i = np.zeros(d)
        e_i[i] = steps[i]
        hessian[i, i] = (log_density(x + e_i) - 2.0 * value_at_x + log_density(x - e_i)) / steps[
            i
        ] ** 2
        for j in range(i):
            e_j = np.zeros(d)
            e_j[j] = steps[j]
            corners = (
                log_density(x + e_i + e_j)
                - log_density(x + e_i - e_j)
                - log_density(x - e_i + e_j)
                + log_density(x - e_i - e_j)
            )
            hessian[i, j] = hessian[j, i] = corners / (4.0 * steps[i] * steps[j])
    return hessian


def finite_difference_gradient(
    log_density: Callable[[np.ndarray], float], x: np.ndarray, steps: np.ndarray
) -> np.ndarray:
    """Central-difference gradient of ``log_density`` at ``x`` (``2 d`` evaluations).

    Parameters
    ----------
    log_density : callable
    x : numpy.ndarray, shape (d,)
    steps : numpy.ndarray, shape (d,)

    Returns
    -------
    numpy.ndarray, shape (d,)
    """
    gradient = np.empty(x.size)
    for i in range(x.size):
        e_i = np.zeros(x.size)
        e_i[i] = steps[i]
        gradient[i] = (log_density(x + e_i) - log_density(x - e_i)) / (2.0 * steps[i])
    return gradient


def find_mode_and_curvature(
    log_density: Callable[[np.ndarray], float],
    start: np.ndarray,
    max_search_evals: int | None = None,
    max_newton_steps: int = 8,
) -> ModeStart:
    """Search for a mode from ``start`` without gradients, then take the curvature there.

    A Powell search first (robust far from the mode), then Newton steps on finite differences
    (fast near it, where Powell crawls along a ridge): each takes the conditional scales, the
    Hessian and the gradient, and moves by ``-H^-1 g`` (halved until the log-density rises).
    Where ``-H`` is not positive definite (away from a mode it can be indefinite) the step is
    damped: ``(-H + lambda I)^-1 g`` in scaled coordinates. It stops when the Newton step's
    predicted gain ``g^T (-H)^-1 g / 2`` is below 1e-3, a number in log-density units, so the
    test does not depend on the variables' units.

    Parameters
    ----------
    log_density : callable
        ``x -> log p(x)`` for ``x`` of shape (d,); deterministic (a noisy estimate would make
        both the search and the differences meaningless).
    start : numpy.ndarray, shape (d,)
    max_search_evals : int, optional
        Evaluation budget of the Powell search; default ``100 * d``. Each Newton step costs
        about ``2 d^2 + 2 d`` more, plus a few probes per coordinate.
    max_newton_steps : int, default 8

    Returns
    -------
    ModeStart
    """
    x = np.array(start, dtype=float).ravel()
    d = x.size
    counted = _Counted(log_density)
    value = counted(x)
    if not math.isfinite(value):
        return ModeStart(x, value, None, "non_finite_start", counted.calls)
    budget = 100 * d if max_search_evals is None else int(max_search_evals)
    result = scipy.optimize.minimize(
        counted.negative, x, method="Powell", options={"maxfev": budget, "xtol": 1e-8}
    )
    candidate = np.asarray(result.x, dtype=float)
    candidate_value = counted(candidate)
    if candidate_value > value:
        x, value = candidate, candidate_value
    for _ in range(max_newton_steps + 1):
        scales = conditional_scales(counted, x, value)
        if scales is None:
            return ModeStart(x, value, None, "no_curvature", counted.calls)
        hessian = finite_difference_hessian(counted, x, value, scales)
        gradient = finite_difference_gradient(counted, x, scales)
        covariance = _inverse_if_negative_definite(hessian, scales)
        if covariance is not None:
            step = covariance @ gradient
            if 0.5 * float(gradient @ step) < _CONVERGED_GAIN:
                return ModeStart(x, value, covariance, "gaussian", counted.calls)
        else:  # away from a mode the curvature can be indefinite: a damped step still climbs
            step = _damped_step(hessian, gradient, scales)
        x, moved_value = _line_search(counted, x, value, step)
        if moved_value <= value:  # no step along it raised the log-density
            if covariance is not None and 0.5 * float(gradient @ step) < _NOISE_GAIN:
                # at the floor the differences leave on a non-quadratic density: the mode
                return ModeStart(x, value, covariance, "gaussian", counted.calls)
            status = "indefinite" if covariance is None else "not_converged"
            return ModeStart(x, value, None, status, counted.calls)
        value = moved_value
    return ModeStart(x, value, None, "not_converged", counted.calls)


def _damped_step(hessian: np.ndarray, gradient: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """``(-H + lambda D)^-1 g`` with the smallest ``lambda`` (a power of 10) that makes the
    matrix positive definite, in the coordinates scaled by ``scales`` (``D`` their identity)."""
    scaled = -hessian * np.outer(scales, scales)
    scaled = 0.5 * (scaled + scaled.T)
    shift = max(1e-3, -float(np.linalg.eigvalsh(scaled)[0]) * 1.01)
    factor = scipy.linalg.cho_factor(scaled + shift * np.eye(scales.size), lower=True)
    return scales * scipy.linalg.cho_solve(factor, scales * gradient)


def _line_search(counted, x, value, step):
    """``x + t step`` for the first ``t = 1, 1/2, ...`` that raises the log-density."""
    t = 1.0
    for _ in range(_MAX_HALVINGS):
        trial = x + t * step
        trial_value = counted(trial)
        if trial_value > value:
            return trial, trial_value
        t *= 0.5
    return x, value


def _inverse_if_negative_definite(hessian: np.ndarray, scales: np.ndarray) -> np.ndarray | None:
    # factor in the scaled coordinates, where the diagonal is about 1: the units of the
    # variables (1e-3 next to 1e6) must not decide positive definiteness
    scaled = -hessian * np.outer(scales, scales)
    scaled = 0.5 * (scaled + scaled.T)
    if not np.all(np.isfinite(scaled)):
        return None
    try:
        factor = scipy.linalg.cholesky(scaled, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return None
    inverse = scipy.linalg.cho_solve((factor, True), np.eye(scales.size), check_finite=False)
    return inverse * np.outer(scales, scales)
