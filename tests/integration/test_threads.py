"""BLAS threads: one per forked chain process and inside each iteration, the user's kept.

With ``pm.sample(cores > 1)`` and the ``fork`` start method PyMC does not limit BLAS threads in
its workers; two chain processes each running OpenBLAS with several spinning threads on shared
cores made KameleonStep 18-42 times slower (benchmarks/notes/lab-notes.md). Every step limits
fork-safe BLAS (OpenBLAS with pthreads) to one thread at the start of a chain in a forked worker.
With ``cores=1`` (PyMC's default on two cores) the chains run in the user's process: there each
iteration runs with one BLAS thread and puts the user's thread counts back when it ends.
"""

from __future__ import annotations

import contextlib
import multiprocessing

import numpy as np
import pymc as pm
import pytest
from threadpoolctl import threadpool_limits

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.core import _threads
from pymc_kameleon.core._threads import (
    fork_safe_blas_controllers,
    limit_blas_in_forked_worker,
    single_blas_thread,
)

pytestmark = pytest.mark.skipif(
    not fork_safe_blas_controllers() or "fork" not in multiprocessing.get_all_start_methods(),
    reason="needs OpenBLAS built with pthreads and the fork start method",
)


def blas_threads() -> list[int]:
    return [lib.num_threads for lib in fork_safe_blas_controllers()]


def _child(conn) -> None:
    first = limit_blas_in_forked_worker()
    second = limit_blas_in_forked_worker()
    block = single_blas_thread()
    for lib in fork_safe_blas_controllers():  # the iteration block must leave these alone
        lib.set_num_threads(2)
    with single_blas_thread():
        inside = blas_threads()
    conn.send((first, second, inside, blas_threads(), isinstance(block, contextlib.nullcontext)))
    conn.close()


def test_forked_child_gets_one_thread_once_and_the_parent_keeps_its_own():
    with threadpool_limits(limits=2, user_api="blas"):  # so that a child inherits 2 threads
        before = blas_threads()
        assert limit_blas_in_forked_worker() is False  # the process that imported the package
        assert blas_threads() == before == [2] * len(before)
        receiver, sender = multiprocessing.Pipe(duplex=False)
        child = multiprocessing.get_context("fork").Process(target=_child, args=(sender,))
        child.start()
        first, second, inside, child_threads, nullcontext_in_child = receiver.recv()
        child.join(timeout=60)
        assert blas_threads() == before
    assert first is True and second is False  # once per process
    assert child_threads == inside == [2] * len(before)
    # KMC's refit limit would touch every BLAS library; in a forked child it does nothing
    assert nullcontext_in_child
    assert not isinstance(single_blas_thread(), contextlib.nullcontext)


def test_forked_child_limit_is_one_thread():
    with threadpool_limits(limits=2, user_api="blas"):
        receiver, sender = multiprocessing.Pipe(duplex=False)
        child = multiprocessing.get_context("fork").Process(target=_child_limit, args=(sender,))
        child.start()
        child_threads = receiver.recv()
        child.join(timeout=60)
    assert child_threads == [1] * len(child_threads)


def _child_limit(conn) -> None:
    limit_blas_in_forked_worker()
    conn.send(blas_threads())
    conn.close()


def test_iteration_block_limits_and_restores_the_users_threads():
    with threadpool_limits(limits=2, user_api="blas"):
        with single_blas_thread():
            inside = blas_threads()
            with single_blas_thread():  # nested (KMC's refit block) leaves it at 1
                nested = blas_threads()
            after_nested = blas_threads()
        after = blas_threads()
    assert inside == nested == after_nested == [1] * len(inside)
    assert after == [2] * len(after)


class ThreadRecordingAM(AdaptiveMetropolis):
    """AdaptiveMetropolis with one more stat: the BLAS threads in the process running the chain."""

    stats_dtypes_shapes = {  # noqa: RUF012
        **AdaptiveMetropolis.stats_dtypes_shapes,
        "blas_threads": (np.int64, []),
    }

    def astep(self, q0):
        point, stats = super().astep(q0)
        stats[0]["blas_threads"] = max(blas_threads())
        return point, stats


@pytest.mark.parametrize("cores", [1, 2])
def test_chains_in_worker_processes_use_one_blas_thread(cores):
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with pm.Model():
            pm.Normal("x", 0.0, 1.0, shape=3)
            idata = pm.sample(
                tune=20,
                draws=10,
                chains=2,
                cores=cores,
                step=ThreadRecordingAM(),
                random_seed=1,
                mp_ctx="fork",
                progressbar=False,
                compute_convergence_checks=False,
            )
        assert blas_threads() == before  # the user's thread counts are back after sampling
    seen = np.unique(idata.sample_stats["blas_threads"].values)
    assert seen.tolist() == [1]  # in a worker process, and in the user's process (cores=1)


@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis, KMCStep])
def test_every_step_limits_at_chain_start(step_cls, monkeypatch):
    calls = []
    monkeypatch.setattr(
        "pymc_kameleon.step_methods.base.limit_blas_in_forked_worker", lambda: calls.append(1)
    )
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        step = step_cls()
    step.set_rng(0)
    step.setup_chain(1, tune=10, draws=10)
    assert len(calls) == 2


def test_import_pid_is_recorded():
    """A spawned process imports the package afresh, so it is not taken for a forked one."""
    assert not _threads.in_forked_child()
