"""The figures of the results page (``docs/results.md``), drawn from the benchmark records.

Every number a figure shows is read from a record under ``benchmarks/results/`` by the figure's
``<name>_data()`` function, which returns plain dicts and lists and needs only the standard
library. ``draw_<name>()`` draws it with matplotlib (Agg backend) into
``docs/_static/results/<name>.png``. Run from anywhere::

    python docs/results_figures.py

to write every PNG and ``docs/_static/results/figures.json``: per figure, every plotted number
and the record path(s) it came from (``tests/docs/test_results_figures.py`` checks that the
committed JSON is what the records give today).

Figures
-------
real_models
    ESS per 1000 log-density evaluations on the real-model suite, this package's steps against
    PyMC's samplers, the newest recorded run of each sampler on each model.
curved
    The curved targets (two 8-D bananas and the flower): the defaults, PyMC's samplers and an
    oracle ceiling (a history of exact draws handed to the step).
dimension
    ESS per 1000 evaluations against the dimension on three targets with exact answers.
smc_pool
    ``KameleonSMC``'s wall time without a pool, with ``ProcessPoolExecutor``,
    ``multiprocessing.Pool`` and Dask.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

__all__ = [
    "CURVED_SOURCES",
    "FIGURES",
    "OUT",
    "REAL_MODEL_SOURCES",
    "ROOT",
    "curved_data",
    "dimension_data",
    "draw_curved",
    "draw_dimension",
    "draw_real_models",
    "draw_smc_pool",
    "main",
    "read_jsonl",
    "real_models_data",
    "smc_pool_data",
    "write_all",
]

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "_static" / "results"
RESULTS = "benchmarks/results"

#: Real-model suite: per sampler, its records oldest first (a later record of the same model
#: replaces an earlier one), and the code each was run with (from the lab notes).
REAL_MODEL_SOURCES = {
    "KameleonStep()": [f"{RESULTS}/independence-share/suite/seed1/results.jsonl"],
    "AdaptiveMetropolis()": [f"{RESULTS}/independence-share/suite/seed1/results.jsonl"],
    "KMCStep()": [f"{RESULTS}/kmc-wide-copies/suite-shortfall-all-steps/seed1/results.jsonl"],
    **{
        peer: [
            f"{RESULTS}/real-baseline/results.jsonl",
            f"{RESULTS}/real-warmup/results.jsonl",
            f"{RESULTS}/real-nile/results.jsonl",
            f"{RESULTS}/real-defaults/results.jsonl",
        ]
        for peer in ("NUTS(0.95)", "pm.DEMetropolisZ", "pm.Metropolis", "pm.Slice")
    },
}
REAL_MODEL_SEED = 1

#: Curved targets: label -> (record, sampler name in the record).
CURVED_SOURCES = {
    "KMCStep()": (f"{RESULTS}/curved-budget/kmc-default.jsonl", "KMC-lite"),
    "KameleonStep()": (f"{RESULTS}/curved-budget/kamh-default.jsonl", "KAMH-LS"),
    "KMCStep(), 2000 exact draws": (f"{RESULTS}/curved-budget/kmc-oracle2000.jsonl", "KMC-lite"),
    "KMC, paper's warm-up, 2000 exact draws": (
        f"{RESULTS}/curved-budget/kmc-classic-oracle2000.jsonl",
        "KMC-lite",
    ),
    "KameleonStep(), 2000 exact draws": (
        f"{RESULTS}/curved-budget/kamh-oracle2000.jsonl",
        "KAMH-LS",
    ),
    "NUTS(0.95)": (f"{RESULTS}/suite/results.jsonl", "NUTS(0.95)"),
    "pm.DEMetropolisZ": (f"{RESULTS}/suite/results.jsonl", "pm.DEMetropolisZ"),
    "pm.Metropolis": (f"{RESULTS}/suite/results.jsonl", "pm.Metropolis"),
    "pm.Slice": (f"{RESULTS}/suite/results.jsonl", "pm.Slice"),
}
CURVED_PROBLEMS = ("banana-0.03", "banana-0.1", "flower")
#: the suite's PyMC runs at the practitioner budget (its other experiments are other budgets)
CURVED_SUITE_EXPERIMENT = "practitioner"
CURVED_RHAT = 1.05

DIMENSION_RECORDS = (f"{RESULTS}/dimension/dimension.jsonl", f"{RESULTS}/dimension/smoke.jsonl")
DIMENSION_PROBLEMS = ("gamma-gauss", "banana-0.03", "hier")
DIMENSION_SAMPLERS = {
    "KMC-lite": "KMCStep()",
    "KMC-finite": "KMCStep(estimator='finite')",
    "KAMH-LS": "KameleonStep()",
    "AM-LS": "AdaptiveMetropolis()",
    "NUTS(0.95)": "NUTS (per gradient)",
    "pm.DEMetropolisZ": "pm.DEMetropolisZ",
    "pm.Metropolis": "pm.Metropolis",
    "pm.Slice": "pm.Slice",
}
DIMENSION_SEEDS = (0, 1, 2)

SMC_POOL_RECORD = f"{RESULTS}/smc-pool/pinned-chunks-13c158e-seed1.log"

OURS = ("KameleonStep()", "AdaptiveMetropolis()", "KMCStep()")
MARKERS = {"KameleonStep()": "o", "AdaptiveMetropolis()": "s", "KMCStep()": "D"}


def read_jsonl(path: str) -> list[dict]:
    """The records of ``path`` (relative to the repository root), one dict per line."""
    lines = (ROOT / path).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


# --- real-model suite -------------------------------------------------------------------------


def real_models_data() -> dict:
    """ESS per 1000 evaluations and pass or fail, per sampler and model (seed 1).

    Returns
    -------
    dict
        ``models`` (in the suite's order), ``samplers``, and per sampler and model
        ``ess_per_1k_evals`` and ``passed`` (None where no run is recorded) and ``record``
        (the file the value came from); ``records``: every file read.
    """
    ess: dict[str, dict] = {}
    passed: dict[str, dict] = {}
    record: dict[str, dict] = {}
    models: list[str] = []
    for sampler, paths in REAL_MODEL_SOURCES.items():
        ess[sampler], passed[sampler], record[sampler] = {}, {}, {}
        for path in paths:
            for row in read_jsonl(path):
                if row["sampler"] != sampler or row["seed"] != REAL_MODEL_SEED:
                    continue
                if row.get("status") != "ok":
                    continue
                ess[sampler][row["model"]] = row["ess_per_1k_evals"]
                passed[sampler][row["model"]] = row["passed"]
                record[sampler][row["model"]] = path
                if sampler in OURS and row["model"] not in models:
                    models.append(row["model"])
    for sampler in REAL_MODEL_SOURCES:
        for table in (ess, passed, record):
            table[sampler] = {model: table[sampler].get(model) for model in models}
    paths = sorted({path for paths in REAL_MODEL_SOURCES.values() for path in paths})
    return {
        "models": models,
        "samplers": list(REAL_MODEL_SOURCES),
        "seed": REAL_MODEL_SEED,
        "ess_per_1k_evals": ess,
        "passed": passed,
        "record": record,
        "records": paths,
    }


def draw_real_models(data: dict, path: Path) -> None:
    """One row per model, ESS per 1000 evaluations on a log axis; hollow markers fail."""
    import matplotlib.pyplot as plt

    models, samplers = data["models"], data["samplers"]
    fig, ax = plt.subplots(figsize=(9.6, 0.42 * len(models) + 1.6))
    for i, sampler in enumerate(samplers):
        color, offset = f"C{i}", (i - (len(samplers) - 1) / 2) * 0.1
        points = [
            (value, row + offset, data["passed"][sampler][model])
            for row, model in enumerate(models)
            if (value := data["ess_per_1k_evals"][sampler][model]) is not None
        ]
        marker = MARKERS.get(sampler, "v")
        ax.plot([], [], marker, color=color, ms=6, label=sampler)  # a filled legend entry
        for x, y, good in points:
            ax.plot(x, y, marker, color=color, mfc=color if good else "none", ms=6)
    ax.set_yticks(range(len(models)), models)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("min bulk ESS per 1000 evaluations (NUTS: per gradient evaluation)")
    ax.set_title("Real models, 4 chains × (3000 + 3000), seed 1; hollow: fails the suite's check")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- curved targets ---------------------------------------------------------------------------


def _curved_rows(path: str, sampler: str, problem: str) -> list[dict]:
    rows = [
        r
        for r in read_jsonl(path)
        if r["sampler"] == sampler and r["problem"] == problem and r.get("status") == "ok"
    ]
    if path.endswith("suite/results.jsonl"):
        rows = [r for r in rows if r.get("experiment") == CURVED_SUITE_EXPERIMENT]
    return sorted(rows, key=lambda r: r["seed"])


def curved_data() -> dict:
    """Per target and sampler: ESS per 1000 kept-draw evaluations by seed, and their median.

    Returns
    -------
    dict
        ``problems``, ``samplers``, per sampler and problem ``seeds``, ``ess_per_1k_evals``
        (one per seed), ``median``, ``converged`` (every seed's max R-hat at most 1.05) and
        ``budget`` (chains, tune, draws, exact draws handed over), and per sampler its
        ``record``.
    """
    out: dict = {
        "problems": list(CURVED_PROBLEMS),
        "samplers": list(CURVED_SOURCES),
        "rhat_bar": CURVED_RHAT,
        "runs": {},
        "record": {},
    }
    for label, (path, sampler) in CURVED_SOURCES.items():
        out["record"][label] = path
        out["runs"][label] = {}
        for problem in CURVED_PROBLEMS:
            rows = _curved_rows(path, sampler, problem)
            if not rows:
                out["runs"][label][problem] = None
                continue
            values = [r["ess_per_1k_evals"] for r in rows]
            out["runs"][label][problem] = {
                "seeds": [r["seed"] for r in rows],
                "ess_per_1k_evals": values,
                "median": statistics.median(values),
                "converged": all(r["max_rhat"] <= CURVED_RHAT for r in rows),
                "budget": [rows[0]["chains"], rows[0]["tune"], rows[0]["draws"]],
                "exact_draws": rows[0].get("n_oracle", 0),
            }
    out["records"] = sorted(set(out["record"].values()))
    return out


def draw_curved(data: dict, path: Path) -> None:
    """Median ESS per 1000 kept-draw evaluations per target; seeds as dots, hollow bars fail."""
    import matplotlib.pyplot as plt

    samplers = data["samplers"]
    fig, axes = plt.subplots(1, len(data["problems"]), figsize=(12.0, 4.6), sharey=True)
    for ax, problem in zip(axes, data["problems"], strict=True):
        for row, label in enumerate(samplers):
            run = data["runs"][label][problem]
            if run is None:
                continue
            color = "C0" if label in OURS else ("C2" if "exact" in label else "C1")
            ax.barh(
                row,
                run["median"],
                color=color if run["converged"] else "none",
                edgecolor=color,
                height=0.6,
            )
            ax.plot(run["ess_per_1k_evals"], [row] * len(run["seeds"]), "k.", ms=4)
        ax.set_xscale("log")
        ax.set_title(problem)
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlabel("ESS per 1000 kept-draw evaluations")
    axes[0].set_yticks(range(len(samplers)), samplers, fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle(
        "Curved targets: median over 3 seeds (dots: each seed); hollow: some seed's "
        f"max R-hat > {data['rhat_bar']}",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- dimension sweep --------------------------------------------------------------------------


def _dimension_of(problem: str) -> int:
    """``gamma-gauss-20``, ``banana-0.03-d20`` and ``hier-20`` are all 20-dimensional."""
    return int(re.search(r"(\d+)$", problem).group(1))


def _kind_of(problem: str) -> str:
    return next(kind for kind in DIMENSION_PROBLEMS if problem.startswith(kind))


def _dimension_passed(record: dict) -> bool:
    """The sweep's rule (``benchmarks/dimension_check.py``): R-hat, ESS and chi-square check."""
    ess = record.get("min_bulk_ess", float("nan"))
    if not (record.get("status") == "ok" and ess >= 50 and record["max_rhat"] <= 1.05):
        return False
    return record["quantile_error"] <= 4 * 0.5 / ess**0.5


def dimension_data() -> dict:
    """Median (over seeds 0-2) ESS per 1000 evaluations against d, per target and sampler.

    Returns
    -------
    dict
        ``problems``, ``samplers`` (record name -> label) and per problem and sampler a list of
        ``[d, median, all runs pass, number of runs]``, d ascending; ``records``.
    """
    runs: dict[tuple, list[dict]] = {}
    for path in DIMENSION_RECORDS:
        for row in read_jsonl(path):
            if row.get("status") != "ok" or row["seed"] not in DIMENSION_SEEDS:
                continue
            if row["sampler"] not in DIMENSION_SAMPLERS:
                continue
            key = (_kind_of(row["problem"]), row["sampler"], _dimension_of(row["problem"]))
            runs.setdefault(key, []).append(row)
    points: dict = {kind: {} for kind in DIMENSION_PROBLEMS}
    for (kind, sampler, d), rows in sorted(runs.items()):
        points[kind].setdefault(sampler, []).append(
            [
                d,
                statistics.median(r["ess_per_1k_evals"] for r in rows),
                all(map(_dimension_passed, rows)),
                len(rows),
            ]
        )
    return {
        "problems": list(DIMENSION_PROBLEMS),
        "samplers": dict(DIMENSION_SAMPLERS),
        "points": points,
        "records": list(DIMENSION_RECORDS),
    }


def draw_dimension(data: dict, path: Path) -> None:
    """One panel per target, log-log; filled: every seed passes, hollow: any fails."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(data["problems"]), figsize=(12.6, 4.2))
    for ax, kind in zip(axes, data["problems"], strict=True):
        dims: set[int] = set()
        for sampler, label in data["samplers"].items():
            points = data["points"][kind].get(sampler)
            if not points:
                continue
            xs = [p[0] for p in points]
            dims.update(xs)
            (line,) = ax.plot(xs, [p[1] for p in points], label=label)
            for d, ess, good, _ in points:
                c = line.get_color()
                ax.plot(d, ess, "o", color=c, mfc=c if good else "none")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(sorted(dims), [str(d) for d in sorted(dims)])
        ax.set_xticks([], minor=True)
        ax.set_xlabel("dimension d")
        ax.set_title(kind)
    axes[0].set_ylabel("min ESS per 1000 evaluations (hollow: fails)")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- SMC pool ---------------------------------------------------------------------------------

_POOL_ROW = re.compile(r"^\| (\w+) \| ([^|]+?) \| ([^|]+?) \| ([0-9.]+) \| ([0-9.]+) \|")


def smc_pool_data() -> dict:
    """Wall seconds of ``KameleonSMC`` per model and pool, from the log's summary table.

    Returns
    -------
    dict
        ``models``: per model a list of ``{"pool", "workers", "wall_s", "ratio"}`` in the log's
        order (``ratio``: wall time over the serial run's); ``records``.
    """
    models: dict[str, list[dict]] = {}
    for line in (ROOT / SMC_POOL_RECORD).read_text().splitlines():
        match = _POOL_ROW.match(line)
        if match is None:
            continue
        model, pool, workers, wall, ratio = match.groups()
        pool = re.sub(r" \(first run [^)]*\)", "", pool)
        models.setdefault(model, []).append(
            {
                "pool": pool,
                "workers": None if workers == "-" else int(workers),
                "wall_s": float(wall),
                "ratio": float(ratio),
            }
        )
    return {"models": models, "records": [SMC_POOL_RECORD]}


def draw_smc_pool(data: dict, path: Path) -> None:
    """Wall time per pool, one panel per model, the ratio to the serial run written on each bar."""
    import matplotlib.pyplot as plt

    names = list(data["models"])
    fig, axes = plt.subplots(1, len(names), figsize=(5.2 * len(names), 3.4))
    for ax, model in zip(axes, names, strict=True):
        rows = data["models"][model]
        labels = [
            r["pool"] if r["workers"] is None else f"{r['pool']} ×{r['workers']}" for r in rows
        ]
        ax.barh(range(len(rows)), [r["wall_s"] for r in rows], color="C0")
        for i, r in enumerate(rows):
            ax.text(r["wall_s"], i, f" {r['ratio']:.2f}×", va="center", fontsize=8)
        ax.set_yticks(range(len(rows)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("wall seconds")
        ax.set_title(f"KameleonSMC, {model} model")
        ax.set_xlim(0, 1.25 * max(r["wall_s"] for r in rows))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- all figures ------------------------------------------------------------------------------

#: name -> (data function, drawing function)
FIGURES = {
    "real_models": (real_models_data, draw_real_models),
    "curved": (curved_data, draw_curved),
    "dimension": (dimension_data, draw_dimension),
    "smc_pool": (smc_pool_data, draw_smc_pool),
}


def write_all(out: Path = OUT) -> dict:
    """Draw every figure into ``out/<name>.png`` and write ``out/figures.json``.

    Parameters
    ----------
    out : Path
        The folder for the PNGs and the JSON.

    Returns
    -------
    dict
        What ``figures.json`` holds: per figure, its data and its PNG's path.
    """
    import matplotlib

    matplotlib.use("Agg")
    out.mkdir(parents=True, exist_ok=True)
    summary = {}
    for name, (data_of, draw) in FIGURES.items():
        data = data_of()
        draw(data, out / f"{name}.png")
        summary[name] = {"png": f"docs/_static/results/{name}.png", "data": data}
    (out / "figures.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def main() -> None:
    """Write every figure and ``figures.json`` into ``docs/_static/results``."""
    for name, entry in write_all().items():
        print(f"{entry['png']}: from {', '.join(entry['data']['records'])} ({name})")


if __name__ == "__main__":
    main()
