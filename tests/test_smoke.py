"""The fast tier's statistical smoke: each sampler, at its defaults, near a known 2-D posterior.

A short run of every step (and of the SMC kernel) on a correlated 2-D Gaussian with exact
moments, scored like the statistical tier (``mcse_zscores``: errors of means and variances in
Monte Carlo standard errors) but at a budget of seconds. It catches a sampler that is broken
outright (a wrong target, a chain that does not move or drifts) on every ``python -m pytest``;
exactness to a few MCSEs at large ESS, where a subtly wrong Hastings term shows, and the
negative controls that show those tests can fail, are the statistical tier's job
(``python -m pytest --tier statistical``).

Tolerance: ``|z| < Z_SMOKE`` (5) with at least ``MIN_ESS`` effective draws behind each MCSE.
At that ESS a correct sampler's z-scores are close to standard normal, so a false failure needs
a 5-sigma excursion (below 1e-5 for 8 summaries if the MCSEs were exact; they are estimated,
hence the margin over the statistical tier's 4). Measured on Python 3.11 / PyMC 5.28 at seeds
11, 12 and 13: max |z| 0.7-2.3, min ESS 188-849. The negative control, a sampler of a target
shifted by 1 sd, must miss by more than ``2 * Z_SMOKE`` (at 0.5 sd it missed by 7-12).
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonSMC, KameleonStep, KMCStep
from pymc_kameleon.diagnostics import mcse_zscores

Z_SMOKE = 5.0
MIN_ESS = 100
MEAN = np.array([1.0, -2.0])
COV = np.array([[1.0, 0.8], [0.8, 2.0]])

STEPS = {
    "KameleonStep": KameleonStep,
    "AdaptiveMetropolis": AdaptiveMetropolis,
    "KMCStep-lite": KMCStep,
    "KMCStep-finite": lambda: KMCStep(estimator="finite"),
}


def gaussian_model(mean=MEAN) -> pm.Model:
    with pm.Model() as model:
        pm.MvNormal("x", mu=mean, cov=COV)
    return model


def smoke_z(draws: np.ndarray):
    return mcse_zscores(draws, mean=MEAN, variance=np.diag(COV))


@pytest.mark.parametrize("name", list(STEPS))
def test_each_step_at_its_defaults_recovers_a_gaussian(name):
    with gaussian_model():
        idata = pm.sample(
            tune=1000, draws=1500, chains=2, cores=1, step=STEPS[name](), random_seed=11,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    z = smoke_z(np.asarray(idata["posterior"]["x"].values))
    assert np.min(z.ess) > MIN_ESS, z.describe()
    assert z.max_abs < Z_SMOKE, z.describe()


def test_kameleon_smc_recovers_a_gaussian():
    # independent SMC runs: the final particles of each are (nearly) independent draws
    with gaussian_model():
        idata = pm.sample_smc(
            draws=400, kernel=KameleonSMC, chains=2, cores=1, random_seed=11,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    draws = np.asarray(idata["posterior"]["x"].values)
    # particles are exchangeable, not a chain: treat each run's particles as one chain
    z = smoke_z(draws)
    assert z.max_abs < Z_SMOKE, z.describe()


def test_negative_control_a_sampler_of_a_shifted_target_fails_the_smoke():
    shifted = MEAN + np.sqrt(np.diag(COV))
    with gaussian_model(mean=shifted):
        idata = pm.sample(
            tune=1000, draws=1500, chains=2, cores=1, step=AdaptiveMetropolis(), random_seed=11,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    z = smoke_z(np.asarray(idata["posterior"]["x"].values))
    assert not z.max_abs < 2 * Z_SMOKE, f"a wrong sampler passed the smoke: {z.describe()}"
