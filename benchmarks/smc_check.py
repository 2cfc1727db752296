"""KameleonSMC against PyMC's IMH and MH kernels at the same number of log-density evaluations.

Usage: ``python benchmarks/smc_check.py OUT_DIR [--runs 8] [--draws 1000] [--targets banana-0.03
banana-0.1 flower] [--kameleon-kwargs JSON]``. Each target is a curved 8-D posterior of the
benchmark suite written with a proper prior ``x ~ N(0, 20^2 I)`` and a ``pm.Potential`` that divides
the prior out again, so the posterior is the suite's target itself (the bananas are normalised:
their log evidence is 0). KameleonSMC runs ``--runs`` independent SMC runs of ``--draws`` particles;
its mean number of log-density evaluations per run sets the budget, and PyMC's kernels get as many
particles as gives them the same number (from two pilot runs: at ``--draws``, then at the first
pilot's estimate). Prints and records (``OUT_DIR/results.jsonl``) per kernel: evaluations per run,
the chi-square quantile error of the suite's statistic on all runs' particles together, the mean of
the per-run errors, the mean and sd over runs of the log marginal likelihood, and seconds per run.
Runs are sequential (``cores=1``) so that evaluations are counted in one process.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import ClassVar

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from pymc_kameleon import KameleonSMC
from pymc_kameleon.bench.metrics import quantile_error
from pymc_kameleon.bench.records import append_record
from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.smc import final_log_marginal_likelihood

PRIOR_SD = 20.0
TARGETS = ("banana-0.03", "banana-0.1", "flower")


def target_logp(name: str, x):
    """The suite's log-density of ``name`` as a PyTensor graph of the vector ``x``."""
    if name.startswith("banana"):
        b = float(name.split("-")[1])
        twisted = x[1] - b * (x[0] ** 2 - 100.0)
        return (
            -0.5 * (x[0] / 10.0) ** 2 - 0.5 * twisted**2 - 0.5 * pt.sum(x[2:] ** 2)
            - 4.0 * np.log(2 * np.pi) - np.log(10.0)
        )  # fmt: skip
    radius = pt.sqrt(x[0] ** 2 + x[1] ** 2)
    residual = radius - 10.0 - 6.0 * pt.cos(6.0 * pt.arctan2(x[1], x[0]))
    return -0.5 * residual**2 - 0.5 * pt.sum(x[2:] ** 2)


def proper_model(name: str) -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, PRIOR_SD, shape=8)
        prior = pm.logp(pm.Normal.dist(0.0, PRIOR_SD), x).sum()
        pm.Potential("likelihood", target_logp(name, x) - prior)
    return model


def counting(kernel_class):
    """A subclass of a PyMC SMC kernel that counts likelihood evaluations per run."""

    class Counted(kernel_class):
        evaluations: ClassVar[list[int]] = [
            0
        ]  # over every run (cores=1: one process, one kernel object)

        def set_rng(self, rng):
            if hasattr(self, "raw_likelihood"):  # PyMC copies the compiled function per run
                self.likelihood_logp_func = self.raw_likelihood
            super().set_rng(rng)

        def setup_kernel(self):
            super().setup_kernel()
            function = self.raw_likelihood = self.likelihood_logp_func

            def counted(x):
                Counted.evaluations[0] += 1
                return function(x)

            self.likelihood_logp_func = counted

    Counted.__name__ = kernel_class.__name__
    return Counted


def run(name: str, kernel, draws: int, runs: int, seed: int, **kernel_kwargs) -> dict:
    problem = get_problem(name)
    counted = counting(kernel)
    start = time.perf_counter()
    with proper_model(name):
        idata = pm.sample_smc(
            draws=draws, kernel=counted, chains=runs, cores=1, random_seed=seed,
            progressbar=False, compute_convergence_checks=False, **kernel_kwargs,
        )  # fmt: skip
    seconds = (time.perf_counter() - start) / runs
    x = np.asarray(idata["posterior"]["x"].values, dtype=float)
    exact = problem.statistic_quantiles()
    per_run = [quantile_error(problem.statistic(chain), exact) for chain in x]
    log_z = final_log_marginal_likelihood(idata)
    return {
        "target": name, "kernel": kernel.__name__, "draws": draws, "runs": runs, "seed": seed,
        "evaluations_per_run": counted.evaluations[0] / runs,  # after the initial population
        "quantile_error": quantile_error(problem.statistic(x.reshape(-1, 8)), exact),
        "mean_run_quantile_error": float(np.mean(per_run)),
        "log_evidence_mean": float(np.mean(log_z)), "log_evidence_sd": float(np.std(log_z, ddof=1)),
        "seconds_per_run": seconds,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--targets", nargs="+", choices=TARGETS, default=list(TARGETS))
    parser.add_argument(
        "--kameleon-kwargs",
        type=json.loads,
        default={},
        help="KameleonSMC arguments as JSON, e.g. '{\"max_correlation\": 0.5}'",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "results.jsonl"
    rows = []
    for name in args.targets:
        ours = run(name, KameleonSMC, args.draws, args.runs, args.seed, **args.kameleon_kwargs)
        ours["kameleon_kwargs"] = args.kameleon_kwargs
        rows.append(ours)
        budget = ours["evaluations_per_run"]
        for kernel in (pm.smc.kernels.MH, pm.smc.kernels.IMH):
            draws = args.draws
            for _ in range(2):  # evaluations grow faster than linearly in the particles: twice
                pilot = run(name, kernel, draws, 1, args.seed + 100)
                draws = max(50, round(draws * budget / max(pilot["evaluations_per_run"], 1.0)))
            rows.append(run(name, kernel, draws, args.runs, args.seed))
        for row in rows[-3:]:
            append_record(path, row)
    print(
        "| target | kernel | particles | evaluations / run | q err (all runs) | q err (per run) "
        "| log Z: mean ± sd over runs | s / run |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['target']} | {r['kernel']} | {r['draws']} | {r['evaluations_per_run']:.0f} | "
            f"{r['quantile_error']:.4f} | {r['mean_run_quantile_error']:.4f} | "
            f"{r['log_evidence_mean']:.3f} ± {r['log_evidence_sd']:.3f} | "
            f"{r['seconds_per_run']:.1f} |"
        )


if __name__ == "__main__":
    main()
