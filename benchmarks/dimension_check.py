"""ESS per evaluation against the dimension, for every sampler (issue 33, first part).

Targets (``pymc_kameleon.bench.dimension``): ``gamma-gauss-{d}``, the KMC paper's Figure-2
Gaussian (Gamma(1, 1) eigenvalues under a random rotation), and ``banana-0.03-d{d}``, Haario's
banana B(0.03, 100) padded with ``d - 2`` standard normal coordinates, and ``hier-{d}``, the centred
hierarchical normal model with ``d - 2`` group effects (``d >= 3``: at ``d = 2`` it is run at
``d = 3``). Samplers: this package's
defaults (``KMCStep()`` lite and finite, ``KameleonStep()``, ``AdaptiveMetropolis()``: the bench
specs with the whitened warm-up) and PyMC's ``Metropolis``, ``DEMetropolisZ``, ``Slice`` and
``NUTS`` (the ceiling, per gradient evaluation). Budget rule: 4 chains of ``max(1000, 200 d)``
warm-up iterations and as many draws, from seeded N(0, I) starts, seeds 0-2.

A run passes when max R-hat <= 1.05, min bulk ESS >= 50 (the real-model suite's convergence
rule) and the statistic's quantile error (the squared norm of the Gaussianised draws against its
exact chi-squared quantiles, the KAMH paper's metric) is within 4 Monte Carlo standard errors,
``4 * 0.5 / sqrt(min bulk ESS)``. Usage::

    python benchmarks/dimension_check.py benchmarks/results/dimension dimension \
        [--dims 2 5 10 20 50 100] [--problems gamma-gauss banana-0.03 hier] [--samplers ...] \
        [--seeds 0 1 2] [--jobs 2] [--pool-warmup]
    python benchmarks/dimension_check.py benchmarks/results/dimension dimension \
        --plot docs/_static/dimension_ess.png [--extra-records OTHER.jsonl ...]

``--pool-warmup`` gives this package's steps ``pool_warmup=True`` (the chains learn from each
other during warm-up), and ``--options '{"target_accept": 0.8}'`` any keyword arguments (pick
the steps that take them with ``--samplers``); record such runs under a tag of their own, since
a record's key does not include the step's options.

Records: one JSON line per run in ``OUT_DIR/TAG.jsonl`` (finished runs are not repeated), with
the peak resident memory of its sampling; the table (medians over seeds) is printed.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.bench.runner import Task, load_records, run_tasks

OURS = ("KMC-lite", "KMC-finite", "KAMH-LS", "KAMH-PCA", "AM-LS")
PYMC = ("pm.Metropolis", "pm.DEMetropolisZ", "pm.Slice", "NUTS(0.95)")
TABLE_COLUMNS = (
    "ess_per_1k_evals", "max_rhat", "us_per_iter", "peak_rss_mb", "peak_rss_increase_mb"
)  # fmt: skip
DEFAULTS = {"warmup": "whitened"}  # the bench specs pin the papers' warm-up; ours use the default


def budget(d: int) -> int:
    """Warm-up iterations, and draws, per chain at dimension ``d``."""
    return max(1000, 200 * d)


def passed(record: dict) -> bool:
    """The pass rule of the module docstring."""
    ess = record.get("min_bulk_ess", math.nan)
    if not (record.get("status") == "ok" and ess >= 50 and record["max_rhat"] <= 1.05):
        return False
    return record["quantile_error"] <= 4 * 0.5 / math.sqrt(ess)


def problem_name(kind: str, d: int) -> str:
    """The benchmark name of target family ``kind`` at dimension ``d``."""
    if kind == "hier":
        return f"hier-{max(d, 3)}"
    return f"{kind}-{d}" if kind == "gamma-gauss" else f"{kind}-d{d}"


def tasks(args) -> list[Task]:
    """Every (problem, d, sampler, seed) of the command line."""
    return [
        Task(
            "dimension",
            problem_name(kind, d),
            sampler,
            seed,
            args.chains,
            budget(d),
            budget(d),
            extra=(DEFAULTS | ({"pool_warmup": True} if args.pool_warmup else {}) | args.options)
            if sampler in OURS
            else {},
        )
        for kind in args.problems
        for d in args.dims
        for sampler in args.samplers
        for seed in args.seeds
    ]


def table(records: list[dict], args) -> str:
    """Medians over seeds: ESS per 1000 evaluations, passes, max R-hat, µs per iteration."""
    lines = [
        "| target | d | sampler | ESS / 1000 evals | passes | max R-hat | µs / iteration "
        "| peak MiB (rise) |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for task in tasks(args)[:: len(args.seeds)]:
        runs = [
            r for r in records
            if r["problem"] == task.problem and r["sampler"] == task.sampler
            and r["seed"] in args.seeds and r.get("status") == "ok"
        ]  # fmt: skip
        if not runs:
            continue

        ess, rhat, cost, peak, rise = np.median(
            [[r.get(column, math.nan) for column in TABLE_COLUMNS] for r in runs], axis=0
        )
        lines.append(
            f"| {task.problem} | {get_problem(task.problem).dim} | {task.sampler} | {ess:.2f} "
            f"| {sum(passed(r) for r in runs)}/{len(runs)} | {rhat:.3f} | {cost:.0f} "
            f"| {peak:.0f} ({rise:.0f}) |"
        )
    return "\n".join(lines)


LABELS = {
    "KMC-lite": "KMCStep() lite", "KMC-finite": "KMCStep() finite", "KAMH-LS": "KameleonStep()",
    "AM-LS": "AdaptiveMetropolis()", "NUTS(0.95)": "NUTS (per gradient)",
}  # fmt: skip


def plot(records: list[dict], args, path: Path) -> None:
    """ESS per 1000 evaluations against d, one panel per target, median over seeds.

    A filled marker is a (d, sampler) whose runs all pass, a hollow one any failure.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(args.problems), figsize=(4.2 * len(args.problems), 4.0))
    for ax, kind in zip(np.atleast_1d(axes), args.problems, strict=True):
        for sampler in args.samplers:
            points = []
            for d in args.dims:
                runs = [
                    r for r in records
                    if r["problem"] == problem_name(kind, d) and r["sampler"] == sampler
                    and r["seed"] in args.seeds and r.get("status") == "ok"
                ]  # fmt: skip
                if runs:
                    ess = float(np.median([r["ess_per_1k_evals"] for r in runs]))
                    dim = get_problem(problem_name(kind, d)).dim
                    points.append((dim, ess, all(map(passed, runs))))
            if not points:
                continue
            dims, ess, _ = zip(*points, strict=True)
            (line,) = ax.plot(dims, ess, label=LABELS.get(sampler, sampler))
            for x, y, good in points:
                ax.plot(x, y, "o", color=line.get_color(), mfc=line.get_color() if good else "none")
        ax.set_xscale("log")
        ax.set_yscale("log")
        dims = sorted({get_problem(problem_name(kind, d)).dim for d in args.dims})
        ax.set_xticks(dims, [str(d) for d in dims], minor=False)
        ax.set_xticks([], minor=True)
        ax.set_xlabel("dimension d")
        ax.set_title(kind)
    np.atleast_1d(axes)[0].set_ylabel("min ESS per 1000 evaluations (hollow: fails)")
    np.atleast_1d(axes)[-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("tag")
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 5, 10, 20, 50, 100])
    parser.add_argument("--problems", nargs="+", default=["gamma-gauss", "banana-0.03", "hier"])
    parser.add_argument("--samplers", nargs="+", default=list(OURS + PYMC))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pool-warmup", action="store_true", help="our steps pool the warm-up")
    parser.add_argument(
        "--options", type=json.loads, default={}, help="JSON keyword arguments for our steps"
    )
    parser.add_argument("--plot", type=Path, help="draw the figure from the records and stop")
    parser.add_argument("--extra-records", type=Path, nargs="*", default=[])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{args.tag}.jsonl"
    if args.plot is not None:
        records = [r for p in (path, *args.extra_records) for r in load_records(p)]
        plot(records, args, args.plot)
        return
    run_tasks(tasks(args), path, jobs=args.jobs, progress=print)
    print(table(load_records(path), args))


if __name__ == "__main__":
    main()
