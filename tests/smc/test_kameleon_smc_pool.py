"""``pm.sample_smc(kernel=KameleonSMC, pool=...)``: the same run on every pool, and its faults.

Real pools only: a ``multiprocessing`` pool started with "spawn", a ``ProcessPoolExecutor`` and
a Dask ``LocalCluster`` with two worker processes, each started and closed here.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import ClassVar

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from distributed import Client, LocalCluster
from pytensor.graph.op import Op

import pymc_kameleon
from pymc_kameleon import KameleonSMC, noisy_potential

DRAWS = 60
#: sweeps per stage, few: the values are compared, not the mixing
MAX_STEPS = 4
PACKAGE_ROOT = str(Path(pymc_kameleon.__file__).resolve().parent.parent)


class SlowSquare(Op):
    """A black-box Op (no gradient): sum of squares, after ``delay`` seconds; it raises
    ``ValueError`` in a worker process when ``fail_in_workers`` is set."""

    itypes: ClassVar[list] = [pt.dvector]
    otypes: ClassVar[list] = [pt.dscalar]

    def __init__(self, delay: float = 0.0, fail_in_workers: bool = False) -> None:
        self.delay, self.fail_in_workers = delay, fail_in_workers

    def perform(self, node, inputs, outputs):
        if self.fail_in_workers and multiprocessing.parent_process() is not None:
            raise ValueError("the solver failed in a worker (from SlowSquare.perform)")
        if self.delay:
            time.sleep(self.delay)
        outputs[0][0] = np.asarray(np.sum(inputs[0] ** 2))


def run(pool, op: Op | None = None, seed: int = 5, **kwargs):
    with pm.Model():
        x = pm.Normal("x", 0.0, 2.0, shape=2)
        pm.Normal("y", x[0] + x[1] ** 2 / 4, 0.5, observed=[1.0, 1.5])
        if op is not None:
            pm.Potential("black_box", -0.05 * op(x))
        idata = pm.sample_smc(
            draws=DRAWS, kernel=KameleonSMC, pool=pool, chains=1, cores=1, random_seed=seed,
            max_steps=MAX_STEPS, progressbar=False, compute_convergence_checks=False, **kwargs,
        )  # fmt: skip
    stats = idata["sample_stats"]
    lml = np.array(
        [np.asarray(v, dtype=float) for v in np.ravel(stats["log_marginal_likelihood"].values)]
    )
    return idata["posterior"]["x"].values, lml


@pytest.fixture(scope="module")
def serial_run():
    return run(None, SlowSquare())


@pytest.fixture(scope="module")
def dask_client():
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def assert_same_run(got, expected):
    assert np.array_equal(got[0], expected[0]), "the particles differ"
    assert np.array_equal(got[1], expected[1], equal_nan=True), "the marginal likelihood differs"


def test_a_spawn_multiprocessing_pool_gives_the_serial_run(serial_run):
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert_same_run(run(pool, SlowSquare()), serial_run)


def test_a_process_pool_executor_gives_the_serial_run(serial_run):
    with ProcessPoolExecutor(2) as executor:
        assert_same_run(run(executor, SlowSquare()), serial_run)


def test_a_dask_local_cluster_gives_the_serial_run(serial_run, dask_client):
    assert_same_run(run(dask_client, SlowSquare()), serial_run)


class BusyMachine:
    """Every core kept busy by a spinning process while the block runs; stopped at its end."""

    def __enter__(self):
        spin = [sys.executable, "-c", "while True: pass"]
        self.spinners = [subprocess.Popen(spin) for _ in range(os.cpu_count() or 2)]
        return self

    def __exit__(self, *exc):
        for spinner in self.spinners:
            spinner.kill()
            spinner.wait()
        return False


def test_every_pool_gives_the_serial_run_on_a_busy_machine(serial_run, dask_client):
    """The order the workers finish in, and how long they take, must not reach the particles."""
    with BusyMachine() as busy, ProcessPoolExecutor(2) as executor:
        assert all(spinner.poll() is None for spinner in busy.spinners)  # the load is on
        runs = {
            "serial": run(None, SlowSquare()),
            "executor": run(executor, SlowSquare()),
            "dask": run(dask_client, SlowSquare(delay=0.001)),  # a slow op: tasks overlap
        }
    for name, (particles, lml) in runs.items():
        assert np.array_equal(particles, serial_run[0]), f"{name}: the particles differ"
        assert np.array_equal(lml, serial_run[1], equal_nan=True), f"{name}: the evidence differs"


def test_a_sweep_is_one_call_to_the_pool():
    """Both halves' candidates go out together: one ``map`` per sweep, not one per half."""

    class CountingExecutor(ProcessPoolExecutor):
        calls = 0

        def map(self, *args, **kwargs):
            CountingExecutor.calls += 1
            return super().map(*args, **kwargs)

    with CountingExecutor(2) as executor:
        with pm.Model():
            x = pm.Normal("x", 0.0, 2.0, shape=2)
            pm.Potential("black_box", -0.05 * SlowSquare()(x))
            idata = pm.sample_smc(
                draws=DRAWS, kernel=KameleonSMC, pool=executor, chains=1, cores=1,
                random_seed=5, max_steps=MAX_STEPS, progressbar=False,
                compute_convergence_checks=False,
            )  # fmt: skip
    sweeps = int(np.sum(idata["sample_stats"]["n_steps"].values))
    assert sweeps > 0
    assert CountingExecutor.calls == sweeps, (CountingExecutor.calls, sweeps)


def test_a_killed_dask_worker_costs_a_retry_not_the_run(dask_client):
    slow = SlowSquare(delay=0.005)
    expected = run(None, slow, seed=6)
    pids = list(dask_client.run(os.getpid).values())
    killed_at = []

    def kill_a_worker():
        os.kill(pids[0], 9)
        killed_at.append(time.monotonic())

    killer = threading.Timer(1.0, kill_a_worker)
    killer.start()
    try:
        got = run(dask_client, slow, seed=6)
        finished_at = time.monotonic()
    finally:
        killer.cancel()
    assert killed_at and killed_at[0] < finished_at - 0.2, "the worker was not killed mid-run"
    assert_same_run(got, expected)
    dask_client.wait_for_workers(2, timeout=60)
    assert pids[0] not in dask_client.run(os.getpid).values()


def test_an_exception_in_a_worker_reaches_the_user_with_its_traceback(dask_client):
    with (
        ProcessPoolExecutor(2) as executor,
        pytest.raises(ValueError, match="the solver failed in a worker") as raised,
    ):
        run(executor, SlowSquare(fail_in_workers=True))
    assert "SlowSquare.perform" in str(raised.value.__cause__), "the worker's traceback is lost"
    with pytest.raises(ValueError, match="the solver failed in a worker") as raised:
        run(dask_client, SlowSquare(fail_in_workers=True))
    assert any(entry.name == "perform" for entry in raised.traceback), "no worker frame"
    assert_same_run(run(dask_client, SlowSquare(), seed=5), run(None, SlowSquare(), seed=5))


SCRIPT = """
    import multiprocessing
    import numpy as np
    import pymc as pm
    import pytensor.tensor as pt
    from distributed import Client, LocalCluster
    from pytensor.compile.ops import as_op

    from pymc_kameleon import KameleonSMC


    @as_op(itypes=[pt.dvector], otypes=[pt.dscalar])
    def black_box(x):  # defined in __main__: it must reach the workers by value
        return np.asarray(np.sum(np.cos(x)))


    def run(pool):
        with pm.Model():
            x = pm.Normal("x", 0.0, 1.0, shape=2)
            pm.Potential("bb", black_box(x))
            idata = pm.sample_smc(draws=40, kernel=KameleonSMC, pool=pool, chains=1, cores=1,
                                  random_seed=2, max_steps=4, progressbar=False)
        return idata["posterior"]["x"].values


    if __name__ == "__main__":
        serial = run(None)
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            assert np.array_equal(run(pool), serial)
        with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
            with Client(cluster) as client:
                assert np.array_equal(run(client), serial)
        print("same draws on both pools")
"""


@pytest.mark.slow  # a fresh interpreter, a spawned pool and a cluster: 40 s
def test_an_op_defined_in_a_script_reaches_spawned_and_dask_workers(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(SCRIPT))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "same draws on both pools" in done.stdout


def test_parallel_chains_with_a_pool_are_refused_with_the_fix():
    with ProcessPoolExecutor(1) as executor, pytest.raises(TypeError, match="pass cores=1"):
        with pm.Model():
            pm.Normal("x", 0.0, 1.0, shape=2)
            pm.sample_smc(draws=DRAWS, kernel=KameleonSMC, pool=executor, chains=2, cores=2,
                          progressbar=False)  # fmt: skip


def test_a_noisy_likelihood_with_a_pool_is_refused():
    with ProcessPoolExecutor(1) as executor, pytest.raises(ValueError, match="stochastic estimate"):
        with pm.Model():
            x = pm.Normal("x", 0.0, 1.0)
            noisy_potential("lik", -0.5 * x**2 + 0.3 * pm.Normal.dist() - 0.045)
            pm.sample_smc(draws=DRAWS, kernel=KameleonSMC, pool=executor, chains=1, cores=1,
                          progressbar=False)  # fmt: skip


def test_a_pool_without_map_is_refused():
    with pytest.raises(TypeError, match="no `map` method"):
        run(object())
