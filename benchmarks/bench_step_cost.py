"""Per-iteration cost of each step method, by phase, measured in one process.

Calls ``step.step(point)`` directly on the 8-D banana B(0.1, 100) (no trace recording), first
``--iters`` warm-up iterations, then ``stop_tuning()`` and ``--iters`` frozen iterations, and
reports microseconds per iteration and the ratio to pm.DEMetropolisZ in the same phase. The
order of the samplers is rotated over ``--repeats`` rounds and the median is reported, so that a
burst of load on the machine does not favour one sampler.

Usage::

    python benchmarks/bench_step_cost.py [--iters 5000] [--repeats 3] [--n-history 1000]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep
from pymc_kameleon.targets import banana_model


def _time_phases(make_step: Callable, iters: int, seed: int) -> tuple[float, float]:
    """Microseconds per iteration during warm-up and after it."""
    model = banana_model(d=8, b=0.1, v=100.0)
    with model:
        step = make_step()
    step.set_rng(np.random.default_rng(seed))
    step.tune = True
    point = model.initial_point()
    point, _ = step.step(point)  # first call: compile caches, numba dispatch
    start = time.perf_counter()
    for _ in range(iters):
        point, _ = step.step(point)
    tuning = (time.perf_counter() - start) / iters * 1e6
    step.stop_tuning()
    start = time.perf_counter()
    for _ in range(iters):
        point, _ = step.step(point)
    frozen = (time.perf_counter() - start) / iters * 1e6
    return tuning, frozen


def main() -> None:
    """Run the measurement and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-history", type=int, default=1000)
    args = parser.parse_args()
    samplers: dict[str, Callable] = {
        f"KameleonStep (n_history={args.n_history})": lambda: KameleonStep(
            n_history=args.n_history
        ),
        "AdaptiveMetropolis (AM-LS)": lambda: AdaptiveMetropolis(),
        "pm.DEMetropolisZ": lambda: pm.DEMetropolisZ(),
        "pm.Metropolis": lambda: pm.Metropolis(),
    }
    names = list(samplers)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for round_ in range(args.repeats):
        order = names[round_ % len(names) :] + names[: round_ % len(names)]
        for name in order:
            results[name].append(_time_phases(samplers[name], args.iters, seed=round_))
    ref = np.median(np.array(results["pm.DEMetropolisZ"]), axis=0)
    print("| step | µs/iter warm-up | µs/iter after warm-up | ÷ DEMZ warm-up | ÷ DEMZ after |")
    print("|---|---|---|---|---|")
    for name in names:
        tuning, frozen = np.median(np.array(results[name]), axis=0)
        print(
            f"| {name} | {tuning:.0f} | {frozen:.0f} | {tuning / ref[0]:.2f} | "
            f"{frozen / ref[1]:.2f} |"
        )


if __name__ == "__main__":
    main()
