"""Parallel chains and BLAS threads: ``sampling_time`` with ``cores=1`` against ``cores=2``.

For each step (KameleonStep, AdaptiveMetropolis, KMCStep) and dimension d, samples a standard
normal ``N(0, I_d)`` with 2 chains x (500 warm-up + 500 draws), the same seed, three ways:

* ``cores=1``: both chains one after the other in this process, with the BLAS threads as they are;
* ``cores=1, BLAS 1 thread``: the same inside ``threadpoolctl.threadpool_limits(1, "blas")``;
* ``cores=2``: one chain per worker process (PyMC's default ``fork`` start method on Linux).

and prints PyMC's ``sampling_time`` (warm-up plus draws, compilation excluded), the ratios
``cores=2 / cores=1`` (with 2 chains on 2 cores each chain has a core, so about 0.5-1 is right)
and ``1 thread / cores=1``, and whether the runs gave the same draws: ``cores=2`` must equal
``cores=1, BLAS 1 thread`` (both run their chains with one OpenBLAS thread); ``cores=1`` with
several BLAS threads may differ in the last bits where OpenBLAS splits a product between threads
(KameleonStep's d x d product at some d, AdaptiveMetropolis's d x d matrix-vector product at
large d), and then the chains differ. Each configuration is repeated ``--repeats`` times in an
interleaved order and the median is reported. A tiny run of every configuration (2 x (20 + 5))
first loads the compiled (Numba) kernels, so they are not timed; its ``cores=2`` time is shown as
the fixed cost of starting the worker processes, which ``sampling_time`` includes.

Usage::

    python benchmarks/bench_cores.py                     # d = 8, 50, 200; 2 repeats
    python benchmarks/bench_cores.py --dims 50 --steps kam --repeats 1
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[8, 50, 200])
    parser.add_argument("--steps", nargs="+", choices=sorted(STEPS), default=["kam", "am", "kmc"])
    parser.add_argument("--tune", type=int, default=500)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    blas = [
        f"{lib['internal_api']} {lib.get('version')} ({lib.get('threading_layer')}, "
        f"{lib['num_threads']} threads)"
        for lib in threadpool_info()
        if lib["user_api"] == "blas"
    ]
    print("BLAS:", "; ".join(blas) or "none found")
    print(
        "| step | d | cores=1 (s) | cores=1, BLAS 1 thread (s) | cores=2 (s) "
        "| cores=2 / cores=1 | 1 thread / cores=1 | draws: cores=2 = 1 thread | cores=2 = cores=1 "
        "| cores=2, 2 x (20 + 5) (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for dim in args.dims:
        for step_key in args.steps:
            for config in CONFIGS:  # load compiled kernels, start the worker code paths
                overhead, _ = run(step_key, dim, config, 20, 5, args.seed)
            times: dict[str, list[float]] = {c: [] for c in CONFIGS}
            draws: dict[str, np.ndarray] = {}
            for repeat in range(args.repeats):
                order = CONFIGS if repeat % 2 == 0 else CONFIGS[::-1]
                for config in order:
                    seconds, x = run(step_key, dim, config, args.tune, args.draws, args.seed)
                    times[config].append(seconds)
                    draws.setdefault(config, x)
            t = {c: statistics.median(v) for c, v in times.items()}
            same_1thread = np.array_equal(draws["cores2"], draws["cores1_blas1"])
            same_cores1 = np.array_equal(draws["cores2"], draws["cores1"])
            print(
                f"| {STEPS[step_key].__name__} | {dim} | {t['cores1']:.2f} | "
                f"{t['cores1_blas1']:.2f} | {t['cores2']:.2f} | "
                f"{t['cores2'] / t['cores1']:.2f} | {t['cores1_blas1'] / t['cores1']:.2f} | "
                f"{'yes' if same_1thread else 'NO'} | {'yes' if same_cores1 else 'no'} | "
                f"{overhead:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
