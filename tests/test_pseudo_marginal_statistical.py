"""Pseudo-marginal exactness: a noisy but unbiased likelihood estimate gives the exact posterior.

Model: ``x ~ N(0, I_2)`` and a Gaussian likelihood ``N(y | x, I_2)`` observed only through the
estimate ``p_hat = N(y | x, I) * exp(s * z - s**2 / 2)`` with ``z ~ N(0, 1)``, so ``E[p_hat] =
N(y | x, I)`` and the standard deviation of ``log p_hat`` is ``s``. The exact posterior is
``N(y / 2, I / 2)``. Same protocol as ``test_statistical.py``: fixed seeds, every mean, variance
and quantile within ``Z_TOL`` Monte Carlo standard errors.

The negative control is Monte Carlo within Metropolis: the same KameleonStep, except that it
re-estimates the current state with fresh noise every iteration (what PyMC's Metropolis does on
such a model). It targets the wrong distribution (variance about 0.65 instead of 0.5 here) and
must miss by more than ``2 * Z_TOL``.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
from scipy import stats
from test_statistical import QUANTILES, Z_TOL, _sample, _zscores_mean_var, _zscores_quantiles

from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    estimator_potential,
    noisy_potential,
)

Y_OBS = np.array([1.0, -0.5])
NOISE_SD = 1.2
POST_MEAN = Y_OBS / 2
POST_VAR = np.full(2, 0.5)


class MonteCarloWithinMetropolis(KameleonStep):
    """Negative control: re-estimates the current state every iteration (biased)."""

    _reestimate_current = True


def gaussian_log_likelihood(x):
    return pm.logp(pm.Normal.dist(x, 1.0), Y_OBS).sum()


def noisy_gaussian_estimate(theta: np.ndarray, rng: np.random.Generator) -> float:
    """NumPy black-box form of the same estimate."""
    exact = -0.5 * float(np.sum((theta - Y_OBS) ** 2)) - np.log(2 * np.pi)
    return exact + NOISE_SD * rng.standard_normal() - NOISE_SD**2 / 2


def noisy_gaussian_model(form: str) -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=2)
        if form == "native":
            z = pm.Normal.dist(0.0, 1.0)
            noisy_potential("loglike", gaussian_log_likelihood(x) + NOISE_SD * z - NOISE_SD**2 / 2)
        else:
            estimator_potential("loglike", noisy_gaussian_estimate, x)
    return model


def _zscores(form: str, step, seed: int = 20261121) -> np.ndarray:
    idata = _sample(noisy_gaussian_model(form), step, tune=1000, draws=6000, seed=seed)
    draws = np.asarray(idata["posterior"]["x"].values)
    sd = np.sqrt(POST_VAR)
    quantiles = {j: POST_MEAN[j] + sd[j] * stats.norm.ppf(QUANTILES) for j in range(2)}
    noise_sd = idata["sample_stats"]["noise_sd"].values[:, -1]
    assert np.all(np.abs(noise_sd - NOISE_SD) < 0.5), noise_sd
    return np.concatenate(
        [_zscores_mean_var(draws, POST_MEAN, POST_VAR), _zscores_quantiles(draws, quantiles)]
    )


@pytest.mark.parametrize(
    ("form", "step"),
    [
        pytest.param("native", KameleonStep, id="kameleon-native"),
        pytest.param("blackbox", KameleonStep, id="kameleon-blackbox"),
        pytest.param("native", AdaptiveMetropolis, id="am-native"),
        pytest.param("blackbox", lambda: KMCStep(n_steps_range=(5, 20)), id="kmc-blackbox"),
    ],
)
def test_pseudo_marginal_posterior_is_exact(form, step):
    z = _zscores(form, step)
    assert np.all(np.isfinite(z))
    assert np.max(np.abs(z)) < Z_TOL, f"max |z| = {np.max(np.abs(z)):.2f}; z = {np.round(z, 2)}"


def test_negative_control_monte_carlo_within_metropolis_fails():
    z = _zscores("native", MonteCarloWithinMetropolis)
    assert np.max(np.abs(z)) > 2 * Z_TOL, f"negative control passed: z = {np.round(z, 2)}"
