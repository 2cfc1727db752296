"""The derivative-free mode and curvature (``core/mode_start.py``), against exact answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core.mode_start import (
    conditional_scales,
    find_mode_and_curvature,
    finite_difference_hessian,
)


class Gaussian:
    """A Gaussian log-density from its standard deviations and correlations (no conditioning
    check: SciPy's refuses covariances this ill-conditioned, which the precision handles)."""

    def __init__(self, mean: np.ndarray, sds: np.ndarray, corr: np.ndarray) -> None:
        self.mean = mean
        self.cov = corr * np.outer(sds, sds)
        self.precision = np.linalg.inv(corr) / np.outer(sds, sds)

    def logpdf(self, x: np.ndarray) -> float:
        r = np.asarray(x) - self.mean
        return -0.5 * float(r @ self.precision @ r)


def badly_scaled_gaussian(seed: int = 0, d: int = 6):
    """Standard deviations 1e-3 .. 1e3 and correlations up to about 0.96 (issue 30's case)."""
    rng = np.random.default_rng(seed)
    sds = np.logspace(-3, 3, d)
    factor = rng.normal(size=(d, d))
    scatter = factor @ factor.T + 0.05 * np.eye(d)
    corr = scatter / np.sqrt(np.outer(np.diag(scatter), np.diag(scatter)))
    target = Gaussian(rng.normal(size=d) * sds, sds, corr)
    return target, target.mean, target.cov


def whitened_error(cov_true: np.ndarray, cov_est: np.ndarray) -> float:
    """Largest deviation of ``L^-1 cov_est L^-T`` from the identity (``cov_true = L L^T``)."""
    low = np.linalg.cholesky(cov_true)
    inv = np.linalg.inv(low)
    return float(np.max(np.abs(inv @ cov_est @ inv.T - np.eye(cov_true.shape[0]))))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finds_the_mode_and_covariance_of_a_badly_scaled_gaussian_from_far_out(seed):
    target, mean, cov = badly_scaled_gaussian(seed)
    start = np.random.default_rng(seed + 10).normal(size=mean.size)  # far out in narrow sds
    assert target.logpdf(start) < -1e3
    result = find_mode_and_curvature(target.logpdf, start)
    assert result.status == "gaussian"
    low = np.linalg.cholesky(cov)
    assert np.max(np.abs(np.linalg.solve(low, result.mode - mean))) < 1e-3  # in posterior sds
    assert whitened_error(cov, result.covariance) < 1e-3
    d = mean.size
    assert result.n_evals < 100 * d + 9 * (2 * d**2 + 2 * d + 40 * d)  # Powell + 9 Newton steps


def test_a_ridge_of_correlation_0_99995_at_a_scale_of_a_million():
    """longley's kind of ridge: the curvature is exact where a random walk needs ages."""
    rho = 0.99995
    target = Gaussian(np.array([-3.4e6, 1.5]), np.array([9e5, 2.0]), np.array([[1, rho], [rho, 1]]))
    mean, cov = target.mean, target.cov
    result = find_mode_and_curvature(target.logpdf, np.zeros(2))
    assert result.status == "gaussian"
    assert whitened_error(cov, result.covariance) < 1e-2
    assert np.max(np.abs(np.linalg.solve(np.linalg.cholesky(cov), result.mode - mean))) < 1e-2


def test_every_evaluation_is_counted():
    calls = []
    target, _, _ = badly_scaled_gaussian(3, d=3)

    def log_density(x):
        calls.append(1)
        return target.logpdf(x)

    result = find_mode_and_curvature(log_density, np.zeros(3))
    assert result.n_evals == len(calls)


def test_a_saddle_is_reported_and_gives_no_covariance():
    def log_density(x):  # a maximum in x0, a minimum in x1 near the start: a saddle at 0
        return -0.5 * x[0] ** 2 + 0.5 * x[1] ** 2 - 0.25 * x[1] ** 4

    result = find_mode_and_curvature(log_density, np.array([0.3, 1e-12]))
    assert result.status in {"indefinite", "no_curvature"}
    assert result.covariance is None
    # at the saddle itself the curvature is indefinite
    hessian = finite_difference_hessian(log_density, np.zeros(2), 0.0, np.array([0.1, 0.1]))
    assert hessian[0, 0] < 0 < hessian[1, 1]


def test_a_flat_direction_is_reported():
    def log_density(x):
        return -0.5 * x[0] ** 2  # nothing depends on x[1]

    result = find_mode_and_curvature(log_density, np.array([2.0, 5.0]))
    assert result.status == "no_curvature" and result.covariance is None


def test_a_start_outside_the_support_is_reported_without_searching():
    def log_density(x):
        return -math.inf if x[0] < 0 else -0.5 * float(np.sum(x**2))

    result = find_mode_and_curvature(log_density, np.array([-1.0, 0.0]))
    assert result.status == "non_finite_start"
    assert result.n_evals == 1 and result.covariance is None


def test_a_nan_log_density_is_treated_as_outside_the_support():
    def log_density(x):
        return math.nan if x[0] > 3.0 else -0.5 * float(np.sum((x - 1.0) ** 2))

    result = find_mode_and_curvature(log_density, np.array([0.0, 0.0]))
    assert result.status == "gaussian"
    np.testing.assert_allclose(result.mode, [1.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(result.covariance, np.eye(2), atol=1e-5)


def test_conditional_scales_are_the_conditional_sds_of_a_gaussian():
    target, mean, cov = badly_scaled_gaussian(4, d=4)
    scales = conditional_scales(target.logpdf, mean, target.logpdf(mean))
    conditional_sds = 1.0 / np.sqrt(np.diag(np.linalg.inv(cov)))
    np.testing.assert_allclose(scales, conditional_sds, rtol=1e-6)


def test_hessian_of_a_quadratic_is_exact_with_any_steps():
    rng = np.random.default_rng(7)
    a = rng.normal(size=(4, 4))
    precision = a @ a.T + np.eye(4)

    def log_density(x):
        return -0.5 * float(x @ precision @ x)

    x = rng.normal(size=4)
    hessian = finite_difference_hessian(log_density, x, log_density(x), np.array([0.3, 2, 1e-2, 5]))
    np.testing.assert_allclose(hessian, -precision, rtol=1e-6, atol=1e-6)
