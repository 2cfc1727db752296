"""The defensive weight from how far the independence t falls short of the warm-up's states."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pymc_kameleon.core.proposals import independence
from pymc_kameleon.core.proposals.independence import IndependenceMixing, IndependenceProposal
from pymc_kameleon.core.proposals.protocol import Transition
from pymc_kameleon.core.proposals.tail_shortfall import (
    FULL_DEFENSIVE_WEIGHT,
    MIN_SHORTFALL_STATES,
    SHORTFALL_FULL,
    SHORTFALL_LOW,
    SHORTFALL_START,
    RecentStates,
    defensive_weight_for,
    tail_shortfall,
)
from pymc_kameleon.core.windowed_covariance import whitening_map


def banana_draws(n: int, rng: np.random.Generator, b: float = 0.03, v: float = 100.0):
    x = rng.normal(size=(n, 2))
    x[:, 0] *= math.sqrt(v)
    x[:, 1] += b * (x[:, 0] ** 2 - v)
    return x


def banana_logp(x: np.ndarray, b: float = 0.03, v: float = 100.0) -> np.ndarray:
    return -0.5 * (x[:, 0] ** 2 / v + (x[:, 1] - b * (x[:, 0] ** 2 - v)) ** 2)


def t_of_moments(x: np.ndarray) -> stats._multivariate.multivariate_t_frozen:
    return stats.multivariate_t(loc=x.mean(0), shape=np.cov(x.T), df=4.0)


def test_recent_states_keep_the_latest_and_skip_non_finite_densities():
    recent = RecentStates(2, capacity=3)
    for k in range(5):
        recent.add(np.full(2, float(k)), float(k))
    recent.add(np.full(2, 9.0), math.nan)
    states, log_densities = recent.arrays()
    assert sorted(log_densities) == [2.0, 3.0, 4.0]
    np.testing.assert_array_equal(np.sort(states[:, 0]), [2.0, 3.0, 4.0])


@pytest.mark.parametrize(("dim", "bound"), [(2, 0.2), (5, 0.4), (20, 1.0)])
def test_a_gaussian_covered_by_the_t_of_its_moments_falls_short_by_little(dim, bound):
    # with the exact moments 0.07-0.21 in 2-50 dimensions; estimating them from 2000 draws
    # adds the rest (0.9 in 20 dimensions)
    rng = np.random.default_rng(dim)
    x = rng.normal(size=(2000, dim))
    log_pi = stats.multivariate_normal(np.zeros(dim)).logpdf(x) + 123.0  # a constant cancels
    exact = stats.multivariate_t(np.zeros(dim), np.eye(dim), df=4.0).logpdf(x)
    assert 0.0 < tail_shortfall(log_pi, exact) < 0.25
    assert 0.0 < tail_shortfall(log_pi, t_of_moments(x).logpdf(x)) < bound <= SHORTFALL_START


def test_a_banana_falls_short_of_the_t_of_its_moments_in_its_arms():
    x = banana_draws(2000, np.random.default_rng(1))
    at_moments = tail_shortfall(banana_logp(x), t_of_moments(x).logpdf(x))
    assert at_moments > SHORTFALL_START
    # a warm-up's t is narrower than the whole banana's moments: its shortfall is larger
    inner = x[np.abs(x[:, 0]) < 15.0]
    narrow = t_of_moments(inner).logpdf(x)
    assert tail_shortfall(banana_logp(x), narrow) > max(SHORTFALL_FULL, at_moments)


def test_a_shortfall_needs_enough_finite_states():
    r = np.zeros(MIN_SHORTFALL_STATES - 1)
    assert math.isnan(tail_shortfall(r, r))
    with_inf = np.append(np.zeros(MIN_SHORTFALL_STATES), -np.inf)
    assert tail_shortfall(with_inf, np.zeros_like(with_inf)) == 0.0


@pytest.mark.parametrize("base", [0.1, 0.2])
def test_the_weight_rises_from_the_base_to_an_even_mixture(base):
    assert defensive_weight_for(math.nan, base) == base
    assert defensive_weight_for(0.0, base) == base
    assert defensive_weight_for(SHORTFALL_START, base) == base
    middle = defensive_weight_for(0.5 * (SHORTFALL_START + SHORTFALL_FULL), base)
    assert middle == pytest.approx(0.5 * (base + FULL_DEFENSIVE_WEIGHT))
    assert defensive_weight_for(SHORTFALL_FULL, base) == FULL_DEFENSIVE_WEIGHT
    assert defensive_weight_for(50.0, base) == FULL_DEFENSIVE_WEIGHT
    grid = np.linspace(0.0, 4.0, 41)
    assert np.all(np.diff([defensive_weight_for(s, base) for s in grid]) >= 0.0)


def test_a_low_weight_holds_where_the_t_fits_and_rises_to_the_base():
    base, low = 0.2, 0.1
    assert defensive_weight_for(0.0, base, low=low) == low
    assert defensive_weight_for(SHORTFALL_LOW, base, low=low) == low
    middle = defensive_weight_for(0.5 * (SHORTFALL_LOW + SHORTFALL_START), base, low=low)
    assert middle == pytest.approx(0.5 * (low + base))
    assert defensive_weight_for(SHORTFALL_START, base, low=low) == base
    # above the base's shortfall the low weight changes nothing (the same weight, bit for bit)
    for s in (1.7, 2.0, SHORTFALL_FULL, 9.0):
        assert defensive_weight_for(s, base, low=low) == defensive_weight_for(s, base)
    grid = np.linspace(0.0, 4.0, 81)
    assert np.all(np.diff([defensive_weight_for(s, base, low=low) for s in grid]) >= 0.0)
    # nothing measured: the base; a "low" above the base is the base; no rise: the base
    assert defensive_weight_for(math.nan, base, low=low) == base
    assert defensive_weight_for(0.0, base, low=0.3) == base
    assert defensive_weight_for(0.0, base, top=base, low=low) == base


def test_a_top_at_or_below_the_base_keeps_the_base():
    assert defensive_weight_for(10.0, 0.7) == 0.7
    assert defensive_weight_for(10.0, 0.1, top=0.1) == 0.1
    assert defensive_weight_for(SHORTFALL_FULL, 0.1, top=0.3) == pytest.approx(0.3)


def test_without_a_top_the_mixing_keeps_its_base_weight_on_a_banana():
    x = banana_draws(600, np.random.default_rng(2))
    mixing = mixing_after_warmup(x, banana_logp(x), top=None)
    # nothing is recorded or measured for a weight that cannot rise (the random walks' case)
    assert mixing.recent.count == 0 and math.isnan(mixing.shortfall)
    assert mixing.proposal.defensive_weight == independence.DEFENSIVE_WEIGHT


def mixing_after_warmup(
    x: np.ndarray,
    log_pi: np.ndarray,
    top: float | None = FULL_DEFENSIVE_WEIGHT,
    base: float | None = None,
    low: float | None = None,
) -> IndependenceMixing:
    proposal = IndependenceProposal(2, anchor=whitening_map(x.mean(0), np.cov(x.T)))
    mixing = IndependenceMixing(
        proposal, defensive_weight=base, top_defensive_weight=top, low_defensive_weight=low
    )
    for k, (state, lp) in enumerate(zip(x, log_pi)):
        mixing.learned(Transition(state, None, k, True, 1.0, float(lp)))
    mixing.freeze()
    return mixing


def test_freeze_raises_the_wide_copies_where_the_t_falls_short():
    x = banana_draws(600, np.random.default_rng(2))
    mixing = mixing_after_warmup(x, banana_logp(x))
    expected = defensive_weight_for(mixing.shortfall, independence.DEFENSIVE_WEIGHT)
    assert mixing.shortfall > SHORTFALL_START
    assert mixing.defensive_weight == expected > independence.DEFENSIVE_WEIGHT
    assert mixing.proposal.defensive_weight == expected


def test_freeze_keeps_the_base_weight_where_the_t_covers_the_states():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(600, 2))
    mixing = mixing_after_warmup(x, stats.multivariate_normal(np.zeros(2)).logpdf(x))
    assert mixing.shortfall < SHORTFALL_START
    assert mixing.proposal.defensive_weight == independence.DEFENSIVE_WEIGHT


def test_without_log_densities_the_base_weight_stays():
    x = banana_draws(600, np.random.default_rng(4))
    mixing = mixing_after_warmup(x, np.full(len(x), math.nan))
    assert math.isnan(mixing.shortfall)
    assert mixing.proposal.defensive_weight == independence.DEFENSIVE_WEIGHT


def test_states_after_warmup_do_not_change_the_frozen_weight():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(600, 2))
    mixing = mixing_after_warmup(x, stats.multivariate_normal(np.zeros(2)).logpdf(x))
    before = (mixing.recent.count, mixing.defensive_weight)
    far = banana_draws(600, rng)
    for k, (state, lp) in enumerate(zip(far, banana_logp(far))):
        mixing.learned(Transition(state, None, 600 + k, False, 1.0, float(lp)))
    assert (mixing.recent.count, mixing.defensive_weight) == before


def test_freeze_gives_the_low_weight_to_a_gaussian_and_not_to_a_banana():
    """KMCStep's case: a base of 0.2 with a low weight of 0.1 where the t fits."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(600, 2))
    fits = mixing_after_warmup(
        x, stats.multivariate_normal(np.zeros(2)).logpdf(x), base=0.2, low=0.1
    )
    assert fits.shortfall < SHORTFALL_LOW
    assert fits.proposal.defensive_weight == 0.1
    bent = banana_draws(600, np.random.default_rng(2))
    short = mixing_after_warmup(bent, banana_logp(bent), base=0.2, low=0.1)
    assert short.proposal.defensive_weight == defensive_weight_for(short.shortfall, 0.2) > 0.2
