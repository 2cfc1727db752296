"""Tests for the benchmark targets and the chi-squared quantile metric."""

import numpy as np
import pytest
from scipy import stats

from pymc_kameleon._compat import result_from_groups
from pymc_kameleon.diagnostics import (
    chi2_quantile_error,
    chi2_quantile_fractions,
    count_logp_evals,
    ess_per_1000_evals,
    mean_acceptance,
    min_ess,
)
from pymc_kameleon.targets import (
    banana_logp,
    banana_model,
    banana_to_gaussian,
    gaussian_model,
    sample_banana,
)


@pytest.fixture(scope="module")
def exact_banana():
    return sample_banana(100_000, d=8, b=0.1, v=100.0, rng=20140621)


@pytest.mark.parametrize(("d", "b", "v"), [(8, 0.1, 100.0), (8, 0.03, 100.0), (2, 0.5, 4.0)])
def test_pytensor_logp_matches_numpy(d, b, v):
    model = banana_model(d=d, b=b, v=v)
    logp_fn = model.compile_logp()
    rng = np.random.default_rng(1)
    points = sample_banana(20, d=d, b=b, v=v, rng=rng) + 3.0 * rng.standard_normal((20, d))
    pt_values = np.array([logp_fn({"x": p}) for p in points])
    diff = pt_values - banana_logp(points, b=b, v=v)
    np.testing.assert_allclose(diff, diff[0], atol=1e-9)


def test_banana_model_starts_at_origin():
    model = banana_model(d=8)
    np.testing.assert_array_equal(model.initial_point()["x"], np.zeros(8))


def test_banana_logp_batched_matches_single_points():
    points = sample_banana(5, d=8, rng=2)
    batched = banana_logp(points)
    assert batched.shape == (5,)
    np.testing.assert_allclose(batched, [banana_logp(p) for p in points])
    assert isinstance(banana_logp(points[0]), float)


def test_banana_logp_is_normalised_in_two_dimensions():
    b, v = 0.1, 100.0
    y1 = np.linspace(-60.0, 60.0, 601)
    y2 = np.linspace(-40.0, 400.0, 2201)
    grid = np.stack(np.meshgrid(y1, y2, indexing="ij"), axis=-1)
    mass = np.exp(banana_logp(grid, b=b, v=v)).sum() * (y1[1] - y1[0]) * (y2[1] - y2[0])
    assert mass == pytest.approx(1.0, abs=1e-3)


def test_sample_banana_mean_is_zero(exact_banana):
    mean = exact_banana.mean(axis=0)
    se = exact_banana.std(axis=0, ddof=1) / np.sqrt(len(exact_banana))
    assert np.all(np.abs(mean) < 4.0 * se)


def test_gaussianised_banana_is_standard_normal(exact_banana):
    z = banana_to_gaussian(exact_banana, b=0.1, v=100.0)
    p_values = [stats.kstest(z[:, k], "norm").pvalue for k in range(z.shape[1])]
    assert stats.combine_pvalues(p_values).pvalue > 0.001
    np.testing.assert_allclose(np.cov(z, rowvar=False), np.eye(8), atol=0.02)


def test_chi2_error_small_on_exact_samples(exact_banana):
    z = banana_to_gaussian(exact_banana, b=0.1, v=100.0)
    assert chi2_quantile_error(z) < 0.01
    fractions = chi2_quantile_fractions(z)
    np.testing.assert_allclose(fractions, np.arange(1, 10) / 10, atol=0.01)


def test_chi2_error_large_on_wrong_samples(exact_banana):
    z = banana_to_gaussian(1.5 * exact_banana, b=0.1, v=100.0)
    assert chi2_quantile_error(z) > 0.05


def test_chi2_error_pools_leading_axes(exact_banana):
    z = banana_to_gaussian(exact_banana, b=0.1, v=100.0)
    assert chi2_quantile_error(z.reshape(4, -1, 8)) == chi2_quantile_error(z)


def test_gaussian_model_logp():
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    logp_fn = gaussian_model(cov).compile_logp()
    point = np.array([0.3, -1.2])
    expected = stats.multivariate_normal(mean=np.zeros(2), cov=cov).logpdf(point)
    assert logp_fn({"x": point}) == pytest.approx(expected)


def _fake_idata(sample_stats, n_chains=2, n_draws=50, d=3):
    """The installed ArviZ's result type (InferenceData or DataTree) holding these arrays."""
    rng = np.random.default_rng(3)
    posterior = {"x": rng.standard_normal((n_chains, n_draws, d))}
    return result_from_groups({"posterior": posterior, "sample_stats": sample_stats})


def test_count_logp_evals_prefers_stat():
    evals = np.full((2, 50), 2, dtype=np.int64)
    idata = _fake_idata({"logp_evals": evals, "accepted": np.ones((2, 50))})
    assert count_logp_evals(idata, "metropolis", d=3) == 200
    assert mean_acceptance(idata) == 1.0


def test_count_logp_evals_fallbacks():
    idata = _fake_idata({"accepted": np.zeros((2, 50), dtype=bool)})
    assert count_logp_evals(idata, "metropolis", d=3) == 300
    assert count_logp_evals(idata, "DEMetropolisZ", d=3) == 100
    with pytest.raises(ValueError, match="logp_evals"):
        count_logp_evals(idata, "kameleon", d=3)
    assert ess_per_1000_evals(idata, "x", "demetropolisz", d=3) == pytest.approx(
        10.0 * min_ess(idata, "x")
    )


def test_glass_gpc_model_is_pseudo_marginal():
    from pymc_kameleon import KameleonStep
    from pymc_kameleon.targets import glass_gpc_model

    model = glass_gpc_model(n_importance=5)
    assert model["theta"].type.shape == (9,)
    with model:
        assert KameleonStep().is_pseudo_marginal


def test_abc_model_is_pseudo_marginal():
    from pymc_kameleon import KMCStep
    from pymc_kameleon.targets import abc_skew_normal_model

    model = abc_skew_normal_model()
    assert model["theta"].type.shape == (10,)
    with model:
        assert KMCStep().is_pseudo_marginal


def test_polynomial_mmd2_matches_double_loop_and_detects_a_shift():
    from pymc_kameleon.diagnostics import polynomial_mmd2

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))

    def k(a, b):
        return (1.0 + a @ b) ** 3

    xx = sum(k(x[i], x[j]) for i in range(7) for j in range(7) if i != j) / 42
    yy = sum(k(y[i], y[j]) for i in range(5) for j in range(5) if i != j) / 20
    xy = sum(k(a, b) for a in x for b in y) / 35
    assert np.isclose(polynomial_mmd2(x, y), xx + yy - 2 * xy, rtol=1e-12)
    same = [polynomial_mmd2(rng.normal(size=(400, 3)), rng.normal(size=(400, 3))) for _ in range(5)]
    shifted = polynomial_mmd2(rng.normal(size=(400, 3)), rng.normal(0.3, 1.0, size=(400, 3)))
    assert shifted > 5 * max(abs(v) for v in same)
    with pytest.raises(ValueError, match="at least 2 points"):
        polynomial_mmd2(x[:1], y)
