"""Markdown tables and PNG figures from benchmark records.

Cells are ``median [min-max]`` over seeds. Figures need matplotlib (the ``examples`` extra);
without it the report is written without them and says so.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.bench.samplers import SAMPLERS
from pymc_kameleon.bench.targets_met import select_records, target_checks

__all__ = ["environment_lines", "make_figures", "markdown_report", "target_checks"]

# (record key, header, format)
PRACTITIONER_COLUMNS = (
    ("min_bulk_ess", "min bulk ESS", "{:.0f}"),
    ("min_tail_ess", "min tail ESS", "{:.0f}"),
    ("max_rhat", "max R̂", "{:.2f}"),
    ("acceptance", "acc", "{:.2f}"),
    ("ess_per_1k_evals", "ESS / 1k evals", "{:.2f}"),
    ("ess_per_s", "ESS / s", "{:.1f}"),
    ("quantile_error", "q err", "{:.3f}"),
    ("coord_quantile_error", "coord q err (sd)", "{:.3f}"),
    ("mean_norm", "‖Ê[X]‖", "{:.2f}"),
    ("us_per_iter", "µs / iter", "{:.0f}"),
)
PAPER_COLUMNS = (
    ("quantile_error", "q err", "{:.3f}"),
    ("mean_norm", "‖Ê[X]‖", "{:.2f}"),
    ("acceptance", "acc", "{:.2f}"),
    ("min_bulk_ess", "min bulk ESS", "{:.0f}"),
    ("max_rhat", "max R̂", "{:.2f}"),
    ("ess_per_1k_evals", "ESS / 1k evals", "{:.2f}"),
    ("us_per_iter", "µs / iter", "{:.0f}"),
)
EQUAL_EVALS_COLUMNS = (
    ("draw_evals", "draw-phase evals", "{:.0f}"),
    ("min_bulk_ess", "min bulk ESS", "{:.0f}"),
    ("max_rhat", "max R̂", "{:.2f}"),
    ("ess_per_1k_evals", "ESS / 1k evals", "{:.2f}"),
    ("ess_per_s", "ESS / s", "{:.2f}"),
    ("quantile_error", "q err", "{:.3f}"),
    ("mean_norm", "‖Ê[X]‖", "{:.2f}"),
    ("us_per_iter", "µs / iter", "{:.0f}"),
)
COSTLY_EXTRA_COLUMNS = (
    ("logp_calls_per_iter", "logp calls / iter", "{:.2f}"),
    ("overhead_fraction", "time outside logp", "{:.1%}"),
)
ORACLE_COLUMNS = (
    ("acceptance", "acc", "{:.2f}"),
    ("min_bulk_ess", "min bulk ESS (4 chains)", "{:.0f}"),
    ("ess_per_1k_evals", "ESS / 1k evals", "{:.1f}"),
    ("quantile_error", "q err", "{:.3f}"),
    ("mean_norm", "‖Ê[X]‖", "{:.2f}"),
    ("us_per_iter", "µs / iter", "{:.0f}"),
)
GLASS_COLUMNS = (
    ("min_bulk_ess", "min bulk ESS", "{:.0f}"),
    ("acceptance", "acc", "{:.2f}"),
    ("mmd2", "MMD² to benchmark", "{:.3g}"),
    ("mean_error", "‖mean − benchmark mean‖", "{:.3f}"),
    ("noise_sd", "noise sd", "{:.2f}"),
    ("sampling_s", "s", "{:.0f}"),
)


def _cell(values: Sequence[float], fmt: str) -> str:
    values = np.asarray([v for v in values if v is not None], dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return "–"
    median, low, high = (fmt.format(f(values)) for f in (np.median, np.min, np.max))
    return median if values.size == 1 or low == high else f"{median} [{low}–{high}]"


def _table(
    records: Sequence[dict], row_keys: Sequence[str], columns: Sequence[tuple[str, str, str]]
) -> str:
    """One markdown row per distinct value of ``row_keys``, cells over the matching records."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    failures: dict[tuple, list[str]] = defaultdict(list)
    for record in records:
        row = tuple(record[k] for k in row_keys)
        if record["status"] == "ok":
            groups[row].append(record)
        else:
            failures[row].append(record["status"])
            groups.setdefault(row, [])
    header = [*row_keys, "seeds", *(title for _, title, _ in columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row, group in sorted(groups.items(), key=lambda item: _row_order(item[0])):
        cells = [_cell([r.get(key) for r in group], fmt) for key, _, fmt in columns]
        seeds = str(len(group))
        if failures.get(row):
            seeds += f" ({len(failures[row])} failed: {failures[row][0][:80]})"
        lines.append("| " + " | ".join([*map(str, row), seeds, *cells]) + " |")
    return "\n".join(lines)


def _row_order(row: tuple) -> tuple:
    """Sort rows by the registry order of samplers, then numerically."""
    return tuple((list(SAMPLERS).index(v), 0) if v in SAMPLERS else (len(SAMPLERS), v) for v in row)


def _budget(records: Sequence[dict]) -> str:
    first = records[0]
    return f"{first['chains']} chains × ({first['tune']} tune + {first['draws']} draws)"


def _section_practitioner(records: Sequence[dict]) -> list[str]:
    lines = ["## Practitioner budget", ""]
    for problem in dict.fromkeys(r["problem"] for r in records):
        rows = select_records(records, problem=problem)
        lines += [
            f"### {get_problem(problem).title}, {_budget(rows)}",
            "",
            _table(rows, ("sampler",), PRACTITIONER_COLUMNS),
            "",
        ]
    return lines


def _section_paper(records: Sequence[dict]) -> list[str]:
    lines = ["## The KAMH paper's Figure 5: paper-length runs started at 0", ""]
    for problem in dict.fromkeys(r["problem"] for r in records):
        rows = select_records(records, problem=problem)
        lines += [
            f"### {get_problem(problem).title}, {_budget(rows)}",
            "",
            _table(rows, ("sampler",), PAPER_COLUMNS),
            "",
        ]
    return [*lines, "![KAMH Figure 5](kamh_fig5.png)", ""]


def _section_equal(records: Sequence[dict], title: str, costly: bool) -> list[str]:
    columns = EQUAL_EVALS_COLUMNS + (COSTLY_EXTRA_COLUMNS if costly else ())
    lines = [f"## {title}", "", _table(records, ("sampler", "tune", "draws"), columns), ""]
    if costly:
        lines += ["![ESS per second, costly banana](costly_ess_per_s.png)", ""]
    return lines


def _section_oracle(records: Sequence[dict]) -> list[str]:
    columns = (*ORACLE_COLUMNS, ("chain_min_ess_median", "single-chain min ESS", "{:.0f}"))
    records = [
        {**r, "chain_min_ess_median": float(np.median(r["chain_min_ess"]))}
        if r["status"] == "ok"
        else r
        for r in records
    ]  # copies: the caller's records stay as loaded
    rows = [r for r in records if r["n_oracle"] > 0] + [r for r in records if r["n_oracle"] == 0]
    return [
        f"## The KMC paper's Figure 3: oracle history of n exact draws, B(0.03, 100), "
        f"{_budget(records)}",
        "",
        _table(rows, ("sampler", "n_oracle"), columns),
        "",
        "![KMC Figure 3](kmc_fig3.png)",
        "",
    ]


def _section_glass(records: Sequence[dict]) -> list[str]:
    return [
        f"## GP classification on Glass (pseudo-marginal), {_budget(records)}",
        "",
        _table(records, ("sampler",), GLASS_COLUMNS),
        "",
    ]


def environment_lines(command: str) -> list[str]:
    """Provenance: command, date, machine, versions, commit.

    Parameters
    ----------
    command : str
        The command line that produced the results.

    Returns
    -------
    list of str
        Markdown bullet lines.
    """
    import arviz
    import pymc
    import pytensor

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parent,
        ).stdout.strip()
    except OSError:
        commit = ""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return [
        f"- Command: `{command}`",
        f"- Date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}"
        + (f"; commit {commit}" if commit else ""),
        f"- Machine: {platform.platform()}; {cpu}, {os.cpu_count()} logical cores{memory}",
        f"- Versions: Python {platform.python_version()}, pymc {pymc.__version__}, pytensor "
        f"{pytensor.__version__}, arviz {arviz.__version__}, numpy {np.__version__}",
    ]


def markdown_report(records: Sequence[dict], command: str, figures: bool) -> str:
    """The whole report as markdown.

    Parameters
    ----------
    records : sequence of dict
        Records of one suite run.
    command : str
        Command line, for provenance.
    figures : bool
        Whether the PNG figures were written.

    Returns
    -------
    str
    """
    lines = ["# Benchmark suite results", "", *environment_lines(command), ""]
    lines += [
        "Cells: median [min–max] over seeds. Each run is `pm.sample(cores=1)`: its chains one "
        "after another on one core; timings exclude compilation (`sampling_time`, warm-up "
        "included). ESS/R̂: ArviZ, rank-normalised, pooled over chains, min/max over "
        "coordinates. *ESS / 1k evals*: min bulk ESS per 1000 draw-phase log-density "
        "evaluations at new points, counted from sampler stats. *q err*: the KAMH paper's "
        "quantile error of the Gaussianised squared norm (exact χ²_d quantiles for the banana "
        "and Gaussians; quantiles from exact draws for the flower). *coord q err*: mean over "
        "coordinates and levels 0.1…0.9 of |estimated − exact quantile| / sd. ‖Ê[X]‖: norm of "
        "the sample mean (exactly 0). ESS below about 50 is noise.",
        "",
    ]
    checks = target_checks(records)
    if checks:
        lines += ["## The issue's targets", "", *checks, ""]
    sections = {
        "practitioner": _section_practitioner,
        "paper": _section_paper,
        "equal-evals": lambda rs: _section_equal(
            rs, f"Equal evaluations: B(0.1, 100), {rs[0]['chains']} chains", costly=False
        ),
        "costly": lambda rs: _section_equal(
            rs,
            f"Costly log-density (1 ms per call): B(0.1, 100), {rs[0]['chains']} chains, "
            "equal evaluations",
            costly=True,
        ),
        "oracle-n": _section_oracle,
        "glass": _section_glass,
    }
    for name, section in sections.items():
        rows = select_records(records, experiment=name)
        if rows:
            lines += section(rows)
    if not figures:
        lines += ["(Figures were not drawn: matplotlib is not installed.)", ""]
    return "\n".join(lines)


def make_figures(records: Sequence[dict], out: Path) -> bool:
    """Draw the PNG figures into ``out``; return False if matplotlib is missing.

    Parameters
    ----------
    records : sequence of dict
    out : pathlib.Path

    Returns
    -------
    bool
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    ok = [r for r in records if r["status"] == "ok"]
    _figure_paper(plt, select_records(ok, experiment="paper"), out / "kamh_fig5.png")
    _figure_oracle(plt, select_records(ok, experiment="oracle-n"), out / "kmc_fig3.png")
    _figure_bars(
        plt,
        select_records(ok, experiment="costly"),
        "ess_per_s",
        "min bulk ESS per second",
        out / "costly_ess_per_s.png",
    )
    _figure_practitioner(
        plt, select_records(ok, experiment="practitioner"), out / "ess_per_eval.png"
    )
    return True


def _figure_paper(plt, records, path: Path) -> None:
    if not records:
        return
    problems = list(dict.fromkeys(r["problem"] for r in records))
    samplers = [s for s in SAMPLERS if select_records(records, sampler=s)]
    fig, axes = plt.subplots(2, len(problems), figsize=(4.2 * len(problems), 7), squeeze=False)
    for col, problem in enumerate(problems):
        for row, (key, label) in enumerate(
            (("chain_quantile_error", "quantile error (per chain)"), ("chain_mean_norm", "‖Ê[X]‖"))
        ):
            data = [
                [
                    v
                    for r in select_records(records, problem=problem, sampler=s)
                    for v in r.get(key, [])
                ]
                for s in samplers
            ]
            ax = axes[row, col]
            ax.boxplot(data, tick_labels=samplers)
            ax.set_ylabel(label)
            ax.set_title(get_problem(problem).title.split(", d=")[0] if row == 0 else "")
            ax.tick_params(axis="x", rotation=30)
    fig.suptitle("KAMH paper Fig. 5: per-chain accuracy after the paper's iteration counts")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _figure_oracle(plt, records, path: Path) -> None:
    if not records:
        return
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    panels = (
        ("chain_min_ess", "single-chain min ESS"),
        ("acceptance", "acceptance"),
        ("chain_mean_norm", "‖Ê[X]‖ per chain"),
    )
    for ax, (key, label) in zip(axes, panels, strict=True):
        for sampler in dict.fromkeys(r["sampler"] for r in records):
            rows = select_records(records, sampler=sampler)
            values = {}
            for r in rows:
                v = r.get(key)
                values.setdefault(r["n_oracle"], []).extend(v if isinstance(v, list) else [v])
            if set(values) == {0}:  # baseline: no oracle, a horizontal band
                vals = np.asarray(values[0], dtype=float)
                color = "k" if "NUTS" in sampler else "grey"
                ax.axhline(np.median(vals), ls="--", label=sampler, color=color)
                continue
            ns = sorted(values)
            med = [np.median(values[n]) for n in ns]
            lo = [np.quantile(values[n], 0.1) for n in ns]
            hi = [np.quantile(values[n], 0.9) for n in ns]
            ax.plot(ns, med, marker="o", label=sampler)
            ax.fill_between(ns, lo, hi, alpha=0.2)
        ax.set_xscale("log")
        ax.set_xlabel("n (exact draws in the initial history)")
        ax.set_ylabel(label)
    axes[0].legend(fontsize=8)
    fig.suptitle("KMC paper Fig. 3 on B(0.03, 100), d=8: median and 10–90 % over chains")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _figure_bars(plt, records, key: str, label: str, path: Path) -> None:
    if not records:
        return
    samplers = [s for s in SAMPLERS if select_records(records, sampler=s)]
    values = [[r[key] for r in select_records(records, sampler=s)] for s in samplers]
    fig, ax = plt.subplots(figsize=(8, 4))
    medians = [np.median(v) for v in values]
    ax.bar(samplers, medians, color=["C0" if not s.startswith("pm.") else "C1" for s in samplers])
    for i, v in enumerate(values):
        ax.plot([i] * len(v), v, "k.", ms=4)
    ax.set_ylabel(label)
    ax.tick_params(axis="x", rotation=30)
    ax.set_title("B(0.1, 100) with a 1 ms log-density: ours (blue) vs PyMC's (orange)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _figure_practitioner(plt, records, path: Path) -> None:
    if not records:
        return
    problems = list(dict.fromkeys(r["problem"] for r in records))
    samplers = [s for s in SAMPLERS if select_records(records, sampler=s)]
    fig, axes = plt.subplots(1, 2, figsize=(15, 5))
    width = 0.8 / len(problems)
    for j, problem in enumerate(problems):
        for ax, key in zip(axes, ("ess_per_1k_evals", "quantile_error"), strict=True):
            med = [
                np.median(
                    [r[key] for r in select_records(records, problem=problem, sampler=s)]
                    or [np.nan]
                )
                for s in samplers
            ]
            ax.bar(np.arange(len(samplers)) + j * width, med, width, label=problem)
    labels = ("min bulk ESS per 1000 evaluations", "quantile error")
    for ax, label in zip(axes, labels, strict=True):
        ax.set_xticks(np.arange(len(samplers)) + 0.4 - width / 2, samplers, rotation=35)
        ax.set_yscale("log")
        ax.set_ylabel(label)
    axes[0].legend(fontsize=8)
    fig.suptitle("Practitioner budget, median over seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
