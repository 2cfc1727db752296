"""Run the validation suite: every model with every sampler, scored against its reference.

Each run is ``pm.sample(step=..., cores=1)`` with PyMC's default starts (the model's initial
point), 4 chains x (3000 tune + 3000 draws) in the ``full`` size, seed 1; or ``pm.sample_smc``
(4 chains x 2000 particles) with one of :data:`SMC_KERNELS` (PyMC's IMH, its default, and MH,
and this package's :class:`~pymc_kameleon.KameleonSMC`) on models whose priors are all proper.
Records are appended to ``DIR/results.jsonl`` as each run ends (a re-run skips finished ones)
and ``DIR/report.md`` gets the models x samplers table.

Log-density evaluations are counted from the statistics of warm-up *and* kept draws
(:func:`pymc_kameleon.bench.samplers.count_evaluations`); for SMC, particles x MH steps summed
over stages and chains, from the ``n_steps`` the kernel records per stage (plus one evaluation
per particle at the start), counted by :class:`CountingIMH` and :class:`CountingMH` (KameleonSMC
counts its own).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pymc as pm
from pymc.smc.kernels import IMH, MH

from pymc_kameleon import AdaptiveMetropolis, KameleonSMC, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset, result_groups
from pymc_kameleon.bench.real.models import CI_MODELS, REAL_MODELS, get_real_model
from pymc_kameleon.bench.real.reference import load_reference
from pymc_kameleon.bench.real.scoring import score_run
from pymc_kameleon.bench.records import load_records, run_resumable
from pymc_kameleon.bench.samplers import SAMPLERS, SamplerSpec, count_evaluations, package_step
from pymc_kameleon.smc import stage_stat

__all__ = [
    "REAL_SAMPLERS",
    "SIZES",
    "SMC_KERNELS",
    "CountingIMH",
    "CountingMH",
    "RealTask",
    "build_real_tasks",
    "markdown_table",
    "run_real_task",
    "run_real_tasks",
]

REAL_SAMPLERS: dict[str, SamplerSpec | None] = {
    "KameleonStep()": SamplerSpec(
        "KameleonStep()", lambda p, o: KameleonStep(**o), "stat", ours=True
    ),
    "KameleonStep(classic)": replace(SAMPLERS["KAMH-LS"], name="KameleonStep(classic)"),
    "AdaptiveMetropolis()": SamplerSpec(
        "AdaptiveMetropolis()",
        lambda p, o: package_step(AdaptiveMetropolis, **o),
        "stat",
        ours=True,
    ),
    "KMCStep()": SamplerSpec(
        "KMCStep()", lambda p, o: package_step(KMCStep, **o), "stat", ours=True
    ),
    "KameleonStep(whitened)": SamplerSpec(
        "KameleonStep(whitened)",
        lambda p, o: package_step(KameleonStep, warmup="whitened", **o),
        "stat",
        ours=True,
    ),
    "KMCStep(whitened)": SamplerSpec(
        "KMCStep(whitened)",
        lambda p, o: package_step(KMCStep, warmup="whitened", **o),
        "stat",
        ours=True,
    ),
    "AdaptiveMetropolis(pooled)": SamplerSpec(
        "AdaptiveMetropolis(pooled)",
        lambda p, o: package_step(AdaptiveMetropolis, pool_warmup=True, **o),
        "stat",
        ours=True,
    ),
    "KameleonStep(whitened,pooled)": SamplerSpec(
        "KameleonStep(whitened,pooled)",
        lambda p, o: package_step(KameleonStep, warmup="whitened", pool_warmup=True, **o),
        "stat",
        ours=True,
    ),
    "KMCStep(whitened,pooled)": SamplerSpec(
        "KMCStep(whitened,pooled)",
        lambda p, o: package_step(KMCStep, warmup="whitened", pool_warmup=True, **o),
        "stat",
        ours=True,
    ),
    "KameleonSMC()": None,
    "pm.Metropolis": SAMPLERS["pm.Metropolis"],
    "pm.DEMetropolisZ": SAMPLERS["pm.DEMetropolisZ"],
    "pm.Slice": SAMPLERS["pm.Slice"],
    "pm.sample_smc": None,
    "pm.sample_smc(MH)": None,
    "NUTS(0.95)": SAMPLERS["NUTS(0.95)"],
}
"""Samplers of the suite, in table order: this package's steps with default arguments, then
PyMC's (the specs of :data:`pymc_kameleon.bench.samplers.SAMPLERS`); ``None`` marks an SMC kernel
(:data:`SMC_KERNELS`), run by ``pm.sample_smc``."""


@dataclass(frozen=True)
class Size:
    """Budget of a suite size.

    Parameters
    ----------
    chains, tune, draws : int
        MCMC budget per run.
    smc_draws : int
        Particles per SMC chain.
    models : tuple of str
        Models of this size.
    """

    chains: int
    tune: int
    draws: int
    smc_draws: int
    models: tuple[str, ...]


SIZES = {
    "full": Size(4, 3000, 3000, 2000, tuple(REAL_MODELS)),
    "ci": Size(4, 1000, 1000, 500, CI_MODELS),
}
"""``full`` (the record in BENCHMARKS.md) and ``ci`` (quick models, smaller budget)."""


@dataclass(frozen=True)
class RealTask:
    """One run of the suite.

    Parameters
    ----------
    model, sampler : str
        Names in :data:`~pymc_kameleon.bench.real.models.REAL_MODELS` and
        :data:`REAL_SAMPLERS`.
    seed, chains, tune, draws : int
        ``tune`` is unused by SMC, ``draws`` is its particles per chain.
    reference_dir : str, optional
        Reference directory (default: the shipped one); not part of the key.
    """

    model: str
    sampler: str
    seed: int
    chains: int
    tune: int
    draws: int
    reference_dir: str | None = None

    @property
    def key(self) -> str:
        """Identity of the task in the results file."""
        return "|".join(
            str(v) for v in ("real", self.model, self.sampler, self.seed, self.chains,
                             self.tune, self.draws)
        )  # fmt: skip


def build_real_tasks(
    size: str = "full",
    models: Sequence[str] | None = None,
    samplers: Sequence[str] | None = None,
    seed: int = 1,
    reference_dir: str | None = None,
    smc_draws: int | None = None,
) -> list[RealTask]:
    """Tasks of a suite size, ordered sampler by sampler (so a partial run fills whole columns).

    Parameters
    ----------
    size : {"full", "ci"}
    models, samplers : sequence of str, optional
        Subsets (default: the size's models, every sampler).
    seed : int, default 1
    reference_dir : str, optional
    smc_draws : int, optional
        Particles per SMC chain (default: the size's).

    Returns
    -------
    list of RealTask
    """
    budget = SIZES[size]
    models = list(models or budget.models)
    samplers = list(samplers or REAL_SAMPLERS)
    for name in models:
        get_real_model(name)
    for name in samplers:
        if name not in REAL_SAMPLERS:
            raise KeyError(f"unknown sampler {name!r}; choose one of {', '.join(REAL_SAMPLERS)}")
    tasks = []
    for sampler in samplers:
        for model in models:
            smc = sampler in SMC_KERNELS
            tasks.append(
                RealTask(
                    model,
                    sampler,
                    seed,
                    budget.chains,
                    0 if smc else budget.tune,
                    (smc_draws or budget.smc_draws) if smc else budget.draws,
                    reference_dir,
                )
            )
    return tasks


class _SweepCounting:
    """Records a PyMC kernel's evaluations per stage as the ``logp_evals`` sample statistic.

    PyMC's ``mutate`` leaves ``n_steps`` one above the number of MH sweeps it ran; each sweep
    evaluates the prior and likelihood at one proposal per particle.
    """

    def mutate(self):
        """Run the kernel's mutation and count its evaluations."""
        super().mutate()
        self._stage_evals = (self.n_steps - 1) * self.draws

    def sample_stats(self):
        """The kernel's statistics plus ``logp_evals`` of the stage."""
        return {**super().sample_stats(), "logp_evals": getattr(self, "_stage_evals", 0)}


class CountingIMH(_SweepCounting, IMH):
    """PyMC's default SMC kernel (IMH), unchanged, recording its evaluations per stage."""

    stats_dtypes_shapes: ClassVar[dict] = {**IMH.stats_dtypes_shapes, "logp_evals": (int, [])}


class CountingMH(_SweepCounting, MH):
    """PyMC's random-walk SMC kernel (MH), unchanged, recording its evaluations per stage."""

    stats_dtypes_shapes: ClassVar[dict] = {**MH.stats_dtypes_shapes, "logp_evals": (int, [])}


SMC_KERNELS: dict[str, type] = {
    "KameleonSMC()": KameleonSMC,
    "pm.sample_smc": CountingIMH,
    "pm.sample_smc(MH)": CountingMH,
}
"""SMC kernels of the suite by sampler name, each recording ``logp_evals`` per stage."""


def _smc_evaluations(idata: Any, chains: int, particles: int) -> int:
    # stage_stat reads both layouts: chains with different numbers of stages come out ragged
    evals = sum(float(np.nansum(chain)) for chain in stage_stat(idata, "logp_evals"))
    return int(evals) + chains * particles  # + the prior draws, evaluated once


def _acceptance(stats: Any) -> float:
    for name in ("accepted", "acceptance_rate", "accept"):
        if name in stats:
            return float(np.mean(np.minimum(stats[name].values.astype(float), 1.0)))
    return math.nan


def _sample(task: RealTask, model: pm.Model) -> tuple[Any, int]:
    """Run the task's sampler; return its result and the log-density evaluations."""
    dim = int(sum(np.size(v) for v in model.initial_point().values()))
    with model, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if task.sampler in SMC_KERNELS:
            idata = pm.sample_smc(
                draws=task.draws,
                kernel=SMC_KERNELS[task.sampler],
                chains=task.chains,
                cores=1,
                random_seed=task.seed,
                progressbar=False,
                compute_convergence_checks=False,
            )
            return idata, _smc_evaluations(idata, task.chains, task.draws)
        spec = REAL_SAMPLERS[task.sampler]
        step = spec.make_step(None, {})
        idata = pm.sample(
            step=step,
            tune=task.tune,
            draws=task.draws,
            chains=task.chains,
            cores=1,
            random_seed=task.seed,
            discard_tuned_samples=False,
            progressbar=False,
            compute_convergence_checks=False,
        )
    evals = count_evaluations(posterior_dataset(idata, "sample_stats"), spec.kind, dim)
    if task.tune and "warmup_sample_stats" in result_groups(idata):
        evals += count_evaluations(posterior_dataset(idata, "warmup_sample_stats"), spec.kind, dim)
    return idata, evals


def _not_applicable(task: RealTask, model: pm.Model) -> str | None:
    spec = get_real_model(task.model)
    if task.sampler in SMC_KERNELS and not spec.proper_prior:
        return "n/a (improper prior)"
    if task.sampler.startswith("NUTS"):
        try:
            model.compile_dlogp()
        except Exception:  # a model without gradients
            return "n/a (no gradient)"
    return None


def run_real_task(task: RealTask) -> dict[str, Any]:
    """Run one task and return its record (verdict, reasons, ESS, R-hat, evaluations, time).

    Parameters
    ----------
    task : RealTask

    Returns
    -------
    dict
        JSON-serialisable; ``status`` is ``"ok"``, ``"n/a (...)"`` or the error message;
        ``passed`` and ``reasons`` hold the scorer's verdict.
    """
    record: dict[str, Any] = {**asdict(task), "key": task.key}
    record.pop("reference_dir")
    start = time.perf_counter()
    try:
        model = get_real_model(task.model).build()
        na = _not_applicable(task, model)
        if na is not None:
            record["status"] = na
        else:
            reference = load_reference(task.model, task.reference_dir)
            idata, evals = _sample(task, model)
            score = score_run(idata, reference)
            stats = posterior_dataset(idata, "sample_stats")
            seconds = float(posterior_dataset(idata).attrs.get("sampling_time", math.nan))
            record.update(
                status="ok",
                passed=score.passed,
                reasons=score.reasons,
                min_ess_bulk=score.min_ess_bulk,
                max_rhat=score.max_rhat,
                worst_z=score.worst,
                evals=evals,
                ess_per_1k_evals=1000.0 * score.min_ess_bulk / evals if evals else math.nan,
                acceptance=_acceptance(stats),
                sampling_s=seconds,
            )
            if "diverging" in stats:
                record["divergences"] = int(np.sum(stats["diverging"].values))
    except Exception as err:  # record the failure, keep going with the other tasks
        traceback.print_exc(file=sys.stderr)
        record["status"] = f"{type(err).__name__}: {err}"
    record["wall_s"] = time.perf_counter() - start
    return record


def _finished(record: dict) -> bool:
    return record.get("status") == "ok" or str(record.get("status", "")).startswith("n/a")


def run_real_tasks(
    tasks: Iterable[RealTask],
    results: Path,
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Run the tasks not yet finished in ``results`` (JSON lines) and append their records.

    Parameters
    ----------
    tasks : iterable of RealTask
    results : pathlib.Path
    jobs : int, default 1
        Worker processes, each running one task at a time on one core.
    progress : callable, optional
        Called with a one-line summary of each finished task.

    Returns
    -------
    list of dict
        The latest record of every given task found in ``results``.
    """
    return run_resumable(
        tasks, run_real_task, results, finished=_finished, summary=one_line,
        jobs=jobs, progress=progress,
    )  # fmt: skip


def one_line(record: dict) -> str:
    """A one-line summary of a record.

    Parameters
    ----------
    record : dict

    Returns
    -------
    str
    """
    head = f"{record['model']} {record['sampler']}"
    if record["status"] != "ok":
        return f"{head}: {record['status']}"
    verdict = "PASS" if record["passed"] else "FAIL " + "; ".join(record["reasons"][:2])
    return (
        f"{head}: {verdict} | min ESS {record['min_ess_bulk']:.0f}, R-hat "
        f"{record['max_rhat']:.3f}, ESS/1k evals {record['ess_per_1k_evals']:.3g}, "
        f"{record['wall_s']:.0f} s"
    )


def _cell(record: dict | None) -> str:
    if record is None:
        return "not run"
    status = record["status"]
    if status != "ok":
        if status.startswith("FileNotFoundError") and "references" in status:
            return "no reference"
        return status if status.startswith("n/a") else "error"
    ess = record["ess_per_1k_evals"]
    return f"{'**pass**' if record['passed'] else 'fail'} {ess:.3g}"


def markdown_table(records: Sequence[dict]) -> str:
    """Models x samplers table: pass/fail and min bulk ESS per 1000 log-density evaluations.

    Parameters
    ----------
    records : sequence of dict

    Returns
    -------
    str
        The table, a passes-per-sampler line, and one line per failed run with its reasons.
    """
    by = {(r["model"], r["sampler"]): r for r in records}
    models = [m for m in REAL_MODELS if any(k[0] == m for k in by)]
    samplers = [s for s in REAL_SAMPLERS if any(k[1] == s for k in by)]
    lines = [
        "| model | dim | " + " | ".join(samplers) + " |",
        "|---|---:|" + "---|" * len(samplers),
    ]
    for m in models:
        dim = get_real_model(m).dim
        lines.append(
            f"| {m} | {dim} | " + " | ".join(_cell(by.get((m, s))) for s in samplers) + " |"
        )
    passes = []
    for s in samplers:
        runs = [r for (m, t), r in by.items() if t == s and r["status"] == "ok"]
        passes.append(f"{sum(r['passed'] for r in runs)}/{len(runs)}")
    lines.append("| **passes** | | " + " | ".join(passes) + " |")
    lines.append("")
    lines.append(
        "Cells: verdict and min bulk ESS per 1000 log-density evaluations (warm-up included)."
    )
    lines.append("")
    lines.append("| model | sampler | min ESS | max R-hat | evals | wall s | first reasons |")
    lines.append("|---|---|---:|---:|---:|---:|---|")
    for m in models:
        for s in samplers:
            r = by.get((m, s))
            if r is None or r["status"] != "ok":
                if r is not None and _cell(r) == "error":
                    lines.append(f"| {m} | {s} | | | | | error: {r['status'][:80]} |")
                continue
            why = "; ".join(r["reasons"][:2]) + (
                f" (+{len(r['reasons']) - 2})" if len(r["reasons"]) > 2 else ""
            )
            lines.append(
                f"| {m} | {s} | {r['min_ess_bulk']:.0f} | {r['max_rhat']:.3f} | {r['evals']:,} "
                f"| {r['wall_s']:.0f} | {why or 'pass'} |"
            )
    return "\n".join(lines)


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m pymc_kameleon.bench real")
    parser.add_argument("--size", choices=tuple(SIZES), default="full")
    parser.add_argument("--models", nargs="+", choices=list(REAL_MODELS))
    parser.add_argument("--samplers", nargs="+", choices=list(REAL_SAMPLERS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--smc-draws", type=int, help="particles per SMC chain (default: size's)")
    parser.add_argument(
        "--out", type=Path, help="results directory (default bench-results/real-SIZE)"
    )
    parser.add_argument("--references", help="reference directory (default: the shipped one)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.smc_draws is not None and args.smc_draws < 2:
        parser.error("--smc-draws must be at least 2")
    return args


def _write_report(records: Sequence[dict], out: Path, command: str) -> str:
    text = "\n".join(
        [
            "# Real-model validation",
            "",
            f"Command: `{command}`",
            "",
            markdown_table(records),
        ]
    )
    (out / "report.md").write_text(text + "\n")
    return text


def suite_main(argv: Sequence[str], command: str) -> int:
    """``real``: run (or resume) the suite and write ``DIR/report.md``.

    Parameters
    ----------
    argv : sequence of str
    command : str
        The full command line, for the report.

    Returns
    -------
    int
        0 unless a run raised an error (failing the pass rule is a result, not an error).
    """
    args = _parse(argv)
    out = args.out or Path("bench-results") / f"real-{args.size}"
    tasks = build_real_tasks(
        args.size, args.models, args.samplers, args.seed, args.references, args.smc_draws
    )
    start = time.perf_counter()
    print(f"{len(tasks)} runs, results in {out}", file=sys.stderr, flush=True)

    def progress(line: str) -> None:
        print(f"[{time.perf_counter() - start:6.0f} s] {line}", file=sys.stderr, flush=True)

    records = run_real_tasks(tasks, out / "results.jsonl", jobs=args.jobs, progress=progress)
    print(_write_report(records, out, command))
    errors = [r for r in records if not _finished(r)]
    return 1 if errors else 0


def report_main(argv: Sequence[str], command: str) -> int:
    """``real-report DIR``: redraw ``DIR/report.md`` from ``DIR/results.jsonl``.

    Parameters
    ----------
    argv : sequence of str
    command : str

    Returns
    -------
    int
    """
    if len(argv) != 1:
        print("usage: python -m pymc_kameleon.bench real-report DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    records = load_records(out / "results.jsonl")
    if not records:
        print(f"no results in {out / 'results.jsonl'}", file=sys.stderr)
        return 1
    print(_write_report(records, out, command))
    return 0
