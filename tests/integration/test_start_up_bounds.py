"""``pm.sample`` on a posterior against a bound of its support: no NumPy warnings, no fallback
warning, the status ``near_bound`` (issue 46, item 5).

A truncated likelihood whose lower truncation point is a parameter is -inf wherever that point
exceeds an observation, and its posterior piles up against that bound. The start-up's climb
from PyMC's initial point runs into the bound; its finite differences used to take values at
-inf, and NumPy warned "invalid value encountered in scalar subtract" (sampling was correct).
"""

from __future__ import annotations

import logging

import numpy as np
import pymc as pm
import pytest
from helpers.sampling import SAMPLE_KW

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.core.start_up import START_UP_STATUSES

Y = np.array([0.2, 0.9, 1.4, 1.9])


def truncated_model() -> pm.Model:
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 2.0)
        lower = pm.Normal("lower", 0.0, 1.0, initval=0.0)  # 0.2 from where the density is -inf
        pm.Truncated("y", pm.Normal.dist(mu, 1.0), lower=lower, observed=Y)
    return model


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis, KMCStep])
def test_a_posterior_against_a_bound_samples_without_warnings(step_cls, caplog):
    with np.errstate(all="raise", under="ignore"), truncated_model():
        with caplog.at_level(logging.WARNING, logger="pymc"):
            idata = pm.sample(
                tune=200, draws=50, chains=2, cores=1, step=step_cls(), random_seed=3,
                discard_tuned_samples=False, **SAMPLE_KW,
            )  # fmt: skip
    warm = posterior_dataset(idata, "warmup_sample_stats")
    assert (warm["start_up"].values == START_UP_STATUSES["near_bound"]).all()
    assert not [r for r in caplog.records if "start-up" in r.getMessage()]
    assert posterior_dataset(idata)["lower"].values.max() <= Y.min()
