"""BLAS threads: one per forked worker process, and one inside every iteration of a step.

The matrices of every step here are small (d x d with d up to a few hundred, n x d products with
n about 1000). Several BLAS threads gain little on them, and OpenBLAS threads that spin-wait for
each other lose a lot when the cores are busy: with ``pm.sample(cores=2)`` on 2 cores, two chain
processes each running OpenBLAS with 2 threads made KameleonStep at d = 50 about 20-40 times
slower than one chain per core (benchmarks/notes/lab-notes.md, "Parallel chains and BLAS threads").

PyMC limits BLAS threads in its worker processes only for the ``spawn`` and ``forkserver``
start methods; with ``fork`` (the Linux default) it leaves them alone since PyMC 5.2x
(pymc-devs/pymc#7354, #8044: touching an OpenMP runtime in a forked child crashed with some BLAS
builds). Two mechanisms, both through ``threadpoolctl``:

* :func:`limit_blas_in_forked_worker`, called at the start of every chain: in a process forked
  from the one that imported this package (PyMC's fork workers), it sets every **OpenBLAS built
  with pthreads** to one thread, once per process, and leaves it so (the worker exits after its
  chains). OpenBLAS's pthreads pool is shut down before a fork and rebuilt lazily in the child, so
  this is safe there. BLAS libraries threaded with OpenMP (MKL, OpenBLAS built with OpenMP, BLIS
  with OpenMP) and Apple Accelerate are left alone: changing them in a forked child is the hazard
  of #7354. Limit those before sampling in the parent, with the environment variables
  (``OMP_NUM_THREADS=1``) or ``mp_ctx="spawn"``. The user's own process (``cores=1``, or the
  parent of the workers) keeps its settings between iterations.
* :func:`single_blas_thread`, a ``with`` block around KMC's surrogate refits (dense solves of a
  few hundred rows, where busy cores made a refit 5-10 times slower), in the user's own process.
  In a forked worker it does nothing: the process-wide limit above already holds for OpenBLAS,
  and the other libraries must not be touched there.
* the same block around each iteration of a step in the user's own process
  (``pm.sample(cores=1)``, PyMC's default on two cores, and population sampling). At d = 50
  KameleonStep's d x d gradient scatter under two contending OpenBLAS threads took 62 ms per
  call instead of about 1 ms, a 40-56 s run instead of 1 s (benchmarks/notes/lab-notes.md,
  "Sequential chains and BLAS threads"). It costs about a microsecond per iteration: it reads and
  sets the thread counts of the BLAS libraries found at its first use, and puts back the user's
  counts when the block ends, so that the user's own NumPy work between ``pm.sample`` calls keeps
  its threads.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

__all__ = [
    "fork_safe_blas_controllers",
    "limit_blas_in_forked_worker",
    "single_blas_thread",
]

#: the process that imported the package; a different pid means a forked child of it (a spawned
#: or forkserver child imports the package afresh and gets its own pid here)
_IMPORT_PID = os.getpid()
#: the process in which :func:`limit_blas_in_forked_worker` last ran
_LIMITED_PID: int | None = None
_CONTROLLER: Any = None
#: the BLAS libraries :func:`single_blas_thread` limits (found at its first use)
_BLAS_LIBRARIES: list | None = None


def _controller() -> Any:
    """A cached ``threadpoolctl.ThreadpoolController`` (False if threadpoolctl is missing)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - threadpoolctl is a dependency
            _CONTROLLER = False
        else:
            _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def in_forked_child() -> bool:
    """Whether this process was forked from the one that imported the package."""
    return os.getpid() != _IMPORT_PID


def fork_safe_blas_controllers() -> list:
    """The loaded BLAS libraries whose thread count may be changed in a forked child.

    Returns
    -------
    list of threadpoolctl LibController
        The OpenBLAS libraries built with the pthreads threading layer (NumPy's and SciPy's
        wheels bundle such builds). A fresh scan of the loaded libraries.
    """
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return []
    return [
        lib
        for lib in ThreadpoolController().lib_controllers
        if lib.internal_api == "openblas" and getattr(lib, "threading_layer", None) == "pthreads"
    ]


def limit_blas_in_forked_worker() -> bool:
    """In a forked worker process, set OpenBLAS (pthreads) to one thread, once per process.

    Does nothing in the process that imported the package, in spawned processes (PyMC limits
    those itself), and for BLAS libraries threaded with OpenMP (see the module docstring).

    Returns
    -------
    bool
        True if the limit was applied by this call.
    """
    global _LIMITED_PID
    pid = os.getpid()
    if pid == _IMPORT_PID or pid == _LIMITED_PID:
        return False
    _LIMITED_PID = pid
    for lib in fork_safe_blas_controllers():
        lib.set_num_threads(1)
    return True


def single_blas_thread() -> contextlib.AbstractContextManager:
    """Context manager that limits BLAS to one thread inside its block, the user's after.

    About a microsecond per block (``threadpoolctl.threadpool_limits`` takes 15): it reuses the
    list of BLAS libraries found at its first use, and changes only those not already at one
    thread. Blocks nest (an inner one finds one thread and changes nothing).

    Returns
    -------
    contextlib.AbstractContextManager
        ``contextlib.nullcontext()`` in a forked worker (see the module docstring).
    """
    if in_forked_child():
        return contextlib.nullcontext()
    return _OneBlasThread()


def _blas_libraries() -> list:
    global _BLAS_LIBRARIES
    if _BLAS_LIBRARIES is None:
        controller = _controller()
        _BLAS_LIBRARIES = (
            []
            if controller is False
            else [lib for lib in controller.lib_controllers if lib.user_api == "blas"]
        )
    return _BLAS_LIBRARIES


class _OneBlasThread:
    """The ``with`` block of :func:`single_blas_thread` (one object per block)."""

    __slots__ = ("_restore",)

    def __enter__(self) -> None:
        restore = []
        for lib in _blas_libraries():
            threads = lib.get_num_threads()
            if threads is not None and threads != 1:
                lib.set_num_threads(1)
                restore.append((lib, threads))
        self._restore = restore

    def __exit__(self, *exc_info: Any) -> None:
        for lib, threads in self._restore:
            lib.set_num_threads(threads)
