"""Gaussian linear algebra for random-walk proposals: Cholesky factors and log-densities.

A random-walk proposal ``N(x, C)`` is drawn as ``x + L @ noise`` with the lower Cholesky factor
``L`` of ``C``; its log-density needs ``L`` only. The factorisations here try the cheap path first
(a compiled single pass when Numba is available) and fall back to LAPACK with diagonal jitter.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import LinAlgError, cholesky, lapack, solve_triangular

from pymc_kameleon.core import accelerated

__all__ = [
    "LOG_2PI",
    "cholesky_with_jitter",
    "gaussian_log_pdf",
    "gaussian_log_pdf_of_noise",
    "gaussian_log_pdfs_of_noise",
    "proposal_cholesky",
    "scaled_cholesky_numpy",
]

LOG_2PI = math.log(2.0 * math.pi)
# From this dimension on, LAPACK's factorisation beats the compiled single pass (39 against 95 us
# at d = 100 on the 2-core test machine, benchmarks/notes/lab-notes.md); below it, the call overhead
# loses (4.5 against 1 us at d = 10).
LAPACK_MIN_DIM = 40


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
    cov = scatter * scale
    cov.flat[:: cov.shape[0] + 1] += gamma2
    # cov.T is Fortran-ordered (no copy for LAPACK) and its upper triangle is cov's lower one
    upper, info = lapack.dpotrf(cov.T, lower=0, clean=1, overwrite_a=1)
    chol = upper.T
    # an infinite diagonal entry can factor "successfully" into an infinite pivot
    return chol, info == 0 and bool(np.isfinite(chol).all())


def proposal_cholesky(scatter: np.ndarray, scale: float, gamma2: float) -> np.ndarray:
    """Lower Cholesky factor of the proposal covariance ``gamma2 I + scale * scatter``.

    Tries a plain factorisation first (below ``LAPACK_MIN_DIM`` dimensions and with Numba, a
    compiled single pass over the d x d matrix without temporaries; otherwise LAPACK's), then
    falls back to :func:`cholesky_with_jitter`.

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
    if accelerated.HAVE_NUMBA and scatter.shape[0] < LAPACK_MIN_DIM:
        chol, ok = accelerated.scaled_cholesky(scatter, scale, gamma2)
    else:
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
    if accelerated.HAVE_NUMBA:
        noise = accelerated.forward_substitution(chol, x - mean)
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
    if accelerated.HAVE_NUMBA:
        return accelerated.standard_normal_log_kernel(chol, noise) - 0.5 * dim * LOG_2PI
    log_det = float(np.log(np.diagonal(chol)).sum())  # pragma: no cover
    return -0.5 * float(noise @ noise) - log_det - 0.5 * dim * LOG_2PI  # pragma: no cover


def gaussian_log_pdfs_of_noise(noise: np.ndarray, chol: np.ndarray) -> np.ndarray:
    """:func:`gaussian_log_pdf_of_noise` for rows of noise, each with its own factor.

    Parameters
    ----------
    noise : numpy.ndarray, shape (n, d)
    chol : numpy.ndarray, shape (n, d, d)
        Lower Cholesky factors.

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    log_det = np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
    return -0.5 * np.einsum("ni,ni->n", noise, noise) - log_det - 0.5 * noise.shape[1] * LOG_2PI
