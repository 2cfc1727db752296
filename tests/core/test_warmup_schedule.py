"""Tests for :mod:`pymc_kameleon.core.warmup_schedule`."""

from __future__ import annotations

import doctest
import itertools
import pickle

import numpy as np
import pytest

from pymc_kameleon.core import warmup_schedule
from pymc_kameleon.core.checks import ArgumentTypeError
from pymc_kameleon.core.warmup_schedule import (
    DONE,
    FULL_SCHEDULE_TUNE,
    SCALES,
    SETTLE,
    WINDOW,
    Stage,
    WarmupSchedule,
)

TUNES = [0, 1, 2, 10, 49, 50, 74, 75, 100, 149, 150, 151, 199, 500, 1000, 3000, 10007]


def _names(schedule: WarmupSchedule) -> list[str]:
    return [stage.name for stage in schedule.stages]


@pytest.mark.parametrize("tune", TUNES)
def test_stages_cover_the_warmup_exactly_once(tune):
    schedule = WarmupSchedule(tune)
    covered = [t for stage in schedule.stages for t in range(stage.start, stage.stop)]
    assert covered == list(range(tune))  # in order: no gap, no overlap
    assert all(stage.stop > stage.start for stage in schedule.stages)  # no empty stage
    for stage in schedule.stages:
        for t in {stage.start, (stage.start + stage.stop) // 2, stage.stop - 1}:
            assert schedule.stage_at(t) == stage
            assert schedule.stage(t) == stage.name


@pytest.mark.parametrize("tune", TUNES)
def test_stage_order_is_scales_windows_settle(tune):
    schedule = WarmupSchedule(tune)
    scales = [SCALES] if tune else []
    settle = [SETTLE] if tune >= FULL_SCHEDULE_TUNE else []
    assert _names(schedule) == scales + [WINDOW] * len(schedule.windows) + settle


@pytest.mark.parametrize("tune", [t for t in TUNES if t >= FULL_SCHEDULE_TUNE])
def test_full_schedule_sizes_and_doubling(tune):
    schedule = WarmupSchedule(tune)
    scales, *windows, settle = schedule.stages
    assert scales.stop - scales.start == max(50, tune // 10)
    assert settle.stop - settle.start == tune // 10
    lengths = [w.stop - w.start for w in windows]
    assert lengths[0] >= max(25, tune // 20)
    nominal = [max(25, tune // 20) * 2**k for k in range(len(lengths))]
    assert lengths[:-1] == nominal[:-1]  # every window but the last doubles the one before
    # the last one absorbed a remainder shorter than the next doubled window
    assert nominal[-1] <= lengths[-1] < 3 * nominal[-1]
    assert tuple(windows) == schedule.windows


def test_documented_examples():
    schedule = WarmupSchedule(1000)
    assert schedule.stages == (
        Stage(SCALES, 0, 100),
        Stage(WINDOW, 100, 150),
        Stage(WINDOW, 150, 250),
        Stage(WINDOW, 250, 450),
        Stage(WINDOW, 450, 900),
        Stage(SETTLE, 900, 1000),
    )
    assert [(w.start, w.stop) for w in WarmupSchedule(150).windows] == [(50, 75), (75, 135)]
    assert [(w.start, w.stop) for w in WarmupSchedule(10007).windows] == [
        (1000, 1500),
        (1500, 2500),
        (2500, 4500),
        (4500, 9007),
    ]


@pytest.mark.parametrize(
    ("tune", "expected"),
    [
        (0, ()),
        (1, (Stage(SCALES, 0, 1),)),
        (10, (Stage(SCALES, 0, 10),)),
        (74, (Stage(SCALES, 0, 74),)),  # 24 left: too short for a window
        (75, (Stage(SCALES, 0, 50), Stage(WINDOW, 50, 75))),
        (100, (Stage(SCALES, 0, 50), Stage(WINDOW, 50, 100))),
        (149, (Stage(SCALES, 0, 50), Stage(WINDOW, 50, 149))),
    ],
)
def test_small_tune_has_a_scales_stage_and_at_most_one_window(tune, expected):
    assert WarmupSchedule(tune).stages == expected


@pytest.mark.parametrize("tune", TUNES)
def test_closes_window_at_the_last_iteration_of_each_window_only(tune):
    schedule = WarmupSchedule(tune)
    closing = [t for t in range(tune + 5) if schedule.closes_window(t)]
    assert closing == [w.stop - 1 for w in schedule.windows]


@pytest.mark.parametrize("tune", [0, 10, 150, 1000])
def test_after_warmup_is_done(tune):
    schedule = WarmupSchedule(tune)
    for t in (tune, tune + 1, 10**9):
        assert schedule.stage(t) == DONE
        assert schedule.stage_at(t) is None
        assert not schedule.closes_window(t)


def test_numpy_integers_are_accepted():
    schedule = WarmupSchedule(np.int64(1000))
    assert schedule.tune == 1000 and type(schedule.tune) is int
    assert schedule.stage(np.int32(120)) == WINDOW
    assert schedule.closes_window(np.int64(149))


def test_value_semantics_and_pickle():
    assert WarmupSchedule(300) == WarmupSchedule(300)
    assert WarmupSchedule(300) != WarmupSchedule(301)
    assert len({WarmupSchedule(300), WarmupSchedule(300)}) == 1
    schedule = WarmupSchedule(777)
    assert pickle.loads(pickle.dumps(schedule)).stages == schedule.stages
    assert "window[" in repr(schedule) and "tune=777" in repr(schedule)
    assert repr(WarmupSchedule(0)) == "WarmupSchedule(tune=0: no stage)"


def test_window_lengths_grow_with_tune():
    """More warm-up never gives a shorter scales stage, first window or settle stretch."""
    previous = None
    for tune in range(FULL_SCHEDULE_TUNE, 4000, 37):
        scales, first, *_, settle = WarmupSchedule(tune).stages
        sizes = (scales.stop, first.stop - first.start, settle.stop - settle.start)
        if previous is not None:
            assert all(a >= b for a, b in zip(sizes, previous, strict=True))
        previous = sizes


@pytest.mark.parametrize("bad", [-1, -100])
def test_negative_tune_is_refused(bad):
    with pytest.raises(ValueError, match=r"`tune` must be an integer >= 0.*warm-up iterations"):
        WarmupSchedule(bad)


@pytest.mark.parametrize("bad", [100.0, "100", True, None, [100]])
def test_tune_of_the_wrong_type_is_refused(bad):
    with pytest.raises(ArgumentTypeError, match=r"`tune` must be an integer"):
        WarmupSchedule(bad)


@pytest.mark.parametrize(
    ("bad", "error"), [(-1, ValueError), (1.0, ArgumentTypeError), ("3", ArgumentTypeError)]
)
def test_bad_iteration_is_refused(bad, error):
    schedule = WarmupSchedule(200)
    for method in (schedule.stage, schedule.stage_at, schedule.closes_window):
        with pytest.raises(error, match=r"`iteration` must be an integer >= 0.*count from 0"):
            method(bad)


def test_many_tunes_cover_exactly():
    for tune in itertools.chain(range(0, 400), range(400, 20000, 997)):
        stages = WarmupSchedule(tune).stages
        assert sum(s.stop - s.start for s in stages) == tune
        assert all(a.stop == b.start for a, b in itertools.pairwise(stages))
        assert not stages or (stages[0].start == 0 and stages[-1].stop == tune)


def test_docstring_examples_run():
    results = doctest.testmod(warmup_schedule, optionflags=doctest.ELLIPSIS)
    assert results.attempted > 0 and results.failed == 0
