"""Our steps at PyMC's default budget: what they log, and whether the chains converge.

``python benchmarks/default_budget_check.py [--models schools-noncentred logistic7]
[--steps KameleonStep AdaptiveMetropolis KMCStep] [--seeds 1 2 3] [--cores 1 2] [--oracle]
[--out FILE]`` runs ``pm.sample(step=STEP())`` with PyMC's defaults, 4 chains x (1000 + 1000),
on the non-centred eight schools (10-D, from the real-model suite) and a 7-predictor logistic
regression (8-D, simulated here), and prints per run: the smallest bulk ESS, the largest R-hat,
the package's log records (how many, and the most of one kind: one per call is the rule) and
whether one was logged although the chains converged (R-hat <= 1.01: "advice").

``--oracle`` runs the same budget with NUTS's draws (4 x (1000 + 1000), seed 0) as
``initial_history`` and every chain started at their mean: the proposal is then learned before
the first iteration, so what is left is the kernel's mixing, not its warm-up.

Each row is also appended as JSON to ``--out`` (default
``benchmarks/results/default-budget/results.jsonl``).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import ess_array, posterior_dataset, rhat_array
from pymc_kameleon.bench.real.models import REAL_MODELS
from pymc_kameleon.step_methods.once_per_call import Notice

STEPS = {"KameleonStep": KameleonStep, "AdaptiveMetropolis": AdaptiveMetropolis, "KMCStep": KMCStep}
OUT = Path(__file__).parent / "results" / "default-budget" / "results.jsonl"


def logistic7() -> pm.Model:
    """Logistic regression on 7 correlated predictors and an intercept, 400 simulated rows."""
    rng = np.random.default_rng(7)
    n, k = 400, 7
    mixing = np.eye(k) + 0.5 * rng.normal(size=(k, k)) / np.sqrt(k)
    x = rng.normal(size=(n, k)) @ mixing.T
    beta = np.array([1.0, -0.8, 0.5, 0.0, 0.3, -0.4, 0.7])
    y = rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-(0.3 + x @ beta)))
    with pm.Model() as model:
        alpha = pm.Normal("alpha", 0.0, 2.5)
        b = pm.Normal("beta", 0.0, 2.5, shape=k)
        pm.Bernoulli("y", logit_p=alpha + pm.math.dot(x, b), observed=y.astype(int))
    return model


MODELS = {"schools-noncentred": REAL_MODELS["schools-noncentred"].build, "logistic7": logistic7}


class NoticeCounter(logging.Handler):
    """Counts the package's records (:class:`Notice` messages) that reach the handlers."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.kinds: Counter = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        if isinstance(record.msg, Notice) and record.levelno >= logging.INFO:
            self.kinds[(record.msg.step, record.msg.kind)] += 1


def nuts_history(model: pm.Model) -> tuple[np.ndarray, dict]:
    """NUTS's draws in the sampler's (unconstrained) space, and their mean as ``initvals``."""
    with model:
        idata = pm.sample(chains=4, random_seed=0, progressbar=False, idata_kwargs={
            "include_transformed": True}, compute_convergence_checks=False)  # fmt: skip
    post = posterior_dataset(idata, "posterior")
    columns, initvals = [], {}
    for v in model.value_vars:
        values = post[v.name].values.reshape(-1, *model.initial_point()[v.name].shape)
        columns.append(values.reshape(len(values), -1))
        initvals[v.name] = values.mean(axis=0)
    return np.column_stack(columns), initvals


def run(model_name: str, step: str, seed: int, cores: int, oracle: tuple | None) -> dict:
    """One run at PyMC's default budget; its row."""
    model = MODELS[model_name]()
    options, initvals = {}, None
    if oracle is not None:
        options, initvals = {"initial_history": oracle[0]}, oracle[1]
    counter = NoticeCounter()
    logging.getLogger("pymc").addHandler(counter)
    start = time.perf_counter()
    try:
        with model:
            idata = pm.sample(step=STEPS[step](**options), chains=4, cores=cores,
                              random_seed=seed, progressbar=False, initvals=initvals)  # fmt: skip
    finally:
        logging.getLogger("pymc").removeHandler(counter)
    post = posterior_dataset(idata, "posterior")
    ess = min(float(np.min(ess_array(post[v].values))) for v in post.data_vars)
    rhat = max(float(np.max(rhat_array(post[v].values))) for v in post.data_vars)
    records = sum(counter.kinds.values())
    return {
        "model": model_name, "step": step, "seed": seed, "cores": cores,
        "oracle": oracle is not None, "min_ess_bulk": ess, "max_rhat": rhat,
        "records": records, "most_of_one_kind": max(counter.kinds.values(), default=0),
        "kinds": sorted(f"{s}:{k}" for s, k in counter.kinds),
        "advice_when_converged": bool(records and rhat <= 1.01),
        "wall_s": time.perf_counter() - start,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS))
    parser.add_argument("--steps", nargs="+", choices=list(STEPS), default=list(STEPS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--cores", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--oracle", action="store_true")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    print("| model | step | seed | cores | oracle | min ESS | max R-hat | records | most of one "
          "kind | advice when converged | wall s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for model_name in args.models:
        oracle = nuts_history(MODELS[model_name]()) if args.oracle else None
        for step in args.steps:
            for seed in args.seeds:
                for cores in args.cores:
                    row = run(model_name, step, seed, cores, oracle)
                    with args.out.open("a") as out:
                        out.write(json.dumps(row) + "\n")
                    print(
                        f"| {model_name} | {step} | {seed} | {cores} | {row['oracle']} | "
                        f"{row['min_ess_bulk']:.0f} | {row['max_rhat']:.3f} | {row['records']} | "
                        f"{row['most_of_one_kind']} | {row['advice_when_converged']} | "
                        f"{row['wall_s']:.0f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
