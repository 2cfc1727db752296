"""Stages of a warm-up that learns scales first, then covariances in doubling windows.

A chain started far from the bulk of the posterior spends its first iterations in states that say
little about the posterior's shape, and a covariance averaged over the whole warm-up remembers
them for a long time. Like Stan's warm-up (Stan Reference Manual, "HMC algorithm parameters"),
:class:`WarmupSchedule` splits the ``tune`` warm-up iterations into

1. a **scales** stage: per-coordinate proposal scales are learned (no covariance yet);
2. **windows** of doubling length: each window's states give a new covariance estimate, from
   that window only, so that the early states are forgotten;
3. a **settle** stretch: the covariance is frozen and only the global scale adapts to it.

The rule, in integer arithmetic (``//`` is the floor division):

- ``tune >= 150`` (:data:`FULL_SCHEDULE_TUNE`): the scales stage has ``max(50, tune // 10)``
  iterations and the settle stretch the last ``tune // 10``. The windows fill the iterations in
  between: the first has ``max(25, tune // 20)`` iterations and each next one twice the one
  before it, except that a window is stretched to the end of the span when the iterations left
  after it are fewer than twice its length (the next window could not have its full length).
  The last window thus has between one and three times its nominal length.
- ``tune < 150``: the scales stage has ``min(tune, 50)`` iterations; the rest forms one window
  if it has at least 25 iterations (``75 <= tune < 150``), else it joins the scales stage
  (``tune < 75``: the whole warm-up learns scales). There is no settle stretch.
- ``tune == 0``: no stage at all.

For example ``tune = 1000`` gives scales ``[0, 100)``, windows ``[100, 150)``, ``[150, 250)``,
``[250, 450)``, ``[450, 900)`` and settle ``[900, 1000)``.
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from pymc_kameleon.core.checks import check_int

__all__ = [
    "DONE",
    "FULL_SCHEDULE_TUNE",
    "SCALES",
    "SETTLE",
    "WINDOW",
    "Stage",
    "WarmupSchedule",
]

SCALES = "scales"
"""Name of the stage that learns per-coordinate scales."""

WINDOW = "window"
"""Name of the stages whose states estimate a covariance."""

SETTLE = "settle"
"""Name of the final stage, where only the global scale adapts."""

DONE = "done"
"""What :meth:`WarmupSchedule.stage` returns for an iteration at or after ``tune``."""

FULL_SCHEDULE_TUNE = 150
"""Smallest ``tune`` that gets doubling windows and a settle stretch."""

_MIN_SCALES = 50
_MIN_WINDOW = 25


class Stage(NamedTuple):
    """One stage of a warm-up: iterations ``start <= t < stop``.

    Parameters
    ----------
    name : str
        :data:`SCALES`, :data:`WINDOW` or :data:`SETTLE`.
    start : int
        First iteration of the stage.
    stop : int
        One past its last iteration.
    """

    name: str
    start: int
    stop: int


class WarmupSchedule:
    """The stages of ``tune`` warm-up iterations (see the module docstring for the rule).

    Iterations count from 0, as in :class:`~pymc_kameleon.core.proposals.Transition`; the
    stages cover ``range(tune)`` in order, without gaps or overlaps.

    Parameters
    ----------
    tune : int
        Number of warm-up iterations, ``>= 0``.

    Examples
    --------
    >>> schedule = WarmupSchedule(1000)
    >>> [(w.start, w.stop) for w in schedule.windows]
    [(100, 150), (150, 250), (250, 450), (450, 900)]
    >>> schedule.stage(0), schedule.stage(120), schedule.stage(950)
    ('scales', 'window', 'settle')
    >>> schedule.closes_window(149)
    True
    """

    def __init__(self, tune: int) -> None:
        self._tune = check_int(
            "tune",
            tune,
            minimum=0,
            hint="It is the number of warm-up iterations, e.g. the `tune` of pm.sample.",
        )
        self._stages = tuple(_split(self._tune))
        # stage starts, for a binary search in stage_at
        self._starts = [stage.start for stage in self._stages]

    @property
    def tune(self) -> int:
        """Number of warm-up iterations."""
        return self._tune

    @property
    def stages(self) -> tuple[Stage, ...]:
        """Every stage in order: the scales stage, the windows, the settle stretch (if any)."""
        return self._stages

    @property
    def windows(self) -> tuple[Stage, ...]:
        """The covariance windows, in order (possibly none)."""
        return tuple(stage for stage in self._stages if stage.name == WINDOW)

    def stage_at(self, iteration: int) -> Stage | None:
        """The stage that holds ``iteration``.

        Parameters
        ----------
        iteration : int
            Iteration since the chain started, ``>= 0``.

        Returns
        -------
        Stage or None
            None once warm-up is over (``iteration >= tune``).
        """
        iteration = check_int(
            "iteration", iteration, minimum=0, hint="Iterations count from 0 at the chain start."
        )
        if iteration >= self._tune:
            return None
        return self._stages[bisect.bisect_right(self._starts, iteration) - 1]

    def stage(self, iteration: int) -> str:
        """Name of the stage that holds ``iteration``.

        Parameters
        ----------
        iteration : int
            Iteration since the chain started, ``>= 0``.

        Returns
        -------
        str
            :data:`SCALES`, :data:`WINDOW`, :data:`SETTLE`, or :data:`DONE` once warm-up is over.
        """
        found = self.stage_at(iteration)
        return DONE if found is None else found.name

    def closes_window(self, iteration: int) -> bool:
        """Whether ``iteration`` is the last iteration of a covariance window.

        Parameters
        ----------
        iteration : int
            Iteration since the chain started, ``>= 0``.

        Returns
        -------
        bool
            True at the last iteration of each window: the caller then closes its window
            estimate and starts using the new covariance at the next iteration.
        """
        found = self.stage_at(iteration)
        return found is not None and found.name == WINDOW and iteration == found.stop - 1

    def __repr__(self) -> str:
        """Show ``tune`` and the stages."""
        parts = ", ".join(f"{s.name}[{s.start}, {s.stop})" for s in self._stages)
        return f"WarmupSchedule(tune={self._tune}: {parts or 'no stage'})"

    def __eq__(self, other: object) -> bool:
        """Two schedules are equal if they have the same ``tune``."""
        if not isinstance(other, WarmupSchedule):
            return NotImplemented
        return self._tune == other.tune

    def __hash__(self) -> int:
        """Hash of ``tune``."""
        return hash((WarmupSchedule, self._tune))


def _split(tune: int) -> list[Stage]:
    """The stages of ``tune`` iterations, by the rule of the module docstring."""
    if tune < FULL_SCHEDULE_TUNE:
        scales = min(tune, _MIN_SCALES)
        if tune - scales < _MIN_WINDOW:  # too short for a window: all of it learns scales
            scales = tune
        stages = [Stage(SCALES, 0, scales)] if scales else []
        if tune > scales:
            stages.append(Stage(WINDOW, scales, tune))
        return stages
    scales_stop = max(_MIN_SCALES, tune // 10)
    settle_start = tune - tune // 10
    stages = [Stage(SCALES, 0, scales_stop)]
    stages.extend(_doubling_windows(scales_stop, settle_start, max(_MIN_WINDOW, tune // 20)))
    stages.append(Stage(SETTLE, settle_start, tune))
    return stages


def _doubling_windows(start: int, stop: int, first: int) -> list[Stage]:
    """Windows of lengths ``first, 2 first, 4 first, ...`` covering ``[start, stop)``."""
    windows = []
    length = first
    while start < stop:
        end = start + length
        # too little would be left for the next, doubled window: this one takes the rest
        if stop - end < 2 * length:
            end = stop
        windows.append(Stage(WINDOW, start, end))
        start, length = end, 2 * length
    return windows
