"""Hamiltonian primitives of Kernel HMC: metric, trajectory length, leapfrog, accept ratio.

Kernel HMC (Strathmann et al., 2015) integrates Hamilton's equations for

    ``H(q, p) = -log pi(q) + 1/2 p^T M^{-1} p``

with a *surrogate* gradient of ``log pi`` (a learned kernel score model) and then corrects with a
Metropolis test that uses the *true* target log-density at the two trajectory end points only.
The mass matrix ``M`` is diagonal here and is passed as its inverse diagonal ``inv_mass_diag``;
``None`` means the identity. :class:`DiagonalMetric` holds it (momentum draw, velocity, kinetic
energy) and :class:`UniformTrajectoryLength` draws each trajectory's number of steps and step size;
this module is the only copy of these primitives (:class:`~pymc_kameleon.KMCStep` uses them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pymc_kameleon.core.checks import (
    check_int,
    check_int_range,
    check_number_range,
    check_positive,
)

__all__ = [
    "DiagonalMetric",
    "LeapfrogResult",
    "UniformTrajectoryLength",
    "draw_trajectory_length",
    "hamiltonian_log_accept",
    "kinetic_energy",
    "leapfrog",
    "leapfrog_path",
    "log_accept_ratio",
    "sample_momentum",
]

GradFn = Callable[[np.ndarray], np.ndarray]


class LeapfrogResult(NamedTuple):
    """End point of a leapfrog trajectory.

    Attributes
    ----------
    q : numpy.ndarray
        Final position (the last finite-or-not position reached if the run stopped early).
    p : numpy.ndarray
        Final momentum, *not* flipped.
    n_grad_evals : int
        Number of calls made to the gradient function (``n_steps + 1`` for a full run).
    finite : bool
        ``False`` if a position, momentum or gradient became non-finite; the run then stopped
        early and the caller should reject the proposal and record a divergence.
    """

    q: np.ndarray
    p: np.ndarray
    n_grad_evals: int
    finite: bool


def _inv_mass(inv_mass_diag: np.ndarray | None, dim: int) -> np.ndarray | None:
    """Validate an inverse diagonal mass; ``None`` stays ``None`` (identity)."""
    if inv_mass_diag is None:
        return None
    inv_mass = np.asarray(inv_mass_diag, dtype=float)
    if inv_mass.shape != (dim,):
        raise ValueError(f"inv_mass_diag must have shape ({dim},), got {inv_mass.shape}.")
    if not np.all(np.isfinite(inv_mass)) or np.any(inv_mass <= 0):
        raise ValueError("inv_mass_diag must contain finite, strictly positive values.")
    return inv_mass


@dataclass(frozen=True, eq=False)
class DiagonalMetric:
    """A diagonal mass matrix ``M``, given by its inverse diagonal (``None``: the identity).

    The inputs are trusted (use :meth:`checked` to validate an inverse mass): the methods are
    inner loops of a sampler.

    Parameters
    ----------
    inv_mass_diag : numpy.ndarray of shape (d,), optional
        Diagonal of ``M^{-1}``, finite and > 0; ``None`` for the identity.
    """

    inv_mass_diag: np.ndarray | None = None

    @classmethod
    def checked(cls, inv_mass_diag: np.ndarray | None, dim: int) -> DiagonalMetric:
        """The metric of a validated inverse mass of shape ``(dim,)`` (``None`` stays identity).

        Parameters
        ----------
        inv_mass_diag : numpy.ndarray of shape (d,), optional
            Diagonal of ``M^{-1}``; ``None`` for the identity.
        dim : int
            Dimension ``d``.

        Returns
        -------
        DiagonalMetric

        Raises
        ------
        ValueError
            If the shape is wrong or an entry is not finite and > 0.
        """
        return cls(_inv_mass(inv_mass_diag, dim))

    def velocity(self, p: np.ndarray) -> np.ndarray:
        """``M^{-1} p``.

        Parameters
        ----------
        p : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d,)
        """
        return p if self.inv_mass_diag is None else self.inv_mass_diag * p

    def kinetic_energy(self, p: np.ndarray) -> float:
        """Gaussian kinetic energy ``1/2 p^T M^{-1} p`` (additive constants dropped).

        Parameters
        ----------
        p : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """
        return 0.5 * float(np.dot(p, self.velocity(p)))

    def draw_momentum(self, rng: np.random.Generator, dim: int) -> np.ndarray:
        """``p ~ N(0, M)``: ``dim`` standard normals divided by ``sqrt(M^{-1})``.

        Parameters
        ----------
        rng : numpy.random.Generator
            Random number generator (one ``standard_normal(dim)`` call).
        dim : int
            Dimension ``d``.

        Returns
        -------
        numpy.ndarray, shape (d,)
        """
        z = rng.standard_normal(dim)
        return z if self.inv_mass_diag is None else z / np.sqrt(self.inv_mass_diag)

    def __eq__(self, other: object) -> bool:
        """Exact comparison of the inverse masses."""
        if not isinstance(other, DiagonalMetric):
            return NotImplemented
        if self.inv_mass_diag is None or other.inv_mass_diag is None:
            return self.inv_mass_diag is None and other.inv_mass_diag is None
        return bool(np.array_equal(self.inv_mass_diag, other.inv_mass_diag))

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class UniformTrajectoryLength:
    """Random trajectory lengths: ``L ~ UniformInt[L_min, L_max]``, ``eps ~ U[eps_min, eps_max]``.

    Parameters
    ----------
    n_steps_range : tuple of int
        ``(L_min, L_max)`` with ``1 <= L_min <= L_max`` (both ends included).
    step_size_range : tuple of float
        ``(eps_min, eps_max)``, finite, with ``0 < eps_min <= eps_max``.

    Raises
    ------
    ValueError
        If either range is invalid; the message names the offending argument.
    """

    n_steps_range: tuple[int, int]
    step_size_range: tuple[float, float]

    def __post_init__(self) -> None:
        """Validate both ranges."""
        n_steps = check_int_range("n_steps_range", self.n_steps_range, labels=("L_min", "L_max"))
        step_sizes = check_number_range(
            "step_size_range", self.step_size_range, labels=("eps_min", "eps_max")
        )
        object.__setattr__(self, "n_steps_range", n_steps)
        object.__setattr__(self, "step_size_range", step_sizes)

    def step_size_bounds(self, step_scale: float = 1.0) -> tuple[float, float]:
        """``(eps_min, eps_max)`` times ``step_scale`` (a learned factor on both ends).

        Parameters
        ----------
        step_scale : float, default 1.0

        Returns
        -------
        tuple of float
        """
        return self.step_size_range[0] * step_scale, self.step_size_range[1] * step_scale

    def draw(self, rng: np.random.Generator, step_scale: float = 1.0) -> tuple[int, float]:
        """Draw ``L`` first, then ``eps`` from the range scaled by ``step_scale``.

        Parameters
        ----------
        rng : numpy.random.Generator
            Random number generator (one ``integers`` call, then one ``uniform`` call unless
            the range is a single value).
        step_scale : float, default 1.0
            Factor on both ends of the step-size range.

        Returns
        -------
        n_steps : int
        step_size : float
        """
        l_min, l_max = self.n_steps_range
        e_min, e_max = self.step_size_bounds(step_scale)
        n_steps = int(rng.integers(l_min, l_max, endpoint=True))
        step_size = float(rng.uniform(e_min, e_max)) if e_max > e_min else e_min
        return n_steps, step_size


def _all_finite(*arrays: np.ndarray) -> bool:
    """Whether every entry of every array is finite."""
    return all(bool(np.all(np.isfinite(a))) for a in arrays)


def leapfrog(
    q0: np.ndarray,
    p0: np.ndarray,
    grad_log_density: GradFn,
    step_size: float,
    n_steps: int,
    inv_mass_diag: np.ndarray | None = None,
) -> LeapfrogResult:
    """Run ``n_steps`` velocity-Verlet (leapfrog) steps.

    The scheme is a half momentum step, then ``n_steps`` position steps separated by full
    momentum steps, then a final half momentum step. The gradient at the end of one step is
    reused at the start of the next, so a full run costs ``n_steps + 1`` gradient calls.

    The momentum is not flipped at the end. Because the Gaussian kinetic energy depends on ``p``
    only through ``p^T M^{-1} p``, the accept ratio of :func:`hamiltonian_log_accept` is the
    same with or without the flip; flip only if the reversed state itself is needed.

    Parameters
    ----------
    q0 : numpy.ndarray, shape (d,)
        Start position.
    p0 : numpy.ndarray, shape (d,)
        Start momentum.
    grad_log_density : callable
        ``grad_log_density(q) -> ndarray of shape (d,)``: gradient of ``log pi`` (true or
        surrogate).
    step_size : float
        Leapfrog step size ``epsilon`` (> 0).
    n_steps : int
        Number of leapfrog steps ``L`` (>= 1).
    inv_mass_diag : numpy.ndarray of shape (d,), optional
        Diagonal of ``M^{-1}``; ``None`` for the identity.

    Returns
    -------
    LeapfrogResult
        ``(q, p, n_grad_evals, finite)``. With ``finite=False`` the loop stopped at the first
        non-finite position, momentum or gradient.
    """
    q, p, step_size, n_steps, metric = _checked_inputs(q0, p0, step_size, n_steps, inv_mass_diag)
    # Overflow to inf is a divergence that the finiteness checks report; do not also warn.
    with np.errstate(over="ignore", invalid="ignore"):
        return _integrate(q, p, grad_log_density, step_size, n_steps, metric)


def _checked_inputs(
    q0: np.ndarray,
    p0: np.ndarray,
    step_size: float,
    n_steps: int,
    inv_mass_diag: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, float, int, DiagonalMetric]:
    """Copies of ``q0`` and ``p0`` as floats, and the validated step size, steps and metric."""
    q = np.array(q0, dtype=float, copy=True)
    p = np.array(p0, dtype=float, copy=True)
    if q.ndim != 1 or p.shape != q.shape:
        raise ValueError(f"q0 and p0 must be 1-d of equal length, got {q.shape} and {p.shape}.")
    n_steps = check_int("n_steps", n_steps, minimum=1)
    step_size = check_positive("step_size", step_size)
    return q, p, step_size, n_steps, DiagonalMetric.checked(inv_mass_diag, q.size)


def _integrate(
    q: np.ndarray,
    p: np.ndarray,
    grad_log_density: GradFn,
    step_size: float,
    n_steps: int,
    metric: DiagonalMetric,
) -> LeapfrogResult:
    """Leapfrog loop of :func:`leapfrog` on validated inputs (see there)."""
    grad = np.asarray(grad_log_density(q), dtype=float)
    n_evals = 1
    if not _all_finite(q, p, grad):
        return LeapfrogResult(q, p, n_evals, False)
    p = p + 0.5 * step_size * grad
    for step in range(n_steps):
        q = q + step_size * metric.velocity(p)
        if not _all_finite(q):
            return LeapfrogResult(q, p, n_evals, False)
        grad = np.asarray(grad_log_density(q), dtype=float)
        n_evals += 1
        if not _all_finite(grad):
            return LeapfrogResult(q, p, n_evals, False)
        last = step == n_steps - 1
        p = p + (0.5 if last else 1.0) * step_size * grad
        if not _all_finite(p):
            return LeapfrogResult(q, p, n_evals, False)
    return LeapfrogResult(q, p, n_evals, True)


def leapfrog_path(
    q0: np.ndarray,
    p0: np.ndarray,
    grad_log_density: GradFn,
    step_size: float,
    n_steps: int,
    inv_mass_diag: np.ndarray | None = None,
) -> np.ndarray:
    """Every position visited by :func:`leapfrog`, for plotting a trajectory.

    The scheme and its arithmetic are those of :func:`leapfrog` (half momentum step, ``n_steps``
    position steps separated by full momentum steps, final half momentum step), so the last row
    of a finite run equals ``leapfrog(...).q``.

    Parameters
    ----------
    q0 : numpy.ndarray, shape (d,)
        Start position.
    p0 : numpy.ndarray, shape (d,)
        Start momentum.
    grad_log_density : callable
        ``grad_log_density(q) -> ndarray of shape (d,)``: gradient of ``log pi`` (true or
        surrogate).
    step_size : float
        Leapfrog step size ``epsilon`` (> 0).
    n_steps : int
        Number of leapfrog steps ``L`` (>= 1).
    inv_mass_diag : numpy.ndarray of shape (d,), optional
        Diagonal of ``M^{-1}``; ``None`` for the identity.

    Returns
    -------
    numpy.ndarray, shape (n_steps + 1, d)
        Row 0 is ``q0``, row ``k`` the position after ``k`` steps. If a position, momentum or
        gradient becomes non-finite the path stops there: it then has fewer rows, all finite
        (none at all if ``q0`` itself is not finite).
    """
    q, p, step_size, n_steps, metric = _checked_inputs(q0, p0, step_size, n_steps, inv_mass_diag)
    path = [q] if _all_finite(q) else []
    with np.errstate(over="ignore", invalid="ignore"):
        grad = np.asarray(grad_log_density(q), dtype=float)
        if not _all_finite(q, p, grad):
            return np.array(path).reshape(len(path), q.size)
        p = p + 0.5 * step_size * grad
        for step in range(n_steps):
            q = q + step_size * metric.velocity(p)
            if not _all_finite(q):
                break
            path.append(q)
            grad = np.asarray(grad_log_density(q), dtype=float)
            last = step == n_steps - 1
            p = p + (0.5 if last else 1.0) * step_size * grad
            if not _all_finite(grad, p):
                break
    return np.array(path)


def kinetic_energy(p: np.ndarray, inv_mass_diag: np.ndarray | None = None) -> float:
    """Gaussian kinetic energy ``1/2 p^T M^{-1} p`` (additive constants dropped).

    Parameters
    ----------
    p : numpy.ndarray, shape (d,)
        Momentum.
    inv_mass_diag : numpy.ndarray of shape (d,), optional
        Diagonal of ``M^{-1}``; ``None`` for the identity.

    Returns
    -------
    float
    """
    p = np.asarray(p, dtype=float)
    return DiagonalMetric.checked(inv_mass_diag, p.size).kinetic_energy(p)


def sample_momentum(
    rng: np.random.Generator, dim: int, inv_mass_diag: np.ndarray | None = None
) -> np.ndarray:
    """Draw ``p ~ N(0, M)`` with diagonal ``M``, i.e. standard deviations ``1/sqrt(M^{-1})``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Random number generator.
    dim : int
        Dimension ``d``.
    inv_mass_diag : numpy.ndarray of shape (d,), optional
        Diagonal of ``M^{-1}``; ``None`` for the identity.

    Returns
    -------
    numpy.ndarray, shape (d,)
    """
    return DiagonalMetric.checked(inv_mass_diag, dim).draw_momentum(rng, dim)


def draw_trajectory_length(
    rng: np.random.Generator,
    n_steps_range: tuple[int, int],
    step_size_range: tuple[float, float],
) -> tuple[int, float]:
    """Draw a random number of steps and step size for one trajectory.

    ``L ~ UniformInt[L_min, L_max]`` (both ends included) and ``epsilon ~ U[eps_min, eps_max]``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Random number generator.
    n_steps_range : tuple of int
        ``(L_min, L_max)`` with ``1 <= L_min <= L_max``.
    step_size_range : tuple of float
        ``(eps_min, eps_max)``, finite, with ``0 < eps_min <= eps_max``.

    Returns
    -------
    n_steps : int
    step_size : float

    Raises
    ------
    ValueError
        If either range is invalid; the message names the offending argument.
    """
    return UniformTrajectoryLength(n_steps_range, step_size_range).draw(rng)


def hamiltonian_log_accept(
    logp_new: float,
    logp_current: float,
    p_new: np.ndarray,
    p_current: np.ndarray,
    inv_mass_diag: np.ndarray | None = None,
    *,
    finite: bool = True,
) -> float:
    """Log acceptance ratio ``-H(q*, p*) + H(q, p)`` using the true target log-density.

    ``H(q, p) = -log pi(q) + 1/2 p^T M^{-1} p``. Only the squared (scaled) norm of the momentum
    enters, so whether ``p_new`` was flipped does not matter.

    Parameters
    ----------
    logp_new, logp_current : float
        True target log-densities at the proposal and at the current state.
    p_new, p_current : numpy.ndarray, shape (d,)
        Momentum at the end and at the start of the trajectory.
    inv_mass_diag : numpy.ndarray of shape (d,), optional
        Diagonal of ``M^{-1}``; ``None`` for the identity.
    finite : bool, default True
        The ``finite`` flag from :func:`leapfrog`; ``False`` forces ``-inf``.

    Returns
    -------
    float
        ``-inf`` if the trajectory was not finite, ``logp_new`` is NaN or ``-inf``, or ``p_new``
        is not finite. ``+inf`` if the proposal is valid but ``logp_current`` is NaN or
        ``-inf``, so that a chain started at an invalid point leaves it.
    """
    logp_new = float(logp_new)
    logp_current = float(logp_current)
    if not finite or math.isnan(logp_new) or logp_new == -math.inf:
        return -math.inf
    if not _all_finite(np.asarray(p_new, dtype=float)):
        return -math.inf
    if math.isnan(logp_current) or logp_current == -math.inf:
        return math.inf
    metric = DiagonalMetric.checked(inv_mass_diag, np.size(p_new))
    kinetic_current = metric.kinetic_energy(np.asarray(p_current, dtype=float))
    return log_accept_ratio(
        logp_new, logp_current, np.asarray(p_new, dtype=float), kinetic_current, metric
    )


def log_accept_ratio(
    logp_new: float,
    logp_current: float,
    p_new: np.ndarray,
    kinetic_current: float,
    metric: DiagonalMetric,
    *,
    finite: bool = True,
) -> float:
    """:func:`hamiltonian_log_accept` on trusted inputs, with the start's kinetic energy known.

    Parameters
    ----------
    logp_new, logp_current : float
        Log-densities at the proposal and at the current state (the true target's for an exact
        chain).
    p_new : numpy.ndarray, shape (d,)
        Momentum at the end of the trajectory.
    kinetic_current : float
        Kinetic energy of the momentum at the start.
    metric : DiagonalMetric
        The metric of the trajectory.
    finite : bool, default True
        The ``finite`` flag of the trajectory; ``False`` forces ``-inf``.

    Returns
    -------
    float
        ``-inf`` if the trajectory was not finite, ``logp_new`` is NaN or ``-inf``, or the end
        kinetic energy is not finite; ``+inf`` if the proposal is valid but ``logp_current`` is
        NaN or ``-inf`` (a chain started at an invalid point leaves it).
    """
    if not finite or math.isnan(logp_new) or logp_new == -math.inf:
        return -math.inf
    kinetic_new = metric.kinetic_energy(p_new)
    if not math.isfinite(kinetic_new):
        return -math.inf
    if math.isnan(logp_current) or logp_current == -math.inf:
        return math.inf
    return (logp_new - kinetic_new) - (logp_current - kinetic_current)
