"""Whole-trajectory leapfrog on the two KMC surrogates, compiled with Numba when it imports.

Reached through :meth:`LiteSurrogate.trajectory
<pymc_kameleon.core.surrogates.lite.LiteSurrogate.trajectory>` and
:meth:`FiniteScoreMatching.trajectory
<pymc_kameleon.core.surrogates.finite.FiniteScoreMatching.trajectory>`.
:func:`pymc_kameleon.core.hamiltonian.leapfrog` calls a Python gradient function at every step; on
the KMC surrogates (``n`` = 500 basis points or features in 8 dimensions) that Python overhead
is most of the cost of a trajectory. The functions here run the whole trajectory in one call:

* :func:`lite_leapfrog` on ``f(x) = sum_i alpha_i k(z_i, x)`` (Gaussian kernel, length scale
  ``l``), gradient ``sum_i alpha_i k(z_i, x) (z_i - x) / l**2``
  (:class:`~pymc_kameleon.core.surrogates.lite.LiteSurrogate`);
* :func:`finite_leapfrog` on ``f(x) = theta . phi(x)`` with random Fourier features
  ``phi_j(x) = s cos(omega_j . x + u_j)``, ``s = sqrt(2/m)``, gradient
  ``sum_j (-s sin(omega_j . x + u_j) theta_j) omega_j``
  (:class:`~pymc_kameleon.core.surrogates.finite.FiniteScoreMatching`).

Both multiply the gradient by ``surrogate_scale`` (KMC's calibration factor) and follow
:func:`~pymc_kameleon.core.hamiltonian.leapfrog` exactly: a half momentum step, ``n_steps``
position steps separated by full momentum steps, a final half step, ``n_steps + 1`` gradient
evaluations, and an early stop with ``finite=False`` at the first non-finite position, gradient
or momentum (checked in that order). The inputs are trusted (no validation): these are inner
loops of :class:`~pymc_kameleon.step_methods.kmc.KMCStep`.

Without Numba the same functions run the generic NumPy :func:`leapfrog` with NumPy gradients
(:func:`lite_leapfrog_numpy`, :func:`finite_leapfrog_numpy`); the tests check that both agree.
"""

from __future__ import annotations

import math

import numpy as np

from pymc_kameleon.core._numba import HAVE_NUMBA, njit
from pymc_kameleon.core.hamiltonian import LeapfrogResult, leapfrog

__all__ = [
    "HAVE_NUMBA",
    "finite_leapfrog",
    "finite_leapfrog_numpy",
    "lite_leapfrog",
    "lite_leapfrog_numpy",
]


#: the gradient kind passed to the compiled integrator
_LITE, _FINITE = 0, 1
#: an empty inverse mass means the identity
_IDENTITY = np.empty(0)


# --------------------------------------------------------------------------------------------
# NumPy reference (also the fallback without Numba)
# --------------------------------------------------------------------------------------------
def _lite_gradient_numpy(x, basis, alpha, lengthscale, surrogate_scale):
    """``surrogate_scale * sum_i alpha_i k(z_i, x) (z_i - x) / l**2`` (as ``LiteSurrogate``)."""
    diff = basis - x
    inv_ell2 = 1.0 / (lengthscale * lengthscale)
    weights = alpha * np.exp(-0.5 * inv_ell2 * np.einsum("ij,ij->i", diff, diff))
    return surrogate_scale * ((weights @ diff) * inv_ell2)


def _finite_gradient_numpy(x, omega, offset, theta, surrogate_scale):
    """``surrogate_scale * sum_j (-s sin(omega_j . x + u_j) theta_j) omega_j``, ``s=sqrt(2/m)``."""
    scale = math.sqrt(2.0 / omega.shape[0])
    weights = -scale * np.sin(x @ omega.T + offset) * theta
    return surrogate_scale * (weights @ omega)


def lite_leapfrog_numpy(
    q0, p0, basis, alpha, lengthscale, surrogate_scale, step_size, n_steps, inv_mass_diag=None
) -> LeapfrogResult:
    """NumPy twin of :func:`lite_leapfrog` (the generic :func:`leapfrog`); same arguments."""
    basis = np.asarray(basis, dtype=float)
    alpha = np.asarray(alpha, dtype=float)

    def grad(x):
        return _lite_gradient_numpy(x, basis, alpha, lengthscale, surrogate_scale)

    return leapfrog(q0, p0, grad, step_size, n_steps, inv_mass_diag)


def finite_leapfrog_numpy(
    q0, p0, omega, offset, theta, surrogate_scale, step_size, n_steps, inv_mass_diag=None
) -> LeapfrogResult:
    """NumPy twin of :func:`finite_leapfrog` (the generic :func:`leapfrog`); same arguments."""
    omega = np.asarray(omega, dtype=float)
    offset = np.asarray(offset, dtype=float)
    theta = np.asarray(theta, dtype=float)

    def grad(x):
        return _finite_gradient_numpy(x, omega, offset, theta, surrogate_scale)

    return leapfrog(q0, p0, grad, step_size, n_steps, inv_mass_diag)


# --------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------
if HAVE_NUMBA:
    # ``reassoc`` only (no ``nnan``/``ninf``): lets the reductions vectorise while keeping the
    # non-finite checks meaningful; the results then differ from NumPy's by rounding only.
    _REDUCE_FLAGS = {"reassoc"}

    @njit(cache=True, nogil=True, fastmath=_REDUCE_FLAGS)
    def _lite_gradient(q, basis_t, alpha, inv_ell2, surrogate_scale, work, out):  # pragma: no cover
        """Lite gradient at ``q`` into ``out``; ``basis_t`` is the (d, n) transposed basis."""
        d, n = basis_t.shape
        for i in range(n):
            work[i] = 0.0
        for j in range(d):
            qj = q[j]
            row = basis_t[j]
            for i in range(n):
                t = row[i] - qj
                work[i] += t * t
        for i in range(n):
            work[i] = alpha[i] * math.exp(-0.5 * inv_ell2 * work[i])
        for j in range(d):
            qj = q[j]
            row = basis_t[j]
            acc = 0.0
            for i in range(n):
                acc += work[i] * (row[i] - qj)
            out[j] = surrogate_scale * (acc * inv_ell2)

    @njit(cache=True, nogil=True, fastmath=_REDUCE_FLAGS)
    def _finite_gradient(q, omega_t, offset, theta, surrogate_scale, work, out):  # pragma: no cover
        """Finite gradient at ``q`` into ``out``; ``omega_t`` is the (d, m) transposed omega."""
        d, m = omega_t.shape
        scale = math.sqrt(2.0 / m)
        for k in range(m):
            work[k] = offset[k]
        for j in range(d):
            qj = q[j]
            row = omega_t[j]
            for k in range(m):
                work[k] += qj * row[k]
        for k in range(m):
            work[k] = -scale * math.sin(work[k]) * theta[k]
        for j in range(d):
            row = omega_t[j]
            acc = 0.0
            for k in range(m):
                acc += work[k] * row[k]
            out[j] = surrogate_scale * acc

    @njit(cache=True, nogil=True)
    def _gradient(kind, q, matrix_t, coef, offset, inv_ell2, surrogate_scale, work, out):
        """Dispatch to the lite or finite gradient."""  # pragma: no cover - jitted
        if kind == 0:
            _lite_gradient(q, matrix_t, coef, inv_ell2, surrogate_scale, work, out)
        else:
            _finite_gradient(q, matrix_t, offset, coef, surrogate_scale, work, out)

    @njit(cache=True, nogil=True)
    def _all_finite(x):  # pragma: no cover - jitted
        for v in x:
            if not math.isfinite(v):
                return False
        return True

    @njit(cache=True, nogil=True)
    def _trajectory(
        kind, q0, p0, matrix, coef, offset, inv_ell2, surrogate_scale, step_size, n_steps, inv_mass
    ):  # pragma: no cover - jitted
        """The leapfrog loop of :func:`leapfrog` with a compiled surrogate gradient."""
        d = q0.shape[0]
        matrix_t = np.ascontiguousarray(matrix.T)
        work = np.empty(matrix.shape[0])
        grad = np.empty(d)
        q = q0.copy()
        p = p0.copy()
        identity = inv_mass.shape[0] == 0
        _gradient(kind, q, matrix_t, coef, offset, inv_ell2, surrogate_scale, work, grad)
        n_evals = 1
        if not (_all_finite(q) and _all_finite(p) and _all_finite(grad)):
            return q, p, n_evals, False
        half = 0.5 * step_size
        for j in range(d):
            p[j] = p[j] + half * grad[j]
        for step in range(n_steps):
            for j in range(d):
                velocity = p[j] if identity else inv_mass[j] * p[j]
                q[j] = q[j] + step_size * velocity
            if not _all_finite(q):
                return q, p, n_evals, False
            _gradient(kind, q, matrix_t, coef, offset, inv_ell2, surrogate_scale, work, grad)
            n_evals += 1
            if not _all_finite(grad):
                return q, p, n_evals, False
            factor = half if step == n_steps - 1 else step_size
            for j in range(d):
                p[j] = p[j] + factor * grad[j]
            if not _all_finite(p):
                return q, p, n_evals, False
        return q, p, n_evals, True


def _as_float_array(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)


def _inv_mass_arg(inv_mass_diag) -> np.ndarray:
    return _IDENTITY if inv_mass_diag is None else _as_float_array(inv_mass_diag)


def lite_leapfrog(
    q0, p0, basis, alpha, lengthscale, surrogate_scale, step_size, n_steps, inv_mass_diag=None
) -> LeapfrogResult:
    """Leapfrog trajectory on ``surrogate_scale`` times the lite surrogate's gradient.

    Same semantics as :func:`pymc_kameleon.core.hamiltonian.leapfrog` with
    ``grad_log_density = lambda x: surrogate_scale * LiteSurrogate(basis, alpha, l).gradient(x)``;
    the arguments are not validated.

    Parameters
    ----------
    q0, p0 : numpy.ndarray, shape (d,)
        Start position and momentum.
    basis : numpy.ndarray, shape (n, d)
        Basis points ``z``.
    alpha : numpy.ndarray, shape (n,)
        Weights.
    lengthscale : float
        Gaussian kernel length scale ``l`` (> 0).
    surrogate_scale : float
        Factor on the surrogate gradient.
    step_size : float
        Leapfrog step size (> 0).
    n_steps : int
        Number of leapfrog steps (>= 1).
    inv_mass_diag : numpy.ndarray of shape (d,), optional
        Diagonal of ``M^{-1}``; ``None`` for the identity.

    Returns
    -------
    LeapfrogResult
    """
    if not HAVE_NUMBA:  # pragma: no cover
        return lite_leapfrog_numpy(
            q0, p0, basis, alpha, lengthscale, surrogate_scale, step_size, n_steps, inv_mass_diag
        )
    lengthscale = float(lengthscale)
    q, p, n_evals, finite = _trajectory(
        _LITE,
        _as_float_array(q0),
        _as_float_array(p0),
        _as_float_array(basis),
        _as_float_array(alpha),
        _IDENTITY,
        1.0 / (lengthscale * lengthscale),
        float(surrogate_scale),
        float(step_size),
        int(n_steps),
        _inv_mass_arg(inv_mass_diag),
    )
    return LeapfrogResult(q, p, int(n_evals), bool(finite))


def finite_leapfrog(
    q0, p0, omega, offset, theta, surrogate_scale, step_size, n_steps, inv_mass_diag=None
) -> LeapfrogResult:
    """Leapfrog trajectory on ``surrogate_scale`` times the finite surrogate's gradient.

    Same semantics as :func:`pymc_kameleon.core.hamiltonian.leapfrog` with
    ``grad_log_density = lambda x: surrogate_scale * estimator.gradient(x)`` for a
    :class:`~pymc_kameleon.core.surrogates.finite.FiniteScoreMatching` with features
    ``(omega, offset)`` and coefficients ``theta``; the arguments are not validated.

    Parameters
    ----------
    q0, p0 : numpy.ndarray, shape (d,)
        Start position and momentum.
    omega : numpy.ndarray, shape (m, d)
        Frequencies of the random Fourier features.
    offset : numpy.ndarray, shape (m,)
        Phases of the features.
    theta : numpy.ndarray, shape (m,)
        Coefficients of the surrogate.
    surrogate_scale : float
        Factor on the surrogate gradient.
    step_size : float
        Leapfrog step size (> 0).
    n_steps : int
        Number of leapfrog steps (>= 1).
    inv_mass_diag : numpy.ndarray of shape (d,), optional
        Diagonal of ``M^{-1}``; ``None`` for the identity.

    Returns
    -------
    LeapfrogResult
    """
    if not HAVE_NUMBA:  # pragma: no cover
        return finite_leapfrog_numpy(
            q0, p0, omega, offset, theta, surrogate_scale, step_size, n_steps, inv_mass_diag
        )
    q, p, n_evals, finite = _trajectory(
        _FINITE,
        _as_float_array(q0),
        _as_float_array(p0),
        _as_float_array(omega),
        _as_float_array(theta),
        _as_float_array(offset),
        1.0,
        float(surrogate_scale),
        float(step_size),
        int(n_steps),
        _inv_mass_arg(inv_mass_diag),
    )
    return LeapfrogResult(q, p, int(n_evals), bool(finite))
