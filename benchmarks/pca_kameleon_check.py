"""PCA-Kameleon against the full Kameleon proposal, adaptive Metropolis and KMC (issue 50).

The KAMH paper's targets (B(0.03, 100), B(0.1, 100), the 8-D flower), 4 chains x (4000 + 4000)
from seeded N(0, I) starts, three seeds: ``KameleonStep()`` (``KAMH-LS``, the full proposal),
``KameleonStep(proposal="pca")`` (``KAMH-PCA``), ``AdaptiveMetropolis()`` (``AM-LS``) and
``KMCStep()`` (``KMC-lite``). Every sampler evaluates the log-density once per iteration, so
equal iterations are equal evaluations. ``--warmup whitened`` (the package's default) or
``classic`` (the published algorithm in the model's units: the appendix's comparison); each
warm-up is recorded under its own tag. Records: ``benchmarks/results/pca/<warmup>.jsonl``.

Usage::

    python benchmarks/pca_kameleon_check.py [--warmup whitened] [--seeds 0 1 2] [--jobs 1]
    python benchmarks/pca_kameleon_check.py --plot docs/_static/pca_kameleon.png
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from pymc_kameleon.bench.runner import Task, load_records, run_tasks

OUT = Path(__file__).resolve().parent / "results" / "pca"
PROBLEMS = ("banana-0.03", "banana-0.1", "flower")
SAMPLERS = ("KAMH-LS", "KAMH-PCA", "AM-LS", "KMC-lite")
LABELS = {
    "KAMH-LS": "KameleonStep() (full)",
    "KAMH-PCA": 'KameleonStep(proposal="pca")',
    "AM-LS": "AdaptiveMetropolis()",
    "KMC-lite": "KMCStep()",
}
BUDGET = 4000
COLUMNS = ("ess_per_1k_evals", "quantile_error", "max_rhat", "us_per_iter")


def tasks(args) -> list[Task]:
    """Every (problem, sampler, seed) of the command line."""
    return [
        Task("pca", problem, sampler, seed, 4, BUDGET, BUDGET, extra={"warmup": args.warmup})
        for problem in args.problems
        for sampler in args.samplers
        for seed in args.seeds
    ]


def medians(records: list[dict], problem: str, sampler: str, seeds) -> dict | None:
    """Median of each column over the seeds' successful runs (None if there are none)."""
    runs = [
        r for r in records
        if r["problem"] == problem and r["sampler"] == sampler and r["seed"] in seeds
        and r.get("status") == "ok"
    ]  # fmt: skip
    if not runs:
        return None
    values = np.median([[r.get(c, math.nan) for c in COLUMNS] for r in runs], axis=0)
    return {"runs": runs, **dict(zip(COLUMNS, values, strict=True))}


def table(records: list[dict], args) -> str:
    """Medians over seeds, and every seed's chi-squared quantile error."""
    lines = [
        "| target | sampler | ESS / 1000 evals | χ² quantile error (median; per seed) "
        "| max R-hat | µs / iteration |",
        "|---|---|---:|---|---:|---:|",
    ]
    for problem in args.problems:
        for sampler in args.samplers:
            row = medians(records, problem, sampler, args.seeds)
            if row is None:
                continue
            per_seed = ", ".join(f"{r['quantile_error']:.3f}" for r in row["runs"])
            lines.append(
                f"| {problem} | {LABELS.get(sampler, sampler)} | {row['ess_per_1k_evals']:.2f} "
                f"| {row['quantile_error']:.3f} ({per_seed}) | {row['max_rhat']:.3f} "
                f"| {row['us_per_iter']:.0f} |"
            )
    return "\n".join(lines)


def plot(path: Path, seeds) -> None:
    """ESS per 1000 evaluations and quantile error per target, both warm-ups, median of seeds."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(PROBLEMS), figsize=(4.2 * len(PROBLEMS), 6.4))
    for column, problem in enumerate(PROBLEMS):
        for row, (key, label) in enumerate(
            (("ess_per_1k_evals", "min ESS per 1000 evaluations"),
             ("quantile_error", "quantile error (lower is better)"))
        ):  # fmt: skip
            ax = axes[row, column]
            for offset, warmup in enumerate(("whitened", "classic")):
                records = load_records(OUT / f"{warmup}.jsonl")
                for i, sampler in enumerate(SAMPLERS):
                    values = [
                        r[key] for r in records
                        if r["problem"] == problem and r["sampler"] == sampler
                        and r["seed"] in seeds and r.get("status") == "ok"
                    ]  # fmt: skip
                    if values:
                        x = i + 0.2 * (2 * offset - 1)
                        ax.plot([x] * len(values), values, "o", color=f"C{offset}", alpha=0.6)
                        ax.plot([x - 0.08, x + 0.08], [np.median(values)] * 2, color="k")
            ax.set_xticks(range(len(SAMPLERS)), [s for s in SAMPLERS], fontsize=8)
            ax.set_title(problem if row == 0 else "")
            ax.set_yscale("log")
            if column == 0:
                ax.set_ylabel(label)
    axes[0, -1].plot([], [], "o", color="C0", label="whitened warm-up (default)")
    axes[0, -1].plot([], [], "o", color="C1", label="classic warm-up (published)")
    axes[0, -1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", choices=("whitened", "classic"), default="whitened")
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS))
    parser.add_argument("--samplers", nargs="+", default=list(SAMPLERS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--plot", type=Path, help="draw the figure from the records and stop")
    parser.add_argument("--table", action="store_true", help="print the table and stop")
    args = parser.parse_args()
    if args.plot is not None:
        plot(args.plot, args.seeds)
        return
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{args.warmup}.jsonl"
    if not args.table:
        run_tasks(tasks(args), path, jobs=args.jobs, progress=print)
    print(json.dumps({"warmup": args.warmup, "seeds": args.seeds}))
    print(table(load_records(path), args))


if __name__ == "__main__":
    main()
