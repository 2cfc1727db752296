"""Tests of the median heuristic against SciPy's pairwise distances."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist

from pymc_kameleon.core.bandwidth import median_heuristic


def test_median_heuristic_matches_pdist() -> None:
    """Without subsampling the result is the plain median of ``pdist``."""
    X = np.random.default_rng(3).normal(size=(30, 4))
    assert median_heuristic(X) == pytest.approx(float(np.median(pdist(X))), rel=1e-15)


def test_median_heuristic_subsampling_deterministic() -> None:
    """Subsampling uses distinct rows and is reproducible given the generator."""
    X = np.random.default_rng(5).normal(size=(200, 3))
    a = median_heuristic(X, max_points=50, rng=np.random.default_rng(11))
    b = median_heuristic(X, max_points=50, rng=np.random.default_rng(11))
    assert a == b
    idx = np.random.default_rng(11).choice(200, size=50, replace=False)
    assert a == pytest.approx(float(np.median(pdist(X[idx]))), rel=1e-15)
    assert median_heuristic(X, max_points=50) == median_heuristic(X, max_points=50)


def test_median_heuristic_repeated_rows_fallback() -> None:
    """A zero median falls back to the median of positive distances."""
    X = np.zeros((10, 2))
    X[-1] = [3.0, 4.0]
    X[-2] = [6.0, 8.0]
    assert float(np.median(pdist(X))) == 0.0
    d = pdist(X)
    assert median_heuristic(X) == pytest.approx(float(np.median(d[d > 0])))


def test_median_heuristic_all_identical() -> None:
    """Identical points raise a clear error."""
    with pytest.raises(ValueError, match="identical"):
        median_heuristic(np.ones((5, 3)))


@pytest.mark.parametrize(
    ("X", "pattern"),
    [
        (np.ones(5), "2-D"),
        (np.ones((2, 2, 2)), "2-D"),
        (np.ones((1, 3)), "at least 2 rows"),
        (np.array([[0.0, 1.0], [np.nan, 2.0]]), "finite"),
        (np.array([[0.0, 1.0], [np.inf, 2.0]]), "finite"),
    ],
)
def test_median_heuristic_bad_input(X: np.ndarray, pattern: str) -> None:
    """Malformed samples are rejected."""
    with pytest.raises(ValueError, match=pattern):
        median_heuristic(X)


@pytest.mark.parametrize("max_points", [1, 0, 2.5])
def test_median_heuristic_bad_max_points(max_points: object) -> None:
    """``max_points`` must be an integer of at least 2."""
    with pytest.raises(ValueError, match="max_points"):
        median_heuristic(np.eye(3), max_points=max_points)  # type: ignore[arg-type]
