"""The Student-t independence proposal and its acceptance-driven mixing into warm-up moves."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pymc_kameleon.core.mh import mh_decide, mh_log_ratio
from pymc_kameleon.core.proposals import (
    IsotropicRandomWalk,
    Transition,
    WhitenedProposal,
    independence,
)
from pymc_kameleon.core.proposals.independence import (
    BASE_INDEPENDENCE_WEIGHT,
    FULL_WEIGHT_ACCEPTANCE,
    MAX_INDEPENDENCE_WEIGHT,
    MIN_INDEPENDENCE_WEIGHT,
    MIN_KEPT_PER_DIM,
    RISE_START_ACCEPTANCE,
    TOP_WEIGHT_ACCEPTANCE,
    WIDE_SCALE,
    IndependenceMixing,
    IndependenceProposal,
    independence_share,
    independence_stats,
    student_t_log_density,
)
from pymc_kameleon.core.windowed_covariance import whitening_map

MEAN = np.array([1.0, -2.0, 0.5])
COV = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])


def anchored(df: float = 4.0, wide_scale: float = 1.0) -> IndependenceProposal:
    return IndependenceProposal(3, df=df, anchor=whitening_map(MEAN, COV), wide_scale=wide_scale)


@pytest.mark.parametrize("df", [1.0, 4.0, 30.0])
def test_log_density_matches_scipy_multivariate_t(df):
    proposal = anchored(df)
    rng = np.random.default_rng(0)
    points = rng.normal(size=(5, 3)) * 2.0
    expected = stats.multivariate_t(loc=MEAN, shape=COV, df=df).logpdf(points)
    got = [proposal.log_density(x, np.zeros(3)) for x in points]
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    np.testing.assert_allclose(proposal.log_density_many(points, points), expected, rtol=1e-10)


def test_draws_have_the_t_moments_and_their_own_density():
    proposal = anchored(df=6.0)
    rng = np.random.default_rng(1)
    draws, log_q = proposal.propose_many(np.zeros((40_000, 3)), rng)
    np.testing.assert_allclose(log_q, proposal.log_density_many(draws, draws), rtol=1e-12)
    np.testing.assert_allclose(draws.mean(axis=0), MEAN, atol=0.05)
    np.testing.assert_allclose(np.cov(draws.T), COV * 6.0 / 4.0, atol=0.1)
    x_new, log_q_one = proposal.propose(np.zeros(3), rng)
    assert log_q_one == pytest.approx(proposal.log_density(x_new, np.ones(3)))


@pytest.mark.parametrize("weight", [0.5, 0.1])
def test_a_widened_t_is_a_mixture_with_a_wide_copy_at_its_weight(weight):
    proposal = IndependenceProposal(3, anchor=whitening_map(MEAN, COV))
    assert proposal.wide_scale == 1.0 and proposal.defensive_weight == 0.0
    proposal.widen(WIDE_SCALE, weight)
    assert proposal.wide_scale == WIDE_SCALE > 1.0
    assert proposal.defensive_weight == weight
    narrow = stats.multivariate_t(loc=MEAN, shape=COV, df=4.0)
    wide = stats.multivariate_t(loc=MEAN, shape=WIDE_SCALE**2 * COV, df=4.0)
    rng = np.random.default_rng(7)
    draws, log_q = proposal.propose_many(np.zeros((60_000, 3)), rng)
    expected = np.log((1.0 - weight) * narrow.pdf(draws) + weight * wide.pdf(draws))
    np.testing.assert_allclose(log_q, expected, rtol=1e-10)
    np.testing.assert_allclose(proposal.log_density_many(draws, draws), expected, rtol=1e-10)
    # a share `weight` of the draws from the wide t: the squared Mahalanobis distance over d is
    # F(d, df)-distributed under the narrow t, and that divided by the scale squared under the
    # wide one
    u = whitening_map(MEAN, COV).to_kernel(draws)
    radius = np.sum(u * u, axis=1) / 3.0
    for r in (0.5, 2.0, 8.0):
        f = stats.f(3, 4)
        expected_mass = (1.0 - weight) * f.cdf(r) + weight * f.cdf(r / WIDE_SCALE**2)
        assert np.mean(radius <= r) == pytest.approx(expected_mass, abs=0.01)


@pytest.mark.parametrize("weight", [0.5, 0.1])
def test_single_draws_say_which_copy_they_came_from(weight):
    proposal = IndependenceProposal(2, anchor=whitening_map(np.zeros(2), np.eye(2)))
    proposal.widen(WIDE_SCALE, weight)
    rng = np.random.default_rng(3)
    wide, radius = [], []
    for _ in range(4000):
        x_new, _ = proposal.propose(np.zeros(2), rng)
        wide.append(proposal.last_wide)
        radius.append(float(np.sum(x_new**2)) / 2.0)
    wide, radius = np.array(wide), np.array(radius)
    # the share within 4 binomial sds; each kind's radii follow their own F law
    assert abs(wide.mean() - weight) < 4.0 * math.sqrt(weight * (1 - weight) / wide.size)
    f = stats.f(2, 4)
    assert stats.kstest(radius[~wide], f.cdf).pvalue > 1e-3
    assert stats.kstest(radius[wide] / WIDE_SCALE**2, f.cdf).pvalue > 1e-3


def test_the_mixture_covariance_matches_its_draws():
    proposal = IndependenceProposal(3, df=8.0, anchor=whitening_map(MEAN, COV))
    proposal.widen(2.0, 0.2)
    draws, _ = proposal.propose_many(np.zeros((200_000, 3)), np.random.default_rng(5))
    np.testing.assert_allclose(np.cov(draws.T), proposal.covariance(MEAN), atol=0.06)


@pytest.mark.parametrize("weight", [0.0, 1.0, -0.1, math.nan])
def test_a_wide_weight_outside_the_open_unit_interval_is_refused(weight):
    with pytest.raises(ValueError, match="wide_weight"):
        IndependenceProposal(2).widen(2.0, weight)


def test_independence_stats_name_the_kind_of_draw_the_share_and_the_weight():
    mixing = IndependenceMixing(
        IndependenceProposal(2, anchor=whitening_map(np.zeros(2), np.eye(2)))
    )
    assert independence_stats(None, False) == {
        "independence_move": -1, "independence_share": 0.0, "defensive_weight": 0.0,
    }  # fmt: skip
    assert independence_stats(mixing, False)["independence_move"] == -1
    mixing.freeze()
    mixing.proposal.propose(np.zeros(2), np.random.default_rng(0))
    got = independence_stats(mixing, True)
    assert got["independence_move"] == int(mixing.proposal.last_wide)
    assert got["independence_share"] == mixing.frozen_weight
    assert got["defensive_weight"] == independence.DEFENSIVE_WEIGHT


@pytest.mark.parametrize("scale", [0.5, math.nan, math.inf])
def test_a_wide_scale_below_one_is_refused(scale):
    with pytest.raises(ValueError, match="wide_scale"):
        IndependenceProposal(2, wide_scale=scale)
    with pytest.raises(ValueError, match="wide_scale"):
        IndependenceProposal(2).widen(scale)


def test_the_t_widens_when_the_share_freezes_after_warmup():
    mixing = IndependenceMixing(
        IndependenceProposal(2, anchor=whitening_map(np.zeros(2), np.eye(2)))
    )
    assert mixing.proposal.wide_scale == 1.0
    mixing.freeze()
    assert mixing.proposal.wide_scale == WIDE_SCALE
    assert mixing.proposal.defensive_weight == independence.DEFENSIVE_WEIGHT


def test_standard_t_density_integrates_to_one_in_one_dimension():
    grid = np.linspace(-400.0, 400.0, 400_001)[:, None]
    total = np.trapezoid(np.exp(student_t_log_density(grid, 3.0)), grid[:, 0])
    assert total == pytest.approx(1.0, abs=1e-4)


def test_anchor_is_kept_and_a_followed_map_is_mixed_in_with_equal_weight():
    proposal = anchored(wide_scale=1.0)
    other = whitening_map(np.zeros(3), np.eye(3))
    proposal.set_map(other)
    assert proposal.maps == (proposal.anchor, other)
    rng = np.random.default_rng(4)
    points = rng.normal(size=(6, 3))
    both = 0.5 * stats.multivariate_t(loc=MEAN, shape=COV, df=4.0).pdf(points)
    both += 0.5 * stats.multivariate_t(loc=np.zeros(3), shape=np.eye(3), df=4.0).pdf(points)
    np.testing.assert_allclose(proposal.log_density_many(points, points), np.log(both))
    draws, log_q = proposal.propose_many(np.zeros((20_000, 3)), rng)
    np.testing.assert_allclose(
        log_q,
        np.log(
            0.5 * stats.multivariate_t(loc=MEAN, shape=COV, df=4.0).pdf(draws)
            + 0.5 * stats.multivariate_t(loc=np.zeros(3), shape=np.eye(3), df=4.0).pdf(draws)
        ),
    )
    np.testing.assert_allclose(draws.mean(axis=0), 0.5 * MEAN, atol=0.06)
    np.testing.assert_allclose(proposal.covariance(MEAN), np.cov(draws.T), atol=0.25)
    proposal.reset()
    assert proposal.maps == (proposal.anchor,)


def test_a_free_proposal_needs_a_map():
    free = IndependenceProposal(3)
    assert math.isnan(free.log_density(np.zeros(3), np.zeros(3)))
    with pytest.raises(FloatingPointError, match="set_map"):
        free.propose(np.zeros(3), np.random.default_rng(0))
    other = whitening_map(np.zeros(3), np.eye(3))
    free.set_map(other)
    assert free.maps == (other,)
    free.reset()
    assert free.maps == ()


@pytest.mark.parametrize("df", [0.0, -1.0, math.inf, math.nan])
def test_bad_degrees_of_freedom_are_refused(df):
    with pytest.raises(ValueError, match="df"):
        IndependenceProposal(2, df=df)


def test_share_is_proportional_to_a_low_rate_and_rises_to_its_top():
    assert independence_share(0.0) == MIN_INDEPENDENCE_WEIGHT
    assert independence_share(FULL_WEIGHT_ACCEPTANCE / 2) == pytest.approx(
        BASE_INDEPENDENCE_WEIGHT / 2
    )
    for rate in (FULL_WEIGHT_ACCEPTANCE, 0.3, RISE_START_ACCEPTANCE):
        assert independence_share(rate) == pytest.approx(BASE_INDEPENDENCE_WEIGHT)
    middle = (RISE_START_ACCEPTANCE + TOP_WEIGHT_ACCEPTANCE) / 2
    assert independence_share(middle) == pytest.approx(
        (BASE_INDEPENDENCE_WEIGHT + MAX_INDEPENDENCE_WEIGHT) / 2
    )
    for rate in (TOP_WEIGHT_ACCEPTANCE, 0.8, 1.0):
        assert independence_share(rate) == pytest.approx(MAX_INDEPENDENCE_WEIGHT)
    rates = np.linspace(0.0, 1.0, 101)
    assert np.all(np.diff([independence_share(r) for r in rates]) >= -1e-15)  # never falls


def test_a_top_at_the_base_keeps_the_share_there():
    for rate in (FULL_WEIGHT_ACCEPTANCE, RISE_START_ACCEPTANCE, TOP_WEIGHT_ACCEPTANCE, 1.0):
        assert independence_share(rate, BASE_INDEPENDENCE_WEIGHT) == BASE_INDEPENDENCE_WEIGHT
    mixing = IndependenceMixing(anchored(), max_weight=BASE_INDEPENDENCE_WEIGHT)
    assert mixing.weight == BASE_INDEPENDENCE_WEIGHT  # the prior's rate 0.5 is above the rise
    with pytest.raises(ValueError, match="max_weight"):
        IndependenceMixing(anchored(), max_weight=0.3)


def test_weight_follows_the_acceptance_rate_within_its_bounds():
    mixing = IndependenceMixing(anchored())
    assert mixing.weight == independence_share(0.5)  # the prior: half an acceptance in one try
    mixing.chosen = True
    for _ in range(200):
        mixing.learned(Transition(MEAN, 0.0, 0, True))
    assert mixing.weight == MIN_INDEPENDENCE_WEIGHT
    mixing.accepted = FULL_WEIGHT_ACCEPTANCE * 0.5 * mixing.tries
    assert mixing.weight == pytest.approx(0.5 * BASE_INDEPENDENCE_WEIGHT, rel=0.06)
    mixing.freeze()
    frozen = mixing.weight
    for _ in range(50):
        out = mixing.learned(Transition(MEAN, 1.0, 0, False))
        assert out.accept_prob is None
    assert mixing.weight == frozen and mixing.tries == 200


def test_an_independence_move_teaches_the_other_proposal_the_state_only():
    mixing = IndependenceMixing(anchored())
    mixing.chosen = True
    out = mixing.learned(Transition(MEAN, 0.7, 3, True))
    assert out.accept_prob is None and out.iteration == 3
    assert (mixing.tries, mixing.accepted) == (1, 0.7)
    mixing.chosen = False
    kept = Transition(MEAN, 0.2, 4, True)
    assert mixing.learned(kept) is kept
    assert mixing.tries == 1


def whitened_with_independence() -> WhitenedProposal:
    proposal = WhitenedProposal(IsotropicRandomWalk(3))
    proposal.plan_warmup(2000)
    proposal.start_from(MEAN, COV)
    proposal.mix_independence([(MEAN + 0.3, 1.5 * COV, 1.0)])
    return proposal


def test_whitened_warmup_mixes_in_independence_moves_and_drops_them_after():
    proposal = whitened_with_independence()
    rng = np.random.default_rng(2)
    x = MEAN.copy()
    kinds = []
    for _ in range(400):
        x_new, log_q = proposal.propose(x, rng)
        kinds.append(proposal.independence.chosen)
        assert proposal.symmetric == (not kinds[-1])
        if kinds[-1]:
            assert log_q == pytest.approx(proposal.independence.proposal.log_density(x_new, x))
            assert proposal.log_density(x, x_new) == pytest.approx(
                proposal.independence.proposal.log_density(x, x_new)
            )
    assert abs(np.mean(kinds) - independence_share(0.5)) < 0.1  # the prior's share (sd 0.02)
    proposal.end_warmup()
    assert proposal.mixing is None and proposal.symmetric
    proposal.reset()
    assert proposal.independence is None


def test_kept_independence_moves_continue_after_warmup_with_a_fixed_share():
    proposal = WhitenedProposal(IsotropicRandomWalk(3))
    proposal.plan_warmup(2000)
    proposal.start_from(MEAN, COV)
    proposal.mix_independence([(MEAN, COV, 1.0)], keep_after_warmup=True)
    proposal.end_warmup()
    assert proposal.mixing is proposal.independence
    assert proposal.independence.frozen_weight == independence_share(0.5)


def test_mixed_warmup_kernel_leaves_a_gaussian_target_invariant():
    """Started from the target, a chain of mixed moves with the weight held keeps its moments."""
    precision = np.linalg.inv(COV)

    def log_target(x):  # up to a constant, which cancels
        return -0.5 * float((x - MEAN) @ precision @ (x - MEAN))

    proposal = whitened_with_independence()
    rng = np.random.default_rng(3)
    n_chains, n_steps = 2000, 20
    x = stats.multivariate_normal(MEAN, COV).rvs(n_chains, random_state=rng)
    for _ in range(n_steps):
        for i in range(n_chains):
            x_new, log_q_forward = proposal.propose(x[i], rng)
            log_q_reverse = 0.0 if proposal.symmetric else proposal.log_density(x[i], x_new)
            hastings = (0.0, 0.0) if proposal.symmetric else (log_q_reverse, log_q_forward)
            ratio = mh_log_ratio(log_target(x_new), log_target(x[i]), *hastings)
            if mh_decide(ratio, rng).accepted:
                x[i] = x_new
    # n_chains independent states from the target: mean within 4 standard errors
    sem = np.sqrt(np.diag(COV) / n_chains)
    assert np.all(np.abs(x.mean(axis=0) - MEAN) < 4.0 * sem)
    var_se = np.sqrt(2.0 / n_chains) * np.diag(COV)
    assert np.all(np.abs(x.var(axis=0) - np.diag(COV)) < 4.0 * var_se)


def test_followed_t_takes_the_moments_of_the_states_kept_after_warmup():
    mixing = IndependenceMixing(anchored())
    anchor = mixing.proposal.anchor
    rng = np.random.default_rng(4)
    states = rng.multivariate_normal(MEAN + 1.0, 2.0 * COV, size=MIN_KEPT_PER_DIM * 3)
    for x in states[:-1]:  # too few states yet, even when told to refresh
        assert mixing.follow_kept(x, refresh=True) is False
    assert mixing.proposal.followed is None
    assert mixing.follow_kept(states[-1], refresh=False) is False  # enough, but not told
    assert mixing.follow_kept(states[-1], refresh=True) is True
    kept = np.vstack([states, states[-1]])
    followed = mixing.proposal.followed
    np.testing.assert_allclose(followed.shift, kept.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(followed.matrix @ followed.matrix.T, np.cov(kept.T), rtol=1e-10)
    assert mixing.proposal.anchor is anchor  # the defensive t stays


def test_followed_t_is_not_shaped_by_a_chain_that_did_not_move():
    mixing = IndependenceMixing(anchored())
    for _ in range(MIN_KEPT_PER_DIM * 3 + 5):
        assert mixing.follow_kept(MEAN, refresh=True) is False
    assert mixing.proposal.followed is None


def test_mixing_without_an_anchor_is_ready_once_a_map_is_followed():
    mixing = IndependenceMixing(IndependenceProposal(3))
    assert not mixing.ready
    mixing.proposal.set_map(whitening_map(MEAN, COV))
    assert mixing.ready
    assert IndependenceMixing(anchored()).ready
