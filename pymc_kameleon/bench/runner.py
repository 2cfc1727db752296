"""Run benchmark tasks: one (problem, sampler, budget, seed) each, results appended as JSON lines.

Each task runs ``pm.sample(cores=1)``: its chains one after another on one core, so its timing
is that of one core. Several tasks may run side by side in worker processes (``jobs``). Every
finished task is appended at once to the results file, so an interrupted run loses nothing and
a re-run skips the tasks already recorded. Each record of a PyMC step also has the peak
resident memory of its sampling (:class:`~pymc_kameleon.bench.memory.PeakMemory`).

The ensemble samplers outside PyMC (``"emcee"``, ``"zeus"``) take a separate path, in
:mod:`.ensemble_peers`, and give records with the same fields.
"""

from __future__ import annotations

import math
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pymc as pm

from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.ensemble_peers import is_ensemble_peer, run_ensemble_peer
from pymc_kameleon.bench.memory import PeakMemory
from pymc_kameleon.bench.metrics import cost_scores, draw_scores
from pymc_kameleon.bench.records import load_records, run_resumable
from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.bench.samplers import count_evaluations, get_sampler

__all__ = ["Task", "load_records", "run_task", "run_tasks"]


@dataclass(frozen=True)
class Task:
    """One benchmark run.

    Parameters
    ----------
    experiment : str
        Experiment the run belongs to (a table or figure of the report).
    problem, sampler : str
        Names in :data:`~pymc_kameleon.bench.problems.PROBLEMS` and
        :data:`~pymc_kameleon.bench.samplers.SAMPLERS` or
        :data:`~pymc_kameleon.bench.ensemble_peers.ENSEMBLE_PEERS`.
    seed : int
        Seed of ``pm.sample`` and of the starting points.
    chains, tune, draws : int
        Budget.
    init : {"random", "zero"}
        Seeded N(0, I) starting points (the same for every sampler of a seed, drawn in the
        target's own coordinates: see ``Problem.starting_points``), or the origin.
    n_oracle : int
        If > 0, the step gets this many exact draws (GP-Glass: reference draws) as
        ``initial_history`` and uses ``n_history=n_oracle`` (the KMC paper's oracle setting);
        mapped like the starts.
    extra : dict, optional
        Keyword arguments for the step (e.g. ``{"n_history": 1000}``); not part of the key.
    """

    experiment: str
    problem: str
    sampler: str
    seed: int
    chains: int
    tune: int
    draws: int
    init: str = "random"
    n_oracle: int = 0
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> str:
        """Identity of the task in the results file."""
        return "|".join(
            str(v)
            for v in (
                self.experiment,
                self.problem,
                self.sampler,
                self.seed,
                self.chains,
                self.tune,
                self.draws,
                self.init,
                self.n_oracle,
            )
        )


def _initial_values(task: Task, problem: Any) -> list[dict] | None:
    if task.init == "zero":
        return None
    starts = problem.starting_points(task.seed, task.chains)
    return [{problem.var_name: start} for start in starts]


def _step_options(task: Task, problem: Any) -> dict:
    if task.n_oracle <= 0:
        return dict(task.extra)
    exact = problem.oracle_draws(task.n_oracle, np.random.default_rng([task.seed, 11]))
    oracle = problem.to_model_coordinates(exact)
    options = {"initial_history": oracle, "n_history": task.n_oracle}
    if task.sampler in ("KMC-finite", "AM-FS", "AM-LS", "SM"):  # steps without a subsample
        del options["n_history"]
    options.update(task.extra)
    return options


def _acceptance(stats: Any) -> float:
    for name in ("accepted", "acceptance_rate", "accept"):
        if name in stats:
            return float(np.mean(np.minimum(stats[name].values.astype(float), 1.0)))
    return math.nan


def _sample(task: Task, problem: Any, model: pm.Model) -> Any:
    spec = get_sampler(task.sampler)
    with model, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        step = spec.make_step(problem, _step_options(task, problem))
        return pm.sample(
            step=step,
            tune=task.tune,
            draws=task.draws,
            chains=task.chains,
            cores=1,
            random_seed=task.seed,
            initvals=_initial_values(task, problem),
            progressbar=False,
            compute_convergence_checks=False,
        )


def run_task(task: Task) -> dict[str, Any]:
    """Run one task and return its record (metrics, counts, timings; or the error).

    Parameters
    ----------
    task : Task

    Returns
    -------
    dict
        JSON-serialisable record; ``status`` is ``"ok"`` or the error message.
    """
    record: dict[str, Any] = {**asdict(task), "key": task.key}
    record.pop("extra")
    start = time.perf_counter()
    try:
        problem = get_problem(task.problem)
        model = problem.build_model()
        costly = getattr(model, "costly_op", None)
        if costly is not None:
            costly.reset_counters()
        if is_ensemble_peer(task.sampler):  # not a PyMC step: a run of its own
            scores = run_ensemble_peer(task, problem, model)
            scores.update(_costly_scores(costly, task, scores["sampling_s"]))
        else:
            memory = PeakMemory()
            memory.start()
            idata = _sample(task, problem, model)
            peak = memory.scores()  # before scoring: the sampler's peak, not ArviZ's
            scores = {**_score(task, problem, idata, costly), **peak}
        record.update(scores)
        record["status"] = "ok"
    except Exception as err:  # record the failure, keep benchmarking the other tasks
        traceback.print_exc(file=sys.stderr)
        record["status"] = f"{type(err).__name__}: {err}"
    record["wall_s"] = time.perf_counter() - start
    return record


def _score(task: Task, problem: Any, idata: Any, costly: Any) -> dict[str, Any]:
    spec = get_sampler(task.sampler)
    posterior = posterior_dataset(idata, "posterior")
    sampled = np.asarray(posterior[problem.var_name].values, dtype=float)
    draws = problem.from_model_coordinates(sampled)  # scored in the target's own coordinates
    stats = posterior_dataset(idata, "sample_stats")
    seconds = float(posterior.attrs["sampling_time"])
    evals = count_evaluations(stats, spec.kind, problem.dim)
    out: dict[str, Any] = {**draw_scores(draws, problem), "acceptance": _acceptance(stats)}
    out.update(cost_scores(out["min_bulk_ess"], evals, seconds, _iterations(task)))
    if "diverging" in stats:
        out["divergences"] = int(np.sum(stats["diverging"].values))
    if "noise_sd" in stats:
        out["noise_sd"] = float(np.nanmedian(stats["noise_sd"].values[:, -1]))
    if "step_size" in stats and spec.ours:
        out["final_step_size"] = float(np.median(stats["step_size"].values))
    out.update(_costly_scores(costly, task, seconds))
    return out


def _iterations(task: Task) -> int:
    return task.chains * (task.tune + task.draws)


def _costly_scores(costly: Any, task: Task, seconds: float) -> dict[str, Any]:
    """Call counts and time inside a costly log-density Op (none for other models)."""
    if costly is None:
        return {}
    return {
        "logp_calls": int(costly.calls),
        "logp_seconds": float(costly.seconds_inside),
        "logp_calls_per_iter": costly.calls / _iterations(task),
        "overhead_fraction": max(0.0, 1.0 - costly.seconds_inside / seconds),
    }


def run_tasks(
    tasks: Iterable[Task],
    results: Path,
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Run the tasks not yet recorded in ``results`` and append their records.

    Parameters
    ----------
    tasks : iterable of Task
    results : pathlib.Path
        JSON-lines file; created if missing.
    jobs : int, default 1
        Worker processes (each runs one task at a time, on one core).
    progress : callable, optional
        Called with a one-line summary of each finished task.

    Returns
    -------
    list of dict
        All records in ``results`` after the run, for the given tasks.
    """
    return run_resumable(
        tasks, run_task, results, finished=lambda r: r.get("status") == "ok",
        summary=_one_line, jobs=jobs, progress=progress,
    )  # fmt: skip


def _one_line(record: dict) -> str:
    head = f"{record['experiment']} {record['problem']} {record['sampler']} seed {record['seed']}"
    if record["status"] != "ok":
        return f"{head}: FAILED {record['status']}"
    return (
        f"{head}: min ESS {record['min_bulk_ess']:.0f}, "
        f"ESS/1k evals {record['ess_per_1k_evals']:.2f}, {record['sampling_s']:.1f} s"
    )
