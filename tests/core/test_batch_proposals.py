"""The population (batch) methods of proposals agree with their one-state versions (no PyMC)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core import accelerated
from pymc_kameleon.core.kernels import GaussianKernel, Matern52Kernel
from pymc_kameleon.core.mh import (
    accept_probability,
    mh_decide_many,
    mh_log_ratio,
    mh_log_ratios,
)
from pymc_kameleon.core.population import population_proposal
from pymc_kameleon.core.proposals import (
    AdaptiveCovarianceProposal,
    IsotropicRandomWalk,
    Transition,
)
from pymc_kameleon.core.proposals.kameleon import kameleon_scatter, kameleon_scatters


def banana_population(n=400, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)) * [3.0, 1.0, 0.5]
    x[:, 1] += 0.3 * (x[:, 0] ** 2 - 9.0)
    return x


def proposals():
    particles = banana_population()
    rng = np.random.default_rng(1)
    mixture = population_proposal(particles, rng, gamma=0.2, n_basis=200, global_weight=0.3)
    kameleon = population_proposal(particles, rng, gamma=0.2, n_basis=200)
    walk = IsotropicRandomWalk(3, gamma=0.1)
    return {"mixture": mixture, "kameleon-mapped": kameleon, "isotropic": walk}


@pytest.mark.parametrize("name", ["mixture", "kameleon-mapped", "isotropic"])
def test_batch_densities_equal_the_one_state_densities(name):
    proposal = proposals()[name]
    frm = banana_population(50, seed=2)
    to = banana_population(50, seed=3)
    expected = [proposal.log_density(a, b) for a, b in zip(to, frm, strict=True)]
    np.testing.assert_allclose(proposal.log_density_many(to, frm), expected, rtol=1e-10)


@pytest.mark.parametrize("name", ["mixture", "kameleon-mapped", "isotropic"])
def test_batch_draws_report_their_own_forward_density(name):
    proposal = proposals()[name]
    frm = banana_population(50, seed=4)
    to, log_q = proposal.propose_many(frm, np.random.default_rng(5))
    assert to.shape == frm.shape and to.dtype == frm.dtype
    expected = [proposal.log_density(a, b) for a, b in zip(to, frm, strict=True)]
    np.testing.assert_allclose(log_q, expected, rtol=1e-10)


@pytest.mark.parametrize("name", ["mixture", "kameleon-mapped"])
def test_batch_draws_have_the_proposal_covariance(name):
    """20 000 draws from one state: sample covariance within 5 standard errors of the exact."""
    proposal = proposals()[name]
    x = np.array([2.0, 0.5, 0.1])
    n = 20_000
    moves = proposal.propose_many(np.tile(x, (n, 1)), np.random.default_rng(6))[0] - x
    exact = proposal.covariance(x)
    sample = np.cov(moves, rowvar=False)
    # sd of a sample covariance entry: sqrt((S_ij^2 + S_ii S_jj) / n)
    se = np.sqrt((exact**2 + np.outer(np.diag(exact), np.diag(exact))) / n)
    assert np.max(np.abs(sample - exact) / se) < 5.0
    assert np.max(np.abs(moves.mean(axis=0)) / np.sqrt(np.diag(exact) / n)) < 5.0


def test_batch_draws_keep_float32():
    proposal = proposals()["mixture"]
    frm = banana_population(20).astype(np.float32)
    to, _ = proposal.propose_many(frm, np.random.default_rng(0))
    assert to.dtype == np.float32


def test_the_mixture_records_the_component_of_each_row():
    proposal = proposals()["mixture"]
    frm = banana_population(4000, seed=7)
    proposal.propose_many(frm, np.random.default_rng(8))
    picks = proposal.chosen_rows
    assert picks.shape == (4000,) and set(np.unique(picks)) <= {0, 1}
    assert abs(picks.mean() - 0.3) < 4 * math.sqrt(0.3 * 0.7 / 4000)


def test_batch_density_is_nan_and_a_draw_fails_where_the_covariance_is_not_finite():
    proposal = proposals()["kameleon-mapped"]
    frm = banana_population(5, seed=9)
    frm[2] = np.nan
    log_q = proposal.log_density_many(banana_population(5, seed=10), frm)
    assert np.isnan(log_q[2]) and np.all(np.isfinite(np.delete(log_q, 2)))
    with pytest.raises(FloatingPointError, match="positive definite"):
        proposal.propose_many(frm, np.random.default_rng(0))


def test_the_protocol_default_proposes_row_by_row():
    """A proposal without its own batch methods (the adaptive covariance) still moves rows."""
    proposal = AdaptiveCovarianceProposal(2, gamma=0.1, min_states=5)
    rng = np.random.default_rng(0)
    for t in range(20):
        proposal.learn(Transition(rng.normal(size=2), 0.3, t, True), rng)
    frm = rng.normal(size=(6, 2))
    to, log_q = proposal.propose_many(frm, rng)
    expected = [proposal.log_density(a, b) for a, b in zip(to, frm, strict=True)]
    np.testing.assert_allclose(log_q, expected, rtol=1e-10)


@pytest.mark.parametrize("kernel", [GaussianKernel(1.3), Matern52Kernel(1.3)])
def test_scatters_at_many_points_equal_one_point_scatters(kernel):
    rng = np.random.default_rng(11)
    history, points = rng.normal(size=(60, 4)), rng.normal(size=(7, 4))
    expected = np.stack([kameleon_scatter(y, history, kernel) for y in points])
    np.testing.assert_allclose(kameleon_scatters(points, history, kernel), expected, rtol=1e-12)


@pytest.mark.skipif(not accelerated.HAVE_NUMBA, reason="needs Numba")
def test_compiled_scatters_match_the_numpy_path(monkeypatch):
    rng = np.random.default_rng(12)
    history, points = rng.normal(size=(60, 4)), rng.normal(size=(7, 4))
    compiled = kameleon_scatters(points, history, GaussianKernel(0.9))
    monkeypatch.setattr(accelerated, "HAVE_NUMBA", False)
    np.testing.assert_allclose(kameleon_scatters(points, history, GaussianKernel(0.9)), compiled,
                               rtol=1e-10)  # fmt: skip


SPECIAL = [0.0, -1.5, 2.0, -math.inf, math.inf, math.nan]


def test_batch_log_ratios_follow_the_one_pair_rules():
    grid = np.array(np.meshgrid(SPECIAL, SPECIAL, SPECIAL, SPECIAL)).reshape(4, -1)
    with np.errstate(invalid="ignore"):
        got = mh_log_ratios(*grid)
        expected = [mh_log_ratio(*column) for column in grid.T]
    np.testing.assert_array_equal(got, expected)


def test_batch_decisions_use_one_uniform_each_and_the_one_test_probabilities():
    log_ratios = np.array([0.0, -0.7, 3.0, -math.inf, math.nan, -20.0])
    accepted, prob = mh_decide_many(log_ratios, np.random.default_rng(3))
    u = np.random.default_rng(3).random(log_ratios.size)
    np.testing.assert_allclose(prob, [accept_probability(r) for r in log_ratios])
    np.testing.assert_array_equal(
        accepted, [True, u[1] < prob[1], True, False, False, u[5] < prob[5]]
    )
