"""Side-by-side benchmark on the 8-D banana B(0.1, 100) at an equal logp-evaluation budget.

Runs KameleonStep, AdaptiveMetropolis (learned and fixed scale), KMCStep (lite, finite),
pm.Metropolis and
pm.DEMetropolisZ in one process, with 4 chains sampled sequentially on one core. Every
sampler gets the same number of logp evaluations per chain: the one-evaluation-per-iteration
steps run ``evals`` iterations, and pm.Metropolis, which updates a vector one coordinate at a
time, runs ``evals / d``. Half of the iterations are tuning, half are draws.

Usage::

    python benchmarks/bench_banana.py [--evals 40000] [--seeds 3] [--write BENCHMARKS.md]
    python benchmarks/bench_banana.py --quick

The markdown table goes to stdout; progress goes to stderr. With ``--write`` the section is
also written into a markdown file, replacing an earlier section of this benchmark if present.
"""

from __future__ import annotations

import argparse
import datetime
import logging
import os
import platform
import shlex
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np
import pymc as pm
import pytensor

try:
    import pymc_kameleon  # noqa: F401
except ModuleNotFoundError as err:  # a source checkout that is not installed
    if err.name != "pymc_kameleon":
        raise
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.diagnostics import (
    chi2_quantile_error,
    count_logp_evals,
    max_rhat,
    mean_acceptance,
    min_ess,
    posterior_array,
)
from pymc_kameleon.targets import banana_model, banana_to_gaussian

D, B, V = 8, 0.1, 100.0
VAR_NAME = "x"
CHAINS = 4
FULL_EVALS, FULL_SEEDS = 40_000, 3
QUICK_EVALS, QUICK_SEEDS = 4_000, 2
REFERENCE = "pm.DEMetropolisZ"
MARK_START = "<!-- bench_banana:start -->"
MARK_END = "<!-- bench_banana:end -->"


@dataclass(frozen=True)
class Sampler:
    """A step method under test.

    Attributes
    ----------
    label : str
        Name in the table.
    make_step : callable
        Builds the step; called inside the model context.
    kind : str
        Step kind for the evaluation-count fallback.
    evals_per_iter : int
        Nominal logp evaluations per iteration, used to set the iteration budget.
    """

    label: str
    make_step: Callable[[], Any]
    kind: str
    evals_per_iter: int


SAMPLERS = (
    Sampler("KameleonStep", lambda: KameleonStep(), "kameleon", 1),
    Sampler("AM-LS", lambda: AdaptiveMetropolis(scale="learn"), "am", 1),
    Sampler("AM-FS", lambda: AdaptiveMetropolis(scale="fixed"), "am", 1),
    Sampler("KMC-lite", lambda: KMCStep(estimator="lite"), "kmc", 1),
    Sampler("KMC-finite", lambda: KMCStep(estimator="finite"), "kmc", 1),
    Sampler("pm.Metropolis", lambda: pm.Metropolis(), "metropolis", D),
    Sampler(REFERENCE, lambda: pm.DEMetropolisZ(), "demetropolisz", 1),
)

# (key, column header, format)
COLUMNS = (
    ("min_bulk_ess", "min bulk ESS", "{:.0f}"),
    ("min_tail_ess", "min tail ESS", "{:.0f}"),
    ("max_rhat", "max R̂", "{:.2f}"),
    ("acceptance", "acc", "{:.2f}"),
    ("ess_per_1k", "ESS / 1k evals", "{:.2f}"),
    ("chi2_error", "χ² q err", "{:.3f}"),
    ("mean_norm", "‖mean‖", "{:.2f}"),
    ("us_per_iter", "µs / iter", "{:.0f}"),
    ("time_ratio", "µs / iter ÷ DEMZ", "{:.1f}"),
)


def iteration_budget(evals: int, sampler: Sampler) -> tuple[int, int]:
    """Split a per-chain evaluation budget into tuning and draw iterations.

    Parameters
    ----------
    evals : int
        Logp evaluations per chain.
    sampler : Sampler
        Sampler whose nominal evaluations per iteration set the iteration count.

    Returns
    -------
    tune, draws : int
        Iterations per chain; half of the total each.
    """
    iterations = evals // sampler.evals_per_iter
    return iterations // 2, iterations - iterations // 2


def initial_values(seed: int, chains: int = CHAINS) -> list[dict[str, np.ndarray]]:
    """Seeded N(0, I) starting points, shared by all samplers of one seed."""
    rng = np.random.default_rng([seed, 7])
    return [{VAR_NAME: rng.standard_normal(D)} for _ in range(chains)]


def run_once(
    model: pm.Model, sampler: Sampler, evals: int, seed: int, init: str
) -> dict[str, float]:
    """Sample once and compute all per-run metrics except the time ratio.

    Parameters
    ----------
    model : pymc.Model
        The banana model.
    sampler : Sampler
        Step method under test.
    evals : int
        Logp evaluations per chain.
    seed : int
        Random seed for sampling and the starting points.
    init : {"random", "zero"}
        Seeded N(0, I) starts, or the model's initial point (the origin).

    Returns
    -------
    dict of str to float
        Metrics of the run.
    """
    tune, draws = iteration_budget(evals, sampler)
    with model:
        idata = pm.sample(
            step=sampler.make_step(),
            tune=tune,
            draws=draws,
            chains=CHAINS,
            cores=1,
            random_seed=seed,
            initvals=initial_values(seed) if init == "random" else None,
            progressbar=False,
            compute_convergence_checks=False,
        )
    return run_metrics(idata, sampler.kind, CHAINS * (tune + draws))


def run_metrics(idata: Any, kind: str, total_iterations: int) -> dict[str, float]:
    """Per-run metrics from a sampling result.

    Parameters
    ----------
    idata : arviz.InferenceData
        Sampling output.
    kind : str
        Step kind for the evaluation-count fallback.
    total_iterations : int
        Tuning plus draw iterations over all chains.

    Returns
    -------
    dict of str to float
        Metrics keyed as in ``COLUMNS`` (without ``time_ratio``).
    """
    samples = posterior_array(idata, VAR_NAME)
    bulk = min_ess(idata, VAR_NAME, method="bulk")
    evals = count_logp_evals(idata, kind, D)
    seconds = float(idata["posterior"].attrs["sampling_time"])
    return {
        "min_bulk_ess": bulk,
        "min_tail_ess": min_ess(idata, VAR_NAME, method="tail"),
        "max_rhat": max_rhat(idata, VAR_NAME),
        "acceptance": mean_acceptance(idata),
        "ess_per_1k": 1000.0 * bulk / evals,
        "chi2_error": chi2_quantile_error(banana_to_gaussian(samples, b=B, v=V)),
        "mean_norm": float(np.linalg.norm(samples.reshape(-1, D).mean(axis=0))),
        "us_per_iter": 1e6 * seconds / total_iterations,
    }


def run_seed(
    samplers: Sequence[Sampler], evals: int, seed: int, init: str
) -> dict[str, dict[str, float] | str]:
    """Run every sampler for one seed; a failed run is recorded as its error message."""
    model = banana_model(d=D, b=B, v=V, name=VAR_NAME)
    results: dict[str, dict[str, float] | str] = {}
    for sampler in samplers:
        print(f"[seed {seed}] {sampler.label} ...", file=sys.stderr, flush=True)
        try:
            results[sampler.label] = run_once(model, sampler, evals, seed, init)
        except Exception as err:  # keep benchmarking the other samplers
            traceback.print_exc(file=sys.stderr)
            results[sampler.label] = f"{type(err).__name__}: {err}"
    reference = results.get(REFERENCE)
    for metrics in results.values():
        if isinstance(metrics, dict):
            ref_time = reference["us_per_iter"] if isinstance(reference, dict) else np.nan
            metrics["time_ratio"] = metrics["us_per_iter"] / ref_time
    return results


def summarise_cell(values: Sequence[float], fmt: str) -> str:
    """Format values over seeds as ``median [min-max]``."""
    values = np.asarray(values, dtype=float)
    if values.size == 0 or np.all(np.isnan(values)):
        return "-"
    median, low, high = (fmt.format(f(values)) for f in (np.nanmedian, np.nanmin, np.nanmax))
    return median if values.size == 1 else f"{median} [{low}-{high}]"


def markdown_table(
    samplers: Sequence[Sampler], runs: Sequence[dict[str, dict[str, float] | str]], evals: int
) -> str:
    """Markdown table of median [min-max] metrics over seeds, one row per sampler."""
    header = ["sampler", "iters / chain (tune+draws)", *(title for _, title, _ in COLUMNS)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for sampler in samplers:
        tune, draws = iteration_budget(evals, sampler)
        ok = [run[sampler.label] for run in runs if isinstance(run[sampler.label], dict)]
        errors = [run[sampler.label] for run in runs if isinstance(run[sampler.label], str)]
        cells = [summarise_cell([m[key] for m in ok], fmt) for key, _, fmt in COLUMNS]
        if errors:
            cells[-1] += f" ({len(errors)} failed: {errors[0]})"
        lines.append("| " + " | ".join([sampler.label, f"{tune}+{draws}", *cells]) + " |")
    return "\n".join(lines)


def cpu_description() -> str:
    """CPU model name and logical core count."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical cores"


def report(
    samplers: Sequence[Sampler],
    runs: Sequence[dict[str, dict[str, float] | str]],
    args: argparse.Namespace,
    seeds: Sequence[int],
    argv: Sequence[str],
) -> str:
    """The complete markdown section: provenance, settings, table and notes."""
    command = shlex.join(["python", "benchmarks/bench_banana.py", *argv])
    versions = (
        f"Python {platform.python_version()}, pymc {pm.__version__}, "
        f"pytensor {pytensor.__version__}, arviz {az.__version__}, numpy {np.__version__}"
    )
    starts = "seeded N(0, I) draws" if args.init == "random" else "the origin"
    lines = [
        f"## Banana B({B}, {V:g}), d={D}, equal logp-evaluation budget",
        "",
        f"- Command: `{command}`",
        f"- Date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"- Platform: {platform.platform()}; CPU: {cpu_description()}",
        f"- Versions: {versions}",
        f"- Budget: {args.evals} logp evaluations per chain (half tuning, half draws); "
        f"{CHAINS} chains run sequentially on one core (`cores=1`); seeds {list(seeds)}; "
        f"chains start at {starts}.",
        "",
        markdown_table(samplers, runs, args.evals),
        "",
        "Cells are median [min-max] over seeds. ESS and R̂ come from `arviz` (rank-normalised, "
        "pooled over chains). *ESS / 1k evals* divides the min bulk ESS by the draw-phase logp "
        "evaluations, counted from the `logp_evals` sampler statistic when a step emits it, "
        f"else d={D} per iteration for pm.Metropolis (Metropolis-within-Gibbs) and 1 for "
        "pm.DEMetropolisZ. *χ² q err* is the KAMH paper's metric: the mean over q = 0.1, …, 0.9 "
        "of |fraction of squared norms of T(x) below the χ²_d q-quantile - q|. *‖mean‖* is the "
        "norm of the sample mean (exactly 0 for the target). *µs / iter* is "
        "`posterior.attrs['sampling_time']` (tuning + draws, compilation excluded) over all "
        "iterations; the last column divides it by DEMetropolisZ's in the same seed. pm.Metropolis"
        " acceptance is the fraction of accepted coordinate updates. ESS below about 50 is noise.",
    ]
    return "\n".join(lines)


def write_section(path: Path, section: str) -> None:
    """Write `section` between this benchmark's markers, replacing an earlier copy."""
    block = f"{MARK_START}\n{section}\n{MARK_END}\n"
    text = path.read_text() if path.exists() else ""
    if MARK_START in text and MARK_END in text:
        head, rest = text.split(MARK_START, 1)
        tail = rest.split(MARK_END, 1)[1].lstrip("\n")
        text = head + block + ("\n" + tail if tail else "")
    else:
        text = text + ("\n" if text and not text.endswith("\n\n") else "") + block
    path.write_text(text)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Command-line options; ``--quick`` fills in a small budget unless given explicitly."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evals", type=int, help=f"logp evaluations per chain ({FULL_EVALS})")
    parser.add_argument("--seeds", type=int, help=f"number of seeds ({FULL_SEEDS})")
    parser.add_argument("--first-seed", type=int, default=0, help="first seed (0)")
    parser.add_argument("--init", choices=("random", "zero"), default="random")
    parser.add_argument(
        "--samplers", nargs="+", choices=[s.label for s in SAMPLERS], help="subset to run"
    )
    parser.add_argument("--write", type=Path, metavar="PATH", help="markdown file to update")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke budget: {QUICK_EVALS} evals, {QUICK_SEEDS} seeds",
    )
    args = parser.parse_args(argv)
    if args.evals is None:
        args.evals = QUICK_EVALS if args.quick else FULL_EVALS
    if args.seeds is None:
        args.seeds = QUICK_SEEDS if args.quick else FULL_SEEDS
    return args


def main(argv: Sequence[str] | None = None) -> str:
    """Run the benchmark and return the markdown section."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    logging.getLogger("pymc").setLevel(logging.WARNING)
    samplers = [s for s in SAMPLERS if args.samplers is None or s.label in args.samplers]
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    runs = [run_seed(samplers, args.evals, seed, args.init) for seed in seeds]
    section = report(samplers, runs, args, seeds, argv)
    print(section)
    if args.write is not None:
        write_section(args.write, section)
        print(f"section written to {args.write}", file=sys.stderr)
    return section


if __name__ == "__main__":
    main()
