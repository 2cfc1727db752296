"""Divergent trajectories of ``KMCStep()`` after warm-up on the README's model and on HalfCauchy(1).

Issue 48's end-of-warm-up step bound (``KMCMoves._stay_below_divergent_steps``): for each seed,
``pm.sample(step=KMCStep(), random_seed=seed, chains=4, draws=4000)`` (PyMC's 1000 warm-up
iterations) on the README's location/scale model, printing the kept divergences, the median
step size of the trajectories and the bulk ESS of each variable; ``--no-bound`` turns the bound
off for comparison. ``--model halfcauchy`` runs the tuning page's case instead
(``HalfCauchy(1)``, 2 chains x (1000 + 10 000), ``--target-accept`` to compare 0.6 and 0.8).

Usage::

    python benchmarks/readme_divergences.py --seeds 1 2 3 4 5 6 7 8 9 10 [--no-bound]
    python benchmarks/readme_divergences.py --model halfcauchy --seeds 1 2 [--target-accept 0.8]
"""

from __future__ import annotations

import argparse

import arviz as az
import numpy as np
import pymc as pm

from pymc_kameleon import KMCStep
from pymc_kameleon.core.proposals.kmc_moves import KMCMoves


def readme_model() -> pm.Model:
    y = np.random.default_rng(0).normal(1.0, 2.0, size=50)
    with pm.Model() as model:
        theta = pm.Normal("theta", 0, 5)
        sigma = pm.HalfNormal("sigma", 5)
        pm.Normal("y", theta, sigma, observed=y)
    return model


def halfcauchy_model() -> pm.Model:
    with pm.Model() as model:
        pm.HalfCauchy("x", 1.0)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("readme", "halfcauchy"), default="readme")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--no-bound", action="store_true")
    parser.add_argument("--target-accept", type=float, default=0.6)
    args = parser.parse_args()
    if args.no_bound:
        KMCMoves._stay_below_divergent_steps = lambda moves: None
    readme = args.model == "readme"
    budget = dict(chains=4, draws=4000) if readme else dict(chains=2, draws=10_000, tune=1000)
    for seed in args.seeds:
        with readme_model() if readme else halfcauchy_model():
            idata = pm.sample(
                step=KMCStep(target_accept=args.target_accept), random_seed=seed,
                progressbar=False, compute_convergence_checks=False, **budget,
            )  # fmt: skip
        stats = idata["sample_stats"]
        eps = stats["step_size"].values
        ess = az.ess(idata)
        print(
            f"seed {seed}: {int(stats['diverging'].values.sum())} divergent after warm-up, "
            f"median step {np.median(eps[eps > 0]):.3f}, bulk ESS "
            + ", ".join(f"{name} {float(ess[name]):.0f}" for name in ess.data_vars),
            flush=True,
        )


if __name__ == "__main__":
    main()
