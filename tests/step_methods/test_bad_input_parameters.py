"""Every constructor parameter of every step: bad values fail at construction, clearly.

The message of each error names the parameter (in backticks), shows the value passed (its
``repr``) and says what is accepted ("must be ..."). Booleans must be real bools; numbers must be
real numbers (never bools or strings); integers must be integers.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.core.checks import ArgumentTypeError, show
from pymc_kameleon.step_methods.options import OPTION_DEFAULTS


@pytest.fixture(scope="module")
def model():
    with pm.Model() as m:
        pm.Normal("x", 0.0, 1.0, shape=2)
    return m


NAN, INF = math.nan, math.inf

# bad values by kind of parameter (None is added where None is not a valid value)
POSITIVE = [True, "0.5", NAN, INF, -INF, -1.0, 0.0, [0.5]]
NONNEGATIVE = [True, "0.1", NAN, INF, -1.0, -1e-12, [0.1]]
OPEN_UNIT = [True, False, "0.8", "0.3x", NAN, INF, -0.1, 0.0, 1.0, 1.5, [0.5]]
INTEGER = [True, "10", NAN, INF, 2.5, 10.0, np.float64(20.0), -1, [10]]
BOOLEAN = ["False", "no", "", "True", NAN, [0], [], 0, 1, 1.0, None, np.int64(1)]
CHOICE = [True, 0, 1.5, NAN, "bogus", ""]
MAPPING = ["mode", ["mode"], True, 1]
STEP_SIZE_RANGES = [
    True, "0.1", None, 0.1, (NAN, 0.2), (0.1, INF), (-0.1, 0.2), (0.0, 0.2), (0.3, 0.1),
    ("0.1", 0.3), (True, 0.3), (0.1,), (0.1, 0.2, 0.3),
]  # fmt: skip
N_STEPS_RANGES = [
    True, "10", None, 10, (0, 10), (20, 10), (2.5, 10), (10.0, 50), ("10", 50), (NAN, 10),
    (True, 10), (5,),
]  # fmt: skip

COMMON = {
    "noise_free_other_steps": BOOLEAN,
    "blocked": [v for v in BOOLEAN if v is not None],  # None is PyMC's "class default"
    "noise_check_interval": [*INTEGER, None, -5],
    "start_up": ["True", "100", NAN, 2.5, 100.0, np.float64(100.0), -1, None, [100]],
    "compile_kwargs": MAPPING,
    "initial_point": MAPPING,
    "rng": ["abc", 1.5, -1, True, np.random.RandomState(0), [0.5]],
    "model": ["m", 1, {}, True],  # with vars given; PyMC itself fails first without them
    "independence": [*CHOICE, None, "Always", "sometimes", ["always"]],
}

CASES = {
    KameleonStep: {
        "kernel": [*CHOICE, None, ["gaussian"], "Gaussian", "rbf"],
        "n_history": [*INTEGER, 1, 0],  # None: the default
        "gamma": [*POSITIVE, None],
        "nu2": POSITIVE,
        "target_accept": OPEN_UNIT,  # None: the default
        "bandwidth": [*POSITIVE, None, "silverman", "MEDIAN"],
        "adapt_start": [*INTEGER, None],
        "discard_fraction": [True, "abc", "0.2", None, NAN, INF, -0.1, 1.0, [0.2]],
        "history_capacity": [*INTEGER, 999],
        "learn_scale": BOOLEAN,
        "warmup": [*CHOICE, None, "Whitened", "stan", ["whitened"]],
        "global_weight": [True, "0.2", NAN, INF, -0.1, 1.0, [0.2]],
        "proposal": [*CHOICE, None, "PCA", "full-rank", ["pca"]],
        "n_components": [*INTEGER, None, 0],
        "locality_threshold": [True, "0.85", NAN, INF, -0.1, 1.5, [0.85]],
        **COMMON,
    },
    AdaptiveMetropolis: {
        "scale": [*CHOICE, None, "Learn", ["learn"]],
        "gamma": [*NONNEGATIVE, None],
        "target_accept": OPEN_UNIT,  # None: the default
        "adapt_start": [*INTEGER, None, 1, 0],
        "warmup": [*CHOICE, None, "Whitened", "stan", ["whitened"]],
        **COMMON,
    },
    KMCStep: {
        "estimator": [*CHOICE, None, "exact", ["lite"]],
        "n_history": [*INTEGER, None, 9],
        "n_features": [*INTEGER, None, 0],
        "lengthscale": [*POSITIVE, None, "median", "CV"],
        "regularisation": NONNEGATIVE,
        "step_size_range": STEP_SIZE_RANGES,
        "n_steps_range": N_STEPS_RANGES,
        "target_accept": [*OPEN_UNIT, None],
        "mass": [*CHOICE, None, "dense", "Identity"],
        "warmup": [*CHOICE, None, "Whitened", "stan", ["whitened"]],
        "adapt_start": [*INTEGER, None, 9],
        "refit_growth": [True, "2", None, NAN, INF, -1.0, 1.0, 0.5, [2.0]],
        "warmup_explore": [True, "0.5", NAN, INF, -0.1, 1.5, [0.5]],
        "explore_after_warmup": [True, "0.1", NAN, INF, -0.1, 1.5, [0.1]],
        "history_capacity": [*INTEGER, 499],
        "coordinates": [*CHOICE, None, "Local", "fisher", ["local"]],
        **COMMON,
    },
}

PARAMS = [
    # ids by position: a repr with a memory address would differ between xdist workers
    pytest.param(cls, name, value, id=f"{cls.__name__}-{name}-{i}")
    for cls, params in CASES.items()
    for name, values in params.items()
    for i, value in enumerate(values)
]


def test_every_constructor_parameter_is_covered():
    # vars, adaptation and initial_history have their own test modules
    elsewhere = {"self", "vars", "adaptation", "initial_history", "options"}
    for cls, params in CASES.items():
        names = set(inspect.signature(cls.__init__).parameters) - elsewhere
        assert names | set(OPTION_DEFAULTS) == set(params), cls.__name__


@pytest.mark.parametrize("step_cls", list(CASES))
def test_a_misspelt_keyword_is_refused_as_python_refuses_it(model, step_cls):
    with pytest.raises(TypeError, match=r"__init__\(\) got an unexpected keyword argument 'targt_"):
        step_cls([model["x"]], model=model, targt_accept=0.8)
    with pytest.raises(TypeError, match="Did you mean 'start_up'"):
        step_cls([model["x"]], model=model, startup=False)


@pytest.mark.parametrize(("step_cls", "name", "value"), PARAMS)
def test_bad_value_fails_at_construction_with_a_clear_message(model, step_cls, name, value):
    with pytest.raises((ValueError, TypeError)) as info:
        step_cls([model["x"]], **{"model": model, name: value})
    message = str(info.value)
    assert f"`{name}`" in message
    assert show(value) in message
    assert "must be" in message


@pytest.mark.parametrize(
    ("step_cls", "kwargs", "expected"),
    [
        (KameleonStep, {"target_accept": "0.3x"}, "'0.3x'"),
        (KameleonStep, {"target_accept": "0.8"}, "'0.8'"),
        (KameleonStep, {"discard_fraction": "abc"}, "'abc'"),
        (KameleonStep, {"learn_scale": "False"}, "'False'"),
        (AdaptiveMetropolis, {"gamma": None}, "None"),
        (AdaptiveMetropolis, {"gamma": True}, "True"),
        (KMCStep, {"target_accept": "0.8"}, "'0.8'"),
        (KMCStep, {"noise_free_other_steps": "no"}, "'no'"),
    ],
)
def test_wrong_types_are_type_errors_showing_the_value(model, step_cls, kwargs, expected):
    with pytest.raises(TypeError) as info:
        step_cls([model["x"]], model=model, **kwargs)
    assert isinstance(info.value, ArgumentTypeError)  # also a ValueError, as before
    name = next(iter(kwargs))
    assert f"`{name}` must be" in str(info.value)
    assert f"got {expected}" in str(info.value)


def test_kmc_finite_estimator_needs_a_ridge(model):
    for estimator in ("finite", "auto"):
        with pytest.raises(ValueError, match=r"`regularisation` must be > 0 .* got 0\.0"):
            KMCStep([model["x"]], model=model, estimator=estimator, regularisation=0.0)
    step = KMCStep([model["x"]], model=model, estimator="lite", regularisation=0)
    assert step.learner_settings.lite_ridge == 0.0


def test_numpy_scalars_and_bools_are_accepted(model):
    kameleon = KameleonStep(
        [model["x"]],
        model=model,
        n_history=np.int64(20),
        gamma=np.float32(0.25),
        nu2=1,
        target_accept=np.float64(0.3),
        bandwidth=np.float32(1.5),
        discard_fraction=0,
        learn_scale=np.False_,
        noise_free_other_steps=np.bool_(True),
        noise_check_interval=np.int32(0),
        compile_kwargs={},
    )
    assert kameleon.learn_scale is False and type(kameleon.n_history) is int
    assert kameleon.gamma == pytest.approx(0.25) and type(kameleon.gamma) is float
    assert type(kameleon.target_accept) is float
    assert kameleon.noise_check_interval == 0
    metropolis = AdaptiveMetropolis(
        [model["x"]], model=model, gamma=0, adapt_start=np.int16(5), scale="fixed"
    )
    assert metropolis.gamma == 0.0 and metropolis.learn_scale is False
    kmc = KMCStep(
        [model["x"]],
        model=model,
        step_size_range=np.array([0.1, 0.2]),
        n_steps_range=[np.int64(5), 5],
        lengthscale=2,
        refit_growth=np.float32(2.0),
        warmup_explore=1,
        history_capacity=np.int64(600),
    )
    assert kmc.step_size_range == (0.1, 0.2) and kmc.n_steps_range == (5, 5)
    settings = kmc.learner_settings
    assert settings.lengthscale == 2.0 and kmc.warmup_explore == 1.0 and settings.capacity == 600
