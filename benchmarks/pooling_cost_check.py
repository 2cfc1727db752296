"""Wall time of each step's defaults in ``pm.sample``, this checkout against another, and the
same draws with ``cores=1`` and ``cores=2``.

Issue 48's cost rule: on a cheap 5-D correlated Gaussian, 4 chains x (1000 + 1000), the defaults'
wall time at most 1.3 times the other checkout's, at ``cores=1`` and at ``cores=2``. Each
measurement is one ``pm.sample`` call timed inside a fresh interpreter (``PYTHONPATH`` set to
the checkout; the model built and compiled before the clock starts), the two checkouts
alternating within each of ``--rounds`` rounds so that the machine's drift falls on both; the
table gives the median seconds and the ratio of the medians. Each run also saves its draws, and
the script reports whether ``cores=1`` and ``cores=2`` gave the same draws for each checkout.

Usage::

    python benchmarks/pooling_cost_check.py OTHER_CHECKOUT [--rounds 3] [--steps KMCStep ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
STEPS = ("KMCStep", "KameleonStep", "AdaptiveMetropolis")

#: one timed pm.sample; prints {"seconds": ..., "draws": path}
CHILD = r"""
import json, sys, time, warnings
import numpy as np, pymc as pm
import pymc_kameleon
warnings.simplefilter("ignore")
step_name, cores, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(5)
a = rng.normal(size=(5, 5))
cov = a @ a.T + 5 * np.eye(5)
with pm.Model():
    pm.MvNormal("x", np.zeros(5), cov)
    step = getattr(pymc_kameleon, step_name)()
    start = time.perf_counter()
    idata = pm.sample(tune=1000, draws=1000, chains=4, cores=cores, step=step, random_seed=3,
                      progressbar=False, compute_convergence_checks=False)
    seconds = time.perf_counter() - start
np.save(out, idata.posterior["x"].values)
print(json.dumps({"seconds": seconds}))
"""


def timed_run(checkout: Path, step: str, cores: int, out: str) -> float:
    """Seconds of one ``pm.sample`` of ``step`` with the package of ``checkout``."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, step, str(cores), out],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the checkout to compare with (e.g. main)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", nargs="+", default=list(STEPS))
    args = parser.parse_args()
    checkouts = {"this": HERE, "other": args.other.resolve()}
    seconds: dict[tuple, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for step in args.steps:
                for cores in (1, 2):
                    for label, checkout in checkouts.items():
                        out = f"{tmp}/{label}-{step}-{cores}.npy"
                        seconds.setdefault((label, step, cores), []).append(
                            timed_run(checkout, step, cores, out)
                        )
        import numpy as np

        same = {
            (label, step): bool(
                np.array_equal(np.load(f"{tmp}/{label}-{step}-1.npy"),
                               np.load(f"{tmp}/{label}-{step}-2.npy"))
            )
            for label in checkouts
            for step in args.steps
        }  # fmt: skip
    print("| step | cores | other (s) | this (s) | this / other | same draws, cores 1 and 2 |")
    print("|---|---:|---:|---:|---:|---|")
    for step in args.steps:
        for cores in (1, 2):
            other = statistics.median(seconds[("other", step, cores)])
            this = statistics.median(seconds[("this", step, cores)])
            print(
                f"| {step}() | {cores} | {other:.1f} | {this:.1f} | {this / other:.2f} | "
                f"this {same[('this', step)]}, other {same[('other', step)]} |"
            )


if __name__ == "__main__":
    main()
