"""``adaptation=`` is checked at construction: type, class, arity, and one trial evaluation."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.core.adaptation import (
    AdaptationSchedule,
    CallableSchedule,
    TuningOnly,
    VanishingAdaptation,
)
from pymc_kameleon.core.checks import show

STEP_CLASSES = [KameleonStep, AdaptiveMetropolis, KMCStep]
SIGNATURE = "fn(iteration: int, tuning: bool) -> probability in [0, 1]"


@pytest.fixture(scope="module")
def model():
    with pm.Model() as m:
        pm.Normal("x", 0.0, 1.0, shape=2)
    return m


def build(step_cls, model, adaptation):
    return step_cls([model["x"]], model=model, adaptation=adaptation)


def one_argument(iteration):
    return 1.0


def three_arguments(iteration, tuning, extra):
    return 1.0


def keyword_only(*, iteration, tuning):
    return 1.0


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "fn",
    [one_argument, three_arguments, keyword_only, lambda: 1.0],
    ids=["one_argument", "three_arguments", "keyword_only", "no_arguments"],
)
def test_wrong_arity_fails_at_construction(model, step_cls, fn):
    with pytest.raises(TypeError) as info:
        build(step_cls, model, fn)
    message = str(info.value)
    assert f"`adaptation` must be callable as {SIGNATURE}" in message
    assert show(fn) in message


@dataclass(frozen=True)
class EveryOther(AdaptationSchedule):
    period: int

    def probability(self, iteration, tuning):
        return float(iteration % self.period == 0)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    ("cls", "suggestion"),
    [
        (TuningOnly, "adaptation=TuningOnly()"),
        (VanishingAdaptation, "adaptation=VanishingAdaptation()"),
        (EveryOther, "adaptation=EveryOther(...)"),
    ],
)
def test_a_schedule_class_suggests_an_instance(model, step_cls, cls, suggestion):
    with pytest.raises(TypeError, match="pass an instance of it") as info:
        build(step_cls, model, cls)
    assert suggestion in str(info.value)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("cls", [KameleonStep, KMCStep, dict, float])
def test_another_class_says_what_is_accepted(model, step_cls, cls):
    with pytest.raises(TypeError) as info:
        build(step_cls, model, cls)
    message = str(info.value)
    assert f"`adaptation` got the class {cls.__module__}.{cls.__qualname__}" in message
    assert "not an adaptation schedule" in message
    assert "'tune'" in message and "'vanishing'" in message and SIGNATURE in message
    assert f"{cls.__name__}()" not in message


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("value", [None, 0.5, 3, ["tune"], b"tune", True])
def test_other_types_say_what_is_accepted(model, step_cls, value):
    with pytest.raises(TypeError) as info:
        build(step_cls, model, value)
    assert "`adaptation` must be 'tune', 'vanishing', an AdaptationSchedule" in str(info.value)
    assert f"got {show(value)}" in str(info.value)


def raises_zero_division(iteration, tuning):
    return 1.0 / 0.0


class Broken(AdaptationSchedule):
    def probability(self, iteration, tuning):
        raise RuntimeError("not ready")


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    ("adaptation", "error"),
    [
        (raises_zero_division, "ZeroDivisionError (float division by zero)"),
        (Broken(), "RuntimeError (not ready)"),
        (AdaptationSchedule(), "NotImplementedError"),
    ],
    ids=["callable", "subclass", "base class"],
)
def test_a_schedule_that_raises_fails_at_construction(model, step_cls, adaptation, error):
    with pytest.raises(ValueError) as info:
        build(step_cls, model, adaptation)
    message = str(info.value)
    assert f"`adaptation` {show(adaptation)} raised {error}" in message
    assert "iteration 0 of warm-up" in message and "[0, 1]" in message


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("value", [1.5, -0.1, math.nan, math.inf, "0.5", None, [0.5], "yes"])
def test_a_schedule_that_returns_no_probability_fails_at_construction(model, step_cls, value):
    def fn(iteration, tuning):
        return value

    with pytest.raises((ValueError, TypeError)) as info:
        build(step_cls, model, fn)
    message = str(info.value)
    assert f"`adaptation` {show(fn)} returned {show(value)} at iteration 0 of warm-up" in message
    assert "must return a probability, a number in [0, 1]" in message


class Counter:
    def __init__(self):
        self.calls = []

    def __call__(self, iteration, tuning, scale=1.0):
        self.calls.append((iteration, tuning))
        return 1.0 if tuning else scale * (iteration + 1.0) ** -0.5


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
def test_valid_callables_are_tried_once_and_kept(model, step_cls):
    counter = Counter()
    step = build(step_cls, model, counter)
    assert isinstance(step.schedule, CallableSchedule) and step.schedule.fn is counter
    assert counter.calls == [(0, True)]
    for fn in (
        functools.partial(counter, scale=0.5),
        lambda *args: 0.0,
        lambda iteration, tuning: tuning,  # a bool is a probability of 0 or 1
        EveryOther(3),
    ):
        build(step_cls, model, fn)
