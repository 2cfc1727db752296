"""KameleonSMC on a pool: wall time against the serial run, per-evaluation overhead, Amdahl's model.

Issue 49's bar: on a black-box ODE model whose log-density costs 10-50 ms (SciPy's ``solve_ivp``
in an ``Op`` without a gradient), ``pm.sample_smc(kernel=KameleonSMC, pool=P)`` with 2 workers
takes at most 0.6 times the serial run's wall time on a 2-core machine. Every run uses the same
seed, and the script checks that each pool returned the serial run's particles and log marginal
likelihood bit for bit.

Two models, each with the same protocol (1 chain, ``cores=1``, ``--draws`` particles,
``max_steps=--max-steps``; the serial run is timed the second time, after PyTensor's compile
cache is warm; each pool is started and its workers import PyMC before the clock starts):

* ``ode``: a damped, driven oscillator solved with ``solve_ivp`` (``rtol=1e-9``) at 40 times
  (the solution alone costs about 10 ms; the script prints it);
* ``cheap``: the same data with a closed-form log-density, run twice on each pool: the first
  run includes each fresh worker unpickling the model's compiled functions (a one-off per model
  and worker), the second gives the pool's overhead per evaluation and per ``map`` call
  (one call per sweep: both halves of the population together).

Amdahl's model, from the ODE runs on 1 and 2 ``ProcessPoolExecutor`` workers:
``T(N) = R + E / N`` with ``E = 2 (T(1) - T(2))`` the evaluations' share and ``R = 2 T(2) - T(1)``
what the pool does not parallelise (proposals, decisions, resampling, the transfers), plus the
per-call overhead times the calls for a pool kind with more overhead.

Usage::

    python benchmarks/smc_pool_scaling.py [--draws 100] [--max-steps 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pytensor.graph.op import Op
from scipy.integrate import solve_ivp

from pymc_kameleon import KameleonSMC

TIMES = np.linspace(0.0, 10.0, 40)
TRUE = (0.3, 1.4)  # damping, natural frequency


def oscillator(params: np.ndarray) -> np.ndarray:
    """Position of ``x'' + 2 c x' + w^2 x = cos(1.3 t)`` from rest at ``TIMES``."""
    damping, frequency = float(params[0]), float(params[1])

    def rhs(t, y):
        return [y[1], np.cos(1.3 * t) - 2.0 * damping * y[1] - frequency**2 * y[0]]

    solution = solve_ivp(rhs, (0.0, TIMES[-1]), [0.0, 0.0], t_eval=TIMES, rtol=1e-9, atol=1e-11)
    if not solution.success or solution.y.shape[1] != TIMES.size:
        return np.full(TIMES.size, np.nan)
    return solution.y[0]


class OscillatorOp(Op):
    """The ODE solution as a black box (no gradient)."""

    itypes = [pt.dvector]  # noqa: RUF012
    otypes = [pt.dvector]  # noqa: RUF012

    def perform(self, node, inputs, outputs):
        outputs[0][0] = oscillator(inputs[0])


DATA = oscillator(np.array(TRUE)) + np.random.default_rng(0).normal(0.0, 0.05, TIMES.size)


def model(kind: str) -> pm.Model:
    with pm.Model() as m:
        damping = pm.HalfNormal("damping", 1.0)
        frequency = pm.HalfNormal("frequency", 2.0)
        params = pt.stack([damping, frequency])
        if kind == "ode":
            mean = OscillatorOp()(params)
        else:  # a closed form of similar shape, for the overhead
            mean = pt.sin(frequency * TIMES) * pt.exp(-damping * TIMES)
        pm.Normal("y", mean, 0.05, observed=DATA)
    return m


def run(kind: str, pool, draws: int, max_steps: int, seed: int) -> dict:
    with model(kind):
        start = time.perf_counter()
        idata = pm.sample_smc(
            draws=draws, kernel=KameleonSMC, pool=pool, chains=1, cores=1, random_seed=seed,
            max_steps=max_steps, progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
        seconds = time.perf_counter() - start
    stats = idata["sample_stats"]
    post = np.concatenate([idata["posterior"][v].values.ravel() for v in ("damping", "frequency")])
    return {
        "seconds": seconds,
        "particles": post,
        "lml": flat(stats["log_marginal_likelihood"].values),
        "evals": int(np.nansum(flat(stats["logp_evals"].values))),
    }


def flat(values) -> np.ndarray:
    """A stat's values as one float array (PyMC may keep one list per chain)."""
    return np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in np.ravel(values)])


def cost_per_evaluation(repeats: int = 30) -> float:
    params = np.array(TRUE)
    start = time.perf_counter()
    for _ in range(repeats):
        oscillator(params)
    return (time.perf_counter() - start) / repeats


def import_the_stack(_: int = 0) -> int:
    """Run in a worker: import what a log-density needs (seconds, once per process)."""
    import pymc  # noqa: F401

    import pymc_kameleon  # noqa: F401

    return 0


def warm_up(pool, workers: int) -> None:
    """Start the workers and import PyMC in each before the clock starts (a one-off cost)."""
    if hasattr(pool, "run") and hasattr(pool, "scatter"):  # a Dask client
        pool.run(import_the_stack, 0)
    else:
        list(pool.map(import_the_stack, range(4 * workers)))


def pools(workers: int):
    """(name, factory) of each pool kind with ``workers`` workers (one kind for 1 worker)."""
    from distributed import Client, LocalCluster

    class DaskPool:
        def __enter__(self):
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                        dashboard_address=None)  # fmt: skip
            self.client = Client(self.cluster)
            return self.client

        def __exit__(self, *exc):
            self.client.close()
            self.cluster.close()

    kinds = [
        ("ProcessPoolExecutor", lambda: ProcessPoolExecutor(workers)),
        ("multiprocessing.Pool", lambda: multiprocessing.get_context("spawn").Pool(workers)),
        ("dask LocalCluster", DaskPool),
    ]
    return kinds if workers > 1 else kinds[:1]  # one worker: the scaling table's first row


def timed_serial(kind: str, args) -> dict:
    run(kind, None, args.draws, args.max_steps, args.seed)  # compile caches warm, like the pools'
    return run(kind, None, args.draws, args.max_steps, args.seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--max-steps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cost = cost_per_evaluation()
    print(f"ODE solution alone: {1000 * cost:.1f} ms per evaluation")
    rows, times = [], {}
    for kind in ("ode", "cheap"):
        serial = timed_serial(kind, args)
        rows.append((kind, "serial", "-", serial["seconds"], True, serial["evals"]))
        times[kind, "serial", 0] = serial["seconds"]
        for workers in (1, 2):
            for name, factory in pools(workers):
                with factory() as pool:
                    warm_up(pool, workers)
                    got = run(kind, pool, args.draws, args.max_steps, args.seed)
                    label = name
                    if kind == "cheap":  # again: without the workers' first unpickling
                        first = got["seconds"]
                        got = run(kind, pool, args.draws, args.max_steps, args.seed)
                        label = f"{name} (first run {first:.2f} s)"
                same = np.array_equal(got["particles"], serial["particles"]) and np.array_equal(
                    got["lml"], serial["lml"], equal_nan=True
                )
                times[kind, name, workers] = got["seconds"]
                rows.append((kind, label, workers, got["seconds"], same, got["evals"]))
                print(f"{kind:5s} {label:40s} {workers} workers: {got['seconds']:7.2f} s, "
                      f"same particles: {same}", flush=True)  # fmt: skip
    print("\n| model | pool | workers | wall s | / serial | same draws | evaluations |")
    print("|---|---|---|---|---|---|---|")
    for kind, label, workers, seconds, same, evals in rows:
        ratio = seconds / times[kind, "serial", 0]
        cells = (kind, label, workers, f"{seconds:.2f}", f"{ratio:.2f}", same, evals)
        print("| " + " | ".join(str(cell) for cell in cells) + " |")
    evals = {kind: e for kind, label, _, _, _, e in rows if label == "serial"}
    calls = evals["cheap"] / args.draws  # one map call per sweep (both halves together)
    print("\noverhead of each pool on the cheap model (second run, (pool - serial)):")
    for (kind, name, workers), seconds in times.items():
        if kind == "cheap" and name != "serial":
            extra = seconds - times["cheap", "serial", 0]
            print(f"  {name}, {workers} workers: {1e3 * extra / evals['cheap']:.3f} ms per "
                  f"evaluation, {1e3 * extra / calls:.1f} ms per map call")  # fmt: skip
    one, two = times["ode", "ProcessPoolExecutor", 1], times["ode", "ProcessPoolExecutor", 2]
    parallel, rest = 2 * (one - two), 2 * two - one
    print(f"\nAmdahl (ODE, from 1 and 2 ProcessPoolExecutor workers): T(N) = {rest:.1f} s + "
          f"{parallel:.1f} s / N + overhead; N = 4, 8, 16: "
          + ", ".join(f"{rest + parallel / n:.1f} s" for n in (4, 8, 16)))  # fmt: skip


if __name__ == "__main__":
    main()
