"""The steps' own warnings for a warm-up too short to learn and for KMC divergences (issue 46).

``AdaptiveMetropolis()`` with ``tune=0`` sampled with an untuned kernel (R-hat 1.39, ESS 4) and
said nothing; KMC's divergences made PyMC advise "Increase `target_accept`", which
``pm.sample`` does not take for this step. Each step now tells the user, through its
``warning`` sampler stat (which PyMC logs), what the problem is and what to pass instead: once
per ``pm.sample`` call, however many chains give it (every chain's stays in the stat).
"""

from __future__ import annotations

import functools
import logging

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from helpers.sampling import SAMPLE_KW
from pymc.stats.convergence import SamplerWarning, WarningType

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.core.proposals.whitened import shortest_warmup
from pymc_kameleon.step_methods import notices

STEPS = [KameleonStep, AdaptiveMetropolis, KMCStep]
SHORT = "is too short for its warm-up to learn the proposal"
NO_WARMUP = "pm.sample(tune=0) runs no warm-up"
DIVERGED = "a Hamiltonian trajectory diverged after warm-up"


def gaussian_model() -> pm.Model:
    with pm.Model() as model:
        pm.Normal("x", 0.0, 1.0, shape=2)
    return model


def sample(make_step, model, caplog, cores=1, **kwargs):
    """``pm.sample`` with ``make_step()`` and 2 chains; the result and PyMC's logged messages."""
    options = {"draws": 30, "chains": 2, "random_seed": 4, **SAMPLE_KW}
    options.update(kwargs)
    with model, caplog.at_level(logging.WARNING, logger="pymc"):
        caplog.clear()
        idata = pm.sample(step=make_step(), cores=cores, **options)
    return idata, [r.getMessage() for r in caplog.records if r.name.startswith("pymc")]


def with_text(messages, text):
    return [m for m in messages if text in m]


# -----------------------------------------------------------------------------------------------
# a warm-up too short to learn the proposal
def minimum_warmup_length(step) -> int | None:
    return notices.minimum_warmup_length(step.warmup_plan)


def test_the_minimum_is_one_window_after_the_start_and_before_settling():
    assert minimum_warmup_length(AdaptiveMetropolis(model=gaussian_model())) == 133
    assert shortest_warmup(2) == 133
    # 132: a start of 33, 49 iterations for the 50-iteration first window, 50 to settle
    assert 132 - 50 - 132 // 4 < 50 <= 133 - 50 - 133 // 4
    # KMC also needs its surrogate's first fit (adapt_start=200 learned states) in that span
    assert minimum_warmup_length(KMCStep(model=gaussian_model())) == shortest_warmup(2, 200)
    assert minimum_warmup_length(KMCStep(model=gaussian_model(), adapt_start=20)) == 133
    classic = AdaptiveMetropolis(model=gaussian_model(), warmup="classic", adapt_start=80)
    assert minimum_warmup_length(classic) == 80 + 50


@pytest.mark.parametrize("step_cls", STEPS)
def test_no_warmup_warns_once_per_call_with_the_fix(step_cls, caplog):
    _, messages = sample(step_cls, gaussian_model(), caplog, tune=0)
    found = with_text(messages, NO_WARMUP)
    assert len(found) == 1, messages  # both chains give it: said once
    name = step_cls.__name__
    assert found[0].startswith(f"{name}: ") and "every chain" in found[0]
    assert "pm.sample(tune=1000)" in found[0] and f"{name}(initial_history=...)" in found[0]
    assert found[0].endswith("Details: docs/howto/messages.md#short-warmup.")


@pytest.mark.parametrize("step_cls", STEPS)
def test_a_too_short_warmup_warns_and_names_the_minimum(step_cls, caplog):
    minimum = minimum_warmup_length(step_cls(model=gaussian_model()))
    _, messages = sample(step_cls, gaussian_model(), caplog, tune=minimum - 1)
    found = with_text(messages, SHORT)
    assert len(found) == 1, messages
    assert f"pm.sample(tune={minimum - 1})" in found[0]
    assert f"at least {minimum} warm-up iterations" in found[0]
    assert f"pm.sample(tune={max(1000, minimum)})" in found[0]


@pytest.mark.parametrize("step_cls", STEPS)
def test_the_minimum_and_the_default_tune_do_not_warn(step_cls, caplog):
    for tune in (minimum_warmup_length(step_cls(model=gaussian_model())), 1000):
        _, messages = sample(step_cls, gaussian_model(), caplog, tune=tune)
        assert not with_text(messages, SHORT) and not with_text(messages, NO_WARMUP), messages


def test_initial_history_needs_no_warmup(caplog):
    pilot = np.random.default_rng(0).normal(size=(200, 2))
    step = lambda: AdaptiveMetropolis(initial_history=pilot)  # noqa: E731
    _, messages = sample(step, gaussian_model(), caplog, tune=0)
    assert not with_text(messages, NO_WARMUP), messages


def test_the_warning_is_logged_once_from_worker_processes(caplog):
    _, messages = sample(AdaptiveMetropolis, gaussian_model(), caplog,
                         cores=2, tune=0)  # fmt: skip
    assert len(with_text(messages, NO_WARMUP)) == 1, messages


def test_the_warning_is_a_sampler_warning_at_the_first_iteration(caplog):
    idata, _ = sample(KameleonStep, gaussian_model(), caplog, tune=0,
                      keep_warning_stat=True)  # fmt: skip
    stat = posterior_dataset(idata, "sample_stats")["warning"].values.reshape(2, -1)
    for chain in range(2):
        first = stat[chain, 0]
        assert isinstance(first, SamplerWarning)
        assert first.kind is WarningType.BAD_PARAMS and first.level == "warning"
        assert NO_WARMUP in first.message  # every chain's notice is kept, with its details
        assert "the proposal is never learned from the chain" in first.extra
        assert all(w is None for w in stat[chain, 1:])


# -----------------------------------------------------------------------------------------------
# KMC's divergences name its own target_accept
def walled_model() -> pm.Model:
    """N(0, I) cut at x_0 > 0: trajectories that cross the wall end at -inf and diverge."""
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=2, initval=np.array([0.5, 0.0]))
        pm.Potential("wall", pt.switch(x[0] > 0, 0.0, -np.inf))
    return model


def test_a_divergence_after_warmup_names_kmcsteps_target_accept(caplog):
    # (one chain learning alone in global coordinates: the defaults rarely diverge here)
    lone = functools.partial(KMCStep, coordinates="global")
    idata, messages = sample(lone, walled_model(), caplog, tune=400, draws=100)
    diverging = posterior_dataset(idata, "sample_stats")["diverging"].values.sum(axis=1)
    assert np.any(diverging > 0), diverging  # the model does diverge after warm-up
    found = with_text(messages, DIVERGED)
    # once per call, however many chains diverged how often
    assert len(found) == 1, (diverging, messages)
    assert "use KMCStep(target_accept=0.8) (it has 0.6)" in found[0]
    assert "pm.sample's `target_accept` does not reach this step" in found[0]


def test_the_suggestion_goes_up_from_the_steps_own_value(caplog):
    # (4 chains: at seeds 4-7 one to three of them diverged after warm-up, 2-13 times)
    _, messages = sample(lambda: KMCStep(target_accept=0.8), walled_model(),
                         caplog, tune=400, draws=200, chains=4)  # fmt: skip
    assert "KMCStep(target_accept=0.9) (it has 0.8)" in with_text(messages, DIVERGED)[0]


def test_no_divergence_no_message(caplog):
    # (after 400 warm-up iterations a standard normal still gave a few divergences at 5 seeds of
    # 12, on 2 x 100 draws; after 1000, none at 12 seeds)
    idata, messages = sample(KMCStep, gaussian_model(), caplog,
                             tune=1000, draws=100)  # fmt: skip
    assert posterior_dataset(idata, "sample_stats")["diverging"].values.sum() == 0
    assert not with_text(messages, DIVERGED), messages


def test_divergences_during_warmup_only_are_not_reported(caplog):
    """PyMC counts the kept draws' divergences; warm-up's are the step size being learned."""
    idata, messages = sample(KMCStep, walled_model(), caplog, tune=400,
                             draws=1, discard_tuned_samples=False)  # fmt: skip
    warm = posterior_dataset(idata, "warmup_sample_stats")["diverging"].values
    kept = posterior_dataset(idata, "sample_stats")["diverging"].values
    assert warm.sum() > 0
    assert len(with_text(messages, DIVERGED)) == int(kept.any())


@pytest.mark.slow
def test_halfcauchy_divergences_get_the_message(caplog):
    """The issue's case: KMC on HalfCauchy(1) diverges now and then in the tail (20 in 40 000
    kept draws at seeds 1-2, unevenly over the chains), so some seeds give none."""
    with pm.Model() as model:
        pm.HalfCauchy("x", 1.0)
    idata, messages = sample(
        KMCStep, model, caplog, tune=1000, draws=10000, chains=4, random_seed=2
    )
    diverging = posterior_dataset(idata, "sample_stats")["diverging"].values
    if not diverging.any():
        pytest.skip("no divergence at this seed: nothing to report")
    assert len(with_text(messages, DIVERGED)) == 1
