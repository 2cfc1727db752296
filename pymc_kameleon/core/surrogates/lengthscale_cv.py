"""Choosing the KMC-lite length scale by k-fold cross-validated score matching."""

from __future__ import annotations

import numpy as np

from pymc_kameleon.core.bandwidth import median_heuristic
from pymc_kameleon.core.checks import (
    check_int,
    check_nonnegative,
    check_number_range,
    check_positive,
    check_samples,
)
from pymc_kameleon.core.surrogates.lite import lite_fit, lite_objective

__all__ = ["cross_validated_objective", "select_lengthscale"]


def cross_validated_objective(
    Z: np.ndarray,
    lengthscale: float,
    ridge: float,
    n_folds: int = 5,
    rng: np.random.Generator | None = None,
) -> float:
    """Mean held-out score-matching objective over ``n_folds`` folds.

    Each fold fits :func:`lite_fit` on the other folds and evaluates
    :func:`lite_objective` (without regulariser) on the held-out rows.

    Parameters
    ----------
    Z : numpy.ndarray
        Samples of shape ``(n, d)``; every fold must leave at least 2
        training rows.
    lengthscale : float
        Gaussian kernel length scale, finite and > 0.
    ridge : float
        Ridge regularisation, finite and >= 0.
    n_folds : int, default 5
        Number of folds, >= 2 and <= ``n``.
    rng : numpy.random.Generator or None, optional
        Generator for the fold assignment; ``None`` uses ``default_rng(0)``.

    Returns
    -------
    float
        Mean held-out objective (lower is better).
    """
    Z = check_samples("Z", Z)
    lengthscale = check_positive("lengthscale", lengthscale)
    ridge = check_nonnegative("ridge", ridge)
    folds = _fold_indices(Z.shape[0], n_folds, rng)
    return _cv_score(Z, folds, lengthscale, ridge)


def _fold_indices(n: int, n_folds: int, rng: np.random.Generator | None) -> list[np.ndarray]:
    """Random partition of ``range(n)`` into ``n_folds`` nearly equal folds.

    Parameters
    ----------
    n : int
        Number of samples.
    n_folds : int
        Number of folds.
    rng : numpy.random.Generator or None
        Generator; ``None`` uses ``default_rng(0)``.

    Returns
    -------
    list of numpy.ndarray
        Index arrays of the held-out rows of each fold.
    """
    n_folds = check_int("n_folds", n_folds, minimum=2)
    if n - (n + n_folds - 1) // n_folds < 2 or n_folds > n:
        raise ValueError(f"n_folds={n_folds} is too large for {n} samples in Z")
    if rng is None:
        rng = np.random.default_rng(0)
    return np.array_split(rng.permutation(n), n_folds)


def _cv_score(Z: np.ndarray, folds: list[np.ndarray], lengthscale: float, ridge: float) -> float:
    """Mean held-out objective for a fixed fold partition.

    Parameters
    ----------
    Z : numpy.ndarray
        Validated samples of shape ``(n, d)``.
    folds : list of numpy.ndarray
        Held-out index arrays.
    lengthscale : float
        Validated length scale.
    ridge : float
        Validated regularisation.

    Returns
    -------
    float
        Mean held-out objective.
    """
    scores = []
    for held_out in folds:
        train = np.ones(Z.shape[0], dtype=bool)
        train[held_out] = False
        alpha = lite_fit(Z[train], lengthscale, ridge)
        scores.append(lite_objective(alpha, Z[train], Z[held_out], lengthscale))
    return float(np.mean(scores))


def select_lengthscale(
    Z: np.ndarray,
    ridge: float = 1.0,
    grid: np.ndarray | None = None,
    n_folds: int = 5,
    rng: np.random.Generator | None = None,
    previous: float | None = None,
    bounds: tuple[float, float] | None = None,
    blocked: bool = False,
) -> float:
    """Length scale minimising the cross-validated score-matching objective on a grid.

    The default grid is 13 log-spaced points ``median_distance * 2**[-3, ..., 3]``
    (half-octave steps). With ``previous`` given ("hot start"), it is 5 points
    ``previous * 2**[-1, -0.5, 0, 0.5, 1]``. All candidates share one fold
    partition, so the comparison is paired and the result is deterministic given
    ``rng``.

    Parameters
    ----------
    Z : numpy.ndarray
        Samples of shape ``(n, d)``, ``n >= 2``, finite.
    ridge : float, default 1.0
        Ridge regularisation used for every candidate, finite and >= 0.
    grid : numpy.ndarray or None, optional
        Explicit candidate length scales (all finite and > 0); overrides both
        default grids.
    n_folds : int, default 5
        Number of cross-validation folds.
    rng : numpy.random.Generator or None, optional
        Generator for the fold assignment and the median-distance subsample;
        ``None`` uses ``default_rng(0)``.
    previous : float or None, optional
        Previously selected length scale for the narrow hot-start grid.
    bounds : tuple of float, optional
        ``(low, high)``: candidates are clipped into this interval, so that repeated hot starts
        cannot drift without limit (on Gaussian data the objective keeps improving slowly as the
        length scale grows, because the kernel expansion approaches a quadratic).

    blocked : bool, default False
        Use contiguous blocks of rows as folds instead of a random partition. Pass the rows of
        a Markov chain in time order with ``blocked=True``: consecutive states are nearly equal,
        so random folds leak training points into the held-out fold and the criterion then
        favours length scales that are far too short.

    Returns
    -------
    float
        The best candidate length scale.
    """
    Z = check_samples("Z", Z)
    ridge = check_nonnegative("ridge", ridge)
    if rng is None:
        rng = np.random.default_rng(0)
    candidates = _candidate_grid(Z, grid, previous, rng)
    if bounds is not None:
        low, high = check_number_range("bounds", bounds)
        candidates = np.unique(np.clip(candidates, low, high))
    folds = _fold_indices(Z.shape[0], n_folds, None if blocked else rng)
    if blocked:
        folds = np.array_split(np.arange(Z.shape[0]), len(folds))
    scores = [_cv_score(Z, folds, ell, ridge) for ell in candidates]
    return float(candidates[int(np.nanargmin(scores))])


def _candidate_grid(
    Z: np.ndarray,
    grid: np.ndarray | None,
    previous: float | None,
    rng: np.random.Generator,
) -> np.ndarray:
    """Candidate length scales for :func:`select_lengthscale`.

    Parameters
    ----------
    Z : numpy.ndarray
        Validated samples.
    grid : numpy.ndarray or None
        Explicit grid, if any.
    previous : float or None
        Hot-start centre, if any.
    rng : numpy.random.Generator
        Generator for the median-heuristic subsample.

    Returns
    -------
    numpy.ndarray
        Positive finite candidates.
    """
    if grid is not None:
        grid = np.atleast_1d(np.asarray(grid, dtype=np.float64))
        if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
            raise ValueError("grid must be a non-empty 1-D array of positive finite values")
        return grid
    if previous is not None:
        previous = check_positive("previous", previous)
        return previous * 2.0 ** np.linspace(-1.0, 1.0, 5)
    return median_heuristic(Z, rng=rng) * 2.0 ** np.linspace(-3.0, 3.0, 13)
