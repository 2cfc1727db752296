"""The centred hierarchical normal target: its exact draws against its own log density."""

import numpy as np
import pytest
from scipy import stats

from pymc_kameleon.targets.hierarchical import hierarchical_normal


def _log_marginal_of_log_tau(target, log_tau):
    """log of the integral of exp(log_density) over (mu, theta) at fixed log tau.

    The log density is exactly quadratic in (mu, theta) there, so the Gaussian integral is its
    maximum plus half the log determinant of the inverse Hessian: found here numerically, by a
    Newton step from 0 with a finite-difference Hessian, independent of the module's formulas.
    """
    k = target.dim - 1

    def f(z):
        return float(target.log_density(np.concatenate([[z[0], log_tau], z[1:]])))

    h = 1e-3
    eye = np.eye(k)
    grad = np.array([(f(h * e) - f(-h * e)) / (2 * h) for e in eye])
    hess = np.array(
        [
            [(f(h * (a + b)) - f(h * (a - b)) - f(h * (b - a)) + f(-h * (a + b))) / (4 * h * h)
             for b in eye]
            for a in eye
        ]
    )  # fmt: skip
    mode = np.linalg.solve(-hess, grad)
    return f(mode) - 0.5 * np.linalg.slogdet(-hess)[1]


@pytest.mark.parametrize("n_groups", [1, 3, 8])
def test_log_tau_marginal_matches_the_integrated_log_density(n_groups):
    target = hierarchical_normal(n_groups)
    grid, cdf = target._log_tau_table
    points = np.array([-1.0, 0.0, 0.7, 1.5])
    pdf = np.interp(points, 0.5 * (grid[1:] + grid[:-1]), np.diff(cdf) / np.diff(grid))
    direct = np.array([_log_marginal_of_log_tau(target, v) for v in points])
    # equal up to the normalising constant
    np.testing.assert_allclose(np.log(pdf) - np.log(pdf[0]), direct - direct[0], atol=2e-3)


def test_conditionals_are_the_log_densitys_maxima():
    target = hierarchical_normal(4)
    x = target.exact_draws(1, np.random.default_rng(3))[0]
    tau = np.exp(x[1:2])
    theta_mean, theta_sd = target._theta_given(x[:1], tau)
    at_mean = np.concatenate([x[:2], theta_mean[0]])
    for j in range(4):  # theta_j | mu, tau: a Gaussian with this mean and sd
        step = np.zeros(target.dim)
        step[2 + j] = theta_sd[0, j]
        drop = target.log_density(at_mean) - target.log_density(at_mean + step)
        assert drop == pytest.approx(0.5, rel=1e-9)
        mirrored = target.log_density(at_mean - step)
        assert mirrored == pytest.approx(target.log_density(at_mean + step))


def test_exact_draws_give_a_chi_squared_statistic_and_the_exact_mean():
    target = hierarchical_normal(8)
    draws = target.exact_draws(40_000, np.random.default_rng(0))
    statistic = target.chi2_statistic(draws)
    assert stats.kstest(statistic, stats.chi2(target.dim).cdf).pvalue > 1e-3
    error = (draws.mean(axis=0) - target.posterior_mean()) / draws.std(axis=0)
    assert np.max(np.abs(error)) * np.sqrt(len(draws)) < 4.5  # within 4.5 standard errors


def test_data_are_fixed_per_dimension_and_bad_sizes_refused():
    assert np.array_equal(hierarchical_normal(5).y, hierarchical_normal(5).y)
    assert not np.array_equal(hierarchical_normal(5).y[:3], hierarchical_normal(3).y)
    with pytest.raises(ValueError, match="at least one group"):
        hierarchical_normal(0)
