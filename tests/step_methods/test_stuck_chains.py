"""Chains that cannot move are reported, not returned silently.

Three ways a chain stays at its starting point (a zero-density start, a likelihood estimator
that returns NaN, a posterior on a scale far from 1), for each step: a model without a stochastic
likelihood refuses a non-finite start at once (SamplingError), and a chain that never moved
during warm-up gets a ``SamplerWarning`` in the ``warning`` stat of its first post-warm-up
iteration, which PyMC logs from the parent process with ``cores=1`` and ``cores=2``.
"""

from __future__ import annotations

import copy
import functools
import logging
import math
import re

import numpy as np
import pymc as pm
import pytest
from helpers.sampling import assert_states_equal
from pymc.exceptions import SamplingError
from pymc.sampling.parallel import ParallelSamplingError
from pymc.stats.convergence import SamplerWarning, WarningType

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep, estimator_potential

STEPS = [KameleonStep, AdaptiveMetropolis, KMCStep]


class HaarioAdaptiveMetropolis(AdaptiveMetropolis):
    """AdaptiveMetropolis with the published warm-up, in the model's units (module level:
    picklable)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, warmup="classic", **kwargs)


class ClassicKameleonStep(KameleonStep):
    """KameleonStep with the published warm-up, in the model's units (module level: picklable)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, warmup="classic", **kwargs)


STEP_IDS = ["kameleon", "adaptive_metropolis", "kmc"]
TUNE, DRAWS = 200, 50
QUIET = {"progressbar": False, "compute_convergence_checks": False}
STUCK = "never left its starting point during warm-up"


def nan_estimate(theta, rng):
    """An estimator that fails everywhere but at the start, theta = 0 (module level: picklable).

    ``estimator_potential`` refuses an estimator that returns NaN at the initial point when the
    potential is built, so this one fails only where the chain proposes to go.
    """
    return -0.5 * float(theta @ theta) if not np.any(theta) else math.nan


def zero_near_start(theta, rng):
    """An estimator whose likelihood is zero unless theta[0] > 10 (the chains start at 0)."""
    return 0.0 if theta[0] > 10.0 else -math.inf


def model_for(case: str) -> pm.Model:
    with pm.Model() as model:
        if case == "outside_support":
            pm.Uniform("x", 0.0, 1.0, shape=2, default_transform=None, initval=np.array([2.0, 2.0]))
        elif case == "nan_estimator":
            x = pm.Normal("x", 0.0, 1.0, shape=2)
            estimator_potential("loglike", nan_estimate, x)
        elif case == "zero_estimate_at_start":
            x = pm.Normal("x", 0.0, 1.0, shape=2)
            estimator_potential("loglike", zero_near_start, x)
        elif case == "tiny_scale":
            pm.Normal("x", 1.0, 1e-6, shape=2)
        elif case == "healthy":
            pm.Normal("x", 0.0, 1.0, shape=2)
        else:  # pragma: no cover
            raise ValueError(case)
    return model


def sample(step_cls, case, caplog, cores=1, **kwargs):
    """2 chains x (200 + 50); returns the InferenceData and the messages logged by PyMC."""
    model = model_for(case)
    options = {"tune": TUNE, "draws": DRAWS, "chains": 2, "random_seed": 3, **QUIET, **kwargs}
    with model, caplog.at_level(logging.WARNING, logger="pymc"):
        caplog.clear()
        idata = pm.sample(step=step_cls(), cores=cores, **options)
    return idata, [r.getMessage() for r in caplog.records if r.name.startswith("pymc")]


def stuck_messages(messages, step_cls):
    return [m for m in messages if m.startswith(f"{step_cls.__name__} (x): ") and STUCK in m]


# -----------------------------------------------------------------------------------------------
# a zero-density start
@pytest.mark.parametrize("step_cls", STEPS, ids=STEP_IDS)
def test_non_finite_start_raises_for_a_deterministic_model(step_cls):
    with model_for("outside_support"):
        step = step_cls()
        with pytest.raises(SamplingError, match=r"log-density at the starting point is -inf") as e:
            pm.sample(tune=TUNE, draws=DRAWS, chains=1, cores=1, step=step, **QUIET)
    message = str(e.value)
    assert step_cls.__name__ in message
    assert "x = [2. 2.]" in message
    assert "initvals" in message


def test_non_finite_start_raises_with_cores_2():
    with model_for("outside_support"):
        with pytest.raises(ParallelSamplingError, match=re.escape("x = [2. 2.]")):
            pm.sample(tune=TUNE, draws=DRAWS, chains=2, cores=2, step=KameleonStep(), **QUIET)


@pytest.mark.parametrize("step_cls", STEPS, ids=STEP_IDS)
def test_zero_likelihood_estimate_at_start_warns(step_cls, caplog):
    """An estimate may be -inf at the start by chance: no error, but a stuck chain is reported."""
    _, messages = sample(step_cls, "zero_estimate_at_start", caplog)
    stuck = stuck_messages(messages, step_cls)
    assert len(stuck) == 1, messages  # both chains stuck: said once per call
    for message in stuck:
        assert f"0 of {TUNE} warm-up proposals moved the chain" in message
        assert f"{TUNE} had a NaN/-inf log-density" in message
        assert "the log-density at the current state is -inf" in message
        assert "likelihood estimator" in message and "initvals" in message


# -----------------------------------------------------------------------------------------------
# an estimator that always returns NaN
@pytest.mark.parametrize("step_cls", STEPS, ids=STEP_IDS)
def test_nan_estimator_warns(step_cls, caplog):
    idata, messages = sample(step_cls, "nan_estimator", caplog)
    stuck = stuck_messages(messages, step_cls)
    assert len(stuck) == 1, messages
    for message in stuck:
        assert f"0 of {TUNE} warm-up proposals moved the chain; {TUNE} " in message
    # the stat holding SamplerWarning objects is dropped from the InferenceData, as NUTS's is
    assert "warning" not in idata.sample_stats


def test_warning_reaches_the_user_with_cores_2(caplog):
    _, messages = sample(KameleonStep, "nan_estimator", caplog, cores=2)
    assert len(stuck_messages(messages, KameleonStep)) == 1, messages


# -----------------------------------------------------------------------------------------------
# a posterior on a scale far from 1 (sd 1e-6 around 1.0)
@pytest.mark.parametrize(
    "step_cls", [ClassicKameleonStep, HaarioAdaptiveMetropolis], ids=STEP_IDS[:2]
)
def test_tiny_scale_warns(step_cls, caplog):
    _, messages = sample(step_cls, "tiny_scale", caplog)
    stuck = stuck_messages(messages, step_cls)
    assert len(stuck) == 1, messages
    for message in stuck:
        assert f"0 of {TUNE} warm-up proposals moved the chain" in message
        assert "NaN/-inf" not in message
        assert "rescale the parameters" in message


@pytest.mark.parametrize("step_cls", [AdaptiveMetropolis, KameleonStep], ids=["am", "kameleon"])
def test_whitened_warmup_finds_a_tiny_scale(step_cls, caplog):
    """The default warm-up has no units: it finds the sd of 1e-6 and moves."""
    idata, messages = sample(step_cls, "tiny_scale", caplog, draws=400)
    assert not stuck_messages(messages, step_cls), messages
    draws = idata.posterior["x"].values.reshape(-1, 2)
    assert float(idata.sample_stats["accept"].mean()) > 0.1
    assert np.all((draws.std(axis=0) > 0.5e-6) & (draws.std(axis=0) < 2e-6))


def test_accepted_steps_below_float_resolution_do_not_count_as_moves():
    """An accepted proposal equal to the current state in floating point is not a move."""
    model = model_for("tiny_scale")
    with model:
        step = AdaptiveMetropolis()
    step.set_rng(5)
    step.step(model.initial_point())
    moved, unmoved = step.health.n_moved, step.health.n_accepted_unmoved
    step.accept_state(step.x_current.copy(), step.logp_current, None)  # x + 1e-20: the same floats
    assert (step.health.n_moved, step.health.n_accepted_unmoved) == (moved, unmoved + 1)
    step.accept_state(step.x_current + 1e-3, step.logp_current, None)
    assert (step.health.n_moved, step.health.n_accepted_unmoved) == (moved + 1, unmoved + 1)


def test_kmc_tiny_scale_is_reported(caplog):
    """KMCStep's warm-up random walk does move here, so the chain is not stuck in warm-up; its
    first surrogate fit comes at the end of warm-up (tune = adapt_start), the untuned trajectories
    then all diverge, and PyMC's divergence check tells the user."""
    # (one chain learning alone: pooled, the first fit comes before the end of warm-up)
    classic = functools.partial(KMCStep, warmup="classic", pool_warmup=False)
    _, messages = sample(classic, "tiny_scale", caplog, compute_convergence_checks=True)
    assert stuck_messages(messages, KMCStep) or any("divergences" in m for m in messages), messages


def test_kmc_default_warmup_finds_a_tiny_scale(caplog):
    """The default (whitened) warm-up has no units: the same model samples."""
    idata, messages = sample(KMCStep, "tiny_scale", caplog, draws=400)
    assert not stuck_messages(messages, KMCStep), messages
    assert float(idata.sample_stats["accept"].mean()) > 0.1
    sd = idata.posterior["x"].values.reshape(-1, 2).std(axis=0)
    assert np.all((sd > 1e-7) & (sd < 1e-5)), sd


# -----------------------------------------------------------------------------------------------
# no false alarm, and the stat itself
@pytest.mark.parametrize("step_cls", STEPS, ids=STEP_IDS)
def test_healthy_model_gets_no_warning(step_cls, caplog):
    idata, messages = sample(step_cls, "healthy", caplog, keep_warning_stat=True)
    assert not [m for m in messages if STUCK in m or "non-finite" in m], messages
    assert all(w is None for w in idata.sample_stats["warning"].values.ravel())


def test_warning_stat_holds_one_sampler_warning_at_the_first_draw(caplog):
    idata, _ = sample(HaarioAdaptiveMetropolis, "tiny_scale", caplog, keep_warning_stat=True)
    warnings = idata.sample_stats["warning"].values.reshape(2, DRAWS)  # (chain, draw, 1) as NUTS's
    for chain in range(2):
        first = warnings[chain, 0]
        assert isinstance(first, SamplerWarning)
        assert first.kind is WarningType.CONVERGENCE and first.level == "error"
        assert STUCK in first.message
        assert all(w is None for w in warnings[chain, 1:])


def test_no_check_without_warm_up(caplog):
    """With tune=0 PyMC calls stop_tuning before the first iteration: nothing to judge."""
    _, messages = sample(AdaptiveMetropolis, "tiny_scale", caplog, tune=0)
    assert not stuck_messages(messages, AdaptiveMetropolis), messages


def test_counts_and_pending_warning_survive_a_sampling_state_round_trip():
    model = model_for("tiny_scale")
    with model:
        step = HaarioAdaptiveMetropolis()
    step.set_rng(5)
    point = model.initial_point()
    for _ in range(150):
        point, _ = step.step(point)
    assert step.health.n_moved == 0
    step.stop_tuning()
    assert step.health.stuck_warning is not None and "0 of 150 warm-up" in step.health.stuck_warning
    saved = step.sampling_state
    clone = copy.deepcopy(step)
    point_a, stats_a = step.step(copy.deepcopy(point))
    assert isinstance(stats_a[0]["warning"], SamplerWarning)
    assert step.health.stuck_warning is None
    _, stats_next = step.step(point_a)
    assert stats_next[0]["warning"] is None  # emitted once
    clone.sampling_state = saved
    assert_states_equal(clone.sampling_state, saved)
    _, stats_b = clone.step(copy.deepcopy(point))
    assert stats_b[0]["warning"] == stats_a[0]["warning"]


def test_moves_are_counted_during_warm_up_only():
    model = model_for("healthy")
    with model:
        step = KameleonStep()
    step.set_rng(2)
    point = model.initial_point()
    accepted = 0
    for _ in range(100):
        point, stats = step.step(point)
        accepted += int(stats[0]["accepted"])
    assert step.health.n_moved == accepted > 0 and step.health.n_accepted_unmoved == 0
    step.stop_tuning()
    assert step.health.stuck_warning is None
    for _ in range(50):
        point, _ = step.step(point)
    assert step.health.n_moved == accepted


def noisy_estimate(theta, rng):
    return -0.5 * float(theta @ theta) + 10.0 * rng.standard_normal()


def test_a_very_noisy_estimate_is_named_as_the_cause():
    """A chain stuck behind one lucky, very high estimate: the message points at the noise."""
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=2)
        estimator_potential("loglike", noisy_estimate, x)
        step = KameleonStep()
    step.set_rng(1)
    step.step(model.initial_point())  # measures the noise at the first iteration
    assert step.noise_sd > 3.0
    step.health.n_moved, step.iteration = 0, 200  # as if nothing had been accepted since
    message = step._stuck_chain_message()
    assert "0 of 200 warm-up proposals moved the chain" in message
    assert "very noisy (noise_sd about" in message
    assert "rescale" not in message
