"""Statistical tests of KMCStep: known posteriors within Monte Carlo error (z-scores in MCSEs).

Same protocol as ``test_statistical.py`` (fixed seeds, tolerance ``Z_TOL`` MCSEs on every mean,
variance and quantile). The negative control accepts trajectories with the *surrogate*
Hamiltonian instead of the true one; the same check must reject it by a wide margin.

The banana here is B(0.1, 4): X ~ N(0, diag(4, 1)), Y2 = X2 + 0.1 (X1^2 - 4). At the budgets CI
can afford, KMC mixes too slowly on the longer B(0.1, 25) used for KAMH (min ESS of about 10-40
in 12 000 draws; see BENCHMARKS.md), which would make MCSE-based z-scores unreliable.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
from scipy import stats
from test_statistical import (
    QUANTILES,
    Z_TOL,
    _correlated_gaussian,
    _draws,
    _zscores_mean_var,
    _zscores_quantiles,
)
from test_statistical import (
    _sample as _sample_with_budget,
)

from pymc_kameleon import KMCStep

TUNE, DRAWS = 1500, 3000
BANANA_B, BANANA_V = 0.1, 4.0


class KMCAcceptingWithSurrogate(KMCStep):
    """Negative control: the Metropolis test uses the surrogate, not the target (wrong)."""

    _use_true_target = False


def _sample(model, step, seed: int):
    return _sample_with_budget(model, step, tune=TUNE, draws=DRAWS, seed=seed)


@pytest.fixture(scope="module")
def gaussian():
    mean, cov = _correlated_gaussian()
    with pm.Model() as model:
        pm.MvNormal("x", mu=mean, cov=cov)
    return model, mean, cov


def _gaussian_zscores(gaussian, step) -> np.ndarray:
    model, mean, cov = gaussian
    draws = _draws(_sample(model, step, seed=20261121))
    sd = np.sqrt(np.diag(cov))
    quantiles = {j: mean[j] + sd[j] * stats.norm.ppf(QUANTILES) for j in range(len(mean))}
    return np.concatenate(
        [_zscores_mean_var(draws, mean, np.diag(cov)), _zscores_quantiles(draws, quantiles)]
    )


@pytest.mark.parametrize("estimator", ["lite", "finite"])
def test_correlated_gaussian(gaussian, estimator):
    z = _gaussian_zscores(gaussian, lambda: KMCStep(estimator=estimator))
    assert np.all(np.isfinite(z))
    assert np.max(np.abs(z)) < Z_TOL, f"max |z| = {np.max(np.abs(z)):.2f}; z = {np.round(z, 2)}"


def test_negative_control_accepting_with_surrogate_fails(gaussian):
    z = _gaussian_zscores(gaussian, lambda: KMCAcceptingWithSurrogate(estimator="finite"))
    assert np.max(np.abs(z)) > 2 * Z_TOL, f"negative control passed: z = {np.round(z, 2)}"


def _banana_exact_sample(n: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    x[:, 0] *= np.sqrt(BANANA_V)
    x[:, 1] += BANANA_B * (x[:, 0] ** 2 - BANANA_V)
    return x


@pytest.mark.parametrize("estimator", ["lite", "finite"])
def test_banana_2d(estimator):
    with pm.Model() as model:
        x = pm.Flat("x", shape=2)
        y2 = x[1] - BANANA_B * (x[0] ** 2 - BANANA_V)
        pm.Potential("banana", -0.5 * (x[0] ** 2 / BANANA_V + y2**2))
    draws = _draws(_sample(model, lambda: KMCStep(estimator=estimator), seed=7))
    exact = _banana_exact_sample(2_000_000)
    truth = {j: np.quantile(exact[:, j], QUANTILES) for j in range(2)}
    z = np.concatenate(
        [_zscores_mean_var(draws, np.zeros(2), exact.var(axis=0)), _zscores_quantiles(draws, truth)]
    )
    assert np.max(np.abs(z)) < Z_TOL, f"z = {np.round(z, 2)}"
