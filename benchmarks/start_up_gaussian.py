"""Issue 30's 6-D Gaussian (sds 1e-3 .. 1e3, |rho| up to 0.96), chains started at N(0, I) draws.

``python benchmarks/start_up_gaussian.py [--seeds 0 1 2] [--steps KMCStep ...] [--no-start-up]``:
4 chains x (4000 + 4000) per step and seed, each chain's initial point a N(0, I) draw (log-density
-1e6 and below); prints the smallest bulk ESS, the largest R-hat, ESS per 1000 log-density
evaluations (start-up and warm-up included) and the start-up's status per chain.
"""

from __future__ import annotations

import argparse

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.metrics import mixing_metrics
from pymc_kameleon.core.start_up import START_UP_STATUSES

STEPS = {"KameleonStep": KameleonStep, "AdaptiveMetropolis": AdaptiveMetropolis, "KMCStep": KMCStep}
STATUS_NAMES = {code: name for name, code in START_UP_STATUSES.items()}


def badly_scaled_gaussian(seed: int = 0, d: int = 6):
    """Mean and covariance: sds 1e-3 .. 1e3, correlations up to about 0.96 (issue 30)."""
    rng = np.random.default_rng(seed)
    sds = np.logspace(-3, 3, d)
    factor = rng.normal(size=(d, d))
    scatter = factor @ factor.T + 0.05 * np.eye(d)
    corr = scatter / np.sqrt(np.outer(np.diag(scatter), np.diag(scatter)))
    return rng.normal(size=d) * sds, corr * np.outer(sds, sds)


def run(step_name: str, seed: int, start_up: bool, chains: int = 4, n: int = 4000):
    mean, cov = badly_scaled_gaussian(seed)
    starts = np.random.default_rng(seed + 100).normal(size=(chains, mean.size))
    with pm.Model():
        pm.MvNormal("x", mu=mean, cov=cov)
        idata = pm.sample(
            tune=n, draws=n, chains=chains, cores=1, random_seed=seed, progressbar=False,
            step=STEPS[step_name](start_up=start_up), compute_convergence_checks=False,
            initvals=[{"x": s} for s in starts], discard_tuned_samples=False,
        )  # fmt: skip
    stats = posterior_dataset(idata, "sample_stats")
    warm = posterior_dataset(idata, "warmup_sample_stats")
    mixing = mixing_metrics(idata, "x")
    ess, rhat = mixing["min_bulk_ess"], mixing["max_rhat"]
    evals = int(stats["logp_evals"].values.sum() + warm["logp_evals"].values.sum())
    status = [STATUS_NAMES[int(c)] for c in warm["start_up"].values[:, 0]]
    return ess, rhat, 1000 * ess / evals, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", nargs="+", default=list(STEPS))
    parser.add_argument("--no-start-up", action="store_true")
    args = parser.parse_args()
    print("| step | seed | min ESS | max R-hat | ESS per 1000 evaluations | start-up |")
    print("|---|---|---|---|---|---|")
    for name in args.steps:
        for seed in args.seeds:
            ess, rhat, per, status = run(name, seed, not args.no_start_up)
            print(f"| {name} | {seed} | {ess:.0f} | {rhat:.3f} | {per:.1f} | {', '.join(status)} |",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
