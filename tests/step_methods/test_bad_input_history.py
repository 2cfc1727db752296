"""``initial_history`` without spread, or too large to square, fails at construction.

A history whose rows are all identical, or in which a coordinate never changes, comes from a
stuck pilot chain and says nothing about the posterior's shape; values so large that squared
distances overflow break every kernel and covariance. A history in which few rows are distinct
only earns a warning (repeated rows from rejections are normal).
"""

from __future__ import annotations

import warnings

import numpy as np
import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.core.checks import show

D = 3
STEP_CLASSES = [KameleonStep, AdaptiveMetropolis, KMCStep]


@pytest.fixture(scope="module")
def model():
    with pm.Model() as m:
        pm.Normal("x", 0.0, 1.0, shape=D)
    return m


def spread_rows(n=40, seed=0):
    return np.random.default_rng(seed).standard_normal((n, D))


def build(step_cls, model, history):
    return step_cls([model["x"]], model=model, initial_history=history)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
def test_identical_rows_are_refused(model, step_cls):
    history = np.tile([0.5, -1.0, 2.0], (30, 1))
    with pytest.raises(ValueError, match="all 30 rows of `initial_history` are identical") as info:
        build(step_cls, model, history)
    message = str(info.value)
    assert step_cls.__name__ in message
    assert "[ 0.5, -1. ,  2. ]" in message  # the repeated row
    assert "leave `initial_history` out" in message


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize(("columns", "shown"), [([1], r"\[1\]"), ([0, 2], r"\[0, 2\]")])
def test_a_constant_coordinate_is_refused_by_index(model, step_cls, columns, shown):
    history = spread_rows()
    history[:, columns] = 7.25
    with pytest.raises(ValueError, match=rf"coordinate\(s\) {shown} of `initial_history`") as info:
        build(step_cls, model, history)
    message = str(info.value)
    assert "same value in all 40 rows" in message and "7.25" in message
    assert "stuck pilot chain" in message


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("scale", [1e200, 1e160, -1e155])
def test_values_whose_squares_overflow_are_refused(model, step_cls, scale):
    history = spread_rows() * scale
    with pytest.raises(ValueError, match="`initial_history` holds values so large") as info:
        build(step_cls, model, history)
    assert "overflow" in str(info.value) and "Rescale" in str(info.value)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
def test_large_but_squarable_values_are_accepted(model, step_cls):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        step = build(step_cls, model, spread_rows() * 1e100)
    assert step.initial_history.shape == (40, D)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
def test_few_distinct_rows_warn(model, step_cls):
    distinct = spread_rows(n=9)
    history = np.repeat(distinct, 12, axis=0)  # 9 distinct of 108 rows: 8.3 %
    with pytest.warns(UserWarning, match=r"only 9 of the 108 rows of `initial_history`") as record:
        step = build(step_cls, model, history)
    assert step.initial_history.shape == (108, D)
    assert "badly mixing pilot chain" in str(record[0].message)
    assert record[0].filename == __file__  # points at the caller, not the package


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
def test_repeated_rows_of_a_mixing_chain_do_not_warn(model, step_cls):
    history = np.repeat(spread_rows(n=10), 9, axis=0)  # 10 distinct of 90 rows: 11 %
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        step = build(step_cls, model, history)
    assert step.initial_history.shape == (90, D)


@pytest.mark.parametrize(
    "history",
    [True, "abc", [["1", "2", "3"]] * 5, np.ones((5, D), dtype=bool), [[0.0, 1.0, 2.0], [1.0]]],
    ids=["bool", "str", "numeric strings", "bool array", "ragged"],
)
def test_non_numeric_history_is_refused_showing_it(model, history):
    with pytest.raises(ValueError, match="`initial_history` must be a numeric array") as info:
        build(KameleonStep, model, history)
    assert show(history) in str(info.value)
