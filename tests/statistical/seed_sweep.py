"""Seed sweep of the statistical tests: how often would each one fail for a correct sampler?

Runs every case of ``stat_cases.py`` beside this script (the very cases the tests run) at
``--seeds`` consecutive seeds starting from the case's own seed, so the sweep includes the seeds
that ``pytest --seed-offset 0, 1, 2, ...`` uses. It lives with its cases in ``tests/statistical/``
(pytest collects only ``test_*.py``), and its results in ``benchmarks/results/seed_sweep/``.
Each finished run is appended to ``results.jsonl`` at once (a re-run resumes, through
:func:`pymc_kameleon.bench.records.run_resumable`); ``report`` writes ``report.md``::

    python tests/statistical/seed_sweep.py run --seeds 24     # all cases, hours on 2 cores
    python tests/statistical/seed_sweep.py run --seeds 24 --cases gaussian-kmc
    python tests/statistical/seed_sweep.py report

How the false-failure rate is estimated: a test fails when any of its ``k`` z-scores reaches
``Z_TOL`` (4). With 24 seeds an observed rate can only be bounded to a few percent, so the report
also pools every z-score of the case over all seeds and takes their root mean square ``s``
(which includes any bias): if the z-scores behave like ``N(0, s^2)`` the chance that one run
fails is ``1 - (1 - 2 Phi(-Z_TOL / s))^k``. The report shows the observed failures, the largest
|mean z| of any one summary across seeds (a bias shows up there: its standard error is about
``1/sqrt(seeds)``), the excess kurtosis of the pooled z-scores (heavy tails from unreliable
MCSEs show up there), the smallest ESS behind any MCSE, and the estimate. For a negative control
the interesting number is the smallest max |z| over the seeds, which must stay above
``2 * Z_TOL``.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import time
import traceback
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import stat_cases  # beside this script: its folder is on sys.path when it is run
from scipy import stats

from pymc_kameleon.bench.records import load_records, run_resumable

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "seed_sweep"


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


class SweepRun(NamedTuple):
    """One case at one seed; ``key`` is what :func:`record_key` gives for its record."""

    case: Any
    seed: int

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.case.name, self.seed, budget(self.case))


def record_key(record: dict) -> tuple[str, int, str]:
    """The run a record is of: its case, seed and budget (records at other budgets stay)."""
    return (record["case"], record["seed"], record.get("budget", ""))


def all_cases() -> dict:
    """Long-run cases and frozen-kernel invariance cases, by name."""
    return {**stat_cases.CASES, **stat_cases.INVARIANCE_CASES}


def budget(case) -> str:
    """The case's budget as the report shows it (records at another budget are ignored)."""
    if isinstance(case, stat_cases.InvarianceCase):
        return f"tune {case.tune}; {case.n_starts} starts × {case.n_steps} steps"
    return f"{stat_cases.CHAINS}×({case.tune}+{case.draws})"


def run_one(case, seed: int) -> dict:
    start = time.perf_counter()
    record = {"case": case.name, "seed": seed, "seed_offset": seed - case.seed,
              "budget": budget(case)}  # fmt: skip
    try:
        if isinstance(case, stat_cases.InvarianceCase):
            idata = None
            z = stat_cases.invariance_zscores(case, stat_cases.invariance_draws(case, seed))
        else:
            idata = stat_cases.sample(case, seed)
            z = stat_cases.zscores(case, idata)
        record.update(z=z.values.tolist(), labels=list(z.labels), ess=z.ess.tolist())
        record["max_abs"] = z.max_abs
        try:
            for check in getattr(case, "checks", ()):
                check(idata)
            record["checks_ok"] = True
        except AssertionError as err:
            record.update(checks_ok=False, check_error=str(err))
    except Exception:  # a crash is recorded, not fatal to the sweep
        record.update(z=None, error=traceback.format_exc(limit=3))
    record["seconds"] = round(time.perf_counter() - start, 2)
    return record


def _line(record: dict) -> str:
    return (
        f"{record['case']:36s} seed {record['seed']:>9d}  "
        f"max|z| {record.get('max_abs', math.nan):6.2f}  {record['seconds']:6.1f} s"
    )


def run(args) -> None:
    commit = _commit()
    selected = [c for n, c in all_cases().items() if not args.cases or args.cases in n]
    # seeds outer: an interrupted sweep still covers every case
    runs = [SweepRun(case, case.seed + k) for k in range(args.seeds) for case in selected]

    def run_task(task: SweepRun) -> dict:
        return {**run_one(task.case, task.seed), "commit": commit}

    run_resumable(
        runs, run_task, Path(args.out) / "results.jsonl", key=record_key, summary=_line,
        finished=lambda record: record.get("z") is not None,
        progress=lambda line: print(line, flush=True),
    )  # fmt: skip


def _failure_estimate(rms: float, k: int, tol: float) -> float:
    one = 2.0 * stats.norm.sf(tol / rms)
    return float(-np.expm1(k * np.log1p(-one)))


def summarise(records: list[dict], case) -> dict:
    ok = [r for r in records if r.get("z") is not None]
    z = np.array([r["z"] for r in ok])
    max_abs = np.array([r["max_abs"] for r in ok])
    checks_failed = sum(1 for r in ok if not r.get("checks_ok", True))
    tol = stat_cases.Z_TOL
    row = {
        "case": case.name,
        "negative": case.negative_control,
        "budget": budget(case),
        "seeds": len(ok),
        "crashes": len(records) - len(ok),
        "median_seconds": float(np.median([r["seconds"] for r in ok])) if ok else math.nan,
    }
    if not ok:
        return row
    row["k"] = z.shape[1]
    row["median_max_abs"] = float(np.median(max_abs))
    row["min_max_abs"] = float(np.min(max_abs))
    row["max_max_abs"] = float(np.max(max_abs))
    row["min_ess"] = float(np.min([min(r["ess"]) for r in ok]))
    row["median_min_ess"] = float(np.median([min(r["ess"]) for r in ok]))
    if case.negative_control:
        row["false_passes"] = int(np.sum(max_abs < 2 * tol))
        return row
    pooled = z.ravel()
    row["failures"] = int(np.sum(max_abs >= tol)) + checks_failed
    row["checks_failed"] = checks_failed
    row["rms_z"] = float(np.sqrt(np.mean(pooled**2)))
    row["max_abs_mean_z"] = float(np.max(np.abs(z.mean(axis=0))))
    row["excess_kurtosis"] = float(stats.kurtosis(pooled))
    row["estimated_failure_rate"] = _failure_estimate(row["rms_z"], z.shape[1], tol)
    return row


def report(args) -> None:
    out = Path(args.out)
    records = load_records(out / "results.jsonl")
    commits = sorted({r.get("commit", "?") for r in records})
    rows = []
    for name, case in all_cases().items():
        # only runs at the case's current budget count (older budgets stay in the file)
        mine = [r for r in records if r["case"] == name and r.get("budget") == budget(case)]
        if mine:
            rows.append(summarise(mine, case))
    lines = [
        "# Seed sweep of the statistical tests",
        "",
        f"Command: `python tests/statistical/seed_sweep.py run --seeds N` then `... report`; "
        f"commits {', '.join(commits)}. Tolerance |z| < {stat_cases.Z_TOL} MCSE on every "
        "compared mean, variance and quantile; negative controls must reach "
        f"{2 * stat_cases.Z_TOL}. Columns: k = z-scores per run; rms z over all runs and "
        "summaries (1 for exact MCSEs and no bias); max |mean z| = largest bias of one summary "
        "across seeds (standard error about 1/sqrt(seeds)); kurt = excess kurtosis of the pooled "
        "z (0 for normal); est. rate = estimated false-failure rate of one run if the z are "
        "N(0, rms²).",
        "",
        "| case | budget | seeds | failures | median / max max|z| | rms z | max |mean z| | kurt "
        "| min ESS (median) | est. rate | s/run |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["negative"] or "k" not in r:
            continue
        lines.append(
            f"| {r['case']} | {r['budget']} | {r['seeds']} | {r['failures']} "
            f"| {r['median_max_abs']:.2f} / {r['max_max_abs']:.2f} | {r['rms_z']:.2f} "
            f"| {r['max_abs_mean_z']:.2f} | {r['excess_kurtosis']:.2f} "
            f"| {r['min_ess']:.0f} ({r['median_min_ess']:.0f}) "
            f"| {r['estimated_failure_rate']:.1e} | {r['median_seconds']:.0f} |"
        )
    lines += [
        "",
        "Negative controls (must fail: max |z| above the bound at every seed):",
        "",
        "| case | budget | seeds | false passes | min / median max|z| | s/run |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        if not r["negative"] or "k" not in r:
            continue
        lines.append(
            f"| {r['case']} | {r['budget']} | {r['seeds']} | {r['false_passes']} "
            f"| {r['min_max_abs']:.1f} / {r['median_max_abs']:.1f} | {r['median_seconds']:.0f} |"
        )
    crashed = [r for r in rows if r["crashes"]]
    if crashed:
        lines += [
            "",
            "Crashed runs: " + ", ".join(f"{r['case']} ({r['crashes']})" for r in crashed),
        ]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="run the sweep (resumes)")
    p_run.add_argument("--seeds", type=int, default=24)
    p_run.add_argument("--cases", default="", help="substring of the case names to run")
    p_run.add_argument("--out", default=str(DEFAULT_OUT))
    p_rep = sub.add_parser("report", help="write report.md from results.jsonl")
    p_rep.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args(argv)
    run(args) if args.command == "run" else report(args)


if __name__ == "__main__":
    main()
