"""Invalid constructor arguments raise ValueError with a message naming the argument."""

from __future__ import annotations

import math

import numpy as np
import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep

STEP_CLASSES = [KameleonStep, AdaptiveMetropolis]
STEP_IDS = ["kameleon", "adaptive_metropolis"]


@pytest.fixture(scope="module")
def model():
    with pm.Model() as m:
        pm.Normal("x", 0.0, 1.0, shape=2)
        pm.Poisson("k", 2.0)
    return m


def build(step_cls, model, vars=None, **kwargs):
    if vars is None:
        vars = [model["x"]]
    return step_cls(vars, model=model, **kwargs)


@pytest.mark.parametrize("gamma", [0, 0.0, -1, -1e-9, math.nan, math.inf, -math.inf])
def test_kameleon_gamma_must_be_positive(model, gamma):
    with pytest.raises(ValueError, match="gamma"):
        build(KameleonStep, model, gamma=gamma)


@pytest.mark.parametrize("gamma", [-1, -1e-9, math.nan, math.inf, -math.inf])
def test_adaptive_metropolis_gamma_must_be_finite_nonnegative(model, gamma):
    # gamma=0 is AdaptiveMetropolis's default (no regulariser), so only < 0 and non-finite fail
    with pytest.raises(ValueError, match="gamma"):
        build(AdaptiveMetropolis, model, gamma=gamma)


def test_adaptive_metropolis_gamma_zero_is_valid(model):
    step = build(AdaptiveMetropolis, model, gamma=0.0)
    assert step.gamma == 0.0


@pytest.mark.parametrize("n_history", [1, 0, -5, 2.5, True, False, "50"])
def test_n_history(model, n_history):
    with pytest.raises(ValueError, match="n_history"):
        build(KameleonStep, model, n_history=n_history)


def test_n_history_default_depends_on_the_proposal(model):
    assert build(KameleonStep, model).n_history == 1000
    assert build(KameleonStep, model, proposal="pca").n_history == 300


def test_n_history_numpy_int_ok(model):
    step = build(KameleonStep, model, n_history=np.int64(2))
    assert step.n_history == 2


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
@pytest.mark.parametrize("target_accept", [0, 0.0, 1, 1.0, -0.1, 1.5, math.nan, math.inf])
def test_target_accept(model, step_cls, target_accept):
    with pytest.raises(ValueError, match="target_accept"):
        build(step_cls, model, target_accept=target_accept)


@pytest.mark.parametrize("kernel", ["rbf", "Gaussian", "", "laplace"])
def test_unknown_kernel_lists_allowed_names(model, kernel):
    with pytest.raises(ValueError, match="gaussian") as excinfo:
        build(KameleonStep, model, kernel=kernel)
    message = str(excinfo.value)
    for name in ("gaussian", "matern32", "matern52", "linear"):
        assert name in message
    assert repr(kernel) in message


@pytest.mark.parametrize(
    "bandwidth", [0, 0.0, -1.0, math.nan, math.inf, -math.inf, "silverman", "", "MEDIAN", True]
)
def test_bandwidth(model, bandwidth):
    with pytest.raises(ValueError, match="bandwidth"):
        build(KameleonStep, model, bandwidth=bandwidth)


def test_fixed_bandwidth_ok(model):
    step = build(KameleonStep, model, bandwidth=0.7)
    assert step.kernel.bandwidth == 0.7


@pytest.mark.parametrize("scale", ["bogus", "Learn", "", None])
def test_adaptive_metropolis_scale(model, scale):
    with pytest.raises(ValueError, match="scale"):
        build(AdaptiveMetropolis, model, scale=scale)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
@pytest.mark.parametrize("adaptation", ["bogus", "Tune", ""])
def test_adaptation(model, step_cls, adaptation):
    with pytest.raises(ValueError, match="adaptation"):
        build(step_cls, model, adaptation=adaptation)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_discrete_var(model, step_cls):
    with pytest.raises(ValueError, match=r"discrete.*\bk\b"):
        build(step_cls, model, vars=[model["k"]])
    with pytest.raises(ValueError, match=r"\bk\b"):
        build(step_cls, model, vars=[model["x"], model["k"]])


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_default_vars_skip_discrete(model, step_cls):
    step = step_cls(model=model)
    assert [v.name for v in step.vars] == ["x"]


def test_no_continuous_vars():
    with pm.Model() as m:
        pm.Poisson("k", 2.0)
    for step_cls in STEP_CLASSES:
        with pytest.raises(ValueError, match="no continuous"):
            step_cls(model=m)
