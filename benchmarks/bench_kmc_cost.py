"""Per-iteration cost of KMCStep on the 8-D banana, with a breakdown by component.

Calls ``step.step(point)`` directly (no trace recording) on ``banana_model(d=8, b=0.1, v=100)``:
``--tune`` warm-up iterations (refits timed), then ``stop_tuning()`` and ``--iters`` frozen
iterations, timed twice: once plainly (the headline number) and once with timing wrappers around
the model log-density and the trajectory (the breakdown; the wrappers add a little overhead).
Times are the process's CPU time (run it with ``OPENBLAS_NUM_THREADS=1``). With the default
``adaptation="vanishing"`` the kept iterations include the refits after warm-up.

Usage::

    PYTHONPATH=. python benchmarks/bench_kmc_cost.py [--iters 3000] [--tune 1500]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import pymc_kameleon.step_methods.kmc as kmc_module
from pymc_kameleon import KMCStep
from pymc_kameleon.targets import banana_model


class _Timed:
    """Wrap a callable and accumulate its CPU time and call count."""

    def __init__(self, fn: Callable) -> None:
        self.fn, self.seconds, self.calls, self.each = fn, 0.0, 0, []

    def __call__(self, *args, **kwargs):
        start = time.process_time()
        try:
            return self.fn(*args, **kwargs)
        finally:
            elapsed = time.process_time() - start
            self.seconds += elapsed
            self.calls += 1
            self.each.append(elapsed)


def _run(step, point, iters: int):
    start = time.process_time()
    n_grad = 0
    for _ in range(iters):
        point, stats = step.step(point)
        n_grad += stats[0]["surrogate_grad_evals"]
    return point, (time.process_time() - start) / iters * 1e6, n_grad / iters


def measure(estimator: str, tune: int, iters: int, seed: int) -> dict[str, float]:
    """Warm up, then time frozen iterations; return the numbers in microseconds."""
    model = banana_model(d=8, b=0.1, v=100.0)
    with model:
        step = KMCStep(estimator=estimator, n_history=500, n_features=500)
    step.set_rng(np.random.default_rng(seed))
    learner = step.learner  # (the chain's: set_rng made it; nothing resets it below)
    refit = _Timed(learner.refit)
    choose = _Timed(learner._choose_lengthscale)
    learner.refit, learner._choose_lengthscale = refit, choose
    point = model.initial_point()
    point, warm_us, _ = _run(step, point, tune)
    step.stop_tuning()
    point, _, _ = _run(step, point, 200)  # settle after the freeze
    point, plain_us, grads = _run(step, point, iters)
    # breakdown pass: the model's log-density and the trajectories, each wrapped
    logp = _Timed(step.density.compiled)
    step.density.compiled = logp
    traj = _Timed(learner.trajectory)
    learner.trajectory = traj
    try:
        point, wrapped_us, _ = _run(step, point, iters)
    finally:
        del learner.trajectory
        step.density.compiled = logp.fn
    return {
        "warm_us": warm_us,
        "refits": refit.calls,
        "refit_ms_total": refit.seconds * 1e3,
        "cv_ms_total": choose.seconds * 1e3,
        "refit_ms_each": [round(t * 1e3, 1) for t in refit.each],
        "plain_us": plain_us,
        "grads_per_iter": grads,
        "wrapped_us": wrapped_us,
        "logp_us": logp.seconds / iters * 1e6,
        "traj_us": traj.seconds / iters * 1e6,
    }


def main() -> None:
    """Run the measurement for lite and finite and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=3000)
    parser.add_argument("--tune", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"pymc_kameleon from {kmc_module.__file__}")
    for estimator in ("lite", "finite"):
        r = measure(estimator, args.tune, args.iters, args.seed)
        rest = r["wrapped_us"] - r["logp_us"] - r["traj_us"]
        print(
            f"{estimator:6s} frozen: {r['plain_us']:7.1f} us/iter (L+1 = {r['grads_per_iter']:.1f}"
            f" grads/iter) | breakdown: trajectory {r['traj_us']:.1f}, logp {r['logp_us']:.1f},"
            f" rest {rest:.1f} (sum {r['wrapped_us']:.1f})"
        )
        print(
            f"{'':6s} warm-up: {r['warm_us']:7.1f} us/iter over {args.tune} iters; "
            f"{r['refits']} refits, {r['refit_ms_total']:.0f} ms total "
            f"(of which length-scale CV {r['cv_ms_total']:.0f} ms); each refit (ms): "
            f"{r['refit_ms_each']}"
        )


if __name__ == "__main__":
    main()
