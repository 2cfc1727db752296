"""Parallel chains and BLAS threads: ``sampling_time`` with ``cores=1`` against ``cores=2``.

For each step (KameleonStep, AdaptiveMetropolis, KMCStep) and dimension d, samples a standard
normal ``N(0, I_d)`` with 2 chains x (500 warm-up + 500 draws), the same seed, three ways:

* ``cores=1``: both chains one after the other in this process, with the BLAS threads as they are;
* ``cores=1, BLAS 1 thread``: the same inside ``threadpoolctl.threadpool_limits(1, "blas")``;
* ``cores=2``: one chain per worker process (PyMC's default ``fork`` start method on Linux).

and prints PyMC's ``sampling_time`` (warm-up plus draws, compilation excluded), the ratios
``cores=1 / 1 thread`` and ``cores=2 / 1 thread`` (with 2 chains on 2 idle cores each chain has
a core, so about 0.5-1 is right for the latter), and whether the runs gave the same draws: all
must equal ``cores=1, BLAS 1 thread``. (Several BLAS threads may change the last bits where
OpenBLAS splits a product between threads, and then the chains differ.) Each configuration is
repeated ``--repeats`` times in an interleaved order and the median is reported. A tiny run of
every configuration (2 x (20 + 5)) first loads the compiled (Numba) kernels, so they are not
timed; its ``cores=2`` time is shown as the fixed cost of starting the worker processes, which
``sampling_time`` includes.

Since every iteration of a step runs with one BLAS thread in the user's process too
(``pymc_kameleon.core._threads``), ``cores=1`` and ``cores=1, BLAS 1 thread`` should now take the
same time and give the same draws. ``--load N`` keeps N busy processes running throughout (a
shared machine, where contending BLAS threads hurt most). ``--save-draws FILE`` stores every
configuration's draws; ``--reference-draws FILE`` compares this run's ``cores=1`` draws with a
stored run's ``cores=1, BLAS 1 thread`` draws (e.g. from an earlier commit, run with
``--configs cores1_blas1``).

Usage::

    python benchmarks/bench_cores.py                     # d = 8, 50, 200; 2 repeats
    python benchmarks/bench_cores.py --dims 50 --steps kam --repeats 1
    python benchmarks/bench_cores.py --load 2 --reference-draws old.npz
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time

import numpy as np
import pymc as pm
from threadpoolctl import threadpool_info, threadpool_limits

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset

STEPS = {"kam": KameleonStep, "am": AdaptiveMetropolis, "kmc": KMCStep}
CONFIGS = ("cores1", "cores1_blas1", "cores2")


def run(step_key: str, dim: int, config: str, tune: int, draws: int, seed: int):
    """One ``pm.sample`` call; returns (sampling_time in s, posterior draws)."""
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=dim)
        step = STEPS[step_key]()
        kwargs = {
            "tune": tune,
            "draws": draws,
            "chains": 2,
            "cores": 2 if config == "cores2" else 1,
            "step": step,
            "random_seed": seed,
            "progressbar": False,
            "compute_convergence_checks": False,
        }
        if config == "cores1_blas1":
            with threadpool_limits(limits=1, user_api="blas"):
                idata = pm.sample(**kwargs)
        else:
            idata = pm.sample(**kwargs)
    posterior = posterior_dataset(idata)  # InferenceData (PyMC 5) or DataTree (PyMC 6)
    return float(posterior.attrs["sampling_time"]), posterior["x"].values


def _busy() -> None:
    while True:
        pass


def start_load(n: int) -> list:
    """``n`` busy processes (daemons: they end with this one)."""
    workers = [
        multiprocessing.get_context("fork").Process(target=_busy, daemon=True) for _ in range(n)
    ]
    for worker in workers:
        worker.start()
    return workers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[8, 50, 200])
    parser.add_argument("--steps", nargs="+", choices=sorted(STEPS), default=["kam", "am", "kmc"])
    parser.add_argument("--tune", type=int, default=500)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--configs", nargs="+", choices=CONFIGS, default=list(CONFIGS))
    parser.add_argument("--load", type=int, default=0, help="busy processes during the run")
    parser.add_argument("--save-draws", help=".npz file for every configuration's draws")
    parser.add_argument("--reference-draws", help=".npz file from --save-draws to compare with")
    args = parser.parse_args()
    configs = tuple(args.configs)
    reference = dict(np.load(args.reference_draws)) if args.reference_draws else None
    saved: dict[str, np.ndarray] = {}
    load = start_load(args.load)

    blas = [
        f"{lib['internal_api']} {lib.get('version')} ({lib.get('threading_layer')}, "
        f"{lib['num_threads']} threads)"
        for lib in threadpool_info()
        if lib["user_api"] == "blas"
    ]
    print("BLAS:", "; ".join(blas) or "none found", f"; {args.load} busy processes")
    print(
        "| step | d | cores=1 (s) | cores=1, BLAS 1 thread (s) | cores=2 (s) "
        "| cores=1 / 1 thread | cores=2 / 1 thread | draws: cores=1 = 1 thread "
        "| cores=2 = 1 thread | cores=1 = reference | cores=2, 2 x (20 + 5) (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for dim in args.dims:
        for step_key in args.steps:
            overhead = float("nan")
            for config in configs:  # load compiled kernels, start the worker code paths
                seconds, _ = run(step_key, dim, config, 20, 5, args.seed)
                if config == "cores2":
                    overhead = seconds
            times: dict[str, list[float]] = {c: [] for c in configs}
            draws: dict[str, np.ndarray] = {}
            for repeat in range(args.repeats):
                order = configs if repeat % 2 == 0 else configs[::-1]
                for config in order:
                    seconds, x = run(step_key, dim, config, args.tune, args.draws, args.seed)
                    times[config].append(seconds)
                    draws.setdefault(config, x)
            for config, x in draws.items():
                saved[f"{step_key}_{dim}_{config}"] = x
            t = {c: statistics.median(times[c]) if c in times else float("nan") for c in CONFIGS}

            def same(a: str, b: str) -> str:
                if a not in draws or b not in draws:
                    return "-"
                return "yes" if np.array_equal(draws[a], draws[b]) else "NO"

            key = f"{step_key}_{dim}_cores1_blas1"
            if reference is None or key not in reference or "cores1" not in draws:
                same_reference = "-"
            else:
                same_reference = "yes" if np.array_equal(draws["cores1"], reference[key]) else "NO"
            print(
                f"| {STEPS[step_key].__name__} | {dim} | {t['cores1']:.2f} | "
                f"{t['cores1_blas1']:.2f} | {t['cores2']:.2f} | "
                f"{t['cores1'] / t['cores1_blas1']:.2f} | {t['cores2'] / t['cores1_blas1']:.2f} | "
                f"{same('cores1', 'cores1_blas1')} | {same('cores2', 'cores1_blas1')} | "
                f"{same_reference} | {overhead:.2f} |",
                flush=True,
            )
    if args.save_draws:
        np.savez(args.save_draws, **saved)
    for worker in load:
        worker.terminate()


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
