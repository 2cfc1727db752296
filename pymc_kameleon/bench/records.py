"""Resumable benchmark runs: tasks in, one JSON line per finished task out.

Both benchmark runners (:mod:`pymc_kameleon.bench.runner` for the papers' targets and
:mod:`pymc_kameleon.bench.real.suite` for the real-data models) append every finished task to a
JSON-lines file at once, so that an interrupted run loses nothing and a re-run does only what
is missing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["append_record", "json_default", "load_records", "run_resumable", "worker_init"]


def load_records(path: Path) -> list[dict[str, Any]]:
    """Read a JSON-lines results file (missing file: no records).

    Parameters
    ----------
    path : pathlib.Path

    Returns
    -------
    list of dict
    """
    if not path.exists():
        return []
    with path.open() as handle:
        return [json.loads(line) for line in handle if line.strip()]


def worker_init() -> None:
    """Quiet PyMC's logger and limit BLAS to one thread (the jobs share the cores)."""
    logging.getLogger("pymc").setLevel(logging.ERROR)
    with contextlib.suppress(ImportError):
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)


def json_default(value: Any) -> Any:
    """JSON form of NumPy scalars and arrays (for :func:`json.dumps`'s ``default``).

    Parameters
    ----------
    value : object

    Returns
    -------
    object
        A Python scalar or list.

    Raises
    ------
    TypeError
        For anything else.
    """
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def append_record(results: Path, record: dict[str, Any]) -> None:
    """Append one record to a JSON-lines file at once (NumPy values as in :func:`json_default`).

    Parameters
    ----------
    results : pathlib.Path
        JSON-lines file; created if missing (its folder must exist).
    record : dict
    """
    with results.open("a") as handle:  # one line per finished task: a crash loses nothing
        handle.write(json.dumps(record, default=json_default) + "\n")


def _key_field(record: dict[str, Any]) -> Hashable:
    return record["key"]


def run_resumable(
    tasks: Iterable[Any],
    run: Callable[[Any], dict[str, Any]],
    results: Path,
    *,
    finished: Callable[[dict], bool],
    summary: Callable[[dict], str],
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
    key: Callable[[dict], Hashable] = _key_field,
) -> list[dict[str, Any]]:
    """Run the tasks whose ``key`` has no finished record in ``results``; append each record.

    Parameters
    ----------
    tasks : iterable
        Objects with a ``key`` attribute: the value ``key(record)`` gives for their records.
    run : callable
        ``run(task) -> record``; with ``jobs > 1`` a module-level function (it is sent to
        worker processes).
    results : pathlib.Path
        JSON-lines file; created if missing.
    finished : callable
        Whether a record counts as done (others are run again).
    summary : callable
        One-line text of a record, for ``progress``.
    jobs : int, default 1
        Worker processes (forked), each running one task at a time on one core.
    progress : callable, optional
        Called with ``summary(record)`` as each task finishes.
    key : callable, optional
        The task a record is of (default: its ``"key"`` field), for records named by several
        fields such as ``(r["sampler"], r["seed"])``.

    Returns
    -------
    list of dict
        The latest record of every given task found in ``results`` after the run.
    """
    tasks = list(tasks)
    done = {key(r) for r in load_records(results) if finished(r)}
    todo = [t for t in tasks if t.key not in done]
    results.parent.mkdir(parents=True, exist_ok=True)
    if todo:
        worker_init()
        if jobs > 1:
            context = multiprocessing.get_context("fork")
            with context.Pool(jobs, initializer=worker_init, maxtasksperchild=4) as pool:
                _append(pool.imap_unordered(run, todo), results, summary, progress)
        else:
            _append(map(run, todo), results, summary, progress)
    wanted = {t.key for t in tasks}
    records = {key(r): r for r in load_records(results) if key(r) in wanted}
    return list(records.values())


def _append(records: Iterable[dict], results: Path, summary, progress) -> None:
    for record in records:
        append_record(results, record)
        if progress is not None:
            progress(summary(record))
