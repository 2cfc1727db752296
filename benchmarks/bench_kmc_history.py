"""CPU time and peak memory of ``KMCStep(n_history=...)`` after warm-up (issue 46).

Samples a 2-D standard normal with ``KMCStep(n_history=n)`` (otherwise the defaults, so
``adaptation="vanishing"``), 1 chain × (``--tune`` + ``--draws``) with ``pm.sample(cores=1)``,
each configuration in a fresh worker process (forked, one task per child), so that no run's
allocations or caches carry over to the next. For each run it records the process's CPU time
of the ``pm.sample`` call (not wall time: the machine is shared), its peak resident memory and
the peak's rise over the resident size before the call
(:class:`~pymc_kameleon.bench.memory.PeakMemory`), the min bulk ESS and the largest surrogate
basis used (the ``n_basis`` stat). The table gives each size's ratio to the first
``--n-history`` at the same number of draws, all from one invocation. A short untimed run
comes first: the first process compiles and caches the model's and the surrogate's code
(PyTensor, Numba); before it was added, that cost the first timed run 2.2 s of CPU time and
50 MB.

With ``--fit-sizes`` it instead times one lite fit
(:func:`~pymc_kameleon.core.surrogates.lite.lite_fit`, what each refit solves) on that many
standard normal states in each of ``--fit-dims`` dimensions: CPU time and the peak of the
memory NumPy allocates for it (``tracemalloc``).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_kmc_history.py \
        [--n-history 500 5000] [--draws 1000 3000 5000] [--tune 300] [--seed 1] [--out FILE]
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_kmc_history.py \
        --fit-sizes 500 1000 2000 3000 5000 [--fit-dims 2 10]

With ``--out`` one JSON line per run is appended to the file.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path

FIELDS = ("n_history", "tune", "draws", "cpu_s", "peak_rss_mb", "peak_rss_increase_mb")


def measure(task: tuple[int, int, int, int]) -> dict:
    """One run, in a fresh worker process: its CPU time, memory, ESS and largest basis."""
    import numpy as np
    import pymc as pm

    from pymc_kameleon import KMCStep
    from pymc_kameleon.bench.memory import PeakMemory
    from pymc_kameleon.bench.metrics import mixing_metrics
    from pymc_kameleon.diagnostics import posterior_array

    n_history, tune, draws, seed = task
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        step = KMCStep(n_history=n_history)
        meter = PeakMemory()
        meter.start()
        start = time.process_time()
        result = pm.sample(
            tune=tune, draws=draws, chains=1, cores=1, step=step, random_seed=seed,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
        cpu = time.process_time() - start
        memory = meter.scores()
    n_basis = posterior_array(result, "n_basis", group="sample_stats")
    return {
        "n_history": n_history, "tune": tune, "draws": draws, "seed": seed, "cpu_s": cpu,
        **memory, "min_bulk_ess": mixing_metrics(result, "x")["min_bulk_ess"],
        "max_n_basis": int(np.max(n_basis)),
    }  # fmt: skip


def fit_costs(sizes: list[int], dims: list[int]) -> str:
    """Markdown table of one lite fit's CPU time and peak allocation at each size."""
    import tracemalloc

    import numpy as np

    from pymc_kameleon.core.surrogates.lite import lite_fit

    rng = np.random.default_rng(0)
    lines = ["| d | n | CPU s | peak MB |", "|---|---|---|---|"]
    for d in dims:
        for n in sizes:
            states = rng.standard_normal((n, d))
            tracemalloc.start()
            start = time.process_time()
            lite_fit(states, lengthscale=1.0, ridge=1.0)
            cpu = time.process_time() - start
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            lines.append(f"| {d} | {n} | {cpu:.3f} | {peak:.0f} |")
            print(lines[-1], flush=True)
    return "\n".join(lines)


def table(records: list[dict]) -> str:
    """Markdown table: each run, and its ratios to the first size at the same draws."""
    lines = [
        "| n_history | draws | CPU s | peak RSS MB | rise MB | min bulk ESS | max n_basis "
        "| CPU ratio | peak ratio | rise ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    base = {}
    for r in records:
        ref = base.setdefault(r["draws"], r)
        ratios = [r[key] / ref[key] for key in FIELDS[3:]]
        lines.append(
            f"| {r['n_history']} | {r['draws']} | {r['cpu_s']:.1f} | {r['peak_rss_mb']:.0f} "
            f"| {r['peak_rss_increase_mb']:.0f} | {r['min_bulk_ess']:.0f} | {r['max_n_basis']} "
            + "".join(f"| {x:.2f} " for x in ratios)
            + "|"
        )
    return "\n".join(lines)


def main() -> None:
    """Run every configuration in its own process and print the table."""
    from pymc_kameleon.bench.records import append_record, json_default, worker_init

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-history", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--draws", type=int, nargs="+", default=[1000, 3000, 5000])
    parser.add_argument("--tune", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--fit-sizes", type=int, nargs="+", help="time one lite fit instead")
    parser.add_argument("--fit-dims", type=int, nargs="+", default=[2, 10])
    args = parser.parse_args()
    if args.fit_sizes:
        worker_init()
        print(fit_costs(args.fit_sizes, args.fit_dims))
        return
    # the sizes alternate within each number of draws: a burst of load hits both alike
    tasks = [(n, args.tune, d, args.seed) for d in args.draws for n in args.n_history]
    records = []
    context = multiprocessing.get_context("fork")
    with context.Pool(1, initializer=worker_init, maxtasksperchild=1) as pool:
        pool.apply(measure, ((args.n_history[0], args.tune, 50, args.seed),))  # fills the caches
        for record in pool.imap(measure, tasks):
            records.append(record)
            print(json.dumps(record, default=json_default), flush=True)
            if args.out is not None:
                append_record(args.out, record)
    print(table(records))


if __name__ == "__main__":
    main()
