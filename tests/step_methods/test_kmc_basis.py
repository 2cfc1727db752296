"""KMCStep's warnings about an ``n_history`` its run cannot use or pay for (issue 46)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers.models import mv_model

from pymc_kameleon import KMCStep
from pymc_kameleon.step_methods.kmc_basis import LARGE_BASIS, warmup_state_bound


def step_for(tune: int | None, **kwargs) -> KMCStep:
    """A KMCStep on the 3-D Gaussian, as at the start of a chain with ``tune`` iterations
    (the lite surrogate unless ``estimator`` says otherwise: its basis is what is warned about)."""
    with mv_model():
        step = KMCStep(**{"estimator": "lite", **kwargs})
    step.warmup_length = tune
    return step


def warned(step: KMCStep) -> list[str]:
    message = step.basis_size_message()
    return [] if message is None else [message]


def test_a_basis_beyond_what_warmup_can_store_is_named_with_its_fix():
    [message] = warned(step_for(300, n_history=5000))
    assert "n_history=5000" in message and "at most 300 states" in message
    assert "at most 500 basis points" in message
    assert "raise tune" in message and "initial_history" in message


def test_initial_history_and_pooled_chains_count_towards_what_warmup_stores():
    rows = np.random.default_rng(0).normal(size=(1000, 3))
    step = step_for(300, n_history=5000, initial_history=rows)
    assert warmup_state_bound(300, 1, 1000) == 1300
    [message] = warned(step)
    assert "at most 1300 states" in message and "1000 states of initial_history" in message
    step = step_for(300, n_history=5000)
    step.population = [None] * 4  # (what PyMC links a pooled step to: every chain's point)
    assert warmup_state_bound(300, 4, 0) == 1200
    assert "4 pooled chains" in warned(step)[0]


@pytest.mark.parametrize(
    ("tune", "kwargs"),
    [
        (100, {}),  # the default 500 is drawn with repetition from a short warm-up, as tuned
        (1000, {"n_history": 1000}),
        (LARGE_BASIS, {"n_history": LARGE_BASIS}),
        (300, {"n_history": 5000, "estimator": "finite"}),  # no lite basis
        (None, {"n_history": 5000}),  # warm-up length unknown (a step driven by hand)
        (5000, {"n_history": 5000, "adaptation": "tune"}),  # no refits after warm-up
    ],
)
def test_no_warning_where_the_size_can_pay_off(tune, kwargs):
    assert warned(step_for(tune, **kwargs)) == []


def test_a_large_basis_refitted_after_warmup_is_warned_about():
    [message] = warned(step_for(5000, n_history=LARGE_BASIS + 1))
    assert f"fits {LARGE_BASIS + 1} basis points" in message
    assert "estimator='finite'" in message and "adaptation='tune'" in message


def test_the_warning_comes_at_the_first_iteration_of_a_chain():
    step = step_for(None, n_history=5000)
    step.set_rng(np.random.default_rng(0))
    step.warmup_length = 300  # (what PyMC's loop tells set_rng)
    point = mv_model().initial_point()
    with pytest.warns(UserWarning, match="warm-up stores at most 300"):
        point, _ = step.step(point)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        step.step(point)  # not again in the same chain
