"""Tests for :class:`pymc_kameleon.core.proposals.MixtureProposal` (no PyMC)."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.proposals import (
    AdaptiveCovarianceProposal,
    KameleonProposal,
    MixtureProposal,
    Transition,
)
from pymc_kameleon.core.proposals.mixture import log_sum_exp


def _learned_mixture(weights=(0.7, 0.3), seed: int = 0) -> MixtureProposal:
    kameleon = KameleonProposal(
        2, kernel=GaussianKernel(1.0), gamma=0.5, n_history=50, adapt_start=10
    )
    covariance = AdaptiveCovarianceProposal(2, gamma=0.1, min_states=10)
    mixture = MixtureProposal([(kameleon, weights[0]), (covariance, weights[1])])
    rng = np.random.default_rng(seed)
    for t in range(80):
        x = rng.normal(size=2) * [1.0, 2.0]
        mixture.propose(x, rng)
        mixture.learn(Transition(x, 0.3, t, True), rng)
    return mixture


def _brute_force(mixture: MixtureProposal, to: np.ndarray, frm: np.ndarray) -> float:
    """``log sum_k w_k N(to | frm, C_k(frm))`` with SciPy's Gaussian densities."""
    return float(
        logsumexp(
            [
                math.log(w) + stats.multivariate_normal(frm, p.covariance(frm)).logpdf(to)
                for p, w in zip(mixture.proposals, mixture.weights, strict=True)
            ]
        )
    )


def test_log_density_is_the_weighted_mixture_of_gaussian_densities():
    mixture = _learned_mixture()
    rng = np.random.default_rng(4)
    for _ in range(10):
        frm, to = rng.normal(size=2), rng.normal(size=2) * 2
        assert mixture.log_density(to, frm) == pytest.approx(
            _brute_force(mixture, to, frm), rel=1e-9
        )


def test_forward_density_of_a_draw_is_the_mixture_density_whichever_component_drew():
    mixture = _learned_mixture()
    rng = np.random.default_rng(5)
    chosen = set()
    for _ in range(30):
        x = rng.normal(size=2)
        x_new, log_q = mixture.propose(x, rng)
        chosen.add(mixture.chosen)
        assert log_q == pytest.approx(_brute_force(mixture, x_new, x), rel=1e-9)
    assert chosen == {0, 1}


def test_hastings_ratio_matches_the_brute_force_densities():
    mixture = _learned_mixture()
    x = np.array([0.3, -0.5])
    x_new, log_q_forward = mixture.propose(x, np.random.default_rng(8))
    log_q_reverse = mixture.log_density(x, x_new)
    expected = _brute_force(mixture, x, x_new) - _brute_force(mixture, x_new, x)
    assert log_q_reverse - log_q_forward == pytest.approx(expected, rel=1e-8, abs=1e-10)


def test_the_mixture_density_integrates_to_one():
    """Numerical integration of ``q(. | x)`` over a wide grid (2-D)."""
    mixture = _learned_mixture()
    x = np.array([0.2, 0.1])
    grid = np.linspace(-15.0, 15.0, 301)
    cell = (grid[1] - grid[0]) ** 2
    total = (
        sum(math.exp(mixture.log_density(np.array([a, b]), x)) for a in grid for b in grid) * cell
    )
    assert total == pytest.approx(1.0, abs=2e-3)


def test_components_are_picked_by_weight():
    mixture = _learned_mixture(weights=(0.25, 0.75))
    rng = np.random.default_rng(9)
    picks = []
    for _ in range(4000):
        mixture.propose(np.zeros(2), rng)
        picks.append(mixture.chosen)
    assert np.mean(picks) == pytest.approx(0.75, abs=0.03)


def test_symmetric_only_when_every_component_is():
    covariance = AdaptiveCovarianceProposal(2)
    assert MixtureProposal([(covariance, 1.0), (AdaptiveCovarianceProposal(2), 2.0)]).symmetric
    assert not MixtureProposal([(covariance, 1.0), (KameleonProposal(2), 1.0)]).symmetric


def test_only_the_chosen_component_learns_from_the_acceptance():
    mixture = _learned_mixture()
    kameleon, covariance = mixture.proposals
    mixture.chosen = 1
    before = kameleon.scale.updates, covariance.scale.updates
    mixture.learn(Transition(np.zeros(2), 0.5, 100, True), np.random.default_rng(0))
    assert kameleon.scale.updates == before[0] and covariance.scale.updates == before[1] + 1
    assert kameleon.history.n_seen == 81 and covariance.moments.count == 81


def test_stats_reset_copy_and_bad_weights():
    mixture = _learned_mixture()
    stats_now = mixture.stats()
    assert set(stats_now) == set(mixture.stats_dtypes)
    assert stats_now["scaling"] == stats_now["move0_scaling"]
    clone = pickle.loads(pickle.dumps(copy.deepcopy(mixture)))
    assert clone == mixture
    clone.reset()
    assert clone != mixture and clone.chosen == -1
    with pytest.raises(ValueError, match="weights"):
        MixtureProposal([(AdaptiveCovarianceProposal(2), 0.0)])


def test_log_sum_exp():
    assert log_sum_exp([-math.inf, -math.inf]) == -math.inf
    assert log_sum_exp([1000.0, 1000.0]) == pytest.approx(1000.0 + math.log(2.0))
