"""KameleonStep(warmup="whitened") with a smaller exploration term on the bananas.

Usage: ``python benchmarks/gamma_check.py OUT_DIR [--gammas 0.05 0.02] [--seeds 0 1 2]``. Runs
the suite's practitioner tasks (4 chains x (2000 + 5000), seeded N(0, I) starts) on B(0.1, 100)
and B(0.03, 100) for each ``gamma`` and prints the mean min bulk ESS, quantile error, worst R-hat
and acceptance over the seeds. Records go to ``OUT_DIR/g<gamma>.jsonl`` (resumable).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pymc_kameleon.bench.runner import Task, load_records, run_tasks

PROBLEMS = ("banana-0.1", "banana-0.03")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--gammas", type=float, nargs="+", default=[0.05, 0.02])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for gamma in args.gammas:
        extra = {"warmup": "whitened", "gamma": gamma}
        tasks = [
            Task("practitioner", problem, "KAMH-LS", seed, 4, 2000, 5000, extra=extra)
            for problem in PROBLEMS
            for seed in args.seeds
        ]
        run_tasks(tasks, args.out / f"g{gamma}.jsonl", jobs=args.jobs)
    for gamma in args.gammas:
        for problem in PROBLEMS:
            records = [
                r for r in load_records(args.out / f"g{gamma}.jsonl")
                if r["problem"] == problem and r["seed"] in args.seeds and r.get("status") == "ok"
            ]  # fmt: skip
            if not records:
                continue
            mean = lambda k: sum(r[k] for r in records) / len(records)  # noqa: E731
            print(
                f"gamma {gamma} {problem}: min ESS {mean('min_bulk_ess'):.0f}, quantile error "
                f"{mean('quantile_error'):.4f}, "
                f"max R-hat {max(r['max_rhat'] for r in records):.3f}, "
                f"acceptance {mean('acceptance'):.3f}"
            )


if __name__ == "__main__":
    main()
