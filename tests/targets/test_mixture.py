"""The Gaussian-mixture targets (targets/mixture.py): density, components, models, z-scores."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from pymc_kameleon.targets import MIXTURES, GaussianMixture, weight_zscores


@pytest.mark.parametrize("name", list(MIXTURES))
def test_the_density_is_the_weighted_sum_of_scipy_s_gaussians(name):
    mixture = MIXTURES[name]
    x = np.random.default_rng(0).normal(0.0, 6.0, size=(7, mixture.dim))
    want = np.log(
        sum(
            w * multivariate_normal(mu, sd**2 * np.eye(mixture.dim)).pdf(x)
            for w, mu, sd in zip(mixture.weights, mixture.means, mixture.sds)
        )
    )
    np.testing.assert_allclose(mixture.logp(x), want, rtol=1e-10)


@pytest.mark.parametrize("name", list(MIXTURES))
def test_each_component_s_region_holds_its_weight(name):
    """The regions of largest responsibility hold the weights to 1e-3 (exact draws)."""
    mixture = MIXTURES[name]
    rng = np.random.default_rng(1)
    which = rng.choice(len(mixture.weights), size=400_000, p=mixture.weights)
    draws = np.asarray(mixture.means)[which] + np.asarray(mixture.sds)[which, None] * (
        rng.standard_normal((which.size, mixture.dim))
    )
    misread = np.mean(mixture.components(draws) != which)
    assert misread < 1e-3


@pytest.mark.parametrize("name", ["three", "one-d"])
@pytest.mark.parametrize("prior_sd", [None, 10.0])
def test_both_model_forms_have_the_mixture_as_posterior(prior_sd, name):
    mixture = MIXTURES[name]
    model = mixture.model(prior_sd=prior_sd)
    logp = model.compile_logp()
    points = np.random.default_rng(2).normal(0.0, 5.0, size=(5, mixture.dim))
    got = np.array([logp({"x": p}) for p in points])
    np.testing.assert_allclose(got - got[0], mixture.logp(points) - mixture.logp(points[0]))


@pytest.mark.parametrize("name", list(MIXTURES))
def test_the_moments_are_those_of_exact_draws(name):
    mixture = MIXTURES[name]
    draws = mixture.sample(400_000, np.random.default_rng(4))
    se_mean = np.sqrt(mixture.variance / draws.shape[0])
    assert np.all(np.abs(draws.mean(axis=0) - mixture.mean) < 5 * se_mean)
    np.testing.assert_allclose(draws.var(axis=0), mixture.variance, rtol=0.02)


def test_exact_draws_pass_and_one_mode_fails_the_weight_check():
    mixture = MIXTURES["two-0.3"]
    rng = np.random.default_rng(3)
    exact = mixture.sample(4 * 2000, rng).reshape(4, 2000, mixture.dim)
    assert weight_zscores(mixture, exact).max_abs < 4.0
    one_mode = exact.copy()
    one_mode[..., 0] = np.abs(one_mode[..., 0])  # every draw in the heavier component
    assert not weight_zscores(mixture, one_mode).max_abs < 8.0  # (NaN: no MCSE at all)


def test_bad_weights_are_refused():
    with pytest.raises(ValueError, match="sum to 1"):
        GaussianMixture((0.5, 0.6), ((0.0,), (1.0,)), (1.0, 1.0))
    with pytest.raises(ValueError, match="one entry per component"):
        GaussianMixture((0.5, 0.5), ((0.0,), (1.0,)), (1.0,))
