"""Evaluate a function of many points on a pool of workers: processes, an executor or Dask.

Kernel SMC moves every particle of a stage independently, so the log-densities of a sweep's
candidates can be computed at once. :class:`PointEvaluator` sends them to any pool in the
convention the peers use (emcee, zeus, pocoMC, dynesty): an object with a ``map(function,
iterable)`` method such as :class:`multiprocessing.pool.Pool` or any
:class:`concurrent.futures.Executor` (``ProcessPoolExecutor``, ``mpi4py.futures.MPIPoolExecutor``,
loky's), or a ``dask.distributed.Client``. The points go in one contiguous chunk per worker, and
the results come back in the points' order, so the values do not depend on the pool.

The function (for a model: its compiled log-prior and log-likelihood) is serialised once with
cloudpickle, so that a function or ``Op`` defined in the user's script or notebook
(``__main__``) reaches the workers by value. A Dask client receives it once per worker
(``scatter(..., broadcast=True)``, fetched again by a worker whose copy Dask dropped, and each
chunk goes to its own worker); the other pools receive the bytes with each chunk and
unpickle them once per worker process (a cache keyed by their digest).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any

import cloudpickle
import numpy as np

__all__ = ["CHUNKS_PER_WORKER", "PointEvaluator", "pool_size"]

#: chunks per worker and call: one keeps the per-task overhead lowest, and the workers of a
#: local pool finish together when the points cost about the same
CHUNKS_PER_WORKER = 1
#: tries of the broadcast of the function's bytes to the Dask workers, and of a call whose bytes
#: were lost with a worker (a worker may die meanwhile)
BROADCAST_ATTEMPTS = 3
#: functions unpickled in this (worker) process, by the digest of their bytes
_UNPICKLED: dict[str, Callable] = {}
_UNPICKLED_LIMIT = 8


def pool_size(pool: Any) -> int:
    """How many points the pool evaluates at once (its workers), 1 if it does not say.

    Parameters
    ----------
    pool : object
        A ``multiprocessing`` pool, a ``concurrent.futures`` executor, a Dask client, or any
        object with ``map`` (a ``size`` attribute, as dynesty's and schwimmbad's pools have, is
        used if present).

    Returns
    -------
    int
    """
    if _is_dask_client(pool):
        return max(1, sum(pool.nthreads().values()))
    for name in ("size", "_processes", "_max_workers"):
        value = getattr(pool, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return 1


def _is_dask_client(pool: Any) -> bool:
    return type(pool).__module__.startswith("distributed") and hasattr(pool, "scatter")


def _evaluate_chunk(task: tuple[str, Any, np.ndarray]) -> np.ndarray:
    """Run in a worker: the function at each row of the chunk (unpickled once per process)."""
    digest, payload, rows = task
    function = _UNPICKLED.get(digest)
    if function is None:
        if len(_UNPICKLED) >= _UNPICKLED_LIMIT:  # a long-lived worker serving many runs
            _UNPICKLED.clear()
        function = _UNPICKLED[digest] = cloudpickle.loads(payload)
    # a fresh array: Dask hands over buffers that may not be aligned, which compiled functions
    # that trust their input reject
    rows = np.array(rows, order="C", copy=True)
    return np.array([function(x) for x in rows], dtype=float)


def _submit_one_per_thread(client: Any, tasks: list) -> list:
    """The chunk tasks on the Dask workers, each on its own worker thread where there are enough.

    Every chunk needs the broadcast function's bytes, and within seconds Dask's active memory
    manager drops all but one of their copies; left to itself the scheduler then sends every
    chunk to the worker that still holds them while the others idle (11 of 40 calls in one
    KameleonSMC run: benchmarks/notes/lab-notes.md, "Where a Dask map spends its time"). So
    chunk ``i`` asks for the ``i``-th worker thread, whose worker fetches the bytes if it lost
    them (unpickled once per process all the same). The restriction is loose: a chunk whose
    worker has died runs on another one rather than waiting.
    """
    slots = [address for address, n in client.nthreads().items() for _ in range(n)]
    if not slots:  # (no worker right now: the scheduler places them when one arrives)
        return client.map(_evaluate_chunk, tasks, pure=False)
    return [
        client.submit(
            _evaluate_chunk,
            task,
            workers=[slots[i % len(slots)]],
            allow_other_workers=True,
            pure=False,
        )
        for i, task in enumerate(tasks)
    ]


class PointEvaluator:
    """A function of a point, evaluated at many points, serially or on a pool.

    Parameters
    ----------
    function : callable
        ``function(x) -> float or sequence of floats`` for a 1-D point ``x``; deterministic, so
        that every pool gives the same values.
    pool : object or None
        None evaluates in this process, one point after another. Otherwise an object with
        ``map(function, iterable)`` (a ``multiprocessing`` pool, a ``concurrent.futures``
        executor) or a ``dask.distributed.Client``. The pool is the caller's: it is used, never
        closed.

    Raises
    ------
    TypeError
        If ``pool`` has no ``map`` method (naming what it is and what is accepted), or
        ``function`` cannot be serialised for the workers.
    """

    def __init__(self, function: Callable[[np.ndarray], Any], pool: Any = None) -> None:
        self.function, self.pool = function, pool
        self._payload = b""
        self._digest = ""
        self._scattered: Any = None
        if pool is None:
            return
        if not (_is_dask_client(pool) or callable(getattr(pool, "map", None))):
            raise TypeError(
                f"pool={type(pool).__name__!r} object has no `map` method. Pass None (evaluate "
                "in this process), a multiprocessing.Pool, a concurrent.futures executor (e.g. "
                "ProcessPoolExecutor, mpi4py.futures.MPIPoolExecutor) or a "
                "dask.distributed.Client."
            )
        try:
            payload = cloudpickle.dumps(function)
        except Exception as exc:  # what cannot be pickled differs by object: say which
            raise TypeError(
                f"The log-density cannot be sent to the pool's workers: serialising it with "
                f"cloudpickle failed ({type(exc).__name__}: {exc}). A black-box Op must be "
                "picklable: keep external resources (open files, handles, locks) out of its "
                "attributes, or create them inside perform()."
            ) from exc
        self._digest = hashlib.sha256(payload).hexdigest()
        self._payload = payload
        self.workers = pool_size(pool)

    def __call__(self, points: np.ndarray) -> np.ndarray:
        """The function at each row of ``points``, in their order.

        Parameters
        ----------
        points : numpy.ndarray, shape (n, d)

        Returns
        -------
        numpy.ndarray, shape (n,) or (n, k)
            Float values; an exception raised by the function in a worker is raised here (with
            the worker's traceback attached by the pool).
        """
        points = np.asarray(points)
        if self.pool is None or points.shape[0] == 0:
            return np.array([self.function(x) for x in points], dtype=float)
        n_chunks = min(points.shape[0], self.workers * CHUNKS_PER_WORKER)
        chunks = np.array_split(points, n_chunks)
        if _is_dask_client(self.pool):
            parts = self._dask_map(chunks)
        else:
            tasks = [(self._digest, self._payload, chunk) for chunk in chunks]
            parts = list(self.pool.map(_evaluate_chunk, tasks))
        return np.concatenate(parts, axis=0)

    def _dask_map(self, chunks: list[np.ndarray]) -> list[np.ndarray]:
        """The chunks evaluated on the Dask workers, the function's bytes sent once.

        The workers keep those bytes only while one of them lives: a killed or restarted worker
        that held the last copy takes them along, and the scheduler cancels every task that
        needs them (``FutureCancelledError``, "lost dependencies"). Such a call broadcasts the
        bytes again and is tried again, up to ``BROADCAST_ATTEMPTS`` times, as Dask retries a
        task whose worker died; an exception raised by the function itself is not retried.
        """
        client = self.pool
        for attempt in range(BROADCAST_ATTEMPTS):
            if self._scattered is None or self._scattered.status != "finished":
                self._scattered = self._broadcast_payload(client)
            tasks = [(self._digest, self._scattered, chunk) for chunk in chunks]
            futures = _submit_one_per_thread(client, tasks)
            try:
                return client.gather(futures)
            except CancelledError:
                client.cancel(futures)
                self._scattered = None  # (lost with a worker: send the bytes again)
                if attempt == BROADCAST_ATTEMPTS - 1:
                    raise
            except BaseException:
                client.cancel(futures)  # Ctrl-C or a failure: leave the cluster idle, usable
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _broadcast_payload(self, client: Any) -> Any:
        """The function's bytes sent once to every worker, where they stay in memory.

        A worker that dies during the broadcast breaks its connection (Dask's
        ``CommClosedError``, Tornado's ``StreamClosedError``: both ``OSError``); the scheduler
        drops or restarts it, so the broadcast is tried again, as a killed worker costs a task a
        retry rather than the run.
        """
        for attempt in range(BROADCAST_ATTEMPTS):
            try:
                return client.scatter(self._payload, broadcast=True, hash=False)
            except OSError:
                if attempt == BROADCAST_ATTEMPTS - 1:
                    raise
                time.sleep(0.5 * (attempt + 1))  # (give the scheduler time to see the loss)
        raise AssertionError("unreachable")  # pragma: no cover

    def __getstate__(self) -> dict[str, Any]:
        """Refuse to travel with a pool: a pool belongs to the process that made it."""
        if self.pool is not None:
            raise TypeError(
                "A kernel with pool= cannot be copied to another process: the pool is the "
                "parallelism, so run the chains one after another in this process "
                "(pm.sample_smc(..., pool=pool, cores=1))."
            )
        return dict(vars(self))
