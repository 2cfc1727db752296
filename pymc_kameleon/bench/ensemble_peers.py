"""The ensemble samplers users pick outside PyMC, run as peers of the benchmark's steps.

Two samplers that need no gradient either: emcee's affine-invariant stretch move
(``emcee.EnsembleSampler``) and zeus's ensemble slice sampler (``zeus.EnsembleSampler``, pip
package ``zeus-mcmc``). Neither is a PyMC step, so :func:`run_ensemble_peer` runs them directly
on the problem's log-density, compiled from its PyMC model as a function of the raveled value
variables, and scores them with the same metrics as the PyMC runs:

* ``2 * dim`` walkers (the fewest both packages accept), started at the task's seeded N(0, I)
  points in the target's own coordinates (mapped for a mapped problem): the first ``chains``
  of them are the starts of the PyMC chains of the same seed;
* a budget of ``chains * (tune + draws)`` log-density evaluations, what this package's steps use
  (one per iteration); the starting ensemble's evaluations count. emcee makes one evaluation
  per walker per step; zeus a varying number, read from its own count (``ncall``), and it stops
  after the step that brings it nearest to the budget;
* the steps begun in the first half of the evaluations are discarded as warm-up; no thinning.

Walkers are not independent chains: each moves along directions given by the others. As emcee's
users commonly do, ESS and R-hat here treat each walker as a chain (ArviZ on
``(walkers, steps, dim)``), much as emcee's own advice divides ``walkers * steps`` by an
autocorrelation time estimated from the walkers' mean autocorrelation. Read them as comparable
between the two peers, and with care against PyMC's independent chains. ``acceptance`` is
emcee's mean acceptance fraction (whole run, as emcee reports it) and NaN for zeus, which always
moves.
"""

from __future__ import annotations

import importlib
import logging
import math
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from pymc_kameleon._compat import compile_pytensor, join_nonshared_inputs
from pymc_kameleon.bench.metrics import cost_scores, draw_scores

__all__ = ["ENSEMBLE_PEERS", "is_ensemble_peer", "run_ensemble_peer"]

#: sampler names of the ensemble peers, and the pip package that provides each
ENSEMBLE_PEERS = {"emcee": "emcee", "zeus": "zeus-mcmc"}

_SEED_SALT = 13  # the peers' own random streams, apart from the starting points'


@dataclass(frozen=True)
class _EnsembleRun:
    """Positions ``(walkers, steps, dim)`` in the model's coordinates and evaluations spent."""

    positions: np.ndarray
    spent: np.ndarray  # evaluations after each step, the starting ensemble's included
    acceptance: float

    @property
    def step_starts(self) -> np.ndarray:
        """Evaluations spent when each step began."""
        walkers = self.positions.shape[0]
        return np.concatenate([[walkers], self.spent[:-1]])


def is_ensemble_peer(name: str) -> bool:
    """Whether a sampler name is one of the :data:`ENSEMBLE_PEERS` (run outside PyMC).

    Parameters
    ----------
    name : str

    Returns
    -------
    bool
    """
    return name in ENSEMBLE_PEERS


def run_ensemble_peer(task: Any, problem: Any, model: Any) -> dict[str, Any]:
    """Run an ensemble peer on a problem's log-density and score it like a PyMC run.

    Parameters
    ----------
    task : Task
        ``sampler`` is a name in :data:`ENSEMBLE_PEERS`; ``chains * (tune + draws)`` is the
        budget of log-density evaluations; ``seed`` seeds the starts and the sampler; ``extra``
        holds keyword arguments of the sampler's constructor (e.g. ``{"light_mode": true}``
        for zeus).
    problem : Problem
    model : pymc.Model
        The problem's model (built by the caller, who may watch its costly Op).

    Returns
    -------
    dict
        The fields of a PyMC run's scores (:func:`~pymc_kameleon.bench.metrics.draw_scores`,
        ``acceptance`` and :func:`~pymc_kameleon.bench.metrics.cost_scores`, whose
        ``draw_evals`` are the evaluations of the kept steps), plus ``walkers``,
        ``total_evals`` (warm-up and starting ensemble included) and ``budget_evals``.

    Raises
    ------
    ValueError
        If the budget cannot pay for the starting ensemble and two steps, if the task asks for
        the origin as start (the walkers would coincide) or for an oracle history.
    ImportError
        If the sampler's package is not installed.
    """
    budget = task.chains * (task.tune + task.draws)
    walkers = 2 * problem.dim
    _check_task(task, problem, budget, walkers)
    logp = _raveled_logp(model)
    starts = problem.starting_points(task.seed, walkers)
    seed = int(np.random.SeedSequence([task.seed, _SEED_SALT]).generate_state(1)[0])
    run_peer = _emcee_run if task.sampler == "emcee" else _zeus_run
    start = time.perf_counter()
    run = run_peer(logp, starts, budget, seed, dict(task.extra))
    seconds = time.perf_counter() - start
    first_kept = _first_kept_step(run)
    draws = problem.from_model_coordinates(run.positions[:, first_kept:])
    out: dict[str, Any] = {**draw_scores(draws, problem), "acceptance": run.acceptance}
    draw_evals = int(run.spent[-1] - run.step_starts[first_kept])
    out.update(cost_scores(out["min_bulk_ess"], draw_evals, seconds, budget))
    out.update(walkers=walkers, total_evals=int(run.spent[-1]), budget_evals=budget)
    return out


def _check_task(task: Any, problem: Any, budget: int, walkers: int) -> None:
    if task.init != "random":
        raise ValueError(
            f"{task.sampler} on {problem.name!r}: the ensemble needs distinct walker starts, "
            f"so init must be 'random', got {task.init!r}"
        )
    if task.n_oracle > 0:
        raise ValueError(f"{task.sampler} on {problem.name!r} takes no oracle history")
    needed = 3 * walkers  # the starting ensemble, one warm-up and one kept step
    if budget < needed:
        raise ValueError(
            f"{task.sampler} on {problem.name!r}: a budget of {budget} log-density evaluations "
            f"(chains * (tune + draws)) is smaller than the {needed} that {walkers} walkers "
            "need for their starting point, one warm-up step and one kept step"
        )


def _raveled_logp(model: Any) -> Callable[[np.ndarray], float]:
    """The model's log-density (priors, likelihood, Potentials) of the raveled value vector."""
    [logp], raveled = join_nonshared_inputs(model.initial_point(), [model.logp()], model.value_vars)
    function = compile_pytensor([raveled], logp)
    return lambda x: float(function(np.asarray(x, dtype=float)))


def _first_kept_step(run: _EnsembleRun) -> int:
    """The first step begun in the second half of the evaluations (the last step at least)."""
    half = run.spent[-1] / 2
    return min(int(np.searchsorted(run.step_starts, half, side="left")), len(run.spent) - 1)


def _import_peer(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as err:
        raise ImportError(
            f"the ensemble peer {name!r} needs its package: pip install {ENSEMBLE_PEERS[name]} "
            "(or pip install 'pymc-kameleon[peers]')"
        ) from err


def _emcee_run(
    logp: Callable, starts: np.ndarray, budget: int, seed: int, options: dict
) -> _EnsembleRun:
    emcee = _import_peer("emcee")
    walkers, dim = starts.shape
    steps = budget // walkers - 1  # one round of evaluations goes to the starting ensemble
    sampler = emcee.EnsembleSampler(walkers, dim, logp, **options)
    state = emcee.State(starts, random_state=np.random.RandomState(seed).get_state())
    sampler.run_mcmc(state, steps, progress=False)
    positions = np.swapaxes(sampler.get_chain(), 0, 1)
    spent = walkers * np.arange(2, steps + 2)
    return _EnsembleRun(positions, spent, float(np.mean(sampler.acceptance_fraction)))


def _zeus_run(
    logp: Callable, starts: np.ndarray, budget: int, seed: int, options: dict
) -> _EnsembleRun:
    zeus = _import_peer("zeus")
    walkers, dim = starts.shape
    positions, spent = [], []
    with _root_logger_kept(), _global_generators_seeded(seed):
        sampler = zeus.EnsembleSampler(walkers, dim, logp, **{"verbose": False, **options})
        # each step costs at least one evaluation per walker: budget // walkers steps suffice
        for state in sampler.sample(starts, iterations=budget // walkers, progress=False):
            positions.append(np.array(state[0]))
            spent.append(walkers + int(sampler.ncall))  # ncall leaves the start's round out
            if _nearest_stop(spent, walkers, budget):
                break
    return _EnsembleRun(np.stack(positions, axis=1), np.asarray(spent), math.nan)


def _nearest_stop(spent: list[int], walkers: int, budget: int) -> bool:
    """Stop when one more step, of the mean cost so far, would end farther from the budget."""
    mean_step = (spent[-1] - walkers) / len(spent)
    return spent[-1] + mean_step / 2 >= budget


@contextmanager
def _root_logger_kept() -> Iterator[None]:
    """Put back the root logger's handlers and level, which zeus's sampler replaces."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)


@contextmanager
def _global_generators_seeded(seed: int) -> Iterator[None]:
    """Seed the global generators zeus draws from (NumPy's and Python's), restore them after."""
    saved_numpy, saved_python = np.random.get_state(), random.getstate()
    np.random.seed(seed)
    random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(saved_numpy)
        random.setstate(saved_python)
