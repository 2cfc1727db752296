"""Beyond its documented dimension a step warns at construction, and the documents agree."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep

ROOT = Path(__file__).resolve().parents[2]
STEP_CLASSES = [KameleonStep, AdaptiveMetropolis, KMCStep]
LIMITS = {KameleonStep: 50, KMCStep: 50, AdaptiveMetropolis: 100}


def make_model(dim):
    """``dim`` raveled dimensions spread over two variables (one of them transformed)."""
    with pm.Model() as m:
        pm.Normal("x", 0.0, 1.0, shape=dim // 2)
        pm.HalfNormal("s", 1.0, shape=dim - dim // 2)
    return m


@pytest.fixture(scope="module", params=[8, 60, 200], ids=lambda d: f"d={d}")
def model(request):
    m = make_model(request.param)
    assert sum(v.size for v in m.initial_point().values()) == request.param
    return m


def test_limits_are_class_attributes():
    assert {cls: cls.documented_max_dim for cls in STEP_CLASSES} == LIMITS


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=lambda c: c.__name__)
def test_warning_beyond_the_documented_dimension(model, step_cls):
    dim = sum(v.size for v in model.initial_point().values())
    limit = LIMITS[step_cls]
    if dim <= limit:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            step = step_cls(model=model)
        assert step.dim == dim
        return
    with pytest.warns(UserWarning, match=rf"{step_cls.__name__} samples {dim} dimensions") as rec:
        step = step_cls(model=model)
    assert step.dim == dim
    [warning] = [w for w in rec if "documented" in str(w.message)]
    message = str(warning.message)
    assert f"more than the {limit} it is documented for" in message
    assert "NUTS" in message and "pm.sample_smc" in message
    assert f"several steps of at most {limit} dimensions" in message
    assert warning.filename == __file__  # points at the caller's line


@pytest.mark.parametrize("step_cls", [KameleonStep, KMCStep], ids=lambda c: c.__name__)
def test_blocks_within_the_limit_do_not_warn(step_cls):
    model = make_model(60)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        steps = [step_cls([model["x"]], model=model), step_cls([model["s"]], model=model)]
    assert [s.dim for s in steps] == [30, 30]


def test_documents_state_the_same_limits():
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Which sampler when")
    table = readme[start : readme.index("\n## ", start + 1)]
    getting_started = (ROOT / "docs" / "getting-started.md").read_text()
    when_not = " ".join((ROOT / "docs" / "howto" / "when-not.md").read_text().split())
    for cls, limit in LIMITS.items():
        rows = [line for line in table.splitlines() if f"`{cls.__name__}()`" in line]
        assert rows and all(f"up to {limit} parameters" in row for row in rows), cls.__name__
        assert re.search(rf"more than {limit} for [^.]*`{cls.__name__}`", when_not)
        docstring = " ".join(cls.__doc__.split())
        assert f"Documented for up to {limit} sampled dimensions" in docstring
        assert f"``{cls.__name__}.documented_max_dim``" in docstring
    assert "up to 50 parameters | `KameleonStep()`" in getting_started
    assert "up to 100 parameters | `AdaptiveMetropolis()`" in getting_started
