"""The Metropolis–Hastings ratio uses the proposal parameters of the forward draw.

During warm-up the history subsample, bandwidth and nu^2 change after every iteration. These
tests recompute one iteration by hand from the state saved before it (with the core functions
only) and check the reported acceptance probability, so a reverse density computed with
already-updated parameters (the authors' stale-proposal quirk, inverted) would be caught.
"""

from __future__ import annotations

import math

import numpy as np
import pymc as pm
import pytensor
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep
from pymc_kameleon.core import (
    cholesky_with_jitter,
    gaussian_log_pdf,
    kameleon_covariance,
    mh_log_ratio,
)


@pytest.fixture
def banana_2d():
    with pm.Model() as model:
        x = pm.Flat("x", shape=2)
        y2 = x[1] - 0.1 * (x[0] ** 2 - 25.0)
        pm.Potential("banana", -0.5 * (x[0] ** 2 / 25.0 + y2**2))
    return model


def _expected_accept(step, state, point_x, logp_fn) -> float:
    """Replay one KAMH iteration from a saved state with the core functions."""
    rng = np.random.default_rng()
    saved = state.rng  # a RandomGeneratorState (pymc >= 5.19) or a Generator (pymc 5.18)
    if isinstance(saved, np.random.Generator):
        rng.bit_generator.state = saved.bit_generator.state
    else:
        rng.bit_generator.state = saved.bit_generator_state
    proposal = state.proposal
    gamma2, nu2 = step.gamma**2, proposal.scale.current
    cov_x = kameleon_covariance(point_x, proposal.z, proposal.kernel, gamma2, nu2)
    chol_x = cholesky_with_jitter(cov_x)
    noise = rng.standard_normal(point_x.size)
    x_new = point_x + chol_x @ noise
    cov_new = kameleon_covariance(x_new, proposal.z, proposal.kernel, gamma2, nu2)
    chol_new = cholesky_with_jitter(cov_new)
    log_ratio = mh_log_ratio(
        logp_fn(x_new),
        logp_fn(point_x),
        gaussian_log_pdf(point_x, x_new, chol_new),
        gaussian_log_pdf(x_new, point_x, chol_x),
    )
    return min(1.0, math.exp(log_ratio))


def test_kameleon_acceptance_uses_forward_parameters(banana_2d):
    with banana_2d:
        step = KameleonStep(warmup="classic", n_history=40, adapt_start=20)  # the paper's formula
    logp = banana_2d.compile_logp()

    def logp_fn(v):
        return float(logp({"x": v}))

    step.set_rng(np.random.default_rng(3))
    point = banana_2d.initial_point()
    checked = 0
    for i in range(300):
        state = step.sampling_state
        if state.proposal.z is not None and i % 10 == 0:
            expected = _expected_accept(step, state, point["x"].copy(), logp_fn)
            point, stats = step.step(point)
            assert stats[0]["accept"] == pytest.approx(expected, rel=1e-9, abs=1e-12)
            checked += 1
        else:
            point, stats = step.step(point)
    assert checked >= 20


def test_adaptive_metropolis_accept_is_target_ratio(banana_2d):
    """AM's proposal is symmetric: the acceptance probability is the plain target ratio.

    (Without its independence moves, whose proposal is not symmetric.)
    """
    with banana_2d:
        step = AdaptiveMetropolis(adapt_start=20, independence="off")
    logp = banana_2d.compile_logp()
    step.set_rng(np.random.default_rng(4))
    point = banana_2d.initial_point()
    for iteration in range(200):
        before = point["x"].copy()
        point, stats = step.step(point)
        # (at the first iteration the start-up moves the chain before it proposes)
        if stats[0]["accepted"] and iteration > 0:
            ratio = float(logp(point)) - float(logp({"x": before}))
            assert stats[0]["accept"] == pytest.approx(min(1.0, math.exp(ratio)), rel=1e-9)


def test_float32_models_sample_in_float32():
    with pytensor.config.change_flags(floatX="float32"):
        with pm.Model():
            pm.Normal("x", 1.0, 2.0, shape=3)
            idata = pm.sample(
                tune=300,
                draws=300,
                chains=1,
                step=KameleonStep(n_history=50),
                progressbar=False,
                random_seed=1,
                compute_convergence_checks=False,
            )
    draws = idata["posterior"]["x"].values
    assert draws.dtype == np.float32
    assert np.all(np.isfinite(draws))
    assert idata["sample_stats"]["accepted"].values.mean() > 0.05
