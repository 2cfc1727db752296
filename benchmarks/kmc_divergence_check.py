"""KMCStep's divergent trajectories and efficiency under three step-size tunings (issue 29).

For each model and seed, samples 2 chains x (1000 warm-up + 1000 draws) with ``KMCStep`` and
prints the kept divergent trajectories, the mean acceptance, the smallest bulk ESS over the
variables, that ESS per 1000 log-density evaluations, and the largest R-hat, for:

* ``penalty`` -- the default: a divergent trajectory counts as acceptance ``-10`` in the tuning;
* ``plain`` -- a divergence counts as a rejection (0), as before issue 29;
* ``accept0.8`` -- plain tuning toward ``target_accept=0.8`` instead of 0.6.

What a divergence counts as is the step's moves' ``divergent_accept``
(:data:`~pymc_kameleon.core.proposals.kmc_moves.DIVERGENT_ACCEPT_STAT` by default), set on each
step object; no module constant is changed.

Models: ``readme`` (the README's location-scale example, 2-D), ``banana`` (Haario's 2-D
B(0.03, 100); 1000 warm-up iterations are too few for it, kept as a hard case), ``corr8`` (an
8-D Gaussian with a random covariance) and ``logistic`` (a 4-coefficient logistic regression).

Usage::

    python benchmarks/kmc_divergence_check.py                       # all, seeds 1 2
    python benchmarks/kmc_divergence_check.py --models readme --seeds 1 2 3
"""

from __future__ import annotations

import argparse

import numpy as np
import pymc as pm

from pymc_kameleon import KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.metrics import posterior_mixing_metrics


def readme_model() -> pm.Model:
    y = np.random.default_rng(0).normal(1.0, 2.0, size=50)
    with pm.Model() as model:
        theta = pm.Normal("theta", 0, 5)
        sigma = pm.HalfNormal("sigma", 5)
        pm.Normal("y", theta, sigma, observed=y)
    return model


def banana_model() -> pm.Model:
    with pm.Model() as model:
        x1 = pm.Normal("x1", 0, 10)
        pm.Normal("x2", 0.03 * x1**2 - 3, 1)
    return model


def corr8_model() -> pm.Model:
    factor = np.random.default_rng(3).normal(size=(8, 8))
    with pm.Model() as model:
        pm.MvNormal("x", np.zeros(8), cov=factor @ factor.T / 8 + 0.1 * np.eye(8))
    return model


def logistic_model() -> pm.Model:
    rng = np.random.default_rng(5)
    X = rng.normal(size=(100, 4))
    y = rng.random(100) < 1.0 / (1.0 + np.exp(-(X @ [1.0, -2.0, 0.5, 0.0])))
    with pm.Model() as model:
        b = pm.Normal("b", 0, 5, shape=4)
        pm.Bernoulli("y", logit_p=X @ b, observed=y)
    return model


MODELS = {
    "readme": readme_model,
    "banana": banana_model,
    "corr8": corr8_model,
    "logistic": logistic_model,
}
TUNINGS = {"penalty": (-10.0, 0.6), "plain": (0.0, 0.6), "accept0.8": (0.0, 0.8)}


def make_step(tuning: str) -> KMCStep:
    """The step of a tuning: the default ``KMCStep`` for ``penalty``."""
    stat, target = TUNINGS[tuning]
    step = KMCStep(target_accept=target)
    step.proposal.divergent_accept = stat  # what a divergence counts as in the step-size tuning
    return step


def run(model_name: str, tuning: str, seed: int) -> dict[str, float]:
    with MODELS[model_name]():
        result = pm.sample(
            step=make_step(tuning),
            chains=2,
            cores=1,
            random_seed=seed,
            progressbar=False,
            compute_convergence_checks=False,
        )
    stats = posterior_dataset(result, "sample_stats")
    mixing = posterior_mixing_metrics(result)
    ess = mixing["min_bulk_ess"]
    evals = float(stats["logp_evals"].values.sum())
    return {
        "divergent": int(stats["diverging"].values.sum()),
        "accept": float(stats["accept"].values.mean()),
        "ess": ess,
        "ess_per_1k": 1000.0 * ess / evals,
        "rhat": mixing["max_rhat"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(MODELS))
    parser.add_argument("--tunings", nargs="+", choices=list(TUNINGS), default=list(TUNINGS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print("| model | tuning | seed | divergent of 2000 | acceptance | min bulk ESS "
          "| ESS / 1k evals | max R-hat |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for model_name in args.models:
        for tuning in args.tunings:
            for seed in args.seeds:
                r = run(model_name, tuning, seed)
                print(
                    f"| {model_name} | {tuning} | {seed} | {r['divergent']} | {r['accept']:.2f} "
                    f"| {r['ess']:.0f} | {r['ess_per_1k']:.0f} | {r['rhat']:.3f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
