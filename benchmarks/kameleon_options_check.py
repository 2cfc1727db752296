"""KameleonStep's whitened warm-up with other settings, on the curved targets, over 10 seeds.

Usage: ``python benchmarks/kameleon_options_check.py OUT_DIR TAG OPTIONS_JSON [--seeds 0 ... 9]
[--problems ...] [--jobs 2]``, e.g. ``... out g0.05 '{"warmup": "whitened", "gamma": 0.05}'``.
Runs the suite's practitioner tasks (4 chains x (2000 + 5000), seeded N(0, I) starts) for
KAMH-LS with the given ``KameleonStep`` arguments on B(0.03, 100), B(0.1, 100) and the flower
(by default), and prints the mean and
median min bulk ESS, the mean and median chi-square quantile error (with its standard error over
the seeds) and the mean acceptance. Records go to ``OUT_DIR/<TAG>.jsonl`` (resumable).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from pymc_kameleon.bench.runner import Task, load_records, run_tasks

PROBLEMS = ("banana-0.03", "banana-0.1", "flower")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("tag")
    parser.add_argument("options", type=json.loads)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    parser.add_argument("--problems", nargs="+", choices=PROBLEMS, default=list(PROBLEMS))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{args.tag}.jsonl"
    tasks = [
        Task("practitioner", problem, "KAMH-LS", seed, 4, 2000, 5000, extra=args.options)
        for problem in args.problems
        for seed in args.seeds
    ]
    run_tasks(tasks, path, jobs=args.jobs)
    for problem in args.problems:
        records = [
            r for r in load_records(path)
            if r["problem"] == problem and r["seed"] in args.seeds and r.get("status") == "ok"
        ]  # fmt: skip
        if not records:
            continue
        ess = np.array([r["min_bulk_ess"] for r in records])
        error = np.array([r["quantile_error"] for r in records])
        se = error.std(ddof=1) / np.sqrt(error.size) if error.size > 1 else float("nan")
        print(
            f"{args.tag} {problem} ({len(records)} seeds): min ESS mean {ess.mean():.0f} "
            f"median {np.median(ess):.0f}, quantile error mean {error.mean():.4f} "
            f"median {np.median(error):.4f} (se {se:.4f}), acceptance "
            f"{np.mean([r['acceptance'] for r in records]):.3f}"
        )


if __name__ == "__main__":
    main()
