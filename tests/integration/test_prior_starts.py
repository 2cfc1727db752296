"""The start-up's further climbs from prior draws (step_methods/prior_starts.py) inside pm.sample.

A climb from a chain's initial point ends in that point's basin; on a posterior with a local mode
next to the start every chain would agree on it. The start-up climbs again from a prior draw of
the chain's own, starts from the higher mode, and warns when it found more than one.
"""

from __future__ import annotations

import copy

import numpy as np
import pymc as pm
import pytest
from helpers.sampling import SAMPLE_KW, posterior_array

from pymc_kameleon import AdaptiveMetropolis, KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.step_methods.prior_starts import chain_starts, prior_draws

MINOR, MAJOR = -6.0, 4.0


def two_mode_model() -> pm.Model:
    """Prior N(0, 5); likelihood 0.05 N(-6, 0.3) + 0.95 N(4, 1): a narrow minor mode at -6."""
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 5.0)
        minor = pm.logp(pm.Normal.dist(MINOR, 0.3), x) + np.log(0.05)
        major = pm.logp(pm.Normal.dist(MAJOR, 1.0), x) + np.log(0.95)
        pm.Potential("likelihood", pm.math.logsumexp(pm.math.stack([minor, major])))
    return model


def warning_stats(idata) -> list:
    stats = posterior_dataset(idata, "warmup_sample_stats")
    return [w for w in stats["warning"].values.ravel() if w is not None and w != 0]


@pytest.mark.parametrize("seed", [5, 6])
def test_chains_started_in_a_minor_mode_find_the_major_one_and_say_there_are_two(seed):
    with two_mode_model():
        idata = pm.sample(
            tune=300, draws=200, chains=2, cores=1, step=AdaptiveMetropolis(),
            initvals={"x": MINOR}, random_seed=seed, discard_tuned_samples=False,
            keep_warning_stat=True, **SAMPLE_KW,
        )  # fmt: skip
    draws = posterior_array(idata, "x")
    assert np.all(np.abs(draws.mean(axis=-1) - MAJOR) < 1.0)  # both chains in the major mode
    found = [w for w in warning_stats(idata) if "separate modes" in w.message]
    assert len(found) == 2  # in every chain's stat (logged once per call), naming both modes
    assert "start_up=N" in found[0].extra and found[0].message.kind == "several_modes"


def test_without_a_start_up_the_chains_stay_in_the_minor_mode():
    """The negative control: from the minor mode, a chain without the start-up stays there."""
    with two_mode_model():
        idata = pm.sample(
            tune=300, draws=200, chains=2, cores=1, step=AdaptiveMetropolis(start_up=False),
            initvals={"x": MINOR}, random_seed=5, **SAMPLE_KW,
        )  # fmt: skip
    assert np.all(np.abs(posterior_array(idata, "x") - MINOR) < 2.0)


def test_prior_draws_are_raveled_seeded_and_leave_the_chain_generator_alone():
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.HalfNormal("s", 1.0, shape=2)
        pm.Normal("y", mu, 1.0, observed=[0.1, 0.2])
    draws = prior_draws(model, model.value_vars)
    assert draws(3).shape == (3,)
    np.testing.assert_array_equal(draws(3), draws(3))
    assert not np.array_equal(draws(3), draws(4))
    rng = np.random.default_rng(0)
    before = copy.deepcopy(rng)
    starts = chain_starts(draws, rng, np.float64)
    starts(0), starts(1)
    assert rng.random() == before.random()


def test_no_prior_draws_for_flat_priors_or_pseudo_marginal_models():
    with pm.Model() as model:
        pm.Flat("a")
        pm.HalfFlat("b")
    assert prior_draws(model, model.value_vars) is None
    with model:
        assert KMCStep().prior_draws is None
        assert KMCStep(start_up=False).prior_draws is None


def test_a_cut_off_climb_above_the_chain_s_mode_is_a_fact_naming_both():
    from pymc_kameleon.core.mode_start import ModeStart
    from pymc_kameleon.core.start_up import StartUp
    from pymc_kameleon.step_methods.start_up import start_up_messages

    def messages(result):
        return start_up_messages(result, -180.0, "KMCStep", "x", 900)

    def start_up(highest):
        mode = ModeStart(np.zeros(2), -172.5, np.eye(2), "gaussian", 300)
        return StartUp("gaussian", np.zeros(2), -172.5, np.zeros(2), np.eye(2), 900,
                       (mode,), (1.0,), 0, 2, highest)  # fmt: skip

    fact, notice = messages(start_up(-150.25))
    assert notice is None  # (a fact for the stats: PyMC's R-hat warning says if it mattered)
    assert fact.kind == "minor_modes"
    assert "-150.25" in fact and "-172.5" in fact and "KMCStep(start_up=N)" in fact
    assert messages(start_up(-172.0)) == (None, None)  # within the margin
