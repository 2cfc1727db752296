"""Gaussian random-walk proposals, including the kernel-informed Kameleon proposal.

The Kameleon proposal at a point :math:`y` (Sejdinovic et al., 2014) is

.. math:: q(\\cdot \\mid y) = \\mathcal N\\big(y,\\; \\gamma^2 I + \\nu^2 M_y H M_y^\\top\\big),

where the columns of the :math:`d \\times n` matrix :math:`M_y` are :math:`2\\nabla_x k(x, z_i)`
evaluated at :math:`x = y` for a subsample :math:`z_1, \\dots, z_n` of the chain history, and
:math:`H = I_n - \\tfrac1n \\mathbf 1 \\mathbf 1^\\top` is the centering matrix. We never form
:math:`H`: :math:`M H M^\\top = \\sum_i (m_i - \\bar m)(m_i - \\bar m)^\\top` with :math:`m_i` the
columns of :math:`M`, which costs :math:`O(n d^2)`.

The proposal depends on :math:`y`, so it is *not* symmetric and the Metropolis–Hastings ratio must
include :math:`q(x \\mid x^*) / q(x^* \\mid x)`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular

from pymc_kameleon.core import _accelerated
from pymc_kameleon.core.adaptation import optimal_rw_scale
from pymc_kameleon.core.kernels import GaussianKernel, Kernel

__all__ = [
    "centered_gradient_matrix",
    "cholesky_with_jitter",
    "gaussian_log_pdf",
    "gaussian_log_pdf_of_noise",
    "kameleon_covariance",
    "kameleon_gradient_matrix",
    "kameleon_scatter",
    "kernel_term_trace",
    "proposal_cholesky",
    "random_walk_trace",
    "scale_for_trace",
    "scaled_cholesky_numpy",
]

_LOG_2PI = math.log(2.0 * math.pi)


def cholesky_with_jitter(cov: np.ndarray, jitter: float = 1e-10, max_tries: int = 10) -> np.ndarray:
    """Lower Cholesky factor of a covariance, adding diagonal jitter if it is not quite PD.

    Parameters
    ----------
    cov : numpy.ndarray, shape (d, d)
        Symmetric covariance matrix.
    jitter : float, default 1e-10
        First jitter, relative to the mean of the diagonal; it grows tenfold at each retry.
    max_tries : int, default 10
        Number of retries before giving up.

    Returns
    -------
    numpy.ndarray, shape (d, d)
        Lower-triangular ``L`` with ``L @ L.T`` equal to ``cov`` (plus any jitter used).

    Raises
    ------
    numpy.linalg.LinAlgError
        If ``cov`` contains non-finite values or is not positive definite even with jitter.
    """
    if not np.all(np.isfinite(cov)):
        raise LinAlgError("The proposal covariance contains non-finite values.")
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        pass
    scale = max(float(np.mean(np.diag(cov))), np.finfo(float).tiny)
    eye = np.eye(cov.shape[0])
    for attempt in range(max_tries):
        try:
            return cholesky(
                cov + jitter * 10.0**attempt * scale * eye, lower=True, check_finite=False
            )
        except LinAlgError:
            continue
    raise LinAlgError("The proposal covariance is not positive definite, even with jitter.")


def scaled_cholesky_numpy(
    scatter: np.ndarray, scale: float, gamma2: float
) -> tuple[np.ndarray, bool]:
    """NumPy twin of the compiled ``scaled_cholesky``: factor ``gamma2 I + scale * scatter``.

    Parameters
    ----------
    scatter : numpy.ndarray, shape (d, d)
        Symmetric positive semi-definite matrix (only the lower triangle is read).
    scale, gamma2 : float
        Multiplier of ``scatter`` and variance of the isotropic term.

    Returns
    -------
    chol : numpy.ndarray, shape (d, d)
        Lower Cholesky factor (meaningless when ``ok`` is False).
    ok : bool
        False if the matrix has non-finite entries or is not numerically positive definite.
    """
    cov = np.tril(scatter) * scale
    cov.flat[:: cov.shape[0] + 1] += gamma2
    if not np.all(np.isfinite(cov)):
        return np.zeros_like(cov), False
    try:
        return np.linalg.cholesky(cov), True
    except np.linalg.LinAlgError:
        return np.zeros_like(cov), False


def proposal_cholesky(scatter: np.ndarray, scale: float, gamma2: float) -> np.ndarray:
    """Lower Cholesky factor of the proposal covariance ``gamma2 I + scale * scatter``.

    Tries a plain factorisation first (compiled when Numba is available, a single pass over the
    d x d matrix without temporaries), then falls back to :func:`cholesky_with_jitter`.

    Parameters
    ----------
    scatter : numpy.ndarray, shape (d, d)
        Learned, unscaled part of the covariance (symmetric).
    scale : float
        Its multiplier (e.g. ``nu^2``).
    gamma2 : float
        Variance of the isotropic exploration term.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    Raises
    ------
    numpy.linalg.LinAlgError
        If the covariance is not finite, or not positive definite even with jitter.
    """
    if _accelerated.HAVE_NUMBA:
        chol, ok = _accelerated.scaled_cholesky(scatter, scale, gamma2)
    else:  # pragma: no cover
        chol, ok = scaled_cholesky_numpy(scatter, scale, gamma2)
    if ok:
        return chol
    cov = scatter * scale
    cov.flat[:: cov.shape[0] + 1] += gamma2
    return cholesky_with_jitter(cov)


def gaussian_log_pdf(x: np.ndarray, mean: np.ndarray, chol: np.ndarray) -> float:
    """Log-density of ``N(mean, L L^T)`` at ``x`` from the lower Cholesky factor ``L``.

    Parameters
    ----------
    x, mean : numpy.ndarray, shape (d,)
        Evaluation point and mean.
    chol : numpy.ndarray, shape (d, d)
        Lower Cholesky factor of the covariance.

    Returns
    -------
    float
    """
    if _accelerated.HAVE_NUMBA:
        noise = _accelerated.forward_substitution(chol, x - mean)
    else:  # pragma: no cover
        noise = solve_triangular(chol, x - mean, lower=True, check_finite=False)
    return gaussian_log_pdf_of_noise(noise, chol)


def gaussian_log_pdf_of_noise(noise: np.ndarray, chol: np.ndarray) -> float:
    """Log-density of ``mean + L @ noise`` under ``N(mean, L L^T)``, given the noise.

    When a proposal was drawn as ``mean + L @ noise`` with standard normal ``noise`` this avoids
    a triangular solve.

    Parameters
    ----------
    noise : numpy.ndarray, shape (d,)
        The standard normal vector the proposal was drawn with.
    chol : numpy.ndarray, shape (d, d)
        Lower Cholesky factor ``L`` of the proposal covariance.

    Returns
    -------
    float
    """
    dim = noise.shape[0]
    if _accelerated.HAVE_NUMBA:
        return _accelerated.standard_normal_log_kernel(chol, noise) - 0.5 * dim * _LOG_2PI
    log_det = float(np.log(np.diagonal(chol)).sum())  # pragma: no cover
    return -0.5 * float(noise @ noise) - log_det - 0.5 * dim * _LOG_2PI  # pragma: no cover


def kameleon_gradient_matrix(y: np.ndarray, history: np.ndarray, kernel: Kernel) -> np.ndarray:
    """The matrix ``M_y`` of the KAMH paper, stored transposed: row i is ``2 grad_x k(y, z_i)``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray, shape (n, d)
        Subsample ``z_1..z_n`` of the chain history.
    kernel : Kernel
        Kernel with gradients in its first argument.

    Returns
    -------
    numpy.ndarray, shape (n, d)
    """
    return 2.0 * kernel.grad(y, history)


def centered_gradient_matrix(y: np.ndarray, history: np.ndarray, kernel: Kernel) -> np.ndarray:
    """``M_y`` (transposed, as in :func:`kameleon_gradient_matrix`) with its row mean removed.

    ``C^T C`` of the result equals ``M H M^T``. The Gaussian kernel uses a compiled loop when
    Numba is available.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the gradients are taken.
    history : numpy.ndarray, shape (n, d)
        History subsample.
    kernel : Kernel
        Kernel with gradients in its first argument.

    Returns
    -------
    numpy.ndarray, shape (n, d)
    """
    if _accelerated.HAVE_NUMBA and type(kernel) is GaussianKernel:
        inv_bandwidth2 = 1.0 / kernel.bandwidth**2
        return _accelerated.gaussian_centered_gradients(
            np.ascontiguousarray(y, dtype=float),
            np.ascontiguousarray(history, dtype=float),
            inv_bandwidth2,
        )
    m = kameleon_gradient_matrix(y, history, kernel)
    m -= m.sum(axis=0) * (1.0 / m.shape[0])
    return m


def kameleon_scatter(y: np.ndarray, history: np.ndarray, kernel: Kernel) -> np.ndarray:
    """The kernel term ``M_y H M_y^T`` of the Kameleon covariance (a new d x d array).

    The Gaussian kernel uses one compiled pass (gradients, centring and the d x d product) when
    Numba is available; the NumPy twin is ``C.T @ C`` with ``C`` from
    :func:`centered_gradient_matrix`.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray, shape (n, d)
        Subsample ``z_1..z_n`` of the chain history, ``n >= 1``.
    kernel : Kernel
        Kernel with gradients in its first argument.

    Returns
    -------
    numpy.ndarray, shape (d, d)
    """
    if _accelerated.HAVE_NUMBA and type(kernel) is GaussianKernel:
        return _accelerated.gaussian_gradient_scatter(
            np.ascontiguousarray(y, dtype=float),
            np.ascontiguousarray(history, dtype=float),
            1.0 / kernel.bandwidth**2,
        )
    m = centered_gradient_matrix(y, history, kernel)
    return m.T @ m


def kameleon_covariance(
    y: np.ndarray, history: np.ndarray | None, kernel: Kernel, gamma2: float, nu2: float
) -> np.ndarray:
    """Covariance ``gamma2 I + nu2 M H M^T`` of the Kameleon proposal at ``y``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray of shape (n, d), or None
        Subsample of the chain history. ``None`` or fewer than two rows give ``gamma2 I``
        (a plain random walk).
    kernel : Kernel
        Kernel with gradients in its first argument.
    gamma2 : float
        Variance of the isotropic exploration term (gamma squared).
    nu2 : float
        Scale of the kernel-informed term (nu squared).

    Returns
    -------
    numpy.ndarray, shape (d, d)
    """
    dim = y.shape[0]
    cov = np.zeros((dim, dim))
    if history is not None and history.shape[0] >= 2:
        cov = kameleon_scatter(y, history, kernel)
        cov *= nu2
    cov.flat[:: dim + 1] += gamma2
    return cov


def kernel_term_trace(y: np.ndarray, history: np.ndarray, kernel: Kernel) -> float:
    """Trace of ``M H M^T`` at ``y``: the size of the kernel term before the scale ``nu2``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray, shape (n, d)
        History subsample.
    kernel : Kernel
        Kernel with gradients in its first argument.

    Returns
    -------
    float
    """
    m = centered_gradient_matrix(y, history, kernel)
    return float(np.einsum("ij,ij->", m, m))


def random_walk_trace(history: np.ndarray) -> float:
    """Trace of ``2.38^2 / d`` times the covariance of ``history``.

    The size of the optimally scaled random walk with the history's covariance; the Kameleon
    proposal's kernel term gets this trace when the history is first used.

    Parameters
    ----------
    history : numpy.ndarray, shape (n, d)
        History subsample (``n >= 2``).

    Returns
    -------
    float
    """
    history = np.asarray(history, dtype=float)
    return optimal_rw_scale(history.shape[1]) * float(np.trace(np.atleast_2d(np.cov(history.T))))


def scale_for_trace(
    y: np.ndarray, history: np.ndarray, kernel: Kernel, target_trace: float
) -> float | None:
    """The ``nu2`` that gives the kernel term at ``y`` the trace ``target_trace``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray, shape (n, d)
        History subsample.
    kernel : Kernel
        Kernel with gradients in its first argument.
    target_trace : float
        Wanted trace of ``nu2 M H M^T``.

    Returns
    -------
    float or None
        None when no positive finite scale does it (the kernel term vanishes at ``y``, or the
        target is not positive).
    """
    current = kernel_term_trace(y, history, kernel)
    if current > 0.0 and math.isfinite(current) and target_trace > 0.0:
        return target_trace / current
    return None
