"""Tests for :mod:`pymc_kameleon.core.mh`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core.mh import MHDecision, accept_probability, mh_decide, mh_log_ratio

INF = math.inf
NAN = math.nan

# ---------------------------------------------------------------------------------------------
# mh_log_ratio
# ---------------------------------------------------------------------------------------------


def test_symmetric_ratio_is_logp_difference():
    assert mh_log_ratio(-1.25, -3.5) == pytest.approx(2.25)
    assert mh_log_ratio(-3.5, -1.25) == pytest.approx(-2.25)
    assert mh_log_ratio(0.0, 0.0) == 0.0


def test_asymmetric_ratio_includes_proposal_correction():
    # log pi(x*) - log pi(x) + log q(x | x*) - log q(x* | x)
    got = mh_log_ratio(-2.0, -1.0, log_q_reverse=-0.75, log_q_forward=-3.0)
    assert got == pytest.approx(-2.0 + 1.0 - 0.75 + 3.0)
    got = mh_log_ratio(-2.0, -1.0, log_q_reverse=-4.0, log_q_forward=-0.5)
    assert got == pytest.approx(-2.0 + 1.0 - 4.0 + 0.5)


def test_asymmetric_ratio_random_values():
    rng = np.random.default_rng(0)
    for lp1, lp0, qr, qf in rng.normal(scale=10.0, size=(50, 4)):
        assert mh_log_ratio(lp1, lp0, qr, qf) == pytest.approx(lp1 - lp0 + qr - qf, abs=1e-12)


@pytest.mark.parametrize("bad", [NAN, -INF])
@pytest.mark.parametrize("current", [-1.0, -INF, NAN])
def test_invalid_proposed_logp_gives_minus_inf(bad, current):
    assert mh_log_ratio(bad, current) == -INF
    assert mh_log_ratio(bad, current, log_q_reverse=-1.0, log_q_forward=-2.0) == -INF


@pytest.mark.parametrize("bad", [NAN, -INF])
def test_invalid_reverse_density_gives_minus_inf(bad):
    assert mh_log_ratio(-1.0, -2.0, log_q_reverse=bad, log_q_forward=-1.0) == -INF
    # Even from a current state with -inf log-density.
    assert mh_log_ratio(-1.0, -INF, log_q_reverse=bad, log_q_forward=-1.0) == -INF


def test_nan_forward_density_gives_minus_inf():
    assert mh_log_ratio(-1.0, -2.0, log_q_reverse=-1.0, log_q_forward=NAN) == -INF


@pytest.mark.parametrize("current", [-INF, NAN])
def test_invalid_current_and_finite_proposal_gives_plus_inf(current):
    assert mh_log_ratio(-5.0, current) == INF
    assert mh_log_ratio(-5.0, current, log_q_reverse=-1.0, log_q_forward=-2.0) == INF


def test_ratio_returns_python_float():
    assert isinstance(mh_log_ratio(-1.0, -2.0, -0.5, -0.25), float)


# ---------------------------------------------------------------------------------------------
# accept_probability
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("log_ratio", [-50.0, -3.0, -0.5, -1e-9, 0.0, 1e-9, 0.5, 3.0, 700.0])
def test_accept_probability_is_min_one_exp(log_ratio):
    expected = min(1.0, math.exp(log_ratio))
    assert accept_probability(log_ratio) == pytest.approx(expected, rel=1e-15)


def test_accept_probability_special_values():
    assert accept_probability(INF) == 1.0
    assert accept_probability(-INF) == 0.0
    assert accept_probability(NAN) == 0.0
    assert accept_probability(1e6) == 1.0  # no overflow


# ---------------------------------------------------------------------------------------------
# mh_decide
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("log_ratio", [INF, 0.0, 1e-12, 0.7, 1e6])
def test_non_negative_ratio_always_accepts(log_ratio):
    rng = np.random.default_rng(1)
    for _ in range(1000):
        decision = mh_decide(log_ratio, rng)
        assert decision.accepted is True
        assert decision.accept_prob == 1.0


@pytest.mark.parametrize("log_ratio", [-INF, NAN])
def test_invalid_ratio_never_accepts(log_ratio):
    rng = np.random.default_rng(2)
    for _ in range(1000):
        decision = mh_decide(log_ratio, rng)
        assert decision.accepted is False
        assert decision.accept_prob == 0.0


def test_decision_fields():
    decision = mh_decide(math.log(0.25), np.random.default_rng(3))
    assert isinstance(decision, MHDecision)
    assert isinstance(decision.accepted, bool)
    assert decision.accept_prob == pytest.approx(0.25)
    assert decision.log_ratio == math.log(0.25)
    assert mh_decide(-INF, np.random.default_rng(3)).log_ratio == -INF


def test_acceptance_rate_matches_probability():
    p, n_draws = 0.3, 20_000
    rng = np.random.default_rng(4)
    log_ratio = math.log(p)
    accepted = sum(mh_decide(log_ratio, rng).accepted for _ in range(n_draws))
    se = math.sqrt(p * (1.0 - p) / n_draws)
    assert abs(accepted / n_draws - p) <= 4.0 * se


def test_acceptance_is_u_below_probability():
    """With a replayed stream, acceptance happens exactly when the uniform is below alpha."""
    log_ratio = math.log(0.6)
    rng = np.random.default_rng(5)
    replay = np.random.default_rng(5)
    for _ in range(200):
        u = replay.random()
        assert mh_decide(log_ratio, rng).accepted == (u < 0.6)


@pytest.mark.parametrize("log_ratio", [INF, 1.0, 0.0, math.log(0.3), -40.0, -INF, NAN])
def test_exactly_one_uniform_is_consumed(log_ratio):
    rng = np.random.default_rng(6)
    reference = np.random.default_rng(6)
    for _ in range(3):
        mh_decide(log_ratio, rng)
        reference.random()
        assert rng.bit_generator.state == reference.bit_generator.state
