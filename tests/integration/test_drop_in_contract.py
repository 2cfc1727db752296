"""What a ``pm.Metropolis()`` user takes for granted, for every default step class.

Ctrl-C (a real SIGINT to the process group, as a terminal sends it) returns the draws made so
far, and ``callback=`` is called after every draw, with ``cores=1`` and ``cores=2``: no default
step runs on PyMC's population sampler, which has neither. The pooled classes do run there: a
compound step that would share the other steps' state between chains is refused with
``cores=1``, and the run says once what the population sampler gives up.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pymc as pm
import pytest
from pymc.step_methods.arraystep import PopulationArrayStepShared

from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    PooledAdaptiveMetropolis,
    PooledKameleonStep,
    PooledKMCStep,
)
from pymc_kameleon.step_methods.pooled_warmup import SharedCompoundError

DEFAULT_STEPS = (KameleonStep, AdaptiveMetropolis, KMCStep)
POOLED_STEPS = (PooledKameleonStep, PooledAdaptiveMetropolis, PooledKMCStep)


def test_no_default_step_is_a_population_step():
    for step_class in DEFAULT_STEPS:
        assert not issubclass(step_class, PopulationArrayStepShared), step_class
    for step_class in POOLED_STEPS:
        assert issubclass(step_class, PopulationArrayStepShared), step_class


@pytest.mark.parametrize("cores", [1, 2])
@pytest.mark.parametrize("step_class", DEFAULT_STEPS, ids=lambda c: c.__name__)
def test_callback_is_called_after_every_draw(step_class, cores):
    calls = []
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        pm.sample(
            tune=20, draws=30, chains=2, cores=cores, step=step_class(), random_seed=1,
            progressbar=False, compute_convergence_checks=False,
            callback=lambda trace, draw: calls.append((draw.chain, draw.draw_idx)),
        )  # fmt: skip
    # PyMC calls it for every iteration of every chain, warm-up included
    assert sorted(calls) == [(c, i) for c in range(2) for i in range(50)]


SCRIPT = textwrap.dedent(
    """
    import signal, sys
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    import pymc as pm
    import pymc_kameleon as pk

    cores = int(sys.argv[1])
    for name in sys.argv[2:]:
        announced = []

        def announce(trace, draw):
            if draw.draw_idx == 150 and not announced:  # past warm-up: drawing
                announced.append(1)
                print("drawing", flush=True)

        with pm.Model():
            pm.Normal("x", 0.0, 1.0, shape=3)
            result = pm.sample(
                tune=100, draws=2_000_000, chains=2, cores=cores, step=getattr(pk, name)(),
                random_seed=1, progressbar=False, compute_convergence_checks=False,
                callback=announce,
            )
        print("returned", name, result.posterior.sizes["chain"], result.posterior.sizes["draw"],
              flush=True)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
@pytest.mark.parametrize("cores", [1, 2])
def test_ctrl_c_returns_the_draws_made_so_far(cores):
    """One process samples with each default step in turn; each run gets a real SIGINT."""
    names = [c.__name__ for c in DEFAULT_STEPS]
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(cores), *names],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )  # fmt: skip
    try:
        for name in names:
            line = process.stdout.readline().strip()
            assert line == "drawing", f"{name}: {line!r}"
            os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches every process of the group
            words = process.stdout.readline().split()
            if words[:2] != ["returned", name]:  # say what the process said on its way out
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                _, err = process.communicate()
                pytest.fail(f"{name}: {words}; exit {process.returncode}; stderr: {err[-3000:]}")
            # every chain made its warm-up and some draws: the partial run came back
            assert int(words[2]) >= 1 and 0 < int(words[3]) < 2_000_000, words
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        _, err = process.communicate()
    assert process.returncode == 0, err[-2000:]


def change_point_model() -> pm.Model:
    rng = np.random.default_rng(7)
    counts = np.r_[rng.poisson(3.0, 35), rng.poisson(1.0, 25)]
    with pm.Model() as model:
        s = pm.DiscreteUniform("s", 0, 59)
        early = pm.Exponential("early", 1.0)
        late = pm.Exponential("late", 1.0)
        rate = pm.math.switch(np.arange(60) < s, early, late)
        pm.Poisson("counts", rate, observed=counts)
    return model


@pytest.mark.parametrize("step_class", POOLED_STEPS, ids=lambda c: c.__name__)
def test_a_pooled_step_refuses_a_compound_that_would_share_state(step_class):
    with change_point_model() as model:
        step = [step_class([model["early"], model["late"]]), pm.Metropolis([model["s"]])]
        with pytest.raises(SharedCompoundError) as error:
            pm.sample(
                tune=20, draws=20, chains=2, cores=1, step=step, random_seed=1,
                progressbar=False, compute_convergence_checks=False,
            )  # fmt: skip
    message = str(error.value)
    unpooled = step_class.__name__.removeprefix("Pooled")
    assert f"Use {unpooled}(...)" in message and "cores=2" in message and "['s']" not in message
    assert "(for s)" in message


def test_a_pooled_step_alone_says_once_what_the_population_sampler_gives_up(caplog):
    with pm.Model(), caplog.at_level(logging.INFO, logger="pymc"):
        pm.Normal("x", 0.0, 1.0, shape=2)
        pm.sample(
            tune=20, draws=20, chains=3, cores=1, step=PooledKMCStep(), random_seed=1,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    notices = [r.getMessage() for r in caplog.records if "population sampler" in r.getMessage()]
    assert len(notices) == 1, notices
    assert "Ctrl-C" in notices[0] and "callback=" in notices[0]


def test_kmc_step_names_the_pooled_class():
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        with pytest.raises(Exception, match=r"use PooledKMCStep\(\.\.\.\)"):
            KMCStep(pool_warmup=True)
