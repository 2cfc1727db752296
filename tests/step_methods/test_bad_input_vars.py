"""A variable listed twice in ``vars`` fails at construction, naming the variable."""

from __future__ import annotations

import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep

STEP_CLASSES = [KameleonStep, AdaptiveMetropolis, KMCStep]


@pytest.fixture(scope="module")
def model():
    with pm.Model() as m:
        pm.Normal("x", 0.0, 1.0, shape=2)
        pm.HalfNormal("sigma", 1.0)
    return m


def duplicated(model, how):
    x, sigma = model["x"], model["sigma"]
    value = model.rvs_to_values
    return {
        "same random variable": ([x, x], "x"),
        "random and value variable": ([x, value[x]], "x"),
        "transformed, value first": ([value[sigma], x, sigma], "sigma"),
        "tuple": ((sigma, x, sigma), "sigma"),
    }[how]


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "how",
    ["same random variable", "random and value variable", "transformed, value first", "tuple"],
)
def test_duplicated_variable_fails_at_construction(model, step_cls, how):
    vars, name = duplicated(model, how)
    with pytest.raises(ValueError) as info:
        step_cls(vars, model=model)
    message = str(info.value)
    assert step_cls.__name__ in message
    assert f"`vars` lists the variable(s) {name!r} more than once" in message
    assert "List each variable once" in message


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
def test_distinct_variables_are_fine(model, step_cls):
    step = step_cls([model["x"], model.rvs_to_values[model["sigma"]]], model=model)
    assert step.dim == 3
