"""Tests for :class:`pymc_kameleon.core.proposals.AdaptiveCovarianceProposal` (no PyMC)."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from scipy import stats

from pymc_kameleon.core.adaptation import optimal_rw_scale, robbins_monro_update
from pymc_kameleon.core.proposals import AdaptiveCovarianceProposal, Proposal, Transition


def _fed(proposal: AdaptiveCovarianceProposal, n: int, seed: int = 0) -> np.ndarray:
    states = np.random.default_rng(seed).normal(size=(n, proposal.dim)) * [1.0, 3.0, 0.5]
    for i, x in enumerate(states):
        proposal.learn(Transition(x, 0.5, i, True), np.random.default_rng(i))
    return states


def test_is_a_symmetric_proposal_starting_as_an_identity_random_walk():
    proposal = AdaptiveCovarianceProposal(3, gamma=0.1)
    assert isinstance(proposal, Proposal) and proposal.symmetric
    assert proposal.scaling == pytest.approx(optimal_rw_scale(3))
    expected = np.eye(3) * (optimal_rw_scale(3) + 0.01)
    np.testing.assert_allclose(proposal.covariance(np.zeros(3)), expected)


def test_uses_the_running_covariance_after_min_states():
    proposal = AdaptiveCovarianceProposal(3, min_states=10, learn_scale=False)
    states = _fed(proposal, 50)
    assert proposal.covariance_in_use()
    expected = optimal_rw_scale(3) * np.cov(states.T)
    np.testing.assert_allclose(proposal.covariance(np.ones(3)), expected, rtol=1e-10)


def test_a_chain_that_never_moved_keeps_the_identity():
    proposal = AdaptiveCovarianceProposal(3, min_states=2, learn_scale=False)
    for i in range(20):
        proposal.learn(Transition(np.ones(3), 0.0, i, True), np.random.default_rng(i))
    assert not proposal.covariance_in_use()
    np.testing.assert_array_equal(proposal.learned_covariance(np.ones(3)), np.eye(3))


def test_log_density_is_the_gaussian_density_and_propose_returns_it():
    proposal = AdaptiveCovarianceProposal(3, gamma=0.2, min_states=10)
    _fed(proposal, 40)
    x = np.array([0.1, -0.3, 2.0])
    x_new, log_q = proposal.propose(x, np.random.default_rng(1))
    cov = proposal.covariance(x)
    exact = stats.multivariate_normal(x, cov).logpdf(x_new)
    assert log_q == pytest.approx(exact, rel=1e-10)
    assert proposal.log_density(x_new, x) == pytest.approx(exact, rel=1e-10)
    assert proposal.log_density(x, x_new) == pytest.approx(exact, rel=1e-10)  # symmetric


def test_learn_moves_the_scale_by_robbins_monro_with_the_target_factor():
    proposal = AdaptiveCovarianceProposal(2, target_accept=0.3)
    proposal.learn(Transition(np.zeros(2), 0.9, 0, True, target_factor=0.5), None)
    start = math.log(optimal_rw_scale(2))
    assert proposal.scale.log_scale == robbins_monro_update(start, 0.9, 0.3 * 0.5, 0)
    proposal.end_warmup()
    assert proposal.scale.log_scale == pytest.approx(robbins_monro_update(start, 0.9, 0.15, 0))


def test_initial_states_are_used_at_once_and_survive_reset():
    rows = np.random.default_rng(2).normal(size=(30, 2))
    proposal = AdaptiveCovarianceProposal(2, initial_states=rows)
    np.testing.assert_allclose(proposal.learned_covariance(np.zeros(2)), np.cov(rows.T))
    proposal.learn(Transition(np.full(2, 9.0), 1.0, 0, True), None)
    proposal.reset()
    assert proposal.moments.count == 30 and proposal.scale.updates == 0


def test_relative_ridge_factorises_the_kmc_way():
    proposal = AdaptiveCovarianceProposal(3, min_states=5, relative_ridge=1e-6, learn_scale=False)
    _fed(proposal, 20)
    cov = proposal.moments.covariance()
    jitter = 1e-6 * float(np.mean(np.diag(cov)))
    expected = np.linalg.cholesky(proposal.scaling * (cov + jitter * np.eye(3)))
    np.testing.assert_array_equal(proposal.cholesky(np.zeros(3)), expected)


def test_state_copies_pickles_and_compares():
    proposal = AdaptiveCovarianceProposal(3, min_states=5)
    _fed(proposal, 10)
    proposal.propose(np.zeros(3), np.random.default_rng(0))  # fills the cache
    clone = pickle.loads(pickle.dumps(copy.deepcopy(proposal)))
    assert clone == proposal
    clone.learn(Transition(np.ones(3), 0.1, 11, True), None)
    assert clone != proposal
