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

from pymc_kameleon.core import _accelerated
from pymc_kameleon.core.adaptation import optimal_rw_scale
from pymc_kameleon.core.kernels import GaussianKernel, Kernel

__all__ = [
    "centered_gradient_matrix",
    "kameleon_covariance",
    "kameleon_gradient_matrix",
    "kameleon_scatter",
    "kernel_term_trace",
    "random_walk_trace",
    "scale_for_trace",
]


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
