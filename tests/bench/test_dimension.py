"""Targets of any dimension for the dimension benchmark: covariance, models, exact answers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pymc_kameleon.bench.dimension import dimension_problem, gamma_eigen_covariance
from pymc_kameleon.bench.registry import get_problem


def test_gamma_eigen_covariance_has_the_drawn_spectrum_under_a_rotation():
    cov = gamma_eigen_covariance(6, seed=3)
    rng = np.random.default_rng(3)
    expected = np.sort(rng.gamma(1.0, 1.0, size=6))  # the same stream draws the eigenvalues first
    np.testing.assert_allclose(np.linalg.eigvalsh(cov), expected, rtol=1e-10)
    assert np.array_equal(cov, cov.T)
    off_diagonal = cov - np.diag(np.diag(cov))
    assert np.abs(off_diagonal).max() > 0.05  # rotated: not axis-aligned
    np.testing.assert_array_equal(gamma_eigen_covariance(6), gamma_eigen_covariance(6))
    assert not np.array_equal(gamma_eigen_covariance(6), gamma_eigen_covariance(6, seed=1))


def test_gamma_gauss_model_and_exact_answer_agree():
    problem = get_problem("gamma-gauss-7")
    cov = gamma_eigen_covariance(7)
    assert problem.dim == 7 and problem.statistic_is_chi2
    logp = problem.build_model().compile_logp()
    points = np.random.default_rng(0).normal(size=(4, 7))
    got = np.array([logp({"x": x}) for x in points])
    want = stats.multivariate_normal(np.zeros(7), cov).logpdf(points)
    np.testing.assert_allclose(got - got[0], want - want[0], rtol=1e-9, atol=1e-9)
    # the statistic of exact draws is chi-squared with d degrees of freedom: its mean, in SEs
    n = 50_000
    statistic = problem.statistic(problem.exact_draws(n, np.random.default_rng(1)))
    assert abs(statistic.mean() - 7) / np.sqrt(2 * 7 / n) < 4.0


def test_padded_banana_is_the_papers_banana_at_eight_dimensions():
    padded, fixed = get_problem("banana-0.03-d8"), get_problem("banana-0.03")
    assert padded.dim == fixed.dim == 8 and padded.title == fixed.title
    points = np.random.default_rng(2).normal(size=(3, 8)) * 3
    for x in points:
        assert padded.build_model().compile_logp()({"x": x}) == pytest.approx(
            fixed.build_model().compile_logp()({"x": x}), rel=1e-12
        )
    wide = get_problem("banana-0.1-d30")
    assert wide.dim == 30 and wide.exact_draws(5, np.random.default_rng(0)).shape == (5, 30)


@pytest.mark.parametrize("name", ["gamma-gauss-0", "banana-0.03-d1", "banana-2-d8", "gauss-7"])
def test_names_that_are_no_dimension_problem(name):
    assert dimension_problem(name) is None
    with pytest.raises(KeyError, match="any dimension"):
        get_problem(name)


def test_hierarchical_problem_matches_its_target_and_has_its_exact_mean():
    from pymc_kameleon.targets.hierarchical import hierarchical_normal

    problem = get_problem("hier-6")
    target = hierarchical_normal(4)
    assert problem.dim == 6 and problem.statistic_is_chi2
    np.testing.assert_allclose(problem.true_mean, target.posterior_mean())
    logp = problem.build_model().compile_logp()
    points = target.exact_draws(3, np.random.default_rng(1))
    np.testing.assert_allclose([logp({"x": p}) for p in points], target.log_density(points))
    assert dimension_problem("hier-2") is None  # no group left
