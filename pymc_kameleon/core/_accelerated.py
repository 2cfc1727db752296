"""Optional Numba versions of the two hot loops (used when Numba imports, NumPy otherwise).

Numba is a dependency of PyTensor, so it is normally present. Every function here has a NumPy
twin in :mod:`pymc_kameleon.core.proposals` and the tests check that both agree.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "HAVE_NUMBA",
    "forward_substitution",
    "gaussian_centered_gradients",
    "standard_normal_log_kernel",
]

try:  # pragma: no cover - exercised implicitly
    from numba import njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

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

else:  # pragma: no cover
    gaussian_centered_gradients = None
    forward_substitution = None
    standard_normal_log_kernel = None
