"""One sampler on the curved targets at a practitioner's budget, over a few seeds.

Usage: ``python benchmarks/curved_budget_check.py OUT_DIR TAG SAMPLER OPTIONS_JSON [--seeds 0 1 2]
[--problems ...] [--tune 4000] [--draws 4000] [--chains 4] [--oracle N] [--jobs 2]``, e.g.
``... out kmc-default KMC-lite '{"warmup": "whitened"}'`` or ``... out emcee emcee '{}'``.
SAMPLER is a name of the bench suite (its papers' steps are pinned to the published warm-up, so
pass ``"warmup": "whitened"`` for our default), or an ensemble peer run outside PyMC: ``emcee``
(affine-invariant stretch move) or ``zeus`` (ensemble slice sampling), with 2 d walkers on a
budget of ``chains * (tune + draws)`` log-density evaluations, the first half discarded as
warm-up, each walker scored as a chain (OPTIONS_JSON then holds keyword arguments of the
sampler's constructor). Runs 4 chains x (4000 + 4000) from seeded N(0, I) starts (the budget
of the curved-posteriors issue) and prints, per target, the median over the seeds of the min
bulk ESS, ESS per 1000 log-density evaluations of the kept draws (warm-up excluded), the
chi-square quantile error, the max R-hat and the acceptance rate (NaN for zeus). The
``-mapped`` bananas are the same bananas sampled in coordinates ``y = M x`` under a fixed
random affine map M (scales 1e-2..1e2), with starts mapped and draws mapped back before
scoring. ``--oracle N`` hands each chain N exact draws as ``initial_history`` (the KMC paper's
oracle setting: what the kernel does with a history that already covers the target). Records go
to ``OUT_DIR/<TAG>.jsonl`` (resumable). ``--problems glass --chains 1 --tune 1000 --draws 5000
--init zero --seeds 1000 1001 1002`` is the GP-Glass protocol of the papers (one chain of 6000
iterations from 0), scored by MMD² to the shipped benchmark sample; its ``--oracle N`` draws
come from that sample.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from pymc_kameleon.bench.runner import Task, load_records, run_tasks

PROBLEMS = (
    "banana-0.1",
    "banana-0.03",
    "flower",
    "gauss-iso",
    "gauss-corr",
    "banana-0.1-mapped",
    "banana-0.03-mapped",
    "glass",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("tag")
    parser.add_argument("sampler")
    parser.add_argument("options", type=json.loads)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--problems", nargs="+", choices=PROBLEMS, default=list(PROBLEMS[:3]))
    parser.add_argument("--tune", type=int, default=4000)
    parser.add_argument("--draws", type=int, default=4000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--oracle", type=int, default=0)
    parser.add_argument("--init", choices=("random", "zero"), default="random")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{args.tag}.jsonl"
    tasks = [
        Task(
            "curved-budget",
            problem,
            args.sampler,
            seed,
            args.chains,
            args.tune,
            args.draws,
            init=args.init,
            n_oracle=args.oracle,
            extra=args.options,
        )
        for problem in args.problems
        for seed in args.seeds
    ]
    run_tasks(tasks, path, jobs=args.jobs)
    print(
        "| tag | target | seeds | min ESS | ESS/1k evals | quantile error | max R-hat | acc "
        "| MMD² |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for problem in args.problems:
        # one TAG's file may hold several samplers' records: show this sampler's
        records = [
            r for r in load_records(path)
            if r["problem"] == problem and r["sampler"] == args.sampler
            and r["seed"] in args.seeds and r.get("status") == "ok"
        ]  # fmt: skip
        if not records:
            continue

        def median(name: str) -> float:  # NaN for a score the target does not have
            return float(np.median([r.get(name, np.nan) for r in records]))

        print(
            f"| {args.tag} | {problem} | {len(records)} | {median('min_bulk_ess'):.0f} | "
            f"{median('ess_per_1k_evals'):.2f} | {median('quantile_error'):.4f} | "
            f"{median('max_rhat'):.3f} | {median('acceptance'):.2f} | {median('mmd2'):.3g} |"
        )


if __name__ == "__main__":
    main()
