"""Climbs from several starts: the best mode, and whether the climbs found more than one.

A single climb from a chain's initial point ends in whatever mode's basin that point lies in. On
a posterior with a spurious local mode near a natural start (an ODE model started at its prior
means: a flat solution at the equilibrium with a large noise scale), every chain climbs to the
same wrong mode and agrees on it, so R-hat cannot tell. :func:`climb_from_starts` climbs once
more, from a second start of the chain's own (a draw from the prior), and keeps climbing from
further starts only while the climbs disagree: two climbs that end in one mode are the evidence
that stops it, so a unimodal posterior pays for two climbs. The best mode is the highest one
with a positive definite curvature.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pymc_kameleon.core.mode_start import ModeStart, find_mode_and_curvature

__all__ = ["MODE_SEPARATION", "Climbs", "climb_from_starts", "distinct_modes", "same_mode"]

#: two modes are one if either lies within this many sds (Mahalanobis) of the other
MODE_SEPARATION = 4.0
_MAX_CLIMBS = 6
_START_TRIES = 3  # prior draws tried for a finite start, one evaluation each


@dataclass(frozen=True)
class Climbs:
    """The result of :func:`climb_from_starts`.

    Attributes
    ----------
    best : ModeStart
        The highest climb that ended at a mode with a positive definite curvature, else the
        first climb (from the chain's own start).
    modes : list of ModeStart
        Every climb that ended at such a mode, in the order climbed.
    n_climbs : int
        Climbs made (the first included).
    n_evals : int
        Log-density evaluations spent by all of them.
    highest : float
        The highest log-density any climb reached, finished or not (a climb that ran out of
        evaluations above ``best`` is evidence that ``best`` is a local mode).
    """

    best: ModeStart
    modes: list[ModeStart]
    n_climbs: int
    n_evals: int
    highest: float = -np.inf


def same_mode(a: ModeStart, b: ModeStart) -> bool:
    """Whether two climbs' modes are one (within :data:`MODE_SEPARATION` sds of each other).

    Parameters
    ----------
    a, b : ModeStart
        With covariances.

    Returns
    -------
    bool
    """
    gap = a.mode - b.mode
    return min(_mahalanobis(gap, a.covariance), _mahalanobis(gap, b.covariance)) <= MODE_SEPARATION


def _mahalanobis(gap: np.ndarray, covariance: np.ndarray) -> float:
    return float(np.sqrt(max(0.0, gap @ np.linalg.solve(covariance, gap))))


def distinct_modes(modes: list[ModeStart]) -> list[ModeStart]:
    """The separate modes among ``modes``: the highest of each group of one mode, best first.

    Parameters
    ----------
    modes : list of ModeStart
        With covariances.

    Returns
    -------
    list of ModeStart
    """
    kept: list[ModeStart] = []
    for mode in sorted(modes, key=lambda m: -m.log_density):
        if not any(same_mode(mode, other) for other in kept):
            kept.append(mode)
    return kept


def climb_from_starts(
    log_density: Callable[[np.ndarray], float],
    start: np.ndarray,
    budget: int,
    more_starts: Callable[[int], np.ndarray | None] | None = None,
    stop_at_one_mode: bool = True,
) -> Climbs:
    """Climb from ``start``, then from further starts while the climbs disagree.

    After the first climb, a second climb runs from ``more_starts(0)`` if the evaluations left
    pay for at least one curvature (``d^2 + 5 d``); further climbs (``more_starts(1)``, ...)
    run only while the climbs have found more than one mode (or always, without
    ``stop_at_one_mode``), up to six climbs and the budget.

    Parameters
    ----------
    log_density : callable
        ``x -> log p(x)``, deterministic.
    start : numpy.ndarray, shape (d,)
        The chain's own start.
    budget : int
        Evaluations allowed for all the climbs.
    more_starts : callable, optional
        ``k -> x`` the k-th further start (e.g. a prior draw), or None when there is none.
    stop_at_one_mode : bool
        Stop after two climbs that found one mode (the economical default); False climbs on
        while the budget pays for it.

    Returns
    -------
    Climbs
    """
    first = find_mode_and_curvature(log_density, start, max_evals=max(1, budget))
    climbs, spent = [first], first.n_evals
    draws = 0
    while more_starts is not None and len(climbs) < _MAX_CLIMBS:
        one_mode = len(distinct_modes(_with_curvature(climbs))) < 2
        if stop_at_one_mode and len(climbs) >= 2 and one_mode:
            break  # two climbs, one mode: the evidence of a single mode
        if budget - spent < start.size * (start.size + 5):  # (one curvature's worth)
            break
        point, _value, tried = _finite_start(log_density, more_starts, draws)
        draws, spent = draws + tried, spent + tried
        if point is None:
            break
        climb = find_mode_and_curvature(log_density, point, max_evals=budget - spent)
        climbs.append(climb)
        spent += climb.n_evals
    modes = _with_curvature(climbs)
    best = max(modes, key=lambda m: m.log_density) if modes else first
    highest = max((c.log_density for c in climbs if np.isfinite(c.log_density)), default=-np.inf)
    return Climbs(best, modes, len(climbs), spent, highest)


def _with_curvature(climbs: list[ModeStart]) -> list[ModeStart]:
    return [c for c in climbs if c.covariance is not None]


def _finite_start(log_density, more_starts, first_index) -> tuple[np.ndarray | None, float, int]:
    """The next further start with a finite log-density: ``(point, value, starts tried)``."""
    for tried in range(1, _START_TRIES + 1):
        point = more_starts(first_index + tried - 1)
        if point is None:
            return None, -np.inf, tried - 1
        value = float(log_density(point))
        if np.isfinite(value):
            return np.asarray(point, dtype=float), value, tried
    return None, -np.inf, _START_TRIES
