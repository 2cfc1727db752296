"""The median heuristic: a data-driven kernel length scale from a sample."""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import pdist

from pymc_kameleon.core.checks import check_int

__all__ = ["median_heuristic"]


def _as_sample_matrix(X: np.ndarray) -> np.ndarray:
    """Validate a sample matrix for the median heuristic.

    Parameters
    ----------
    X : numpy.ndarray
        Candidate sample of shape ``(n, d)``.

    Returns
    -------
    numpy.ndarray
        ``X`` as a float64 array.

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, has fewer than 2 rows or has non-finite entries.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array of shape (n, d); got {X.ndim}-D shape {X.shape}")
    if X.shape[0] < 2:
        raise ValueError(f"X must have at least 2 rows; got {X.shape[0]}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must contain only finite values; found NaN or inf")
    return X


def median_heuristic(
    X: np.ndarray,
    max_points: int = 1000,
    rng: np.random.Generator | None = None,
) -> float:
    """Median pairwise Euclidean distance of a (sub)sample.

    If ``X`` has more than ``max_points`` rows, a uniform subsample of
    ``max_points`` distinct rows is drawn first (without replacement). If the
    median is zero, which happens when many rows are repeated (e.g. an MCMC
    history with rejections), the median of the strictly positive distances is
    returned instead.

    Parameters
    ----------
    X : numpy.ndarray
        Sample of shape ``(n, d)`` with ``n >= 2`` and finite entries.
    max_points : int, default 1000
        Maximum number of rows used (at least 2).
    rng : numpy.random.Generator or None, optional
        Generator for the subsample; ``None`` uses ``np.random.default_rng(0)``
        so the result is deterministic.

    Returns
    -------
    float
        The median distance, used by KameleonStep as the Gaussian kernel's length scale
        (``bandwidth="median"``).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, has fewer than 2 rows, has non-finite entries,
        ``max_points < 2``, or all (subsampled) points are identical.
    """
    X = _as_sample_matrix(X)
    max_points = check_int("max_points", max_points, minimum=2)
    n = X.shape[0]
    if n > max_points:
        if rng is None:
            rng = np.random.default_rng(0)
        X = X[rng.choice(n, size=int(max_points), replace=False)]
    distances = pdist(X)
    median = float(np.median(distances))
    if median > 0.0:
        return median
    positive = distances[distances > 0.0]
    if positive.size == 0:
        raise ValueError("cannot compute the median heuristic: all points in X are identical")
    return float(np.median(positive))
