"""A derivative-free mode and the curvature there: where a chain could start, and its shape.

A chain started far out in a narrow direction of a strongly correlated posterior spends its
warm-up random-walking toward the bulk and learning the covariance, and often never gets there
(longley's coefficient ridge; a 6-D Gaussian with standard deviations from 1e-3 to 1e3). When
the log-density is deterministic and cheap to probe, the mode and the curvature there give both
at once (:mod:`pymc_kameleon.core.start_up` decides whether to trust them).

:func:`find_mode_and_curvature` climbs from the chain's own point with Newton steps on finite
differences. Each coordinate's difference step is the step at which the log-density drops by
about 0.5 (its conditional standard deviation for a Gaussian), found by probing, so nothing
depends on the variables' units. The probes give the gradient and the Hessian's diagonal; one
more evaluation per pair completes a one-sided Hessian, exact on a quadratic. Between full
Hessians, symmetric rank-one updates from the gradients keep a step at about ``2 d``
evaluations. Where the curvature is indefinite the step follows its absolute value (a
saddle-free Newton step), which climbs saddles and follows a ridge whose curvature is lost in
rounding (longley's is 1e-10 of the largest). At the mode the Hessian is completed to central
differences (second order), and its inverse is the Gaussian approximation's covariance. Every
evaluation is counted, and a budget can cap them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg

__all__ = [
    "CONVERGED_GAIN",
    "TRUST_RADIUS",
    "ModeStart",
    "conditional_scales",
    "find_mode_and_curvature",
    "finite_difference_hessian",
]

#: the drop of the log-density, from the mode, at one conditional standard deviation
_HALF = 0.5
#: probing for a conditional standard deviation: accept a drop within this factor of 0.5
_DROP_TOLERANCE = 4.0
_MAX_PROBES = 80
#: a drop this many times off 0.5 is far: the step changes by 100 instead of 3 (a factor
#: 1e4 in a quadratic's drop, so it cannot jump over the factor-16 window from there)
_FAR = 1e5
#: a step this many times the coordinate's size (at least 1) that changes nothing: flat
_FLAT_STEP = 1e10
#: Newton's predicted gain (log-density units) below which the point is the mode: a
#: thousandth of a unit is far below what matters for a start, and above the floor that
#: differences with steps of one standard deviation leave on a non-quadratic density
CONVERGED_GAIN = 0.5
_MAX_HALVINGS = 20
#: a predicted gain that no step along it realises, below this, is finite-difference noise
_NOISE_GAIN = 0.1
#: smallest eigenvalue magnitude, relative to the largest, a climbing step divides by (a
#: longley ridge's is about 1e-10: it must be followed, not damped away)
_EIGEN_FLOOR = 1e-12
#: what probing a coordinate returns with a bound of the support a short step away both ways
_BOUND = "bound"
#: a climb's first moves are at most this long, in conditional sds (the probes' steps, the
#: scaled coordinates): a Newton step divided by a tiny eigenvalue is hundreds of sds long, and
#: an expensive model evaluated there can take minutes
TRUST_RADIUS = 10.0
#: the trust radius grows by this after a move that reached its cap and realised its predicted
#: rise (a ridge is followed over several moves: 2**k sds after k of them), and shrinks to the
#: move taken when the line search had to shorten it
_TRUST_GROWTH = 2.0
_MIN_TRUST_RADIUS = 0.25


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
        ran out), ``"out_of_budget"`` (the evaluations ran out; ``mode`` is the best point
        found), ``"no_curvature"`` (a coordinate along which the log-density does not curve
        down: flat, or curving up as at a saddle), or ``"non_finite_start"`` (the log-density
        at the start is not finite), or ``"near_bound"`` (the climb ran into a bound of the
        support: a Newton step, or a difference step at a mode, ends where the log-density is
        -inf, as next to the truncation point of a truncated likelihood; no Gaussian fits).
    n_evals : int
        Log-density evaluations spent, search and curvature together.
    """

    mode: np.ndarray
    log_density: float
    covariance: np.ndarray | None
    status: str
    n_evals: int


class _Counted:
    """A log-density that counts its calls, keeps the best point, never returns NaN, and raises
    :class:`_OutOfBudget` beyond its budget."""

    def __init__(self, log_density: Callable[[np.ndarray], float], budget: int | None) -> None:
        self.log_density = log_density
        self.budget = math.inf if budget is None else int(budget)
        self.calls = 0
        self.best_x: np.ndarray | None = None
        self.best_value = -math.inf

    def __call__(self, x: np.ndarray) -> float:
        if self.calls >= self.budget:
            raise _OutOfBudget
        self.calls += 1
        x = np.asarray(x, dtype=float)
        value = float(self.log_density(x))
        if math.isnan(value):
            return -math.inf
        if value > self.best_value or self.best_x is None:
            self.best_x, self.best_value = x.copy(), value
        return value


class _OutOfBudget(Exception):
    """The evaluation budget ran out (the best point so far is kept by :class:`_Counted`)."""


def conditional_scales(
    log_density: Callable[[np.ndarray], float],
    mode: np.ndarray,
    value_at_mode: float,
    initial: np.ndarray | None = None,
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
    initial : numpy.ndarray of shape (d,), optional
        First trial steps (e.g. the scales found at a nearby point); default
        ``1e-3 * max(|mode_i|, 1)``.

    Returns
    -------
    numpy.ndarray of shape (d,), or None
        None if some coordinate shows no drop (flat) or no finite one within the probes, or
        if the log-density is -inf both ways within a step too short for a drop of 0.5
        (bounds of the support on both sides).
    """
    probes = _probe(log_density, mode, value_at_mode, initial)
    return None if probes is None or probes is _BOUND else probes.scales


@dataclass(frozen=True)
class _Probes:
    """Central differences along each coordinate: steps ``h``, values at ``x + h`` and ``x - h``."""

    steps: np.ndarray
    up: np.ndarray
    down: np.ndarray
    value: float
    #: a coordinate's step was cut short by a bound of the support (see _probe_coordinate)
    bounded: bool = False

    @property
    def scales(self) -> np.ndarray:
        drop = np.abs(self.value - 0.5 * (self.up + self.down))
        return self.steps * np.sqrt(_HALF / drop)  # exact for a quadratic

    @property
    def gradient(self) -> np.ndarray:
        return (self.up - self.down) / (2.0 * self.steps)


def _probe(log_density, x, value, initial) -> _Probes | str | None:
    """The probes of every coordinate; None if one is flat, :data:`_BOUND` if one has a bound
    of the support within a short step on both sides."""
    d = x.size
    steps, up, down = np.empty(d), np.empty(d), np.empty(d)
    bounded = False
    for i in range(d):
        guess = max(abs(float(x[i])), 1.0) * 1e-3 if initial is None else float(initial[i])
        found = _probe_coordinate(log_density, x, value, i, guess)
        if found is None or found is _BOUND:
            return found
        steps[i], up[i], down[i], cut = found
        bounded = bounded or cut
    return _Probes(steps, up, down, value, bounded)


def _probe_coordinate(log_density, x, value, i, step):
    """``(step, f(x + step e_i), f(x - step e_i), cut)`` with a drop of about 0.5; None (flat);
    or :data:`_BOUND`.

    The sides returned are finite. Where a step whose drop is too small is followed by one
    with a side at -inf, a bound of the support lies between them: the steps bisect that
    bracket (as the reversals would), and if it closes before the drop reaches the window, the
    bound is nearer than the step that would give it (about half a conditional sd). Then the
    largest finite step is returned with ``cut`` True, or :data:`_BOUND` if both sides are
    bounded that near.
    """
    factor, direction = 3.0, 0
    small = wall = None  # the largest finite step with too small a drop; the smallest at -inf
    for _ in range(_MAX_PROBES):
        up, down = _sides(log_density, x, i, step)
        # curving up (between modes, on a banana's inside) sizes the step as well as down
        size = abs(value - 0.5 * (up + down))
        if size == 0.0:  # no change at all: flat, or a step lost in rounding
            if step > _FLAT_STEP * max(abs(float(x[i])), 1.0):
                return None
            step *= 100.0
            continue
        if _HALF / _DROP_TOLERANCE <= size <= _HALF * _DROP_TOLERANCE:
            return step, up, down, False
        if math.isfinite(size):
            if factor < 1.01:
                return step, up, down, False
            if size < _HALF / _DROP_TOLERANCE and (small is None or step > small[0]):
                small = step, up, down
        elif wall is None or step < wall[0]:
            wall = step, up, down
        if small is not None and wall is not None and wall[0] > small[0]:
            if wall[0] < 1.01 * small[0]:  # the bracket closed
                both = not math.isfinite(wall[1]) and not math.isfinite(wall[2])
                return _BOUND if both else (*small, True)
            step = math.sqrt(small[0] * wall[0])
            continue
        wanted = -1 if not math.isfinite(size) or size > _HALF else 1
        if direction and wanted != direction:  # a reversal (not a quadratic): finer factors
            factor = math.sqrt(factor)
        direction = wanted
        far = math.isfinite(size) and not _HALF / _FAR <= size <= _HALF * _FAR
        step = step * (100.0 if far else factor) ** wanted
    return None


def _sides(log_density, x, i, step) -> tuple[float, float]:
    shifted = x.copy()
    shifted[i] += step
    up = log_density(shifted)
    shifted[i] = x[i] - step
    return up, log_density(shifted)


def finite_difference_hessian(
    log_density: Callable[[np.ndarray], float],
    x: np.ndarray,
    value_at_x: float,
    steps: np.ndarray,
) -> np.ndarray:
    """Central-difference Hessian of ``log_density`` at ``x``, step ``steps[i]`` in coordinate i.

    ``2 d^2`` evaluations: two per coordinate and four per pair. Exact for a quadratic.

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
    up = np.empty(x.size)
    down = np.empty(x.size)
    for i in range(x.size):
        up[i], down[i] = _sides(log_density, x, i, float(steps[i]))
    probes = _Probes(np.asarray(steps, float), up, down, value_at_x)
    return _Curvature(log_density, x, probes).central()


class _Curvature:
    """Finite-difference Hessians at ``x`` from its probes: one-sided (one evaluation per pair)
    for climbing, completed to central differences (one more per pair) where it must be exact
    to second order: the covariance reported at a mode."""

    def __init__(self, log_density, x: np.ndarray, probes: _Probes) -> None:
        self.log_density, self.x, self.probes = log_density, x, probes
        self._corners: dict[tuple[int, int], float] = {}
        self._central: np.ndarray | None = None

    def _corner(self, i: int, j: int, sign: float) -> float:
        u = np.zeros(self.x.size)
        u[i], u[j] = self.probes.steps[i], self.probes.steps[j]
        return self.log_density(self.x + sign * u)

    def one_sided(self) -> np.ndarray:
        """``f(x+u) - f(x+h_i e_i) - f(x+h_j e_j) + f(x) = h_i h_j H_ij`` (exact on quadratics;
        off by a third derivative times a step elsewhere)."""
        p = self.probes
        along = p.up + p.down - 2.0 * p.value  # h_i^2 H_ii
        hessian = np.diag(along / p.steps**2)
        for i in range(self.x.size):
            for j in range(i):
                if (i, j) not in self._corners:
                    self._corners[i, j] = self._corner(i, j, 1.0)
                corner = self._corners[i, j] - p.up[i] - p.up[j] + p.value
                hessian[i, j] = hessian[j, i] = corner / (p.steps[i] * p.steps[j])
        return hessian

    def central(self) -> np.ndarray:
        """``f(x+u) + f(x-u) - 2 f(x) = u^T H u`` for ``u = h_i e_i + h_j e_j`` (second order)."""
        if self._central is not None:
            return self._central
        p = self.probes
        along = p.up + p.down - 2.0 * p.value
        hessian = self.one_sided()
        for i in range(self.x.size):
            for j in range(i):
                both = self._corners[i, j] + self._corner(i, j, -1.0) - 2.0 * p.value
                value = (both - along[i] - along[j]) / (2.0 * p.steps[i] * p.steps[j])
                hessian[i, j] = hessian[j, i] = value
        self._central = hessian
        return hessian

    @property
    def is_central(self) -> bool:
        """Whether the central Hessian has been taken."""
        return self._central is not None


def find_mode_and_curvature(
    log_density: Callable[[np.ndarray], float],
    start: np.ndarray,
    max_evals: int | None = None,
    max_newton_steps: int = 50,
    converged_gain: float = CONVERGED_GAIN,
) -> ModeStart:
    """Search for a mode from ``start`` without gradients, then take the curvature there.

    Newton steps on finite differences (see the module docstring), halved until the
    log-density rises. It stops when ``-H`` is positive definite and the Newton step's
    predicted gain ``g^T (-H)^-1 g / 2`` is below 0.5, a number in log-density units (the mode
    is then within about one posterior sd, plenty for a start), so the test does not depend on
    the variables' units.

    Parameters
    ----------
    log_density : callable
        ``x -> log p(x)`` for ``x`` of shape (d,); deterministic (a noisy estimate would make
        both the search and the differences meaningless).
    start : numpy.ndarray, shape (d,)
    max_evals : int, optional
        Evaluations allowed in all (None: no limit). When they run out the result has status
        ``"out_of_budget"`` and the best point found.
    max_newton_steps : int, default 50
        Newton steps (most of them on an updated Hessian, about ``2 d`` evaluations each).
    converged_gain : float, default :data:`CONVERGED_GAIN`
        The predicted gain below which the point is the mode. A smaller one polishes a mode:
        on a long curved ridge (a banana's arm) a climb stopped by 0.5 may still be far from
        the top, and one held to 0.01 goes on up the ridge.

    Returns
    -------
    ModeStart
    """
    x = np.array(start, dtype=float).ravel()
    counted = _Counted(log_density, max_evals)
    try:
        value = counted(x)
        if not math.isfinite(value):
            return ModeStart(x, value, None, "non_finite_start", counted.calls)
        return _newton(counted, x, value, max_newton_steps, converged_gain)
    except _OutOfBudget:
        return ModeStart(counted.best_x, counted.best_value, None, "out_of_budget", counted.calls)


def _newton(counted, x, value, max_newton_steps, converged_gain) -> ModeStart:
    """Newton steps with a full finite-difference Hessian at the first point, then SR1
    updates from the gradients (2 d evaluations a step instead of about d^2); the full
    Hessian is taken again whenever the updated one fails: it lost definiteness, its step does
    not climb, or it says the mode is reached (which only a full one may confirm)."""
    initial = hessian = last = None
    region = _TrustRegion()
    for _ in range(max_newton_steps + 1):
        probes = _probe(counted, x, value, initial)
        if probes is None or probes is _BOUND:
            status = "no_curvature" if probes is None else "near_bound"
            return ModeStart(x, value, None, status, counted.calls)
        initial, gradient = probes.scales, probes.gradient
        if hessian is not None:
            hessian = _sr1_update(hessian, x - last[0], gradient - last[1])
        claimed = False
        for fresh in (False, True) if hessian is not None else (True,):
            curvature = _Curvature(counted, x, probes) if fresh else None
            if fresh:
                # an update that says the mode is reached is checked to second order: on a flat
                # ridge a one-sided curvature is often indefinite there, and its steps crawl
                hessian = curvature.central() if claimed else curvature.one_sided()
            else:
                claimed = _claims_mode(hessian, gradient, probes.steps, converged_gain)
            outcome = _newton_move(
                counted, x, value, hessian, gradient, probes, curvature, converged_gain, region
            )
            if outcome is not None:
                break
        if isinstance(outcome, ModeStart):
            return outcome
        last = (x, gradient)
        x, value, trusted = outcome
        if not trusted:  # the curvature predicted the rise badly: take it afresh
            hessian = None
    return ModeStart(x, value, None, "not_converged", counted.calls)


def _newton_move(counted, x, value, hessian, gradient, probes, curvature, converged_gain, region):
    """One move: the new ``(x, value, trusted)``; a :class:`ModeStart` to end with; None to
    retry with a full Hessian (only when ``hessian`` is an update, ``curvature`` None).
    ``trusted``: the curvature predicted the rise well enough to be updated and kept."""
    fresh, steps = curvature is not None, probes.steps
    covariance = _inverse_if_negative_definite(hessian, steps)
    if fresh and covariance is not None and _newton_gain(covariance, gradient) < converged_gain:
        hessian = curvature.central()  # the mode, it seems: its covariance to second order
        covariance = _inverse_if_negative_definite(hessian, steps)
    axes_only = not np.all(np.isfinite(hessian))
    if axes_only:
        if not fresh:
            return None
        # a corner of the differences lies where the log-density is -inf (a bound of the
        # support within a step): climb on the curvature along the axes, whose probes are finite
        hessian = np.diag(np.diag(hessian))
        covariance = _inverse_if_negative_definite(hessian, steps)
    bounded = probes.bounded or axes_only
    if covariance is None:
        if not fresh:
            return None
        step = _saddle_free_step(hessian, gradient, steps)  # climb with |H|
    else:
        step = covariance @ gradient
        gain = 0.5 * float(gradient @ step)
        if gain < converged_gain:
            return _top(counted, x, value, covariance, bounded) if fresh else None
    step = region.cap(step, steps)
    moved, moved_value, blocked = _line_search(counted, x, value, step)
    if bounded and blocked:  # the climb runs into the bound: no Gaussian where it ends
        end = (moved, moved_value) if moved_value > value else (x, value)
        return ModeStart(*end, None, "near_bound", counted.calls)
    if moved_value <= value and fresh and not (curvature.is_central or axes_only):
        # a one-sided curvature that does not climb may be its error: try it to second order
        return _newton_move(
            counted, x, value, curvature.central(), gradient, probes, curvature, converged_gain,
            region,
        )  # fmt: skip
    if moved_value > value:
        trusted = (
            _predicted_well(moved - x, moved_value - value, gradient, hessian) and not axes_only
        )
        region.learn(moved - x, steps, trusted)
        return moved, moved_value, trusted
    if not fresh:
        return None
    if covariance is not None and gain < _NOISE_GAIN:
        # at the floor the differences leave on a non-quadratic density: the mode
        return _top(counted, x, value, covariance, bounded)
    status = "near_bound" if bounded else "indefinite" if covariance is None else "not_converged"
    return ModeStart(x, value, None, status, counted.calls)


def _predicted_well(move, rise, gradient, hessian) -> bool:
    """Whether the quadratic model predicted the rise of the move within a factor 2 (its
    curvature is then updated and kept; otherwise the next point takes a full one)."""
    predicted = float(gradient @ move) + 0.5 * float(move @ hessian @ move)
    return 0.5 * predicted <= rise <= 2.0 * predicted


class _TrustRegion:
    """How far a climb's next move may go, in the coordinates scaled by the probes' steps."""

    def __init__(self) -> None:
        self.radius, self.capped, self.offered = TRUST_RADIUS, False, 0.0

    def cap(self, step: np.ndarray, scales: np.ndarray) -> np.ndarray:
        """``step``, shortened to the radius (the line search starts from it)."""
        length = float(np.linalg.norm(step / scales))
        self.capped = length > self.radius
        self.offered = min(length, self.radius)
        return step * (self.radius / length) if self.capped else step

    def learn(self, move: np.ndarray, scales: np.ndarray, trusted: bool) -> None:
        """Grow after a capped move that rose as predicted; shrink to a move the line search
        had to shorten."""
        taken = float(np.linalg.norm(move / scales))
        if taken < 0.99 * self.offered:
            self.radius = max(taken, _MIN_TRUST_RADIUS)
        elif self.capped and trusted:
            self.radius *= _TRUST_GROWTH


def _top(counted, x, value, covariance, bounded) -> ModeStart:
    """The end of a climb at a mode: a Gaussian, unless a bound of the support is within a
    difference step (a mode against a bound)."""
    if bounded:
        return ModeStart(x, value, None, "near_bound", counted.calls)
    return ModeStart(x, value, covariance, "gaussian", counted.calls)


def _claims_mode(hessian, gradient, steps, converged_gain) -> bool:
    covariance = _inverse_if_negative_definite(hessian, steps)
    return covariance is not None and _newton_gain(covariance, gradient) < converged_gain


def _newton_gain(covariance: np.ndarray, gradient: np.ndarray) -> float:
    return 0.5 * float(gradient @ covariance @ gradient)


def _sr1_update(hessian: np.ndarray, step: np.ndarray, change: np.ndarray) -> np.ndarray:
    """Symmetric rank-one update of a Hessian from a step and the gradient's change over it
    (skipped when its denominator is tiny, the standard safeguard)."""
    residual = change - hessian @ step
    denominator = float(residual @ step)
    # (<=: a residual of exactly 0, on a quadratic, is no update, not 0 / 0)
    if abs(denominator) <= 1e-8 * np.linalg.norm(residual) * np.linalg.norm(step):
        return hessian
    return hessian + np.outer(residual, residual) / denominator


def _saddle_free_step(hessian: np.ndarray, gradient: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """``|-H|^-1 g`` in the coordinates scaled by ``steps``: each eigen-direction of the
    curvature by its absolute value, floored at ``_EIGEN_FLOOR`` of the largest."""
    scaled = -hessian * np.outer(steps, steps)
    values, vectors = np.linalg.eigh(0.5 * (scaled + scaled.T))
    magnitudes = np.maximum(np.abs(values), _EIGEN_FLOOR * np.abs(values).max())
    return steps * (vectors @ ((vectors.T @ (steps * gradient)) / magnitudes))


def _line_search(counted, x, value, step):
    """``(x + t step, its value, blocked)`` for the first ``t = 1, 1/2, ...`` that raises the
    log-density (``x`` and ``value`` if none does); ``blocked``: the full step ends at -inf."""
    t = 1.0
    for halving in range(_MAX_HALVINGS):
        trial = x + t * step
        trial_value = counted(trial)
        if halving == 0:
            blocked = trial_value == -math.inf  # (_Counted reads NaN as -inf)
        if trial_value > value:
            return trial, trial_value, blocked
        t *= 0.5
    return x, value, blocked


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


def axis_drops(
    log_density: Callable[[np.ndarray], float],
    mode: np.ndarray,
    value_at_mode: float,
    covariance: np.ndarray,
    distance: float = 2.0,
) -> np.ndarray:
    """The log-density's drop from ``mode`` at ``distance`` sds along each principal axis.

    Along each eigen-direction of ``covariance``, both ways: ``2 d`` evaluations. A Gaussian
    with that covariance drops by exactly ``distance**2 / 2`` everywhere; a banana, a funnel or
    a heavy tail does not.

    Parameters
    ----------
    log_density : callable
    mode : numpy.ndarray, shape (d,)
    value_at_mode : float
    covariance : numpy.ndarray, shape (d, d)
    distance : float, default 2.0

    Returns
    -------
    numpy.ndarray, shape (2 d,)
        The drops (``inf`` where the log-density is not finite).
    """
    values, vectors = np.linalg.eigh(covariance)
    offsets = distance * vectors * np.sqrt(np.maximum(values, 0.0))
    drops = []
    for column in offsets.T:
        for sign in (1.0, -1.0):
            value = float(log_density(mode + sign * column))
            drops.append(value_at_mode - value if math.isfinite(value) else math.inf)
    return np.array(drops)
