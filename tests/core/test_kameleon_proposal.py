"""Tests for :class:`pymc_kameleon.core.proposals.KameleonProposal` (no PyMC)."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from scipy import stats

from pymc_kameleon.core.adaptation import TuningOnly
from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.proposals import (
    AffineMap,
    KameleonProposal,
    Transition,
    kameleon_covariance,
    kernel_term_trace,
)


def _proposal(dim: int = 2, **kwargs) -> KameleonProposal:
    options = {"n_history": 40, "adapt_start": 10, "capacity": 200, "learn_scale": False}
    options.update(kwargs)
    return KameleonProposal(dim, kernel=GaussianKernel(1.0), schedule=TuningOnly(), **options)


def _fed(proposal: KameleonProposal, n: int = 60, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for t in range(n):
        x = rng.normal(size=proposal.dim) * 0.7
        proposal.learn(Transition(x, 0.3, t, True), rng)


def test_is_a_random_walk_until_the_history_is_used():
    proposal = _proposal(gamma=0.3)
    assert not proposal.symmetric
    np.testing.assert_array_equal(proposal.covariance(np.ones(2)), 0.09 * np.eye(2))
    _fed(proposal, 5)
    assert proposal.z is None


def test_covariance_is_the_kameleon_covariance_of_the_subsample():
    proposal = _proposal(gamma=0.2)
    _fed(proposal)
    x = np.array([0.3, -0.2])
    expected = kameleon_covariance(x, proposal.z, proposal.kernel, 0.04, proposal.scaling)
    np.testing.assert_allclose(proposal.covariance(x), expected, rtol=1e-12)


def test_log_density_and_forward_density_are_the_gaussian_ones():
    proposal = _proposal()
    _fed(proposal)
    x = np.array([0.1, 0.4])
    x_new, log_q = proposal.propose(x, np.random.default_rng(3))
    assert log_q == pytest.approx(
        stats.multivariate_normal(x, proposal.covariance(x)).logpdf(x_new), rel=1e-9
    )
    reverse = stats.multivariate_normal(x_new, proposal.covariance(x_new)).logpdf(x)
    assert proposal.log_density(x, x_new) == pytest.approx(reverse, rel=1e-9)


def test_bandwidth_update_keeps_scaled_kernel_trace():
    proposal = _proposal(n_history=40)
    rng = np.random.default_rng(3)
    for t in range(300):
        proposal.history.record(rng.normal(size=2) * 0.7, t, rng)
    proposal.z = proposal.basis = proposal.history.subsample(40, rng)
    proposal.kernel = proposal.kernel.with_bandwidth(0.2)  # far from the median of the history
    proposal.scale.restart(math.log(0.013))
    x = np.array([0.3, -0.1])
    before = proposal.scaling * kernel_term_trace(x, proposal.z, proposal.kernel)
    proposal.next_bandwidth_update = 0
    proposal.learn(Transition(x, 0.3, 300, True), rng)  # refreshes z and the bandwidth
    after = proposal.scaling * kernel_term_trace(x, proposal.z, proposal.kernel)
    assert proposal.kernel.bandwidth > 0.5  # the median heuristic moved it
    assert math.isclose(after, before, rel_tol=1e-10)


def test_affine_map_gives_the_mapped_gaussian_density():
    proposal = _proposal()
    _fed(proposal)
    matrix = np.array([[2.0, 0.0], [0.5, 0.7]])
    affine = AffineMap(
        np.array([0.1, -0.2]), matrix, np.linalg.inv(matrix), math.log(abs(np.linalg.det(matrix)))
    )
    proposal.set_map(affine)
    x = np.array([0.2, 0.1])
    cov = proposal.covariance(x)
    x_new, log_q = proposal.propose(x, np.random.default_rng(5))
    assert log_q == pytest.approx(stats.multivariate_normal(x, cov).logpdf(x_new), rel=1e-9)
    reverse = stats.multivariate_normal(x_new, proposal.covariance(x_new)).logpdf(x)
    assert proposal.log_density(x, x_new) == pytest.approx(reverse, rel=1e-9)


def test_identity_map_changes_no_draw():
    plain, mapped = _proposal(), _proposal()
    _fed(plain)
    _fed(mapped)
    mapped.set_map(None)
    x = np.array([0.2, 0.1])
    new_plain, log_q_plain = plain.propose(x, np.random.default_rng(1))
    new_mapped, log_q_mapped = mapped.propose(x, np.random.default_rng(1))
    np.testing.assert_array_equal(new_plain, new_mapped)
    assert log_q_plain == log_q_mapped


def test_state_copies_pickles_compares_and_resets():
    proposal = _proposal(learn_scale=True)
    _fed(proposal)
    proposal.propose(np.zeros(2), np.random.default_rng(0))
    clone = pickle.loads(pickle.dumps(copy.deepcopy(proposal)))
    assert clone == proposal
    clone.reset()
    assert clone != proposal
    assert clone.z is None and clone.history.n_seen == 0 and clone.scale.updates == 0
