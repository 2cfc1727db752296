"""The ceiling of any surrogate learned from n states on a Gaussian target, against d.

Issue 33 asks ``KMCStep()`` for 3 times the best random walk's ESS per evaluation on the
Gamma(1, 1)-eigenvalue Gaussian up to d = 50. KMC's trajectories need a surrogate gradient, and
even the *right functional form* (a Gaussian) learned from ``n`` states carries an error in its
precision matrix of order ``sqrt(d / n)`` per direction; the energy errors of ``d`` directions
add up along a trajectory. This script measures that ceiling with independent exact draws, the
best history a chain could have:

in whitened coordinates (where the target is N(0, I), as KMC's kernel coordinates aim to be),
the surrogate potential is the Gaussian of ``n`` exact draws; 100 leapfrog trajectories of
length 1.5 (step 0.1 or 0.3) start at exact draws with standard normal momenta; the score is the
mean Metropolis acceptance ``min(1, exp(-dH))`` of the end points with the true Hamiltonian.

A chain's history is correlated, so its ``n`` counts as its effective sample size: a warm-up of
``200 d`` iterations with an ESS per draw of a few percent gives ``n`` of a few hundred.

Usage::

    python benchmarks/gaussian_surrogate_ceiling.py [--dims 10 20 50 100] \
        [--sizes 500 2000 10000 50000] [--out RECORDS.jsonl]

Prints one line per (d, n) and a JSON record per line to ``--out`` if given.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from pymc_kameleon.bench.records import append_record
from pymc_kameleon.core.hamiltonian import leapfrog

TRAJECTORY_LENGTH = 1.5
STEP_SIZES = (0.1, 0.3)
TRIALS = 100


def ceiling(d: int, n: int, rng: np.random.Generator) -> dict:
    """Mean acceptance of trajectories on the Gaussian of ``n`` exact draws, per step size."""
    draws = rng.standard_normal((n, d))
    precision = np.linalg.inv(np.cov(draws, rowvar=False))
    mean = draws.mean(axis=0)

    def gradient(z):
        return -precision @ (z - mean)

    record = {"d": d, "n": n, "trajectory_length": TRAJECTORY_LENGTH}
    for step in STEP_SIZES:
        scores = []
        for _ in range(TRIALS):
            z0, p0 = rng.standard_normal(d), rng.standard_normal(d)
            end = leapfrog(z0, p0, gradient, step, round(TRAJECTORY_LENGTH / step), None)
            gap = 0.5 * (z0 @ z0 + p0 @ p0 - end.q @ end.q - end.p @ end.p)
            scores.append(math.exp(min(0.0, gap)) if math.isfinite(gap) else 0.0)
        record[f"acceptance_step_{step}"] = float(np.mean(scores))
    return record


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dims", type=int, nargs="+", default=[10, 20, 50, 100])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 10000, 50000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    for d in args.dims:
        for n in args.sizes:
            if n <= d:
                continue
            record = ceiling(d, n, rng)
            print(json.dumps(record), flush=True)
            if args.out is not None:
                append_record(args.out, record)


if __name__ == "__main__":
    main()
