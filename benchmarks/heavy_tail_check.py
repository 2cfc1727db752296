"""Heavy tails on the real-model suite's PK posterior (issue 46): each step at several seeds.

Runs ``pm.sample(step=STEP, tune=3000, draws=3000, chains=4, cores=1)`` on ``pk-mm-ode`` (or
``--model``) at each seed and scores it against the shipped reference exactly as the suite does
(:func:`~pymc_kameleon.bench.real.scoring.score_run`); it prints, per run, the verdict, the sd
ratio of ``log_Vm`` to the reference with its z-score, the min bulk ESS, max R-hat and the
start-up statuses of the chains. With ``--reference-check N`` it instead checks the reference
itself without MCMC: self-normalised importance sampling with ``N`` draws of a multivariate t
(3 degrees of freedom, twice the reference draws' covariance) on the model's unconstrained
space, printing the weights' ESS and the means, sds and 5/95 % quantiles beside the reference's.

Usage::

    python benchmarks/heavy_tail_check.py "KMCStep()" "KMCStep(explore_after_warmup=0.0)" \
        --seeds 1 2 3 4
    python benchmarks/heavy_tail_check.py --reference-check 200000 --seeds 7
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings

import numpy as np
import pymc as pm
from scipy import stats

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.bench.real.models import get_real_model
from pymc_kameleon.bench.real.reference import load_reference
from pymc_kameleon.bench.real.scoring import score_run

STEPS = {"AdaptiveMetropolis": AdaptiveMetropolis, "KameleonStep": KameleonStep, "KMCStep": KMCStep}


def run_step(model_name: str, expression: str, seed: int) -> str:
    reference = load_reference(model_name)
    started = time.time()
    with get_real_model(model_name).build():
        step = eval(expression, {"__builtins__": {}}, STEPS)
        idata = pm.sample(
            step=step, tune=3000, draws=3000, chains=4, cores=1, random_seed=seed,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    score = score_run(idata, reference)
    row = {r["label"]: r for r in score.rows}["log_Vm"]
    ess = min(r["ess_bulk"] for r in score.rows)
    rhat = max(r["rhat"] for r in score.rows)
    statuses = idata.sample_stats["start_up"].values[:, 0].tolist()
    verdict = "PASS" if score.passed else "FAIL " + score.describe()
    return (
        f"{expression} seed {seed}: sd(log_Vm) {row['sd_ratio']:.3f} (z {row['z_sd']:+.1f}), "
        f"min ESS {ess:.0f}, max R-hat {rhat:.3f}, start-up {statuses}, "
        f"{time.time() - started:.0f} s: {verdict}"
    )


def reference_check(model_name: str, n: int, seed: int) -> None:
    reference = load_reference(model_name)
    model = get_real_model(model_name).build()
    names = [v.name for v in model.value_vars]
    transforms = [model.rvs_to_transforms[model.values_to_rvs[v]] for v in model.value_vars]
    draws = reference.draws.copy()
    for j, transform in enumerate(transforms):
        if transform is not None:  # the reference is on the constrained scale
            draws[:, j] = transform.forward(draws[:, j]).eval()
    proposal = stats.multivariate_t(draws.mean(0), 2.0 * np.cov(draws.T), df=3)
    x = proposal.rvs(n, random_state=np.random.default_rng(seed))
    logp = model.compile_logp(jacobian=True)
    log_w = np.array([logp(dict(zip(names, row, strict=True))) for row in x]) - proposal.logpdf(x)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    y = x.copy()
    for j, transform in enumerate(transforms):
        if transform is not None:
            y[:, j] = transform.backward(y[:, j]).eval()
    mean = w @ y
    sd = np.sqrt(w @ (y - mean) ** 2)
    print(f"{n} t(3) draws, weights' ESS {1.0 / np.sum(w**2):.0f}")
    for j, label in enumerate(reference.labels):
        order = np.argsort(y[:, j])
        cdf = np.cumsum(w[order])
        q05, q95 = (y[order, j][np.searchsorted(cdf, p)] for p in (0.05, 0.95))
        print(
            f"  {label:8s} mean {mean[j]:.4f} (ref {reference.summary['mean'][j]:.4f})  "
            f"sd {sd[j]:.4f} (ref {reference.summary['sd'][j]:.4f})  "
            f"q05 {q05:.3f} (ref {reference.summary['q05'][j]:.3f})  "
            f"q95 {q95:.3f} (ref {reference.summary['q95'][j]:.3f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("steps", nargs="*", help='step expressions, e.g. "KMCStep()"')
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--model", default="pk-mm-ode")
    parser.add_argument("--reference-check", type=int, default=0, metavar="N")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)
    if args.reference_check:
        for seed in args.seeds:
            reference_check(args.model, args.reference_check, seed)
    for expression in args.steps:
        for seed in args.seeds:
            print(run_step(args.model, expression, seed), flush=True)


if __name__ == "__main__":
    main()
