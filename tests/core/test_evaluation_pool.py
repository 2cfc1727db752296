"""PointEvaluator: the same values in the same order from every pool, and clear errors."""

from __future__ import annotations

import os
import pickle
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing.pool import ThreadPool

import numpy as np
import pytest

from pymc_kameleon.core.evaluation_pool import PointEvaluator, pool_size


def two_values(x: np.ndarray) -> tuple[float, float]:
    return float(np.sum(x**2)), float(np.prod(np.cos(x)))


def points(n: int = 11, d: int = 3) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(n, d))


def serial(xs: np.ndarray) -> np.ndarray:
    return np.array([two_values(x) for x in xs])


@pytest.mark.parametrize("workers", [1, 2, 3, 11, 20])
def test_thread_pools_give_the_serial_values_in_order(workers):
    xs = points()
    with ThreadPool(workers) as pool:
        got = PointEvaluator(two_values, pool)(xs)
    with ThreadPoolExecutor(workers) as executor:
        got_executor = PointEvaluator(two_values, executor)(xs)
    assert np.array_equal(got, serial(xs)) and np.array_equal(got_executor, serial(xs))


def test_a_process_pool_gives_the_serial_values_and_unpickles_once_per_worker():
    xs = points(40)
    with ProcessPoolExecutor(2) as executor:
        evaluator = PointEvaluator(two_values, executor)
        first, second = evaluator(xs), evaluator(xs[::-1])
    assert np.array_equal(first, serial(xs)) and np.array_equal(second, serial(xs[::-1]))


def test_no_pool_and_no_points():
    assert np.array_equal(PointEvaluator(two_values)(points()), serial(points()))
    with ThreadPool(2) as pool:
        assert PointEvaluator(two_values, pool)(np.empty((0, 3))).shape == (0,)


def test_pool_size_of_each_kind():
    with ThreadPool(3) as pool, ThreadPoolExecutor(4) as executor:
        assert pool_size(pool) == 3 and pool_size(executor) == 4

    class Sized:
        size = 5

        def map(self, function, iterable):
            return map(function, iterable)

    assert pool_size(Sized()) == 5
    assert pool_size(type("Bare", (), {"map": lambda self, f, it: map(f, it)})()) == 1


def test_a_pool_without_map_is_refused_with_what_to_pass():
    with pytest.raises(TypeError, match=r"no `map` method.*multiprocessing.Pool.*dask"):
        PointEvaluator(two_values, object())


def test_a_function_that_cannot_be_sent_says_so():
    lock = threading.Lock()

    def holds_a_lock(x):
        with lock:
            return float(x[0])

    with ThreadPool(2) as pool, pytest.raises(TypeError, match=r"cannot be sent.*Op must be"):
        PointEvaluator(holds_a_lock, pool)


def test_an_exception_in_a_worker_reaches_the_caller():
    def fails(x):
        raise ValueError(f"bad point {x[0]:.3f}")

    with ProcessPoolExecutor(1) as executor, pytest.raises(ValueError, match="bad point"):
        PointEvaluator(fails, executor)(points(3))


def test_an_evaluator_with_a_pool_does_not_travel():
    with ThreadPool(1) as pool:
        evaluator = PointEvaluator(two_values, pool)
        with pytest.raises(TypeError, match="cores=1"):
            pickle.dumps(evaluator)
    assert pickle.loads(pickle.dumps(PointEvaluator(two_values))).pool is None


def slow_two_values(x: np.ndarray) -> tuple[float, float]:
    time.sleep(0.25)
    return two_values(x)


def test_dask_workers_that_lost_the_function_get_it_again():
    """The function's bytes live on the Dask workers: a restart (between calls) or killing every
    worker (during a call) loses them, and the call sends them again rather than failing."""
    from distributed import Client, LocalCluster

    xs = points(8)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        evaluator = PointEvaluator(slow_two_values, client)
        assert np.array_equal(evaluator(xs), serial(xs))
        client.restart()
        assert np.array_equal(evaluator(xs), serial(xs)), "lost between calls"
        pids = list(client.run(os.getpid).values())
        killer = threading.Timer(0.4, lambda: [os.kill(pid, 9) for pid in pids])
        killer.start()
        try:
            during = evaluator(xs)  # four points per worker: 1 s, killed at 0.4 s
        finally:
            killer.cancel()
        assert np.array_equal(during, serial(xs)), "lost during a call"
        client.wait_for_workers(2, timeout=60)
        assert not set(pids) & set(client.run(os.getpid).values()), "no worker was killed"


def worker_pid(x: np.ndarray) -> float:
    time.sleep(0.02)
    return float(os.getpid())


def test_dask_puts_each_chunk_of_a_call_on_its_own_worker():
    """Two workers, two chunks per call: every call uses both workers, one chunk each. Within
    seconds Dask's active memory manager drops all but one copy of the broadcast function, and
    the scheduler then sends every task that needs it to the worker that still holds it (which
    doubled a call's time)."""
    from distributed import Client, LocalCluster

    xs = points(8)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        evaluator = PointEvaluator(worker_pid, client)
        workers = set(client.run(os.getpid).values())
        for _ in range(3):
            time.sleep(3.0)  # (the memory manager runs every 2 s)
            pids = evaluator(xs)
            assert set(pids[:4]) | set(pids[4:]) <= workers
            assert len(set(pids[:4])) == len(set(pids[4:])) == 1, "a chunk split"
            assert pids[0] != pids[4], "both chunks of a call ran on one worker"
