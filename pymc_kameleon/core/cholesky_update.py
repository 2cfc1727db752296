"""In-place rank-1 update of a lower Cholesky factor: ``L L^T + v v^T``.

The classic O(m^2) rotation algorithm, compiled with Numba when it is available (it is a PyTensor
dependency) and in plain NumPy otherwise. The finite KMC estimator applies d of these per new
chain state, so its cost does not grow with the number of states.
"""

from __future__ import annotations

import math

import numpy as np

from pymc_kameleon.core._numba import HAVE_NUMBA, njit

__all__ = ["HAVE_NUMBA", "cholesky_rank1_update", "cholesky_rank1_update_numpy"]


def cholesky_rank1_update_numpy(lower: np.ndarray, v: np.ndarray) -> None:
    """Turn ``L`` into the Cholesky factor of ``L L^T + v v^T``, in place (NumPy version).

    Classic Givens-rotation algorithm, one column at a time, ``O(m**2)`` operations.

    Parameters
    ----------
    lower : numpy.ndarray, shape (m, m)
        Lower-triangular factor with positive diagonal; overwritten.
    v : numpy.ndarray, shape (m,)
        Update vector; overwritten (used as workspace).
    """
    m = v.shape[0]
    for k in range(m):
        diag = lower[k, k]
        radius = math.hypot(diag, v[k])
        cos, sin = radius / diag, v[k] / diag
        lower[k, k] = radius
        if k + 1 < m:
            column = lower[k + 1 :, k]
            column += sin * v[k + 1 :]
            column /= cos
            v[k + 1 :] *= cos
            v[k + 1 :] -= sin * column


if HAVE_NUMBA:

    @njit(cache=True, nogil=True)
    def _cholesky_rank1_update_jit(lower, v):  # pragma: no cover - jitted
        """Column-oriented rank-one update (contiguous, vectorisable inner loop in F order)."""
        m = v.shape[0]
        work = v.copy()
        for k in range(m):
            diag = lower[k, k]
            radius = np.sqrt(diag * diag + work[k] * work[k])
            cos = radius / diag
            sin = work[k] / diag
            inv_cos = 1.0 / cos
            lower[k, k] = radius
            for i in range(k + 1, m):
                new = (lower[i, k] + sin * work[i]) * inv_cos
                work[i] = cos * work[i] - sin * new
                lower[i, k] = new

else:  # pragma: no cover
    _cholesky_rank1_update_jit = None


def cholesky_rank1_update(lower: np.ndarray, v: np.ndarray, use_numba: bool = True) -> None:
    """Turn ``L`` into the Cholesky factor of ``L L^T + v v^T``, in place.

    Parameters
    ----------
    lower : numpy.ndarray, shape (m, m)
        Float64 lower-triangular factor with positive diagonal; overwritten. Entries above the
        diagonal are neither read nor written. Any memory layout works; Fortran order (contiguous
        columns) is several times faster.
    v : numpy.ndarray, shape (m,)
        Update vector. The Numba path leaves it unchanged; the NumPy path overwrites it.
    use_numba : bool, default True
        Use the compiled version when Numba is available.
    """
    if use_numba and HAVE_NUMBA:
        _cholesky_rank1_update_jit(lower, v)
    else:
        cholesky_rank1_update_numpy(lower, v)
