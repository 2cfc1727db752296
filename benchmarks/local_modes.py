"""A spurious local mode next to a natural start: what the start-up's climbs do on lynx-hare-ode.

``python benchmarks/local_modes.py STEP [--start pymc|prior-means] [--options '{"start_up":
5000}'] [--seeds 1 2]`` runs STEP (KameleonStep, AdaptiveMetropolis or KMCStep) on the
real suite's Lotka-Volterra model (SciPy ODE in an Op without a gradient), 4 chains x
(3000 + 3000), ``cores=1``, from PyMC's initial point of the model (``pymc``) or from the prior
means (``prior-means``), and prints per seed each chain's start-up evaluations and mean of
``alpha`` (the main mode's is about 0.55, the spurious flat solution's about 1.05), the
number of chains that warned of separate modes, the smallest bulk ESS and the largest R-hat.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.metrics import posterior_mixing_metrics
from pymc_kameleon.bench.real.models import REAL_MODELS

STEPS = {"KameleonStep": KameleonStep, "AdaptiveMetropolis": AdaptiveMetropolis, "KMCStep": KMCStep}
PRIOR_MEANS = {"alpha": 1.0, "beta": 0.05, "gamma": 1.0, "delta": 0.05}


def run(step: str, options: dict, seed: int, start: str) -> str:
    """One row of the table."""
    initvals = PRIOR_MEANS if start == "prior-means" else None
    with REAL_MODELS["lynx-hare-ode"].build():
        idata = pm.sample(
            tune=3000, draws=3000, chains=4, cores=1, random_seed=seed, progressbar=False,
            step=STEPS[step](**options), compute_convergence_checks=False, initvals=initvals,
            discard_tuned_samples=False, keep_warning_stat=True,
        )  # fmt: skip
    post = posterior_dataset(idata, "posterior")
    warm = posterior_dataset(idata, "warmup_sample_stats")
    mixing = posterior_mixing_metrics(idata)
    ess, rhat = mixing["min_bulk_ess"], mixing["max_rhat"]
    warned = sum(
        any("separate modes" in str(getattr(w, "message", "")) for w in chain.ravel())
        for chain in warm["warning"].values  # (chain, draw, 1), a SamplerWarning or None
    )
    evals = warm["logp_evals"].values[:, 0].tolist()
    means = np.round(post["alpha"].mean("draw").values, 3).tolist()
    return f"| {seed} | {evals} | {means} | {warned} | {ess:.0f} | {rhat:.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=list(STEPS))
    parser.add_argument("--start", choices=["pymc", "prior-means"], default="pymc")
    parser.add_argument("--options", default="{}")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print("| seed | start-up evaluations | chains' mean of alpha | warned | min ESS | max R-hat |")
    print("|---|---|---|---|---|---|")
    for seed in args.seeds:
        print(run(args.step, json.loads(args.options), seed, args.start), flush=True)


if __name__ == "__main__":
    main()
