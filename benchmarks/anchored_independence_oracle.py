"""What independence moves would give at PyMC's default budget where the start-up finds no mode.

``python benchmarks/anchored_independence_oracle.py STEP [--model schools-noncentred]
[--seeds 1 2 3]`` runs STEP (AdaptiveMetropolis or KameleonStep) at PyMC's default budget,
4 chains x (1000 + 1000), with its defaults, except that at each chain's first iteration the
independence moves are anchored at the mean and covariance of the model's shipped NUTS
reference (mapped to the sampler's space). On the non-centred eight schools the start-up stops
at a saddle ("indefinite") and finds no mode, so the default chain has no independence moves;
this run shows what anchoring them at good moments is worth (an oracle: the moments are exact).
Printed per seed: the smallest bulk ESS, the largest R-hat, the independence moves' share of
the kept iterations and their acceptance.
"""

from __future__ import annotations

import argparse

import arviz as az
import numpy as np
import pymc as pm
from oracle_ceiling import unconstrained_reference  # (a sibling script: run from benchmarks/)

from pymc_kameleon import AdaptiveMetropolis, KameleonStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.real.models import REAL_MODELS

STEPS = {"AdaptiveMetropolis": AdaptiveMetropolis, "KameleonStep": KameleonStep}


def anchored(step_cls: type, mean: np.ndarray, cov: np.ndarray) -> type:
    """``step_cls`` whose chains mix in independence moves about ``(mean, cov)`` from the start."""

    class Anchored(step_cls):
        def _start_up(self) -> int:
            n_evals = super()._start_up()
            if self.iteration == 0:
                self.mix_independence([(mean, cov, 1.0)])
            return n_evals

    return Anchored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=list(STEPS))
    parser.add_argument("--model", default="schools-noncentred", choices=list(REAL_MODELS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = parser.parse_args()
    model = REAL_MODELS[args.model].build()
    reference = unconstrained_reference(model, args.model)
    step_cls = anchored(STEPS[args.step], reference.mean(axis=0), np.cov(reference.T))
    print(f"{args.model}, {args.step} with independence moves anchored at NUTS's moments")
    print("| seed | min ESS | max R-hat | independence share | its acceptance |")
    print("|---|---|---|---|---|")
    for seed in args.seeds:
        with model:
            idata = pm.sample(step=step_cls(), chains=4, cores=1, random_seed=seed,
                              progressbar=False, compute_convergence_checks=False)  # fmt: skip
        summary = az.summary(idata, kind="diagnostics")
        kept = posterior_dataset(idata, "sample_stats")
        moves = kept["independence_move"].values.ravel()
        accept = np.minimum(kept["accept"].values.ravel(), 1.0)
        independent = moves >= 0
        print(
            f"| {seed} | {summary['ess_bulk'].min():.0f} | {summary['r_hat'].max():.3f} | "
            f"{independent.mean():.2f} | {accept[independent].mean():.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
