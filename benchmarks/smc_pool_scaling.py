"""KameleonSMC on a pool: wall time against the serial run, per-evaluation overhead, Amdahl's model.

Issue 49's bar: on a black-box ODE model whose log-density costs 10-50 ms (SciPy's ``solve_ivp``
in an ``Op`` without a gradient), ``pm.sample_smc(kernel=KameleonSMC, pool=P)`` with 2 workers
takes at most 0.6 times the serial run's wall time on a 2-core machine. Every run uses the same
seed, and the script checks that each pool returned the serial run's particles and log marginal
likelihood bit for bit.

Two models, each with the same protocol (1 chain, ``cores=1``, ``--draws`` particles,
``max_steps=--max-steps``):

* ``ode``: a damped, driven oscillator solved with ``solve_ivp`` (``rtol=1e-9``) at 40 times;
  its cost per evaluation is measured and printed;
* ``cheap``: the same data with a closed-form log-density (about 0.1 ms), whose wall time on
  a pool minus the serial one, divided by the evaluations, is the pool's overhead per
  evaluation.

Amdahl's model for ``N`` workers: ``T(N) = T_rest + T_eval / N + overhead * evaluations``, with
``T_eval`` the serial run's evaluations times their measured cost, ``T_rest`` the serial wall
time minus ``T_eval`` (proposals, decisions, resampling: what the pool does not parallelise).

Usage::

    python benchmarks/smc_pool_scaling.py [--draws 100] [--max-steps 10] [--seed 1]
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


def pools(workers: int):
    """(name, factory) of each pool kind with ``workers`` workers."""
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

    return [
        ("multiprocessing.Pool", lambda: multiprocessing.get_context("spawn").Pool(workers)),
        ("ProcessPoolExecutor", lambda: ProcessPoolExecutor(workers)),
        ("dask LocalCluster", DaskPool),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--max-steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cost = cost_per_evaluation()
    print(f"ODE log-density: {1000 * cost:.1f} ms per evaluation")
    rows = []
    for kind in ("ode", "cheap"):
        serial = run(kind, None, args.draws, args.max_steps, args.seed)
        rows.append((kind, "serial", 0, serial["seconds"], 1.0, True, serial["evals"]))
        for workers in (1, 2):
            for name, factory in pools(workers):
                with factory() as pool:
                    run(kind, pool, 8, 1, args.seed)  # the workers import and unpickle first
                    got = run(kind, pool, args.draws, args.max_steps, args.seed)
                same = np.array_equal(got["particles"], serial["particles"]) and np.array_equal(
                    got["lml"], serial["lml"], equal_nan=True
                )
                ratio = got["seconds"] / serial["seconds"]
                rows.append((kind, name, workers, got["seconds"], ratio, same, got["evals"]))
                print(f"{kind:5s} {name:22s} {workers} workers: {got['seconds']:7.2f} s "
                      f"({ratio:.2f}x serial), same particles: {same}", flush=True)  # fmt: skip
        if kind == "ode":
            t_eval = serial["evals"] * cost
            rest = serial["seconds"] - t_eval
            print(f"ode serial: {serial['seconds']:.1f} s, {serial['evals']} evaluations, "
                  f"T_eval {t_eval:.1f} s, T_rest {rest:.1f} s")  # fmt: skip
    print("\n| model | pool | workers | wall s | / serial | same draws | evaluations |")
    print("|---|---|---|---|---|---|---|")
    for kind, name, workers, seconds, ratio, same, evals in rows:
        cells = (kind, name, workers or "-", f"{seconds:.2f}", f"{ratio:.2f}", same, evals)
        print("| " + " | ".join(str(cell) for cell in cells) + " |")
    cheap = {(name, w): s for kind, name, w, s, _, _, _ in rows if kind == "cheap"}
    evals = next(e for kind, name, *_, e in rows if kind == "cheap" and name == "serial")
    print("\nper-evaluation overhead (cheap model, (pool - serial) / evaluations):")
    for (name, workers), seconds in cheap.items():
        if name != "serial":
            overhead = (seconds - cheap[("serial", 0)]) / evals
            print(f"  {name}, {workers} workers: {1e3 * overhead:.3f} ms")


if __name__ == "__main__":
    main()
