"""The UCI Glass data, as used by the GP-classification target.

Glass Identification (UCI Machine Learning Repository, German, B., 1987, CC BY 4.0) is
stored in ``pymc_kameleon/data/glass.csv``; see ``pymc_kameleon/data/GLASS_LICENSE.md``
for the attribution and the changes made (class names mapped back to the UCI class
numbers, refractive index stored as ``1000 * (RI - 1.518)`` as in ``MASS::fgl``).

The Gaussian-process classification experiment of the Kernel Adaptive Metropolis-Hastings
and Kernel Hamiltonian Monte Carlo papers uses the binary task *window glass versus the
rest* on whitened inputs; :func:`load_glass_gpc` returns exactly that
(:mod:`pymc_kameleon.targets.gp_classification` builds its likelihood estimate).

Only NumPy, SciPy and the standard library are used here.
"""

from __future__ import annotations

import io
from importlib import resources

import numpy as np
from scipy.linalg import solve_triangular

__all__ = [
    "GLASS_CLASS_NAMES",
    "GLASS_FEATURES",
    "glass_window_labels",
    "load_glass",
    "load_glass_gpc",
    "whiten",
]

GLASS_FEATURES: tuple[str, ...] = ("RI", "Na", "Mg", "Al", "Si", "K", "Ca", "Ba", "Fe")
"""Names of the nine input columns, in the order of the columns of ``X``."""

GLASS_CLASS_NAMES: dict[int, str] = {
    1: "building_windows_float",
    2: "building_windows_non_float",
    3: "vehicle_windows_float",
    4: "vehicle_windows_non_float",
    5: "containers",
    6: "tableware",
    7: "headlamps",
}
"""UCI class numbers and their meaning (class 4 has no rows in the data)."""

_GLASS_RESOURCE = "glass.csv"
_N_GLASS_ROWS = 214
_LAST_WINDOW_CLASS = 4


def _read_glass_table() -> np.ndarray:
    """Read ``glass.csv`` from the package data as a float64 table of shape ``(214, 10)``.

    Returns
    -------
    numpy.ndarray
        The nine features followed by the class number, one row per glass fragment.
    """
    text = resources.files("pymc_kameleon.data").joinpath(_GLASS_RESOURCE).read_text("utf-8")
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1, dtype=np.float64)
    if table.shape != (_N_GLASS_ROWS, len(GLASS_FEATURES) + 1):
        raise RuntimeError(f"{_GLASS_RESOURCE} is damaged: unexpected table shape {table.shape}")
    return table


def load_glass() -> tuple[np.ndarray, np.ndarray]:
    """Load the UCI Glass Identification data.

    Returns
    -------
    X : numpy.ndarray
        Float64 array of shape ``(214, 9)`` with columns :data:`GLASS_FEATURES`. The
        refractive index column is ``1000 * (RI_UCI - 1.518)`` (the ``MASS::fgl`` scaling);
        the other columns are weight percent of oxides, as in UCI.
    classes : numpy.ndarray
        Int64 array of shape ``(214,)`` with the UCI class numbers in ``{1, 2, 3, 5, 6, 7}``
        (see :data:`GLASS_CLASS_NAMES`); class counts are 70, 76, 17, 13, 9 and 29.

    Examples
    --------
    >>> X, classes = load_glass()
    >>> X.shape, classes.shape
    ((214, 9), (214,))
    """
    table = _read_glass_table()
    X = np.ascontiguousarray(table[:, :-1])
    classes = table[:, -1].astype(np.int64)
    return X, classes


def glass_window_labels(classes: np.ndarray) -> np.ndarray:
    """Turn UCI glass classes into the binary labels *window glass* (+1) versus the rest (-1).

    Parameters
    ----------
    classes : numpy.ndarray
        Integer array of shape ``(n,)`` with UCI class numbers in ``1..7``.

    Returns
    -------
    numpy.ndarray
        Int64 array of shape ``(n,)``: ``+1`` for classes 1-4 (building and vehicle windows)
        and ``-1`` for classes 5-7 (containers, tableware, headlamps). On the full data this
        gives 163 labels ``+1`` and 51 labels ``-1``.

    Raises
    ------
    ValueError
        If ``classes`` is not one-dimensional or holds values that are not integers in 1..7.
    """
    arr = np.asarray(classes)
    if arr.ndim != 1:
        raise ValueError(f"classes must be a 1-D array of UCI class numbers; got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"classes must hold integers 1..7; got dtype {arr.dtype}")
    values = arr.astype(np.float64)
    bad = ~np.isfinite(values) | (values != np.round(values)) | (values < 1) | (values > 7)
    if np.any(bad):
        raise ValueError(
            "classes must hold UCI class numbers, integers 1..7; "
            f"found {arr[bad][:5].tolist()}: pass the second output of load_glass()"
        )
    return np.where(values <= _LAST_WINDOW_CLASS, 1, -1).astype(np.int64)


def whiten(X: np.ndarray) -> np.ndarray:
    """Centre the columns of ``X`` and decorrelate them with the inverse Cholesky factor.

    Each row ``x`` becomes ``L^{-1} (x - mean)`` where ``L`` is the lower Cholesky factor of
    the sample covariance ``np.cov(X, rowvar=False, ddof=1)``. The result has column means
    zero and sample covariance (``ddof=1``) equal to the identity. Shifting a column or
    multiplying it by a positive constant does not change the output.

    Parameters
    ----------
    X : numpy.ndarray
        Array of shape ``(n, d)`` with ``n > d`` finite rows.

    Returns
    -------
    numpy.ndarray
        Whitened float64 array of shape ``(n, d)``.

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array with more rows than columns, or if its sample
        covariance is singular (e.g. a constant or duplicated column): drop such columns.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array of shape (n, d); got shape {X.shape}")
    n, d = X.shape
    if d < 1 or n <= d:
        raise ValueError(f"X must have more rows than columns (n > d >= 1); got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must contain only finite values; found NaN or inf")
    centred = X - X.mean(axis=0)
    cov = np.atleast_2d(np.cov(centred, rowvar=False, ddof=1))
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError(
            "X has a singular sample covariance (constant or linearly dependent columns); "
            "drop the redundant columns before whitening"
        ) from None
    # Solve L Z^T = centred^T, i.e. each row becomes L^{-1} (x - mean).
    return solve_triangular(chol, centred.T, lower=True).T


def load_glass_gpc() -> tuple[np.ndarray, np.ndarray]:
    """Load Glass as the binary GP-classification task of the KAMH/KMC papers.

    Returns
    -------
    X : numpy.ndarray
        Whitened inputs (see :func:`whiten`), float64 of shape ``(214, 9)``.
    y : numpy.ndarray
        Int64 labels of shape ``(214,)``: ``+1`` for window glass (163 rows), ``-1``
        otherwise (51 rows).
    """
    X, classes = load_glass()
    return whiten(X), glass_window_labels(classes)
