"""Peak memory of each sampler at one dimension, every run in a fresh worker process.

The dimension benchmark records the peak resident memory of every run, but its runs share
worker processes, whose allocators reuse the memory earlier runs freed; there the rise over the
start understates later runs. Here each run gets a process of its own (forked, one task per
child), one chain of ``--tune`` + ``--draws`` iterations (short, so that the trace itself is
small), and the record is the peak resident size during sampling and its rise over the size at
the start (:class:`~pymc_kameleon.bench.memory.PeakMemory`).

Usage::

    python benchmarks/step_memory.py benchmarks/results/dimension/memory.jsonl \
        [--problem gamma-gauss-100] [--samplers KMC-lite KMC-finite KAMH-LS AM-LS ...]

One JSON line per sampler is appended to the output file and printed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
from pathlib import Path

from pymc_kameleon.bench.records import append_record, json_default, worker_init
from pymc_kameleon.bench.runner import Task, run_task

SAMPLERS = (
    "KMC-lite", "KMC-finite", "KAMH-LS", "AM-LS",
    "pm.Metropolis", "pm.DEMetropolisZ", "pm.Slice", "NUTS(0.95)",
)  # fmt: skip
FIELDS = ("problem", "sampler", "tune", "draws", "peak_rss_mb", "peak_rss_increase_mb",
          "peak_rss_scope", "us_per_iter", "status")  # fmt: skip


def measure(task: Task) -> dict:
    """One run's memory fields (in the worker)."""
    record = run_task(task)
    return {key: record.get(key) for key in FIELDS}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--problem", default="gamma-gauss-100")
    parser.add_argument("--samplers", nargs="+", default=list(SAMPLERS))
    parser.add_argument("--tune", type=int, default=2000)
    parser.add_argument("--draws", type=int, default=2000)
    args = parser.parse_args()
    ours = {"KMC-lite", "KMC-finite", "KAMH-LS", "AM-LS"}
    tasks = [Task("memory", args.problem, s, 0, 1, args.tune, args.draws) for s in args.samplers]
    for task in tasks:  # this package's steps at their default warm-up, as in dimension_check
        if task.sampler in ours:
            task.extra["warmup"] = "whitened"
    context = multiprocessing.get_context("fork")
    with context.Pool(1, initializer=worker_init, maxtasksperchild=1) as pool:
        for record in pool.imap(measure, tasks):
            print(json.dumps(record, default=json_default), flush=True)
            append_record(args.out, record)


if __name__ == "__main__":
    main()
