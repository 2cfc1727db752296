"""Per-iteration CPU time of every step against another checkout's, in one process.

A refactoring must not make an iteration slower. Timing two checkouts in two processes on a
shared machine mixes their difference with the machine's drift (10 % between runs of the same
code here), so this script copies the other checkout's package under the name
``pymc_kameleon_before`` into a temporary directory, imports both, and times the steps of both
on the same model in one process, alternating them over ``--rounds`` rounds. It reports the
median microseconds of process CPU time per iteration (``step.step(point)`` called directly,
no trace) after ``--tune`` warm-up iterations, and the ratio of the medians (this checkout over
the other). Run it with ``OPENBLAS_NUM_THREADS=1``.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/refactor_cost_check.py OTHER_CHECKOUT \
        [--rounds 15] [--iters 2000] [--tune 1500] [--problem gamma-gauss-100]
"""

from __future__ import annotations

import argparse
import importlib
import re
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import pymc_kameleon
from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.targets import banana_model

#: the steps timed, as (label, class name, keyword arguments)
STEPS = (
    ("KameleonStep()", "KameleonStep", {}),
    ("KameleonStep(classic)", "KameleonStep", {"warmup": "classic"}),
    ("AdaptiveMetropolis()", "AdaptiveMetropolis", {}),
    ("AdaptiveMetropolis(classic)", "AdaptiveMetropolis", {"warmup": "classic"}),
    ("KMCStep(tune)", "KMCStep", {"adaptation": "tune"}),
    ("KMCStep()", "KMCStep", {}),
    ("KMCStep(finite)", "KMCStep", {"estimator": "finite"}),
)


def import_renamed(checkout: Path, directory: Path):
    """The package of ``checkout``, copied into ``directory`` as ``pymc_kameleon_before``."""
    target = directory / "pymc_kameleon_before"
    shutil.copytree(checkout / "pymc_kameleon", target, ignore=shutil.ignore_patterns("*.pyc"))
    for path in target.rglob("*.py"):
        text = path.read_text()
        path.write_text(re.sub(r"\bpymc_kameleon\b", "pymc_kameleon_before", text))
    sys.path.insert(0, str(directory))
    return importlib.import_module("pymc_kameleon_before")


def build_model(problem: str | None):
    """The 8-D banana B(0.1, 100), or a benchmark problem (this checkout's models for both)."""
    if problem is None:
        return banana_model(d=8, b=0.1, v=100.0)
    return get_problem(problem).build_model()


def warmed_up_step(package, name: str, kwargs: dict, problem: str | None, tune: int):
    """A step of ``package`` after ``tune`` warm-up iterations, frozen, and its point."""
    model = build_model(problem)
    with model:
        step = getattr(package, name)(**kwargs)
    step.set_rng(np.random.default_rng(0))
    step.warmup_length = tune
    point = model.initial_point()
    for _ in range(tune):
        point, _ = step.step(point)
    step.stop_tuning()
    return step, point


def cpu_per_iteration(step, point, iters: int) -> tuple[float, dict]:
    """Microseconds of process CPU time per iteration over ``iters`` iterations."""
    start = time.process_time()
    for _ in range(iters):
        point, _ = step.step(point)
    return (time.process_time() - start) / iters * 1e6, point


def main() -> None:
    """Time, alternate, print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other checkout (its pymc_kameleon/)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--iters", type=int, default=2000)
    parser.add_argument("--tune", type=int, default=1500)
    parser.add_argument("--problem", help="a benchmark problem's name (default: 8-D banana)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as directory:
        before = import_renamed(args.other.resolve(), Path(directory))
        packages = {"before": before, "this": pymc_kameleon}
        runs = {
            (label, which): warmed_up_step(package, name, kwargs, args.problem, args.tune)
            for label, name, kwargs in STEPS
            for which, package in packages.items()
        }
        times: dict[tuple[str, str], list[float]] = {key: [] for key in runs}
        for r in range(args.rounds):
            order = list(runs) if r % 2 == 0 else list(reversed(list(runs)))
            for key in order:
                step, point = runs[key]
                micros, point = cpu_per_iteration(step, point, args.iters)
                runs[key] = (step, point)
                times[key].append(micros)
    where = args.problem or "banana B(0.1, 100), d = 8"
    print(f"{where}: {args.rounds} rounds of {args.iters} kept iterations after {args.tune}")
    print(f"this checkout: {Path(pymc_kameleon.__file__).parent.parent}; other: {args.other}")
    print("| step | µs/iter other | µs/iter this | this ÷ other (median) | ÷ (min) |")
    print("|---|---|---|---|---|")
    for label, _, _ in STEPS:
        old, new = times[(label, "before")], times[(label, "this")]
        print(
            f"| {label} | {statistics.median(old):.1f} | {statistics.median(new):.1f} | "
            f"{statistics.median(new) / statistics.median(old):.3f} | {min(new) / min(old):.3f} |"
        )


if __name__ == "__main__":
    main()
