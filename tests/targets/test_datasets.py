"""Tests for :mod:`pymc_kameleon.targets.glass` (the shipped UCI Glass data)."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from pymc_kameleon.targets.glass import (
    GLASS_FEATURES,
    glass_window_labels,
    load_glass,
    load_glass_gpc,
    whiten,
)


def test_glass_files_are_package_resources() -> None:
    """Both the CSV and its licence note are reachable through importlib.resources."""
    data = resources.files("pymc_kameleon.data")
    assert data.joinpath("glass.csv").is_file()
    assert data.joinpath("GLASS_LICENSE.md").is_file()
    header = data.joinpath("glass.csv").read_text("utf-8").splitlines()[0]
    assert header.split(",") == [*GLASS_FEATURES, "type"]


def test_load_glass_shapes_and_dtypes() -> None:
    """X is float64 (214, 9) and the classes are int64 (214,)."""
    X, classes = load_glass()
    assert X.shape == (214, 9)
    assert X.dtype == np.float64
    assert classes.shape == (214,)
    assert classes.dtype == np.int64
    assert np.all(np.isfinite(X))


def test_load_glass_class_counts_match_uci() -> None:
    """UCI class counts are 70, 76, 17, 13, 9, 29 for classes 1, 2, 3, 5, 6, 7."""
    _, classes = load_glass()
    values, counts = np.unique(classes, return_counts=True)
    assert values.tolist() == [1, 2, 3, 5, 6, 7]
    assert counts.tolist() == [70, 76, 17, 13, 9, 29]
    # Rows are in UCI order: ids 1-70 are class 1, ids 196-214 are class 7.
    assert np.all(classes[:70] == 1)
    assert np.all(classes[-29:] == 7)


def test_load_glass_first_row_matches_uci() -> None:
    """First UCI row: RI 1.52101 (stored as 1000 * (RI - 1.518) = 3.01), Na 13.64, ..."""
    X, _ = load_glass()
    expected = [3.01, 13.64, 4.49, 1.10, 71.78, 0.06, 8.75, 0.0, 0.0]
    np.testing.assert_allclose(X[0], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(1.518 + X[0, 0] / 1000.0, 1.52101, rtol=0, atol=1e-12)


def test_window_labels_counts() -> None:
    """Window glass (classes 1-4) versus the rest gives 163 positives and 51 negatives."""
    _, classes = load_glass()
    y = glass_window_labels(classes)
    assert y.dtype == np.int64
    assert set(np.unique(y).tolist()) == {-1, 1}
    assert int(np.sum(y == 1)) == 163
    assert int(np.sum(y == -1)) == 51


def test_window_labels_on_each_class() -> None:
    """Classes 1-4 map to +1 and classes 5-7 to -1."""
    y = glass_window_labels(np.arange(1, 8))
    assert y.tolist() == [1, 1, 1, 1, -1, -1, -1]


@pytest.mark.parametrize(
    ("classes", "match"),
    [
        (np.array([[1, 2]]), "1-D"),
        (np.array([0, 1]), "1..7"),
        (np.array([1, 8]), "1..7"),
        (np.array([1.5, 2.0]), "1..7"),
        (np.array([np.nan]), "1..7"),
        (np.array(["a", "b"]), "integers"),
    ],
)
def test_window_labels_bad_input(classes: np.ndarray, match: str) -> None:
    """Bad class arrays raise ValueError naming ``classes``."""
    with pytest.raises(ValueError, match=match):
        glass_window_labels(classes)


def test_whitened_glass_has_identity_covariance_and_zero_mean() -> None:
    """Whitened sample covariance (ddof=1) is I to 1e-10 and the column means are 0."""
    Z, y = load_glass_gpc()
    assert Z.shape == (214, 9)
    assert y.shape == (214,)
    np.testing.assert_allclose(np.cov(Z, rowvar=False, ddof=1), np.eye(9), rtol=0, atol=1e-10)
    np.testing.assert_allclose(Z.mean(axis=0), np.zeros(9), rtol=0, atol=1e-10)
    assert int(np.sum(y == 1)) == 163


def test_whiten_is_inverse_cholesky_transform() -> None:
    """Each row equals L^{-1} (x - mean) with L the Cholesky factor of the sample covariance."""
    X, _ = load_glass()
    Z = whiten(X)
    chol = np.linalg.cholesky(np.cov(X, rowvar=False, ddof=1))
    np.testing.assert_allclose(chol @ Z[5], X[5] - X.mean(axis=0), rtol=0, atol=1e-10)


def test_whiten_ignores_rescaling_of_a_column() -> None:
    """The RI rescaling of MASS::fgl relative to UCI has no effect after whitening."""
    X, _ = load_glass()
    X_uci = X.copy()
    X_uci[:, 0] = 1.518 + X[:, 0] / 1000.0
    np.testing.assert_allclose(whiten(X_uci), whiten(X), rtol=0, atol=1e-8)


@pytest.mark.parametrize(
    ("X", "match"),
    [
        (np.ones(5), "2-D"),
        (np.ones((3, 3)), "more rows than columns"),
        (np.array([[1.0, np.nan], [2.0, 1.0], [3.0, 0.0]]), "finite"),
        (np.column_stack([np.arange(5.0), np.ones(5)]), "singular"),
    ],
)
def test_whiten_bad_input(X: np.ndarray, match: str) -> None:
    """Bad inputs raise ValueError naming ``X`` and the fix."""
    with pytest.raises(ValueError, match=match):
        whiten(X)
