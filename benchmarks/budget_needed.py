"""The budget KameleonStep and AdaptiveMetropolis need on PyMC-sized models (issue 69).

``python benchmarks/budget_needed.py [--models schools-noncentred logistic7]
[--steps KameleonStep AdaptiveMetropolis] [--budgets 1000 2000 4000 8000] [--seeds 1 2 3]
[--out FILE]`` runs ``pm.sample(step=STEP(), tune=N, draws=N, chains=4, cores=1)`` for each
budget ``N`` (warm-up and kept draws alike, so the step's warm-up grows with the run) on the
models of ``default_budget_check.py`` and prints per run the smallest bulk ESS, the largest
R-hat and the wall time. A budget suffices at a seed where R-hat <= 1.01 and min bulk ESS >= 200
(the issue's bar). Rows are appended as JSON to ``--out`` (default
``benchmarks/results/default-budget/budget_needed.jsonl``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pymc as pm
from default_budget_check import MODELS, STEPS  # (a sibling script: run from benchmarks/)

from pymc_kameleon._compat import ess_array, posterior_dataset, rhat_array

OUT = Path(__file__).parent / "results" / "default-budget" / "budget_needed.jsonl"


def run(model_name: str, step: str, budget: int, seed: int) -> dict:
    """One ``pm.sample`` call at ``tune = draws = budget``; its diagnostics."""
    model = MODELS[model_name]()
    start = time.perf_counter()
    with model:
        idata = pm.sample(step=STEPS[step](), tune=budget, draws=budget, chains=4, cores=1,
                          random_seed=seed, progressbar=False,
                          compute_convergence_checks=False)  # fmt: skip
    wall = time.perf_counter() - start
    post = posterior_dataset(idata, "posterior")
    ess = min(float(np.min(ess_array(post[name].values))) for name in post.data_vars)
    rhat = max(float(np.max(rhat_array(post[name].values))) for name in post.data_vars)
    return {"model": model_name, "step": step, "budget": budget, "seed": seed,
            "min_ess_bulk": ess, "max_rhat": rhat, "wall_s": wall,
            "passes": bool(rhat <= 1.01 and ess >= 200)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS))
    parser.add_argument("--steps", nargs="+", choices=["KameleonStep", "AdaptiveMetropolis"],
                        default=["KameleonStep", "AdaptiveMetropolis"])  # fmt: skip
    parser.add_argument("--budgets", type=int, nargs="+", default=[1000, 2000, 4000, 8000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    print("| model | step | tune = draws | seed | min ESS | max R-hat | passes | wall s |")
    print("|---|---|---|---|---|---|---|---|")
    for model_name in args.models:
        for step in args.steps:
            for budget in args.budgets:
                for seed in args.seeds:
                    row = run(model_name, step, budget, seed)
                    with args.out.open("a") as out:
                        out.write(json.dumps(row) + "\n")
                    print(
                        f"| {model_name} | {step} | {budget} | {seed} | "
                        f"{row['min_ess_bulk']:.0f} | {row['max_rhat']:.3f} | {row['passes']} | "
                        f"{row['wall_s']:.0f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
