"""Tests for :mod:`pymc_kameleon.targets.abc_skew_normal`."""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable

import numpy as np
import pytest
from scipy import integrate, special, stats

from pymc_kameleon.targets.abc_skew_normal import (
    ABC_DIMENSION,
    ABC_EPSILON,
    ABC_N_DRAWS,
    ABC_THETA_TRUE,
    ABCLogLikelihoodEstimator,
    abc_log_likelihood_estimate,
    abc_log_prior,
    make_abc_log_likelihood_estimator,
    observed_summary,
    sample_skew_normal,
    simulate_summaries,
    skew_normal_covariance,
    skew_normal_delta,
    skew_normal_marginal_shape,
    skew_normal_mean,
)

# Monte Carlo comparisons pass when |estimate - reference| <= N_SE * (combined standard error).
N_SE = 4.0
# KS tests at fixed seeds pass when the p-value exceeds this.
KS_LEVEL = 0.01


def _skewnorm_cdf(a: float, loc: float = 0.0) -> Callable[[np.ndarray], np.ndarray]:
    """CDF of the univariate skew-normal, Phi(z) - 2 T(z, a) with Owen's T (z = x - loc).

    Equal to ``scipy.stats.skewnorm(a, loc).cdf`` (checked in a test) but fast for every
    ``a``; scipy's version can take seconds for large shapes.
    """

    def cdf(x: np.ndarray) -> np.ndarray:
        z = np.asarray(x) - loc
        return special.ndtr(z) - 2.0 * special.owens_t(z, a)

    return cdf


def test_fast_skewnorm_cdf_matches_scipy() -> None:
    """The Owen's-T CDF used by the KS tests equals scipy.stats.skewnorm's."""
    x = np.linspace(-3.0, 4.0, 57)
    for a in (0.3, 10.0):
        np.testing.assert_allclose(
            _skewnorm_cdf(a, 0.5)(x), stats.skewnorm(a, loc=0.5).cdf(x), rtol=1e-10, atol=1e-14
        )


@pytest.fixture(scope="module")
def experiment_draws() -> np.ndarray:
    """200,000 draws of SN_10(theta_true, I, 10 * 1) at a fixed seed."""
    return sample_skew_normal(ABC_THETA_TRUE, 10.0, 200_000, np.random.default_rng(100))


# --------------------------------------------------------------------------- skew-normal


def test_delta_and_marginal_shape_values() -> None:
    """alpha = 10 * 1 in d = 10: delta_j = 10 / sqrt(1001), marginal shape 10 / sqrt(901)."""
    np.testing.assert_allclose(skew_normal_delta(10.0), np.full(10, 10 / math.sqrt(1001)))
    np.testing.assert_allclose(skew_normal_marginal_shape(10.0), np.full(10, 10 / math.sqrt(901)))
    np.testing.assert_allclose(skew_normal_delta(np.array([3.0, 4.0])), [3 / 26**0.5, 4 / 26**0.5])


def test_sample_mean_and_covariance(experiment_draws: np.ndarray) -> None:
    """Sample mean matches xi + sqrt(2/pi) delta within 4 standard errors per coordinate;
    sample covariance matches I - (2/pi) delta delta^T to 0.02."""
    draws = experiment_draws
    expected_mean = skew_normal_mean(ABC_THETA_TRUE, 10.0)
    expected_cov = skew_normal_covariance(10.0)
    se = np.sqrt(np.diag(expected_cov) / draws.shape[0])
    assert np.all(np.abs(draws.mean(axis=0) - expected_mean) <= N_SE * se)
    np.testing.assert_allclose(np.cov(draws, rowvar=False), expected_cov, rtol=0, atol=0.02)
    # The coordinates are correlated (a product of univariate skew-normals would not be).
    off_diagonal = -(2 / math.pi) * 100 / 1001
    np.testing.assert_allclose(expected_cov[0, 1], off_diagonal)


@pytest.mark.parametrize("coordinate", [0, 7])
def test_marginal_is_univariate_skew_normal(experiment_draws: np.ndarray, coordinate: int) -> None:
    """Coordinate j is skewnorm(a = delta_j / sqrt(1 - delta_j^2), loc = xi_j) (KS, seed 100)."""
    a = skew_normal_marginal_shape(10.0)[coordinate]
    sample = experiment_draws[:20_000, coordinate]
    loc = ABC_THETA_TRUE[coordinate]
    assert stats.kstest(sample, _skewnorm_cdf(a, loc)).pvalue > KS_LEVEL
    # The product-form alternative (shape 10 per coordinate) is rejected outright.
    assert stats.kstest(sample, _skewnorm_cdf(10.0, loc), method="asymp").pvalue < 1e-10


def test_projection_on_ones_is_strongly_skewed(experiment_draws: np.ndarray) -> None:
    """(1^T Z) / sqrt(d) is skewnorm with shape 100 / sqrt(10) ~ 31.6 (a joint property)."""
    z = (experiment_draws[:20_000] - ABC_THETA_TRUE).sum(axis=1) / math.sqrt(ABC_DIMENSION)
    delta_a = float(skew_normal_delta(10.0).sum()) / math.sqrt(ABC_DIMENSION)
    shape_a = delta_a / math.sqrt(1.0 - delta_a**2)
    np.testing.assert_allclose(shape_a, 100 / math.sqrt(10), rtol=1e-12)
    assert stats.kstest(z, _skewnorm_cdf(shape_a)).pvalue > KS_LEVEL


def test_zero_shape_is_gaussian() -> None:
    """alpha = 0 gives N(xi, I)."""
    draws = sample_skew_normal(np.zeros(3), 0.0, 20_000, np.random.default_rng(101))
    assert stats.kstest(draws[:, 1], stats.norm.cdf).pvalue > KS_LEVEL
    np.testing.assert_allclose(np.cov(draws, rowvar=False), np.eye(3), atol=0.03)


def test_summaries_are_means_of_draws() -> None:
    """A summary is the mean of n_draws skew-normal draws from the same random stream."""
    theta = np.linspace(-1.0, 1.0, 4)
    summaries = simulate_summaries(theta, 3, np.random.default_rng(102), n_draws=5, shape=2.0)
    assert summaries.shape == (3, 4)
    rng = np.random.default_rng(102)
    draws = sample_skew_normal(theta, 2.0, 15, rng)
    np.testing.assert_allclose(summaries, draws.reshape(3, 5, 4).mean(axis=1), rtol=1e-13)


def test_observed_summary_is_fixed() -> None:
    """The observed summary depends only on its seed (documented as ABC_OBSERVED_SEED = 0)."""
    s_obs = observed_summary()
    assert s_obs.shape == (ABC_DIMENSION,)
    np.testing.assert_array_equal(s_obs, observed_summary(0))
    assert not np.array_equal(s_obs, observed_summary(1))
    # First coordinate at seed 0 with NumPy's PCG64 generator.
    np.testing.assert_allclose(s_obs[0], 10.34282071, atol=1e-8)


# --------------------------------------------------------------------------- ABC likelihood


def _rao_blackwell_reference(
    theta: np.ndarray, s_obs: np.ndarray, n_t: int, seed: int
) -> tuple[float, float]:
    """High-precision p_eps(s_obs | theta) and its standard error.

    A summary is theta + delta T + V_bar with T the mean of n_draws half-normals and
    V_bar ~ N(0, (I - delta delta^T) / n_draws) independent of T, so

    p_eps = E_T[ N(s_obs; theta + delta T, (I - delta delta^T) / n_draws + eps^2 I) ],

    a one-dimensional expectation estimated with ``n_t`` draws of T.
    """
    delta = skew_normal_delta(10.0)
    T = np.abs(np.random.default_rng(seed).standard_normal((n_t, ABC_N_DRAWS))).mean(axis=1)
    cov = (np.eye(delta.size) - np.outer(delta, delta)) / ABC_N_DRAWS
    cov += ABC_EPSILON**2 * np.eye(delta.size)
    dens = stats.multivariate_normal(np.zeros(delta.size), cov).pdf(
        s_obs - theta - T[:, None] * delta
    )
    return float(dens.mean()), float(dens.std(ddof=1) / math.sqrt(n_t))


@pytest.fixture(scope="module")
def abc_point() -> tuple[np.ndarray, np.ndarray, float, float]:
    """theta (theta_true with its first coordinate moved by 0.3), s_obs, reference, its SE."""
    theta = ABC_THETA_TRUE.copy()
    theta[0] += 0.3
    s_obs = observed_summary()
    ref, ref_se = _rao_blackwell_reference(theta, s_obs, 400_000, seed=103)
    return theta, s_obs, ref, ref_se


def test_reference_matches_recorded_value(
    abc_point: tuple[np.ndarray, np.ndarray, float, float],
) -> None:
    """The Rao-Blackwellised reference agrees with the recorded 10^6-draw value 0.00333789.

    Recorded offline: 10^6 draws of T (seed 0) gave 0.0033378914 with standard error 4.9e-7.
    """
    _, _, ref, ref_se = abc_point
    assert abs(ref - 0.0033378914314673457) <= N_SE * math.hypot(ref_se, 4.9e-7)


@pytest.mark.parametrize(("n_simulations", "n_estimates"), [(1, 6_000), (10, 2_000)])
def test_estimator_is_unbiased_in_likelihood_space(
    abc_point: tuple[np.ndarray, np.ndarray, float, float], n_simulations: int, n_estimates: int
) -> None:
    """Mean of exp(estimate) over independent estimates equals p_eps(s_obs | theta).

    Tolerance: 4 combined standard errors sqrt(MCSE^2 + SE_ref^2).
    """
    theta, s_obs, ref, ref_se = abc_point
    rng = np.random.default_rng(104 + n_simulations)
    values = np.exp(
        [
            abc_log_likelihood_estimate(theta, s_obs, rng, n_simulations=n_simulations)
            for _ in range(n_estimates)
        ]
    )
    mcse = values.std(ddof=1) / math.sqrt(n_estimates)
    assert abs(values.mean() - ref) <= N_SE * math.hypot(mcse, ref_se)
    # Many simulations in one estimate concentrate on the same value.
    many = abc_log_likelihood_estimate(theta, s_obs, rng, n_simulations=200_000)
    assert abs(math.exp(many) - ref) <= N_SE * math.hypot(ref_se, ref * 1.04 / math.sqrt(2e5))


def test_estimator_is_unbiased_gaussian_closed_form() -> None:
    """With shape 0 the summary is N(theta, I / n_draws): p_eps = N(s_obs; theta, (1/n + eps^2) I).

    Mean of exp(estimate) over 5,000 estimates (10 simulations each) is within 4 MCSE.
    """
    theta = np.array([0.2, -0.4, 1.0])
    s_obs = np.array([0.0, 0.0, 0.5])
    exact = stats.multivariate_normal(theta, (1 / ABC_N_DRAWS + ABC_EPSILON**2) * np.eye(3)).pdf(
        s_obs
    )
    rng = np.random.default_rng(105)
    values = np.exp(
        [abc_log_likelihood_estimate(theta, s_obs, rng, shape=0.0) for _ in range(5000)]
    )
    mcse = values.std(ddof=1) / math.sqrt(values.size)
    assert abs(values.mean() - exact) <= N_SE * mcse


def test_kernel_is_normalised() -> None:
    """With the simulations held fixed, exp(estimate) integrates to one over s_obs (d = 1)."""
    theta = np.array([0.7])

    def density(s: float) -> float:
        rng = np.random.default_rng(106)  # same simulations for every s_obs
        return math.exp(abc_log_likelihood_estimate(theta, np.array([s]), rng, n_simulations=5))

    total, _ = integrate.quad(density, -15.0, 15.0, limit=200)
    np.testing.assert_allclose(total, 1.0, rtol=1e-8)


def test_estimate_is_finite_far_from_data_and_reproducible() -> None:
    """Log-sum-exp keeps far-away estimates finite; the same seed gives the same value."""
    estimate = make_abc_log_likelihood_estimator()
    assert isinstance(estimate, ABCLogLikelihoodEstimator)
    assert estimate.ndim == ABC_DIMENSION
    far = estimate(np.full(ABC_DIMENSION, 1000.0), np.random.default_rng(0))
    assert math.isfinite(far)
    assert far < -1e6
    a = estimate(ABC_THETA_TRUE, np.random.default_rng(1))
    assert a == estimate(ABC_THETA_TRUE, np.random.default_rng(1))
    assert a != estimate(ABC_THETA_TRUE, np.random.default_rng(2))
    clone = pickle.loads(pickle.dumps(estimate))
    assert clone(ABC_THETA_TRUE, np.random.default_rng(1)) == a
    direct = abc_log_likelihood_estimate(
        ABC_THETA_TRUE, observed_summary(), np.random.default_rng(1)
    )
    assert direct == a


def test_non_finite_theta_gives_minus_inf() -> None:
    """A non-finite theta is outside the prior's support: -inf for likelihood and prior."""
    theta = ABC_THETA_TRUE.copy()
    theta[3] = np.nan
    assert abc_log_likelihood_estimate(theta, observed_summary(), np.random.default_rng(0)) == (
        -math.inf
    )
    assert abc_log_prior(theta) == -math.inf


def test_log_prior_is_normal_variance_25() -> None:
    """log prior = sum of log N(theta_d; 0, 25)."""
    theta = np.linspace(-7.0, 12.0, ABC_DIMENSION)
    np.testing.assert_allclose(abc_log_prior(theta), stats.norm(0, 5).logpdf(theta).sum())


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"theta": np.zeros(3)}, r"theta must have shape \(10,\)"),
        ({"theta": np.zeros((10, 1))}, "theta must be a non-empty 1-D"),
        ({"s_obs": np.full(10, np.nan)}, "s_obs must contain only finite"),
        ({"rng": 3}, "numpy.random.Generator"),
        ({"n_simulations": 0}, "n_simulations"),
        ({"n_simulations": 1.5}, "n_simulations"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": "wide"}, "epsilon"),
        ({"n_draws": 0}, "n_draws"),
        ({"shape": np.ones(3)}, "shape must be a scalar or have shape"),
    ],
)
def test_estimator_bad_input(kwargs: dict, match: str) -> None:
    """Bad arguments raise ValueError naming the argument."""
    args = {
        "theta": ABC_THETA_TRUE,
        "s_obs": observed_summary(),
        "rng": np.random.default_rng(0),
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        abc_log_likelihood_estimate(**args)


def test_sampler_and_factory_bad_input() -> None:
    """The sampler and the factory validate their arguments."""
    with pytest.raises(ValueError, match="size"):
        sample_skew_normal(np.zeros(2), 1.0, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="location"):
        sample_skew_normal(np.array([np.inf, 0.0]), 1.0, 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape must be a real scalar"):
        make_abc_log_likelihood_estimator(shape=np.ones(10))
    with pytest.raises(ValueError, match="epsilon"):
        make_abc_log_likelihood_estimator(epsilon=-1.0)
    with pytest.raises(ValueError, match="variance"):
        abc_log_prior(np.zeros(2), variance=-1.0)
