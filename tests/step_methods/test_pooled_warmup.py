"""The pooled classes (``PooledKMCStep``, ...): PyMC's population sampling, the other chains'
states in the warm-up, independent frozen chains afterwards, the same draws with ``cores=1`` and
``cores=2``."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import cloudpickle
import numpy as np
import pymc as pm
import pytest
from helpers.models import mv_model
from helpers.sampling import SAMPLE_KW, assert_states_equal, run_direct
from pymc.step_methods.arraystep import PopulationArrayStepShared

from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    PooledAdaptiveMetropolis,
    PooledKameleonStep,
    PooledKMCStep,
)
from pymc_kameleon.core.checks import ArgumentTypeError
from pymc_kameleon.step_methods.pooling import PooledWarmup

STEPS = {
    "am": lambda **kw: PooledAdaptiveMetropolis(**kw),
    "am-classic": lambda **kw: PooledAdaptiveMetropolis(warmup="classic", **kw),
    "kameleon": lambda **kw: PooledKameleonStep(warmup="whitened", n_history=50, **kw),
    "kmc": lambda **kw: PooledKMCStep(warmup="whitened", adapt_start=50, **kw),
    "kmc-classic": lambda **kw: PooledKMCStep(adapt_start=50, **kw),
}


def _draws(name, cores, chains=3, tune=400, draws=50):
    with mv_model():
        idata = pm.sample(
            draws=draws, tune=tune, chains=chains, cores=cores, step=STEPS[name](),
            random_seed=5, **SAMPLE_KW,
        )  # fmt: skip
    return idata


POOLED = {
    AdaptiveMetropolis: PooledAdaptiveMetropolis,
    KameleonStep: PooledKameleonStep,
}


@pytest.mark.parametrize("cls", list(POOLED))
def test_the_pooled_class_is_a_population_step_of_the_same_kind(cls):
    with mv_model():
        plain, pooled = cls(), POOLED[cls]()
    assert not isinstance(plain, PopulationArrayStepShared)
    assert isinstance(pooled, cls) and isinstance(pooled, PopulationArrayStepShared)
    assert isinstance(pooled, PooledWarmup)
    assert type(pooled).__name__ == f"Pooled{cls.__name__}"
    # the class pickles by reference, also into a fresh interpreter (a spawned PyMC worker)
    assert pickle.loads(pickle.dumps(type(pooled))) is type(pooled)
    assert type(cloudpickle.loads(cloudpickle.dumps(pooled))) is type(pooled)
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, cloudpickle; "
         "print(type(cloudpickle.loads(sys.stdin.buffer.read())).__qualname__)"],
        input=cloudpickle.dumps(pooled), capture_output=True, check=True,
    )  # fmt: skip
    assert loaded.stdout.decode().strip() == f"Pooled{cls.__name__}"


def test_kmcstep_does_not_pool_and_names_its_pooled_class():
    with mv_model():
        step, pooled = KMCStep(), PooledKMCStep()
        KMCStep(pool_warmup=False)  # (the default, accepted as for the other steps)
    assert type(step) is KMCStep and not isinstance(step, PopulationArrayStepShared)
    assert isinstance(pooled, PopulationArrayStepShared) and isinstance(pooled, KMCStep)
    assert pooled.pool_warmup
    for value in (True, 1, "yes", None):
        with mv_model(), pytest.raises(ArgumentTypeError, match=r"use PooledKMCStep\(\.\.\.\)"):
            KMCStep(pool_warmup=value)


@pytest.mark.parametrize("value", [True, False])
def test_a_pooled_class_refuses_pool_warmup_and_names_the_unpooled_one(value):
    """``PooledKMCStep(pool_warmup=False)`` would pool anyway: refused, not silently ignored."""
    with mv_model(), pytest.raises(ArgumentTypeError, match=r"always pools.*use KMCStep\(\.\.\.\)"):
        PooledKMCStep(pool_warmup=value)


def test_kmcstep_alone_learns_only_from_its_own_chain():
    rng = np.random.default_rng(0)
    with mv_model() as model:
        point = model.initial_point()
        step = PooledKMCStep(start_up=False)
    step.pool_warmup = False  # (the same step, learning alone)
    step.link_population([{"x": rng.normal(size=3)} for _ in range(4)], 0)
    step.set_rng(np.random.default_rng(0))
    step.tune = True
    run_direct(step, point, 150)
    pooled = copy.copy(step)
    pooled.pool_warmup = True
    pooled.set_rng(np.random.default_rng(0))
    pooled.tune = True
    run_direct(pooled, point, 150)
    assert pooled.learner.n_learned > step.learner.n_learned


@pytest.mark.parametrize("name", list(STEPS))
def test_the_same_draws_with_one_and_two_cores(name):
    one, two = _draws(name, cores=1), _draws(name, cores=2)
    np.testing.assert_array_equal(one.posterior["x"].values, two.posterior["x"].values)
    assert one.posterior.sizes["chain"] == 3


@pytest.mark.parametrize("name", ["am", "kmc"])
def test_two_chains_and_one_chain_are_enough(name):
    # PyMC's own population check asks for three chains (DEMetropolis's need)
    for chains in (1, 2):
        idata = _draws(name, cores=1, chains=chains, tune=300, draws=20)
        assert idata.posterior.sizes["chain"] == chains


def _population_step(name, population, chain, **kwargs):
    with mv_model() as model:
        step = STEPS[name](**kwargs)
    step.link_population(population, chain)
    step.set_rng(np.random.default_rng(chain))
    return step, model


def test_the_windows_and_history_learn_from_every_chain():
    rng = np.random.default_rng(0)
    with mv_model() as model:
        point = model.initial_point()
    population = [{"x": rng.normal(size=3)} for _ in range(4)]
    # without the start-up, whose Gaussian would skip the per-coordinate start counted on here
    step, _ = _population_step("kameleon", population, 0, start_up=False)
    windows = step.proposal.windows
    kernel = step.kernel_proposal
    x = copy.deepcopy(point)
    for t in range(140):  # the start (100 iterations), then 40 of the first window (50)
        x, _ = step.step(x)
        population[0] = x
    # in the window: one state of its own and three of the others per iteration
    assert step.proposal.stage == "windows"
    assert windows.count == 4 * (140 - 100)
    assert kernel.history.n_seen == 4 * (140 - 100)
    # after warm-up nothing is pooled
    step.stop_tuning()
    seen = kernel.history.n_seen
    step.step(x)
    assert kernel.history.n_seen == seen


@pytest.mark.parametrize("name", ["am", "kmc"])
def test_sampling_state_round_trip(name):
    population = [{"x": np.full(3, float(c))} for c in range(3)]
    step, model = _population_step(name, population, 1)
    point, _ = run_direct(step, model.initial_point(), 300)
    saved = step.sampling_state
    point_a, stats_a = step.step(copy.deepcopy(point))
    state_a = step.sampling_state
    other = cloudpickle.loads(cloudpickle.dumps(step))
    other.sampling_state = pickle.loads(pickle.dumps(saved))
    point_b, stats_b = other.step(copy.deepcopy(point))
    np.testing.assert_array_equal(point_a["x"], point_b["x"])
    assert stats_a == stats_b
    assert_states_equal(other.sampling_state, state_a)


@pytest.mark.parametrize("cls", list(POOLED))
@pytest.mark.parametrize("value", [True, 1, "yes", None])
def test_pool_warmup_names_the_pooled_class(cls, value):
    with mv_model(), pytest.raises(ArgumentTypeError, match=f"Pooled{cls.__name__}"):
        cls(pool_warmup=value)
    with mv_model():
        cls(pool_warmup=False)  # (the default, still accepted)


def test_shallow_copies_of_a_step_do_not_share_a_proposal():
    # PyMC's population sampler gives every chain copy.copy(step), then set_rng
    with mv_model():
        step = KameleonStep(warmup="whitened")
    chains = [copy.copy(step) for _ in range(2)]
    for c, chain in enumerate(chains):
        chain.set_rng(c)
    assert chains[0].proposal is not chains[1].proposal
    assert chains[0].proposal is not step.proposal


def test_with_one_core_the_users_step_holds_the_learned_state():
    # PyMC runs a copy per chain; the last chain's proposal and point are the user's step's
    with mv_model():
        step = PooledKMCStep(adapt_start=50)
        idata = pm.sample(
            draws=20, tune=400, chains=3, cores=1, step=step, random_seed=5, **SAMPLE_KW
        )
    assert step.surrogate is not None and step.kernel_map is not None
    last = idata.posterior["x"].values[-1, -1]
    np.testing.assert_array_equal(step.x_current, last)  # (x is unconstrained here)
    assert copy.copy(step).origin_step is step
    # a pickled step (a worker process) cannot reach the user's object
    assert cloudpickle.loads(cloudpickle.dumps(step)).origin_step is None
