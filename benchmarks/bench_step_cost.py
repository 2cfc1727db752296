"""Per-iteration cost of each step method, by phase, measured in one process.

Calls ``step.step(point)`` directly on the 8-D banana B(0.1, 100), or on the benchmark problem
``--problem`` (e.g. ``gamma-gauss-100``, issue 33's cost at d = 100), with no trace recording:
first ``--iters`` warm-up iterations, then ``stop_tuning()`` and ``--iters`` frozen iterations.
It reports microseconds of the process's CPU time per iteration (so that other load on the
machine is not counted; run it with ``OPENBLAS_NUM_THREADS=1``) and the ratios to
pm.DEMetropolisZ and to AdaptiveMetropolis in the same phase, for ``KameleonStep`` at each
``--n-history`` and, with ``--kmc``, for ``KMCStep()``. The order of the samplers is rotated
over ``--repeats`` rounds and the median is reported, so that a burst of load on the machine
does not favour one sampler.

Usage::

    python benchmarks/bench_step_cost.py [--iters 5000] [--repeats 3] [--n-history 1000 ...] \
        [--problem gamma-gauss-100] [--kmc]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.targets import banana_model


def _build_model(problem: str | None) -> pm.Model:
    """The benchmark problem's model, or the 8-D banana B(0.1, 100)."""
    return (
        banana_model(d=8, b=0.1, v=100.0) if problem is None else get_problem(problem).build_model()
    )


def _time_phases(
    make_step: Callable, iters: int, seed: int, problem: str | None
) -> tuple[float, float]:
    """Microseconds per iteration during warm-up and after it."""
    model = _build_model(problem)
    with model:
        step = make_step()
    step.set_rng(np.random.default_rng(seed))
    step.tune = True
    point = model.initial_point()
    point, _ = step.step(point)  # first call: compile caches, numba dispatch
    start = time.process_time()
    for _ in range(iters):
        point, _ = step.step(point)
    tuning = (time.process_time() - start) / iters * 1e6
    step.stop_tuning()
    start = time.process_time()
    for _ in range(iters):
        point, _ = step.step(point)
    frozen = (time.process_time() - start) / iters * 1e6
    return tuning, frozen


def main() -> None:
    """Run the measurement and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-history", type=int, nargs="+", default=[1000])
    parser.add_argument("--problem", help="a benchmark problem's name (default: 8-D banana)")
    parser.add_argument("--kmc", action="store_true", help="time KMCStep() too")
    parser.add_argument("--pca", action="store_true", help='time KameleonStep(proposal="pca") too')
    parser.add_argument(
        "--no-locality", action="store_true", help="time KameleonStep(locality_threshold=None) too"
    )
    args = parser.parse_args()
    samplers: dict[str, Callable] = {
        f"KameleonStep (n_history={n})": (lambda n=n: KameleonStep(n_history=n))
        for n in args.n_history
    }
    if args.pca:
        samplers['KameleonStep(proposal="pca")'] = lambda: KameleonStep(proposal="pca")
    if args.no_locality:
        samplers["KameleonStep(locality_threshold=None)"] = lambda: KameleonStep(
            locality_threshold=None
        )
    if args.kmc:
        samplers["KMCStep() (lite)"] = lambda: KMCStep()
    samplers |= {
        "AdaptiveMetropolis (AM-LS)": lambda: AdaptiveMetropolis(),
        "pm.DEMetropolisZ": lambda: pm.DEMetropolisZ(),
        "pm.Metropolis": lambda: pm.Metropolis(),
    }
    names = list(samplers)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for round_ in range(args.repeats):
        order = names[round_ % len(names) :] + names[: round_ % len(names)]
        for name in order:
            results[name].append(_time_phases(samplers[name], args.iters, round_, args.problem))
    ref = np.median(np.array(results["pm.DEMetropolisZ"]), axis=0)
    am = np.median(np.array(results["AdaptiveMetropolis (AM-LS)"]), axis=0)
    print(f"{args.problem or 'banana B(0.1, 100), d = 8'}: {args.iters} + {args.iters} iterations")
    print(
        "| step | µs/iter warm-up | µs/iter after warm-up | ÷ DEMZ warm-up | ÷ DEMZ after "
        "| ÷ AM warm-up | ÷ AM after | ÷ AM both phases |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        tuning, frozen = np.median(np.array(results[name]), axis=0)
        print(
            f"| {name} | {tuning:.0f} | {frozen:.0f} | {tuning / ref[0]:.2f} | "
            f"{frozen / ref[1]:.2f} | {tuning / am[0]:.2f} | {frozen / am[1]:.2f} | "
            f"{(tuning + frozen) / am.sum():.2f} |"
        )


if __name__ == "__main__":
    main()
