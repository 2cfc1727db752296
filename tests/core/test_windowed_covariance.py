"""Tests for :mod:`pymc_kameleon.core.windowed_covariance`."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from pymc_kameleon.core import windowed_covariance
from pymc_kameleon.core.checks import ArgumentTypeError
from pymc_kameleon.core.proposals.affine import AffineMap
from pymc_kameleon.core.windowed_covariance import (
    RELATIVE_JITTER,
    WindowedCovariance,
    whitening_map,
)

SDS = np.array([1e-3, 0.05, 1.0, 30.0, 1e3, 2.0])


def _correlated_cov(sds: np.ndarray, seed: int = 0) -> np.ndarray:
    """A covariance with the given sds and strong correlations (0.87 to 0.99)."""
    rng = np.random.default_rng(seed)
    d = sds.size
    factor = rng.normal(size=(d, d)) + 3.0 * np.ones((d, d))
    corr = factor @ factor.T
    corr /= np.sqrt(np.outer(np.diag(corr), np.diag(corr)))
    return corr * np.outer(sds, sds)


def _draws(n: int, sds: np.ndarray = SDS, seed: int = 1) -> np.ndarray:
    """Gaussian rows far from the origin, with the sds and correlations of _correlated_cov."""
    rng = np.random.default_rng(seed)
    mean = 1e3 * sds  # offsets of a thousand sds: the window's mean is not near zero
    return rng.multivariate_normal(mean, _correlated_cov(sds), size=n)


def _expected(rows: np.ndarray, shrinkage: float) -> np.ndarray:
    """The documented estimate, written from NumPy's np.cov."""
    n = rows.shape[0]
    sample = np.atleast_2d(np.cov(rows, rowvar=False))
    diagonal = np.diag(np.diag(sample))
    return n / (n + shrinkage) * sample + (shrinkage / (n + shrinkage) + RELATIVE_JITTER) * diagonal


def _relative_error(actual: np.ndarray, expected: np.ndarray) -> float:
    """Largest |actual - expected| entry, each relative to sqrt(expected_ii expected_jj)."""
    variances = np.diag(expected)
    return float(np.max(np.abs(actual - expected) / np.sqrt(np.outer(variances, variances))))


# ---------------------------------------------------------------------------------------------
# WindowedCovariance
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shrinkage", [0.0, 5.0, 17.5])
@pytest.mark.parametrize("n", [10, 37, 500])
def test_close_is_np_cov_after_the_stated_shrinkage(shrinkage, n):
    rows = _draws(n)
    windowed = WindowedCovariance(SDS.size, shrinkage=shrinkage)
    for row in rows:
        windowed.update(row)
    assert windowed.count == n
    np.testing.assert_allclose(windowed.mean, rows.mean(axis=0), rtol=1e-12)
    estimate = windowed.close()
    assert _relative_error(estimate, _expected(rows, shrinkage)) < 1e-12
    np.testing.assert_allclose(np.diag(estimate), np.diag(_expected(rows, shrinkage)), rtol=1e-12)
    assert np.array_equal(estimate, estimate.T)
    np.linalg.cholesky(estimate)  # positive definite


def test_one_dimension():
    rows = _draws(50, sds=np.array([3e-4]))
    windowed = WindowedCovariance(1)
    windowed.update_batch(rows)
    estimate = windowed.close()
    assert estimate.shape == (1, 1)
    # in one dimension the diagonal target is the sample variance itself
    assert estimate[0, 0] == pytest.approx(np.var(rows, ddof=1) * (1 + RELATIVE_JITTER), rel=1e-12)


def test_update_batch_equals_updates():
    rows = _draws(123)
    one, batch = WindowedCovariance(SDS.size), WindowedCovariance(SDS.size)
    for row in rows:
        one.update(row)
    batch.update_batch(rows[:40])
    batch.update_batch(rows[40:40])  # an empty batch changes nothing
    batch.update_batch(rows[40:])
    assert _relative_error(batch.close(), one.close()) < 1e-12


def test_shrinkage_pulls_correlations_toward_zero_by_n_over_n_plus_k():
    rows = _draws(20)
    estimate = WindowedCovariance(SDS.size, shrinkage=5.0)
    estimate.update_batch(rows)
    closed = estimate.close()
    sample = np.cov(rows, rowvar=False)

    def correlation(c):
        return c / np.sqrt(np.outer(np.diag(c), np.diag(c)))

    off = ~np.eye(SDS.size, dtype=bool)
    ratio = correlation(closed)[off] / correlation(sample)[off]
    np.testing.assert_allclose(ratio, 20 / 25 / (1 + RELATIVE_JITTER), rtol=1e-10)


def test_estimate_is_equivariant_under_rescaling_coordinates():
    """No units: rescaling coordinates by D changes the estimate to D S D, nothing else."""
    rows = _draws(60)
    rescale = np.array([1e6, 1e-4, 3.0, 1.0, 1e-9, 7.0])
    plain, scaled = WindowedCovariance(SDS.size), WindowedCovariance(SDS.size)
    plain.update_batch(rows)
    scaled.update_batch(rows * rescale)
    expected = plain.close() * np.outer(rescale, rescale)
    assert _relative_error(scaled.close(), expected) < 1e-12


def test_close_forgets_earlier_windows():
    early = _draws(300, seed=5) * 1e4 - 7.0  # a very different first window
    late = _draws(80, seed=6)
    windowed = WindowedCovariance(SDS.size)
    windowed.update_batch(early)
    assert windowed.close() is not None
    assert windowed.count == 0
    assert np.array_equal(windowed.mean, np.zeros(SDS.size))
    windowed.update_batch(late)
    assert _relative_error(windowed.close(), _expected(late, 5.0)) < 1e-12


def test_stuck_window_gives_none_and_a_fresh_window():
    windowed = WindowedCovariance(3)
    for _ in range(100):
        windowed.update(np.array([1.0, -2.0, 5e3]))  # the chain never moved
    assert windowed.close() is None
    assert windowed.count == 0
    rows = _draws(30, sds=np.array([1.0, 2.0, 3.0]))
    windowed.update_batch(rows)  # the next window starts from scratch
    assert _relative_error(windowed.close(), _expected(rows, 5.0)) < 1e-12


def test_a_coordinate_that_never_moved_gives_none():
    rows = _draws(200, sds=np.array([1.0, 2.0, 3.0]))
    rows[:, 1] = 0.25  # one stuck coordinate, the others move
    windowed = WindowedCovariance(3)
    windowed.update_batch(rows)
    assert windowed.close() is None


@pytest.mark.parametrize(("min_states", "n"), [(10, 9), (2, 1), (50, 49), (10, 0)])
def test_too_few_states_gives_none(min_states, n):
    windowed = WindowedCovariance(2, min_states=min_states)
    windowed.update_batch(_draws(n, sds=np.array([1.0, 2.0])))
    assert windowed.close() is None
    windowed.update_batch(_draws(min_states, sds=np.array([1.0, 2.0])))
    assert windowed.close() is not None  # exactly min_states is enough


def test_fewer_states_than_dimensions_without_shrinkage_is_still_positive_definite():
    dim = 8
    rows = np.random.default_rng(3).normal(size=(4, dim)) * np.logspace(-3, 3, dim)
    windowed = WindowedCovariance(dim, shrinkage=0.0, min_states=2)
    windowed.update_batch(rows)
    estimate = windowed.close()
    assert np.linalg.matrix_rank(np.cov(rows, rowvar=False)) < dim
    whitening_map(np.zeros(dim), estimate)  # the relative jitter makes it factorisable


def test_reset_forgets_the_current_window():
    windowed = WindowedCovariance(2)
    windowed.update_batch(_draws(30, sds=np.array([1.0, 2.0])))
    windowed.reset()
    assert windowed.count == 0 and windowed.close() is None


def test_properties_and_mean_is_a_copy():
    windowed = WindowedCovariance(np.int64(3), shrinkage=2, min_states=np.int32(4))
    assert (windowed.dim, windowed.shrinkage, windowed.min_states) == (3, 2.0, 4)
    windowed.update(np.ones(3))
    mean = windowed.mean
    mean[0] = 99.0
    assert windowed.mean[0] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"dim": 0}, ValueError, r"`dim` must be an integer >= 1"),
        ({"dim": 2.0}, ArgumentTypeError, r"`dim` must be an integer"),
        ({"dim": 2, "shrinkage": -1.0}, ValueError, r"`shrinkage` must be a finite number >= 0"),
        ({"dim": 2, "shrinkage": "5"}, ArgumentTypeError, r"`shrinkage`.*without quotes"),
        ({"dim": 2, "shrinkage": np.inf}, ValueError, r"`shrinkage` must be a finite number"),
        ({"dim": 2, "min_states": 1}, ValueError, r"`min_states` must be an integer >= 2"),
        ({"dim": 2, "min_states": 3.5}, ArgumentTypeError, r"`min_states` must be an integer"),
    ],
)
def test_bad_constructor_arguments(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        WindowedCovariance(**kwargs)


def test_bad_states_are_refused():
    windowed = WindowedCovariance(2)
    with pytest.raises(ValueError, match=r"`x` must have shape \(2,\)"):
        windowed.update(np.zeros(3))
    with pytest.raises(ValueError, match=r"`x` must be finite"):
        windowed.update(np.array([0.0, np.nan]))
    with pytest.raises(ValueError, match=r"`xs` must have shape \(n, 2\)"):
        windowed.update_batch(np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"`xs` must be finite"):
        windowed.update_batch(np.array([[0.0, np.inf]]))
    assert windowed.count == 0  # nothing was added


# ---------------------------------------------------------------------------------------------
# whitening_map
# ---------------------------------------------------------------------------------------------


def test_whitening_map_whitens_gaussian_draws():
    cov = _correlated_cov(SDS)
    mean = 1e3 * SDS
    whitening = whitening_map(mean, cov)
    n = 20_000
    u = whitening.to_kernel(np.random.default_rng(7).multivariate_normal(mean, cov, size=n))
    # standard errors of the sample moments of N(0, I): mean 1/sqrt(n), variances sqrt(2/n),
    # covariances 1/sqrt(n); every entry within 5 standard errors
    assert np.all(np.abs(u.mean(axis=0)) < 5.0 / np.sqrt(n))
    errors = np.cov(u, rowvar=False) - np.eye(SDS.size)
    standard_errors = np.where(np.eye(SDS.size, dtype=bool), np.sqrt(2.0 / n), np.sqrt(1.0 / n))
    assert np.all(np.abs(errors) < 5.0 * standard_errors)


def test_whitening_map_fields_and_round_trip():
    cov = _correlated_cov(SDS)
    mean = 1e3 * SDS
    whitening = whitening_map(mean, cov)
    assert isinstance(whitening, AffineMap)
    lower = whitening.matrix
    assert np.array_equal(lower, np.tril(lower)) and np.all(np.diag(lower) > 0)
    assert _relative_error(lower @ lower.T, cov) < 1e-12
    np.testing.assert_allclose(whitening.inverse @ lower, np.eye(SDS.size), atol=1e-10)
    np.testing.assert_array_equal(whitening.shift, mean)
    sign, log_abs_det = np.linalg.slogdet(cov)
    assert sign > 0
    assert whitening.log_det == pytest.approx(0.5 * log_abs_det, rel=1e-12, abs=1e-12)
    x = _draws(50)
    back = whitening.shift + whitening.to_kernel(x) @ whitening.matrix.T
    np.testing.assert_allclose(back, x, rtol=1e-12, atol=1e-12 * SDS.max())
    # one state as well as rows
    np.testing.assert_allclose(whitening.to_kernel(x[0]), whitening.to_kernel(x)[0], rtol=1e-12)


def test_whitening_map_of_a_closed_window_without_shrinkage_whitens_the_window():
    rows = _draws(400)
    windowed = WindowedCovariance(SDS.size, shrinkage=0.0)
    windowed.update_batch(rows)
    whitening = whitening_map(windowed.mean, windowed.close())
    u = whitening.to_kernel(rows)
    # with k = 0 the estimate is the window's own covariance, up to the relative jitter (1e-10)
    # times the condition number of the correlation matrix (about 7e3)
    np.testing.assert_allclose(u.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(np.cov(u, rowvar=False), np.eye(SDS.size), atol=1e-5)


def test_whitening_map_copies_the_mean():
    mean = np.array([1.0, 2.0])
    whitening = whitening_map(mean, np.eye(2))
    mean[0] = 50.0
    assert whitening.shift[0] == 1.0
    assert whitening.log_det == 0.0


@pytest.mark.parametrize(
    ("mean", "cov", "pattern"),
    [
        ([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], r"positive definite.*Regularise"),
        ([0.0, 0.0], [[1.0, 0.0], [0.0, 0.0]], r"positive definite.*diagonal has entries <= 0"),
        ([0.0, 0.0], [[-1.0, 0.0], [0.0, 1.0]], r"positive definite.*diagonal has entries <= 0"),
        ([0.0, 0.0], [[1.0, 0.5], [0.1, 1.0]], r"not symmetric"),
    ],
)
def test_whitening_map_refuses_a_matrix_that_is_not_positive_definite(mean, cov, pattern):
    with pytest.raises(np.linalg.LinAlgError, match=pattern):
        whitening_map(mean, cov)
    with pytest.raises(ValueError):  # LinAlgError is also a ValueError
        whitening_map(mean, cov)


@pytest.mark.parametrize(
    ("mean", "cov", "pattern"),
    [
        ([0.0, 0.0], np.eye(3), r"`cov` must have shape \(2, 2\)"),
        ([[0.0, 0.0]], np.eye(2), r"`mean` must be a finite, non-empty vector"),
        ([], np.eye(0), r"`mean` must be a finite, non-empty vector"),
        ([0.0, np.nan], np.eye(2), r"`mean` must be a finite"),
        ([0.0, 0.0], [[1.0, np.nan], [np.nan, 1.0]], r"`cov` must be finite"),
    ],
)
def test_whitening_map_refuses_bad_shapes_and_values(mean, cov, pattern):
    with pytest.raises(ValueError, match=pattern):
        whitening_map(mean, cov)


def test_docstring_examples_run():
    results = doctest.testmod(windowed_covariance, optionflags=doctest.ELLIPSIS)
    assert results.attempted > 0 and results.failed == 0
