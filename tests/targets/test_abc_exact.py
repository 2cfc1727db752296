"""Tests for :mod:`pymc_kameleon.targets.abc_exact` and :mod:`...abc_tractable_model`."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from pymc_kameleon.targets.abc_exact import abc_likelihood_quadrature, abc_log_likelihood_exact
from pymc_kameleon.targets.abc_skew_normal import (
    ABC_THETA_TRUE,
    abc_log_likelihood_estimate,
    abc_log_prior,
    observed_summary,
    skew_normal_delta,
)
from pymc_kameleon.targets.abc_tractable_model import abc_tractable_model
from pymc_kameleon.targets.half_normal_mean import (
    mean_of_half_normals_grid,
    mean_of_half_normals_logpdf,
)

# Monte Carlo comparisons pass when |estimate - reference| <= N_SE standard errors.
N_SE = 4.0
# KS tests at fixed seeds pass when the p-value exceeds this.
KS_LEVEL = 0.01

HALF_NORMAL_MEAN = math.sqrt(2.0 / math.pi)
HALF_NORMAL_VAR = 1.0 - 2.0 / math.pi
HALF_NORMAL_K3 = HALF_NORMAL_MEAN * (4.0 / math.pi - 1.0)  # third cumulant of |U_0|


def _posterior_mode_region() -> np.ndarray:
    """``s_obs - delta E[T]``: where the likelihood of the summary is largest."""
    return observed_summary() - HALF_NORMAL_MEAN * skew_normal_delta(10.0)


def _t_samples(n_draws: int, size: int, seed: int) -> np.ndarray:
    """Means of ``n_draws`` iid half-normals."""
    return np.abs(np.random.default_rng(seed).standard_normal((size, n_draws))).mean(axis=1)


# --------------------------------------------------------------------------- the rule for T


@pytest.mark.parametrize(("n_draws", "n_points"), [(10, 3000), (6, 600), (25, 600)])
def test_grid_weights_and_moments_are_exact(n_draws: int, n_points: int) -> None:
    """Weights sum to 1; the first three cumulants of T = mean of n half-normals are exact."""
    t, log_w = mean_of_half_normals_grid(n_draws, n_points)
    w = np.exp(log_w)
    assert t.shape == log_w.shape == (n_points,)
    assert np.all(np.diff(t) > 0) and t[0] > 0
    assert abs(w.sum() - 1.0) < 1e-10
    mean = w @ t
    assert abs(mean - HALF_NORMAL_MEAN) < 1e-8
    assert abs(w @ (t - mean) ** 2 - HALF_NORMAL_VAR / n_draws) < 1e-8
    assert abs(w @ (t - mean) ** 3 - HALF_NORMAL_K3 / n_draws**2) < 1e-8


def test_grid_is_cached_and_read_only() -> None:
    first = mean_of_half_normals_grid()
    assert mean_of_half_normals_grid() is first
    with pytest.raises(ValueError):
        first[1][0] = 0.0


def test_density_of_mean_of_12_is_the_convolution_of_two_means_of_6() -> None:
    """T_12 = (T_6 + T_6') / 2, so p_12(t) = 2 int p_6(x) p_6(2t - x) dx, in bulk and tails.

    The right side uses Gauss-Legendre on [0, 2t] (the integrand vanishes like x^5 at both
    ends); an inversion error would break the identity. Tolerance 1e-8 on the log scale.
    """
    nodes, gl_weights = np.polynomial.legendre.leggauss(120)
    for t in (0.12, 0.5, 0.8, 1.3, 2.2):
        x = t * (nodes + 1.0)  # [0, 2t]
        integrand = np.exp(
            mean_of_half_normals_logpdf(x, 6) + mean_of_half_normals_logpdf(2 * t - x, 6)
        )
        convolution = 2.0 * t * (gl_weights @ integrand)
        direct = float(mean_of_half_normals_logpdf(t, 12))
        assert abs(math.log(convolution) - direct) < 1e-8, t


def test_logpdf_is_minus_inf_at_and_below_zero_and_keeps_shape() -> None:
    out = mean_of_half_normals_logpdf(np.array([[-1.0, 0.0], [0.5, 1.0]]))
    assert out.shape == (2, 2)
    assert np.all(out[0] == -np.inf) and np.all(np.isfinite(out[1]))


def _grid_cdf(n_draws: int) -> callable:
    """CDF of T from the grid density (cumulative trapezoid, linear interpolation)."""
    t, log_w = mean_of_half_normals_grid(n_draws, 3000)
    density = np.exp(log_w) / (t[1] - t[0])
    cdf = integrate.cumulative_trapezoid(density, t, initial=0.0)
    return lambda x: np.interp(x, t, cdf)


def test_density_of_t_matches_monte_carlo() -> None:
    """KS test of 200,000 seeded draws of T against the rule's CDF, and a negative control.

    The CDF's discretisation error (~1e-5) is far below the KS resolution (~3e-3). The
    control, the rule for 9 draws instead of 10 (variance 11 % larger), must be rejected.
    """
    draws = _t_samples(10, 200_000, seed=2024)
    assert stats.kstest(draws, _grid_cdf(10)).pvalue > KS_LEVEL
    assert stats.kstest(draws, _grid_cdf(9)).pvalue < 1e-6
    levels = np.array([0.01, 0.1, 0.5, 0.9, 0.99])
    # quantiles: |F(q_hat) - level| within 4 binomial standard errors
    se = np.sqrt(levels * (1 - levels) / draws.size)
    error = np.abs(_grid_cdf(10)(np.quantile(draws, levels)) - levels)
    assert np.all(error < N_SE * se), error / se


# --------------------------------------------------------------------------- the likelihood


@pytest.mark.parametrize(
    ("epsilon", "where", "seed"),
    [(0.55, "mode", 31), (0.55, "off", 32), (0.3, "true", 33)],
)
def test_exact_likelihood_is_the_mean_of_the_estimator(epsilon: float, where: str, seed: int):
    """The package's unbiased estimator averages to the quadrature, on the likelihood scale.

    400 estimates of 250 simulations each; passes when the mean of ``p_hat / p_exact`` is
    within 4 of its standard errors of 1 (the ratio's relative sd is 0.6 to 4 here).
    """
    theta = {
        "mode": _posterior_mode_region(),
        "off": _posterior_mode_region() + 0.4 * np.array([1.0, -1.0] * 5),
        "true": np.array(ABC_THETA_TRUE),
    }[where]
    exact = abc_log_likelihood_exact(theta, epsilon)
    s_obs, rng = observed_summary(), np.random.default_rng(seed)
    log_estimates = [
        abc_log_likelihood_estimate(theta, s_obs, rng, n_simulations=250, epsilon=epsilon)
        for _ in range(400)
    ]
    ratio = np.exp(np.array(log_estimates) - exact)
    se = ratio.std(ddof=1) / math.sqrt(ratio.size)
    assert abs(ratio.mean() - 1.0) < N_SE * se, (ratio.mean(), se)


def test_epsilon_zero_is_the_limit_of_small_epsilon() -> None:
    theta = _posterior_mode_region() + 0.05
    exact = abc_log_likelihood_exact(theta, 0.0, n_points=3000)
    gaps = [
        abs(abc_log_likelihood_exact(theta, eps, n_points=3000) - exact)
        for eps in (1e-2, 1e-3, 1e-4)
    ]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-5


def test_batch_matches_single_and_grid_size_does_not_matter() -> None:
    rng = np.random.default_rng(5)
    thetas = _posterior_mode_region() + 0.3 * rng.standard_normal((4, 10))
    for eps in (0.0, 0.55):
        batch = abc_log_likelihood_exact(thetas, eps)
        assert batch.shape == (4,)
        single = [abc_log_likelihood_exact(theta, eps) for theta in thetas]
        np.testing.assert_allclose(batch, single, rtol=0, atol=1e-12)
        finer = abc_log_likelihood_exact(thetas, eps, n_points=6000)
        np.testing.assert_allclose(batch, finer, rtol=0, atol=1e-9)


def test_default_grid_resolves_the_narrow_epsilon_zero_factor() -> None:
    """With epsilon = 0 the Gaussian factor is 0.01 wide in t: at least four points per width."""
    quad = abc_likelihood_quadrature(0.0)
    assert quad.width == pytest.approx(0.01, rel=1e-6)
    assert quad.t_grid[1] - quad.t_grid[0] <= quad.width / 4


# --------------------------------------------------------------------------- the PyMC model


@pytest.fixture(scope="module", params=[0.55, 0.0], ids=["eps0.55", "eps0"])
def tractable(request) -> tuple[float, object]:
    return request.param, abc_tractable_model(request.param)


def _points() -> list[np.ndarray]:
    rng = np.random.default_rng(9)
    return [_posterior_mode_region() + 0.2 * rng.standard_normal(10) for _ in range(3)]


def test_model_logp_is_prior_plus_exact_likelihood(tractable) -> None:
    epsilon, model = tractable
    logp = model.compile_logp()
    for theta in _points():
        expected = abc_log_prior(theta) + abc_log_likelihood_exact(theta, epsilon)
        assert logp({"theta": theta}) == pytest.approx(expected, rel=1e-12, abs=1e-9)


def test_model_dlogp_matches_central_differences(tractable) -> None:
    """Gradient against central differences of the NumPy log posterior (step 1e-5)."""
    epsilon, model = tractable
    dlogp = model.compile_dlogp()

    def log_post(theta: np.ndarray) -> float:
        return abc_log_prior(theta) + abc_log_likelihood_exact(theta, epsilon)

    step = 1e-5
    for theta in _points():
        grad = dlogp({"theta": theta})
        fd = [
            (log_post(theta + step * e) - log_post(theta - step * e)) / (2 * step)
            for e in np.eye(10)
        ]
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-4)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": -0.1}, "epsilon.*>= 0.*epsilon=0"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"theta": np.zeros(9)}, r"theta must have shape \(10,\) or \(n, 10\)"),
        ({"theta": np.zeros((2, 3, 10))}, "theta must have shape"),
        ({"theta": np.r_[np.nan, np.zeros(9)]}, "theta must contain only finite"),
        ({"theta": np.r_[np.inf, np.zeros(9)]}, "finite"),
        ({"n_draws": 5}, "n_draws >= 6"),
        ({"n_points": 200, "epsilon": 0.0}, "too coarse.*n_points=None"),
        ({"s_obs": np.zeros((2, 10))}, "s_obs must be a finite 1-D array"),
    ],
)
def test_bad_input_raises_clear_errors(kwargs: dict, match: str) -> None:
    args = {"theta": np.zeros(10), **kwargs}
    with pytest.raises(ValueError, match=match):
        abc_log_likelihood_exact(**args)


def test_bad_grid_and_model_arguments() -> None:
    with pytest.raises(ValueError, match="n_draws"):
        mean_of_half_normals_grid(n_draws=2)
    with pytest.raises(ValueError, match="n_points"):
        mean_of_half_normals_grid(n_points=10)
    with pytest.raises(ValueError, match="finite"):
        mean_of_half_normals_logpdf([np.nan])
    with pytest.raises(ValueError, match="epsilon"):
        abc_tractable_model(-1.0)
