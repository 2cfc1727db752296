"""Optional Numba versions of the hot loops (used when Numba imports, NumPy otherwise).

Numba is a dependency of PyTensor, so it is normally present. Every function here has a NumPy
twin (in :mod:`pymc_kameleon.core.proposals`, or :meth:`ChainHistory.subsample
<pymc_kameleon.core.history.ChainHistory.subsample>` for :func:`eligible_indices` and
:func:`take_picked_rows`) and the
tests check that both agree.
"""

from __future__ import annotations

import numpy as np

from pymc_kameleon.core._numba import HAVE_NUMBA, njit

__all__ = [
    "HAVE_NUMBA",
    "eligible_indices",
    "forward_substitution",
    "gaussian_centered_gradients",
    "gaussian_gradient_scatter",
    "gaussian_gradient_scatters",
    "scaled_cholesky",
    "standard_normal_log_kernel",
    "take_picked_rows",
]


if HAVE_NUMBA:

    @njit(cache=True, nogil=True)
    def gaussian_centered_gradients(x, history, inv_bandwidth2):  # pragma: no cover - jitted
        """Rows ``2 grad_x k(x, z_i)`` of the Gaussian kernel, minus their mean over i."""
        n, d = history.shape
        grads = np.empty((n, d))
        mean = np.zeros(d)
        for i in range(n):
            sq = 0.0
            for j in range(d):
                t = history[i, j] - x[j]
                sq += t * t
            weight = 2.0 * inv_bandwidth2 * np.exp(-0.5 * sq * inv_bandwidth2)
            for j in range(d):
                g = weight * (history[i, j] - x[j])
                grads[i, j] = g
                mean[j] += g
        for j in range(d):
            mean[j] /= n
        for i in range(n):
            for j in range(d):
                grads[i, j] -= mean[j]
        return grads

    @njit(cache=True, nogil=True)
    def forward_substitution(lower, rhs):  # pragma: no cover - jitted
        """Solve ``L y = b`` for lower-triangular ``L``."""
        d = rhs.shape[0]
        out = np.empty(d)
        for i in range(d):
            acc = rhs[i]
            for j in range(i):
                acc -= lower[i, j] * out[j]
            out[i] = acc / lower[i, i]
        return out

    @njit(cache=True, nogil=True)
    def standard_normal_log_kernel(lower, noise):  # pragma: no cover - jitted
        """``-0.5 |noise|^2 - sum(log diag L)``: a Gaussian log-density without its constant."""
        acc = 0.0
        for i in range(noise.shape[0]):
            acc -= 0.5 * noise[i] * noise[i] + np.log(lower[i, i])
        return acc

    @njit(cache=True, nogil=True)
    def gaussian_gradient_scatter(x, history, inv_bandwidth2):  # pragma: no cover - jitted
        """``M H M^T`` for the Gaussian kernel: the d x d scatter of the centred gradient rows."""
        grads = gaussian_centered_gradients(x, history, inv_bandwidth2)
        return np.dot(grads.T, grads)

    @njit(cache=True, nogil=True)
    def gaussian_gradient_scatters(points, history, inv_bandwidth2):  # pragma: no cover - jitted
        """:func:`gaussian_gradient_scatter` at every row of ``points``: shape (n, d, d)."""
        n, d = points.shape
        out = np.empty((n, d, d))
        for i in range(n):
            out[i] = gaussian_gradient_scatter(points[i], history, inv_bandwidth2)
        return out

    @njit(cache=True, nogil=True)
    def scaled_cholesky(scatter, scale, gamma2):  # pragma: no cover - jitted
        """Lower Cholesky factor of ``gamma2 I + scale * scatter`` and whether it succeeded.

        Reads the lower triangle only. Fails (returns ``ok=False``) on a non-finite entry or a
        non-positive pivot; the caller then falls back to the jittered LAPACK path.
        """
        d = scatter.shape[0]
        low = np.zeros((d, d))
        for i in range(d):
            for j in range(i + 1):
                if not np.isfinite(scatter[i, j]):
                    return low, False
                acc = scale * scatter[i, j]
                if i == j:
                    acc += gamma2
                for k in range(j):
                    acc -= low[i, k] * low[j, k]
                if i == j:
                    if not (acc > 0.0 and np.isfinite(acc)):
                        return low, False
                    low[i, i] = np.sqrt(acc)
                else:
                    low[i, j] = acc / low[j, j]
        return low, True

    @njit(cache=True, nogil=True)
    def eligible_indices(iterations, size, since):  # pragma: no cover - jitted
        """Indices ``i < size`` with ``iterations[i] >= since``, in increasing order."""
        eligible = np.empty(size, dtype=np.intp)
        m = 0
        for i in range(size):
            if iterations[i] >= since:
                eligible[m] = i
                m += 1
        return eligible[:m]

    @njit(cache=True, nogil=True)
    def take_picked_rows(values, eligible, uniforms):  # pragma: no cover - jitted
        """Rows ``values[eligible[floor(u * m)]]``, one per uniform ``u``; ``m = len(eligible)``."""
        m = eligible.shape[0]
        n, d = uniforms.shape[0], values.shape[1]
        out = np.empty((n, d))
        for r in range(n):
            row = eligible[int(uniforms[r] * m)]
            for j in range(d):
                out[r, j] = values[row, j]
        return out

else:  # pragma: no cover
    gaussian_centered_gradients = None
    gaussian_gradient_scatter = None
    gaussian_gradient_scatters = None
    scaled_cholesky = None
    eligible_indices = None
    take_picked_rows = None
    forward_substitution = None
    standard_normal_log_kernel = None
