"""Classic against whitened warm-up on the practitioner targets: same tasks, two warm-ups.

Usage: ``python benchmarks/warmup_check.py OUT_DIR [--seeds 0 1 2] [--jobs 2] [--warmups classic
whitened] [--samplers KAMH-LS AM-LS KMC-lite] [--problems banana-0.03 ...] [--options JSON]``.
Runs the benchmark suite's practitioner tasks (4 chains x (2000 + 5000), seeded N(0, I) starts) for
KameleonStep (KAMH-LS) and AdaptiveMetropolis (AM-LS) (by default; KMCStep as KMC-lite) with
``warmup="classic"`` and ``warmup="whitened"`` (``whitened-pooled``: also ``pool_warmup=True``), and
prints a table of min bulk ESS, ESS per 1000 evaluations, the chi-square quantile error and R-hat.
Records go to ``OUT_DIR/<warmup>/results.jsonl`` (resumable).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pymc_kameleon.bench.runner import Task, load_records, run_tasks

PROBLEMS = ("banana-0.03", "banana-0.1", "flower", "gauss-iso", "gauss-corr")
SAMPLERS = ("KAMH-LS", "AM-LS", "KMC-lite")
WARMUPS = ("classic", "whitened", "whitened-pooled")


def options(warmup: str) -> dict:
    """The steps' arguments of a warm-up choice (``-pooled``: ``pool_warmup=True``)."""
    name, pooled = warmup.removesuffix("-pooled"), warmup.endswith("-pooled")
    return {"warmup": name, **({"pool_warmup": True} if pooled else {})}


def tasks(seeds, warmup, samplers, problems=PROBLEMS, extra=None):
    return [
        Task(
            "practitioner",
            problem,
            sampler,
            seed,
            4,
            2000,
            5000,
            extra={**options(warmup), **(extra or {})},
        )
        for problem in problems
        for sampler in samplers
        for seed in seeds
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--warmups", nargs="+", choices=WARMUPS, default=["classic", "whitened"])
    parser.add_argument("--samplers", nargs="+", choices=SAMPLERS, default=["KAMH-LS", "AM-LS"])
    parser.add_argument("--problems", nargs="+", choices=PROBLEMS, default=list(PROBLEMS))
    parser.add_argument("--options", type=json.loads, default={}, help="more step arguments")
    args = parser.parse_args()
    for warmup in args.warmups:
        directory = args.out / warmup
        directory.mkdir(parents=True, exist_ok=True)
        todo = tasks(args.seeds, warmup, args.samplers, args.problems, args.options)
        run_tasks(todo, directory / "results.jsonl", jobs=args.jobs)
    print("| target | sampler | warm-up | min ESS | ESS/1k evals | quantile error | max R-hat |")
    print("|---|---|---|---:|---:|---:|---:|")
    for problem in args.problems:
        for sampler in args.samplers:
            for warmup in args.warmups:
                records = [
                    r for r in load_records(args.out / warmup / "results.jsonl")
                    if r["problem"] == problem and r["sampler"] == sampler
                    and r["seed"] in args.seeds and r.get("status") == "ok"
                ]  # fmt: skip
                if not records:
                    continue
                mean = lambda k: sum(r[k] for r in records) / len(records)  # noqa: E731
                print(
                    f"| {problem} | {sampler} | {warmup} | {mean('min_bulk_ess'):.0f} | "
                    f"{mean('ess_per_1k_evals'):.2f} | {mean('quantile_error'):.4f} | "
                    f"{max(r['max_rhat'] for r in records):.3f} |"
                )


if __name__ == "__main__":
    main()
