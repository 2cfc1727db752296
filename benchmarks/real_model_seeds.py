"""One default step on one real-suite model at several seeds: min ESS, R-hat, ESS per evaluation.

``python benchmarks/real_model_seeds.py MODEL STEP [--options '{"global_weight": 0.2}']
[--seeds 1 2 3]`` with STEP one of KameleonStep, AdaptiveMetropolis, KMCStep (or
pm.DEMetropolisZ, at one evaluation per iteration): 4 chains x
(3000 + 3000) with ``cores=1`` (the suite's budget), printing per seed the start-up status of each
chain, the smallest bulk ESS, the largest R-hat and the ESS per 1000 log-density evaluations
(start-up and warm-up included). The suite's verdict adds the reference comparison; this script
is for seed-to-seed spread. ``--start-at-reference`` starts every chain at the shipped NUTS
reference's posterior mean (an oracle start: what is left when the start is not the problem).
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
from pymc_kameleon.bench.real.reference import load_reference

STEPS = {
    "KameleonStep": KameleonStep,
    "AdaptiveMetropolis": AdaptiveMetropolis,
    "KMCStep": KMCStep,
    "pm.DEMetropolisZ": pm.DEMetropolisZ,  # one evaluation per iteration
}


def reference_means(name: str) -> dict:
    """The reference posterior means of a model's free variables, as ``initvals``."""
    reference = load_reference(name)
    means = dict(zip(reference.labels, reference.summary["mean"], strict=True))
    model = REAL_MODELS[name].build()
    point = model.initial_point()
    initvals = {}
    for rv in model.free_RVs:
        shape = np.shape(point[model.rvs_to_values[rv].name])
        if shape:
            values = [means[f"{rv.name}[{i}]"] for i in range(int(np.prod(shape)))]
            initvals[rv.name] = np.reshape(values, shape)
        else:
            initvals[rv.name] = means[rv.name]
    return initvals


def run_summary(idata) -> tuple[float, float, int]:
    """``(min bulk ESS, max R-hat, log-density evaluations)`` of a run (warm-up kept).

    Without a ``logp_evals`` stat (PyMC's steps) the evaluations are one per iteration.
    """
    post = posterior_dataset(idata, "posterior")
    warm = posterior_dataset(idata, "warmup_sample_stats")
    kept = posterior_dataset(idata, "sample_stats")
    mixing = posterior_mixing_metrics(idata)
    ess, rhat = mixing["min_bulk_ess"], mixing["max_rhat"]
    if "logp_evals" in warm:
        evals = int(warm["logp_evals"].values.sum() + kept["logp_evals"].values.sum())
    else:
        evals = int(post.sizes["chain"] * (post.sizes["draw"] + warm.sizes["draw"]))
    return ess, rhat, evals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=list(REAL_MODELS))
    parser.add_argument("step", choices=list(STEPS))
    parser.add_argument("--options", default="{}")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--start-at-reference", action="store_true")
    args = parser.parse_args()
    initvals = reference_means(args.model) if args.start_at_reference else None
    options = json.loads(args.options)
    print("| seed | start_up | min ESS | max R-hat | ESS per 1000 evaluations |")
    print("|---|---|---|---|---|")
    for seed in args.seeds:
        with REAL_MODELS[args.model].build():
            idata = pm.sample(
                tune=3000, draws=3000, chains=4, cores=1, random_seed=seed, progressbar=False,
                step=STEPS[args.step](**options), compute_convergence_checks=False,
                discard_tuned_samples=False, initvals=initvals,
            )  # fmt: skip
        ess, rhat, evals = run_summary(idata)
        warm = posterior_dataset(idata, "warmup_sample_stats")
        status = np.unique(warm["start_up"].values[:, 0]).tolist() if "start_up" in warm else "-"
        print(f"| {seed} | {status} | {ess:.0f} | {rhat:.3f} | {1000 * ess / evals:.2f} |")


if __name__ == "__main__":
    main()
