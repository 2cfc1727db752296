"""The oracle ceiling of one step on one real-suite model: what is left when warm-up is solved.

``python benchmarks/oracle_ceiling.py MODEL STEP [--seeds 1 2] [--draws 3000] [--no-oracle]
[--options '{"scale": "fixed"}']`` runs STEP (KameleonStep, AdaptiveMetropolis or KMCStep) at
the suite's budget, 4 chains x (3000 + 3000) (``--draws`` changes the kept draws), with the
shipped NUTS reference's 1000 draws (mapped to the sampler's unconstrained space) as
``initial_history`` and every chain started at the reference's posterior mean. The history
gives AdaptiveMetropolis the posterior's own covariance, KMCStep a surrogate fitted to exact
draws and KameleonStep an exact kernel history, so what the run misses is the kernel's mixing,
not its warm-up. Printed per seed: the smallest bulk ESS, the largest R-hat, the mean
acceptance and the ESS per 1000 log-density evaluations. When this ceiling is below the
suite's bar (min bulk ESS 50, R-hat 1.05), no warm-up can make the step pass the model at this
budget. ``--no-oracle`` runs the same budget with the step's defaults (no history, PyMC's
initial point): how far a longer chain takes the defaults.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pymc as pm
from real_model_seeds import run_summary  # (a sibling script: run from benchmarks/ or its parent)

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.real.models import REAL_MODELS
from pymc_kameleon.bench.real.reference import load_reference

STEPS = {"KameleonStep": KameleonStep, "AdaptiveMetropolis": AdaptiveMetropolis, "KMCStep": KMCStep}


def unconstrained_reference(model: pm.Model, name: str) -> np.ndarray:
    """The reference draws of ``model``'s free variables in the sampler's space, shape (n, d)."""
    reference = load_reference(name)
    columns = []
    for rv in model.free_RVs:
        size = int(np.prod(model.initial_point()[model.rvs_to_values[rv].name].shape))
        labels = (
            [rv.name]
            if size == 1 and rv.name in reference.labels
            else [f"{rv.name}[{i}]" for i in range(size)]
        )
        values = reference.draws[:, [reference.labels.index(label) for label in labels]]
        transform = model.rvs_to_transforms.get(rv)
        if transform is not None:
            # the transform's parameters (e.g. an interval's bounds) are the variable's inputs
            shape = rv.type.shape or ()
            values = np.stack([
                np.ravel(transform.forward(row.reshape(shape), *rv.owner.inputs).eval())
                for row in values
            ])  # fmt: skip
        columns.append(values.reshape(len(values), -1))
    return np.column_stack(columns)


def oracle_options(model: pm.Model, name: str) -> tuple[dict, dict]:
    """``(step options, initvals)``: the reference draws as history, its mean as the start."""
    history = unconstrained_reference(model, name)
    start = model.initial_point()
    sizes = [start[v.name].size for v in model.value_vars]
    mean = np.split(history.mean(axis=0), np.cumsum(sizes)[:-1])
    # initvals of transformed variables are given in the sampler's own space by value name
    initvals = {
        v.name: m.reshape(start[v.name].shape) for v, m in zip(model.value_vars, mean, strict=True)
    }
    return {"initial_history": history}, initvals


def run(name: str, step: str, options: dict, seed: int, draws: int, oracle: bool) -> str:
    """One row of the table."""
    model = REAL_MODELS[name].build()
    extra, initvals = oracle_options(model, name) if oracle else ({}, None)
    with model:
        idata = pm.sample(
            tune=3000, draws=draws, chains=4, cores=1, random_seed=seed, progressbar=False,
            step=STEPS[step](**extra, **options), initvals=initvals,
            compute_convergence_checks=False, discard_tuned_samples=False,
        )  # fmt: skip
    ess, rhat, evals = run_summary(idata)
    kept = posterior_dataset(idata, "sample_stats")
    accept = float(np.minimum(kept["accept"].values, 1.0).mean())
    return f"| {seed} | {ess:.1f} | {rhat:.3f} | {accept:.2f} | {1000 * ess / evals:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=list(REAL_MODELS))
    parser.add_argument("step", choices=list(STEPS))
    parser.add_argument("--options", default="{}")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--draws", type=int, default=3000)
    parser.add_argument("--no-oracle", action="store_true")
    args = parser.parse_args()
    options = json.loads(args.options)
    how = "defaults" if args.no_oracle else "oracle history and start"
    print(f"{args.model}, {args.step}({args.options}), {how}, 4 x (3000 + {args.draws})")
    print("| seed | min ESS | max R-hat | acceptance | ESS per 1000 evaluations |")
    print("|---|---|---|---|---|")
    for seed in args.seeds:
        print(run(args.model, args.step, options, seed, args.draws, not args.no_oracle), flush=True)


if __name__ == "__main__":
    main()
