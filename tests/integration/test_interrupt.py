"""Ctrl-C during ``pm.sample(cores=1)``: stop at once and keep what was drawn.

PyMC's sequential loop ends an interrupted chain and starts the next one, so Ctrl-C in the first
of two long chains used to be "ignored" for the whole second chain. A ``KeyboardInterrupt``
arriving inside a compiled (Numba) function could also surface as a ``SystemError``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep, PooledKMCStep
from pymc_kameleon._compat import posterior_dataset

TUNE, INTERRUPT_AT = 30, 50


def interrupting(step, exception: BaseException, at: int = INTERRUPT_AT):
    """Make ``step`` raise ``exception`` at iteration ``at`` of its first chain; count calls."""
    calls = []
    astep = step.astep

    def wrapped(q0):
        calls.append(1)
        if len(calls) == at:
            raise exception
        return astep(q0)

    step.astep = wrapped
    return calls


def sample(step, chains: int = 3):
    return pm.sample(
        tune=TUNE,
        draws=200,
        chains=chains,
        cores=1,
        step=step,
        random_seed=1,
        progressbar=False,
        compute_convergence_checks=False,
    )


def numba_style_interrupt() -> SystemError:
    """What CPython raises when a C function returns while an interrupt is pending."""
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as interrupt:
            raise SystemError("CPUDispatcher(...) returned a result with an exception set") from (
                interrupt
            )
    except SystemError as error:
        return error


@pytest.mark.parametrize("make_interrupt", [KeyboardInterrupt, numba_style_interrupt])
def test_interrupt_stops_a_population_run_at_once(make_interrupt):
    """A pooled step's chains run in lock-step (PyMC's population sampler, which re-raises
    Ctrl-C after closing the traces, as for DEMetropolis): the call stops at the interrupted
    iteration, as a ``KeyboardInterrupt`` also when it hit a compiled function."""
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        step = PooledKMCStep()
        calls = interrupting(step, make_interrupt())
        with pytest.raises(KeyboardInterrupt):
            sample(step)
    assert len(calls) == INTERRUPT_AT


@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis, KMCStep])
@pytest.mark.parametrize("make_interrupt", [KeyboardInterrupt, numba_style_interrupt])
def test_interrupt_stops_the_remaining_chains_and_keeps_the_draws(step_cls, make_interrupt):
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        step = step_cls()
        calls = interrupting(step, make_interrupt())
        result = sample(step)
    posterior = posterior_dataset(result)
    # the first chain's draws before the interrupt; the two later chains never iterated
    assert posterior.sizes["chain"] == 1
    assert posterior.sizes["draw"] == INTERRUPT_AT - 1 - TUNE
    assert len(calls) == INTERRUPT_AT


def test_interrupt_between_iterations_stops_the_remaining_chains():
    """Ctrl-C in PyMC's own code (here its callback), outside the step, also stops the call."""

    def callback(trace, draw):
        if draw.chain == 0 and draw.draw_idx == INTERRUPT_AT:
            raise KeyboardInterrupt

    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        step = KameleonStep()
        result = pm.sample(
            tune=TUNE,
            draws=200,
            chains=3,
            cores=1,
            step=step,
            random_seed=1,
            progressbar=False,
            compute_convergence_checks=False,
            callback=callback,
        )
    posterior = posterior_dataset(result)
    assert posterior.sizes["chain"] == 1
    assert posterior.sizes["draw"] == INTERRUPT_AT + 1 - TUNE


def test_the_next_sample_call_runs_every_chain():
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        step = AdaptiveMetropolis()
        interrupting(step, KeyboardInterrupt())
        assert posterior_dataset(sample(step)).sizes["chain"] == 1
        del step.astep  # no interrupt this time
        posterior = posterior_dataset(sample(step, chains=2))
    assert posterior.sizes["chain"] == 2 and posterior.sizes["draw"] == 200


def test_a_system_error_of_another_cause_propagates():
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        step = AdaptiveMetropolis()
        interrupting(step, SystemError("a real bug"))
        with pytest.raises(SystemError, match="a real bug"):
            sample(step)


SCRIPT = textwrap.dedent(
    """
    import signal, sys, time
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    import pymc as pm
    from pymc_kameleon import KameleonStep

    def announce(trace, draw):
        if draw.draw_idx == 300:  # past warm-up: the chain is drawing
            print("drawing", flush=True)

    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=5)
        step = KameleonStep()
        result = pm.sample(
            tune=200, draws=1_000_000, chains=2, cores=1, step=step, random_seed=1,
            progressbar=False, compute_convergence_checks=False, callback=announce,
        )
    print("returned", result.posterior.sizes["chain"], result.posterior.sizes["draw"],
          flush=True)
    """
)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_ctrl_c_in_a_real_process_returns_the_partial_chain():
    """A real SIGINT, as Ctrl-C sends it, a few seconds into a run that would take minutes."""
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert process.stdout.readline().strip() == "drawing"
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    out, err = process.communicate(timeout=120)
    elapsed = time.perf_counter() - sent
    assert process.returncode == 0, err[-2000:]
    words = out.split()
    assert words[0] == "returned" and words[1] == "1", out + err[-2000:]
    assert 0 < int(words[2]) < 1_000_000
    assert elapsed < 60  # both chains would take several minutes
