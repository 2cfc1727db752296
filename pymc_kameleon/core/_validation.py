"""Argument checks shared by the score-matching estimators (clear errors naming the argument)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["_check_alpha", "_check_lam", "_check_point", "_check_positive", "_check_samples"]


def _check_samples(Z: np.ndarray, name: str = "Z", min_rows: int = 2) -> np.ndarray:
    """Return ``Z`` as a finite float64 matrix or raise ``ValueError``.

    Parameters
    ----------
    Z : numpy.ndarray
        Candidate sample matrix of shape ``(n, d)``.
    name : str, default "Z"
        Argument name used in error messages.
    min_rows : int, default 2
        Minimum number of rows.

    Returns
    -------
    numpy.ndarray
        ``Z`` as a float64 array.
    """
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n, d); got shape {Z.shape}")
    if Z.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} rows; got {Z.shape[0]}")
    if Z.shape[1] < 1:
        raise ValueError(f"{name} must have at least one column; got shape {Z.shape}")
    if not np.all(np.isfinite(Z)):
        raise ValueError(f"{name} must contain only finite values; found NaN or inf")
    return Z


def _check_positive(value: float, name: str) -> float:
    """Return ``value`` as a float after checking it is finite and > 0.

    Parameters
    ----------
    value : float
        Candidate value.
    name : str
        Argument name used in error messages.

    Returns
    -------
    float
        The validated value.
    """
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive finite number; got {value!r}") from None
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return value


def _check_lam(lam: float) -> float:
    """Return the regularisation ``lam`` as a float after checking ``0 <= lam < inf``.

    Parameters
    ----------
    lam : float
        Candidate regularisation strength.

    Returns
    -------
    float
        The validated value.
    """
    try:
        lam = float(lam)
    except (TypeError, ValueError):
        raise ValueError(f"lam must be a finite number >= 0; got {lam!r}") from None
    if not (math.isfinite(lam) and lam >= 0.0):
        raise ValueError(f"lam must be a finite number >= 0; got {lam!r}")
    return lam


def _check_alpha(alpha: np.ndarray, n: int) -> np.ndarray:
    """Return ``alpha`` as a finite float64 vector of length ``n``.

    Parameters
    ----------
    alpha : numpy.ndarray
        Candidate weight vector.
    n : int
        Number of basis points.

    Returns
    -------
    numpy.ndarray
        ``alpha`` as a float64 array of shape ``(n,)``.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    if alpha.shape != (n,):
        raise ValueError(f"alpha must have shape ({n},); got {alpha.shape}")
    return alpha


def _check_point(x: np.ndarray, d: int) -> np.ndarray:
    """Return ``x`` as a float64 vector of length ``d``.

    Parameters
    ----------
    x : numpy.ndarray
        Candidate point.
    d : int
        Dimension of the basis.

    Returns
    -------
    numpy.ndarray
        ``x`` as a float64 array of shape ``(d,)``.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.shape != (d,):
        raise ValueError(f"x must have shape ({d},); got {x.shape}")
    return x
