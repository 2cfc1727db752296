"""Climbs from several starts: every separate mode the climbs find, and when to stop looking.

A single climb from a chain's initial point ends in whatever mode's basin that point lies in. On
a posterior with a spurious local mode near a natural start (an ODE model started at its prior
means: a flat solution at the equilibrium with a large noise scale) every chain climbs to the
same wrong mode and agrees on it, and on a mixture every chain climbs to the same component and
misses the others' mass: either way R-hat cannot tell. :func:`climb_from_starts` therefore looks
further, in the manner of clustered multi-start global optimisation:

1. it climbs from the chain's own start;
2. it *screens* a set of further starts (draws of the prior, one evaluation each,
   :func:`screening_size`);
3. it climbs again from the highest screened point that the modes found so far do not
   *explain*: a point is explained when its log-density is no more than
   :data:`EXPLAINED_MARGIN` above what the Gaussian of some known mode predicts there, as in
   that mode's basin; points far out in another mode's basin are far above every known mode's
   prediction;
4. it repeats step 3 until no screened point is unexplained, or (by default) two climbs in a
   row found no new mode, or six climbs or the budget are spent.

On a unimodal Gaussian-like posterior every screened point is explained after the first climb,
so the search costs the screening only; on a mixture the screened points in each missed
component's basin lead the next climbs there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from pymc_kameleon.core.mode_start import ModeStart, find_mode_and_curvature

__all__ = [
    "EXPLAINED_MARGIN",
    "FRUITLESS_CLIMBS",
    "MODE_SEPARATION",
    "POLISHED_GAIN",
    "Climbs",
    "climb_from_starts",
    "distinct_modes",
    "explained_by",
    "same_mode",
    "screening_size",
]

#: two modes are one if either lies within this many sds (Mahalanobis) of the other
MODE_SEPARATION = 4.0
#: a screened point at most this far (log-density units) above a known mode's Gaussian
#: prediction lies in that mode's basin: about a factor 7 in density, far below the gap of a
#: point in another mode's basin, and above the rounding of a Gaussian mode's own points
EXPLAINED_MARGIN = 2.0
#: climbs in a row that found no new mode end the (economical) search
FRUITLESS_CLIMBS = 2
#: the predicted gain a mode is polished to once the climbs disagree (see
#: :func:`~pymc_kameleon.core.mode_start.find_mode_and_curvature`)
POLISHED_GAIN = 0.01
_MAX_CLIMBS = 6


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
        Log-density evaluations spent by all of them, the screening included.
    highest : float
        The highest log-density any climb reached, finished or not (a climb that ran out of
        evaluations above ``best`` is evidence that ``best`` is a local mode).
    n_screened : int
        Further starts screened (one evaluation each).
    """

    best: ModeStart
    modes: list[ModeStart]
    n_climbs: int
    n_evals: int
    highest: float = -np.inf
    n_screened: int = 0


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


def screening_size(dim: int, budget: int = 0) -> int:
    """Further starts screened by default: ``30 + 10 d``, or an eighth of the budget if more.

    A basin that holds a fraction ``p`` of the prior's mass is missed by all of ``n`` draws
    with probability ``(1 - p)^n``: on the narrow component of the ``widths`` mixture
    (:data:`~pymc_kameleon.targets.MIXTURES`, ``p = 0.042`` under a N(0, 10^2) prior) that was
    8 % of chains at 60 draws, and is 0.03 % at the 187 an eighth of a 3000-iteration warm-up's
    default budget pays for. Each costs one evaluation.

    Parameters
    ----------
    dim : int
    budget : int, default 0
        The start-up's evaluation budget.

    Returns
    -------
    int
    """
    return max(30 + 10 * int(dim), int(budget) // 8)


def explained_by(modes: list[ModeStart], points: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Whether each point lies in the basin of a known mode, by that mode's Gaussian.

    A point is explained when its log-density is at most :data:`EXPLAINED_MARGIN` above
    ``log p(m) - r^2 / 2`` for some mode ``m``, with ``r`` the point's Mahalanobis distance from
    ``m`` under the inverse curvature there.

    Parameters
    ----------
    modes : list of ModeStart
        With covariances.
    points : numpy.ndarray, shape (n, d)
    values : numpy.ndarray, shape (n,)
        The log-density at each point.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
    """
    explained = np.zeros(len(values), dtype=bool)
    for mode in modes:
        low = scipy.linalg.cholesky(mode.covariance, lower=True, check_finite=False)
        z = scipy.linalg.solve_triangular(low, (points - mode.mode).T, lower=True)
        predicted = mode.log_density - 0.5 * np.sum(z * z, axis=0)
        explained |= values <= predicted + EXPLAINED_MARGIN
    return explained


def climb_from_starts(
    log_density: Callable[[np.ndarray], float],
    start: np.ndarray,
    budget: int,
    more_starts: Callable[[int], np.ndarray | None] | None = None,
    stop_at_one_mode: bool = True,
    n_screen: int | None = None,
) -> Climbs:
    """Climb from ``start``, then from the screened further starts no known mode explains.

    See the module docstring. The screening takes at most a quarter of the evaluations left
    after the first climb; a further climb runs only if the evaluations left pay for at least
    one curvature (``d^2 + 5 d``).

    Parameters
    ----------
    log_density : callable
        ``x -> log p(x)``, deterministic.
    start : numpy.ndarray, shape (d,)
        The chain's own start.
    budget : int
        Evaluations allowed for the screening and all the climbs.
    more_starts : callable, optional
        ``k -> x`` the k-th further start (e.g. a prior draw), or None when there is none.
    stop_at_one_mode : bool
        Stop after :data:`FRUITLESS_CLIMBS` climbs in a row that found no new mode (the
        economical default); False climbs on from every unexplained point while the budget
        and the cap of six climbs allow.
    n_screen : int, optional
        Further starts to screen (default :func:`screening_size`).

    Returns
    -------
    Climbs
    """
    d = start.size
    first = find_mode_and_curvature(log_density, start, max_evals=max(1, budget))
    search = _Search(log_density, budget, first)
    if more_starts is not None:
        size = screening_size(d, budget) if n_screen is None else int(n_screen)
        points, values = _screen(log_density, more_starts, min(size, (budget - search.spent) // 4))
        search.spent += len(values)
        fruitless = 0
        while len(search.climbs) < _MAX_CLIMBS and search.left >= d * (d + 5):
            if stop_at_one_mode and fruitless >= FRUITLESS_CLIMBS:
                break
            index = _highest_unexplained(search.modes, points, values)
            if index is None:
                break
            values[index] = -np.inf  # (climbed: never again)
            fruitless = 0 if search.climb_from(points[index]) else fruitless + 1
        search.n_screened = len(values)
    return search.result()


class _Search:
    """The climbs so far, and the separate modes among them (polished once there are two)."""

    def __init__(self, log_density, budget: int, first: ModeStart) -> None:
        self.log_density, self.budget = log_density, budget
        self.climbs, self.spent, self.n_screened = [first], first.n_evals, 0
        self.polishes: list[ModeStart] = []
        self.modes: list[ModeStart] = [first] if first.covariance is not None else []
        self.polished: set[int] = set()  # ids of the modes in `modes` already polished

    @property
    def left(self) -> int:
        return self.budget - self.spent

    def climb_from(self, point: np.ndarray) -> bool:
        """Climb from ``point``; whether it found a mode separate from those known."""
        climb = find_mode_and_curvature(self.log_density, point, max_evals=self.left)
        self.climbs.append(climb)
        self.spent += climb.n_evals
        if climb.covariance is None:
            return False
        if any(same_mode(climb, m) for m in self.modes):
            self.modes = distinct_modes([*self.modes, climb])
            return False
        before = len(self.modes)
        # two modes apart: polish each (a climb stopped on a banana's arm is no mode), merge
        self.modes = distinct_modes([self._polish(m) for m in [*self.modes, climb]])
        return len(self.modes) > before

    def _polish(self, mode: ModeStart) -> ModeStart:
        if id(mode) in self.polished or self.left <= 0:
            return mode
        again = find_mode_and_curvature(
            self.log_density, mode.mode, max_evals=self.left, converged_gain=POLISHED_GAIN
        )
        self.polishes.append(again)
        self.spent += again.n_evals
        kept = again if again.covariance is not None else mode
        self.polished.add(id(kept))
        return kept

    def result(self) -> Climbs:
        reached = [c.log_density for c in self.climbs + self.polishes]
        highest = max((v for v in reached if np.isfinite(v)), default=-np.inf)
        best = self.modes[0] if self.modes else self.climbs[0]
        return Climbs(
            best, list(self.modes), len(self.climbs), self.spent, highest, self.n_screened
        )


def _with_curvature(climbs: list[ModeStart]) -> list[ModeStart]:
    return [c for c in climbs if c.covariance is not None]


def _screen(log_density, more_starts, size) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``size`` further starts and their log-densities (non-finite ones as ``-inf``)."""
    points, values = [], []
    for k in range(max(0, size)):
        point = more_starts(k)
        if point is None:
            break
        points.append(np.asarray(point, dtype=float))
        value = float(log_density(points[-1]))
        values.append(value if np.isfinite(value) else -np.inf)
    if not points:
        return np.empty((0, 0)), np.empty(0)
    return np.array(points), np.array(values)


def _highest_unexplained(modes, points, values) -> int | None:
    """The index of the highest finite screened point no mode explains (None if none)."""
    candidates = np.isfinite(values)
    if modes and np.any(candidates):
        candidates[candidates] = ~explained_by(modes, points[candidates], values[candidates])
    if not np.any(candidates):
        return None
    return int(np.argmax(np.where(candidates, values, -np.inf)))
