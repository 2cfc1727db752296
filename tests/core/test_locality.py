"""The kernel-locality measure and the kernel move standing down where it is not local."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core.history import ChainHistory
from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.locality import history_locality, kernel_weight_share, reference_share
from pymc_kameleon.core.proposals import (
    IsotropicRandomWalk,
    KameleonProposal,
    MixtureProposal,
    Proposal,
    Transition,
)


def test_weight_share_is_one_for_equal_weights_and_one_over_n_for_a_single_point():
    reference = np.vstack([np.eye(3), -np.eye(3)])  # all at distance 1 from the origin
    assert kernel_weight_share(np.zeros(3), reference, GaussianKernel(1.0)) == pytest.approx(1.0)
    far = np.vstack([np.zeros(3), 100.0 + np.eye(3)])
    assert kernel_weight_share(np.zeros(3), far, GaussianKernel(1.0)) == pytest.approx(0.25)
    assert math.isnan(kernel_weight_share(np.zeros(3), 1e3 + np.eye(3), GaussianKernel(1.0)))


def recorded(states: np.ndarray) -> ChainHistory:
    history = ChainHistory(states.shape[1], states.shape[0])
    rng = np.random.default_rng(0)
    for t, x in enumerate(states):
        history.record(x, t, rng)
    return history


@pytest.mark.parametrize(("d", "low", "high"), [(2, 0.5, 0.8), (50, 0.93, 1.0)])
def test_history_locality_of_exact_draws_matches_the_dimension(d, low, high):
    # benchmarks/kernel_locality.py: 0.67 at d = 2, 0.97 at d = 50
    draws = np.random.default_rng(1).standard_normal((2000, d))
    share = history_locality(recorded(draws), 0, GaussianKernel(1.0))
    assert low < share < high


def test_repeated_states_of_a_sticky_chain_do_not_make_the_kernel_look_local():
    draws = np.random.default_rng(2).standard_normal((300, 20))
    sticky = np.repeat(draws, 10, axis=0)  # each state held for 10 iterations, as after rejections
    iid = history_locality(recorded(draws), 0, GaussianKernel(1.0))
    sticky_share = history_locality(recorded(sticky), 0, GaussianKernel(1.0))
    assert sticky_share == pytest.approx(iid, abs=0.05)


def test_the_reference_share_grows_with_the_dimension():
    shares = [reference_share(d) for d in (2, 5, 10, 20, 50, 100)]
    assert np.all(np.diff(shares) > 0) and 0.6 < shares[0] < 0.8 and shares[-1] > 0.97


def test_a_slow_path_in_many_dimensions_is_not_taken_for_locality():
    # a warm-up's slow random walk: neighbours in space all the way along the window
    path = np.cumsum(0.05 * np.random.default_rng(6).standard_normal((2000, 50)), axis=0)
    share = history_locality(recorded(path), 0, GaussianKernel(1.0))
    assert share == pytest.approx(reference_share(50))


def test_too_short_a_history_gives_no_measure():
    draws = np.random.default_rng(3).standard_normal((30, 2))
    assert math.isnan(history_locality(recorded(draws), 0, GaussianKernel(1.0)))


def run_proposal(d: int, iterations: int = 600, threshold: float | None = 0.9):
    rng = np.random.default_rng(4)
    proposal = KameleonProposal(d, n_history=200, locality_threshold=threshold)
    for t in range(iterations):
        proposal.learn(Transition(rng.standard_normal(d), None, t, True), rng)
    return proposal, rng


def test_the_kernel_move_stands_down_in_high_dimension_and_stays_in_low():
    high, _ = run_proposal(30)
    assert not high.kernel_local and not high.in_use and high.weight_share > 0.9
    assert high.stats()["kernel_local"] is False
    low, _ = run_proposal(2)
    assert low.kernel_local and low.in_use and 0.0 < low.weight_share < 0.9
    never, _ = run_proposal(30, threshold=None)
    assert never.kernel_local and never.weight_share == 0.0


def test_a_kernel_out_of_use_stops_refreshing_and_the_decision_freezes_after_warmup():
    proposal, rng = run_proposal(30)
    z = proposal.z
    for t in range(600, 650):
        proposal.learn(Transition(rng.standard_normal(30), None, t, True), rng)
    assert proposal.z is z
    share = proposal.weight_share
    for t in range(650, 1000):  # after warm-up: no measure
        proposal.learn(Transition(np.zeros(30), None, t, False), rng)
    assert proposal.weight_share == share and not proposal.kernel_local


class _Unused(Proposal):
    """A component out of use: proposing from it or asking its density is an error."""

    in_use = False
    symmetric = True

    def propose(self, x, rng):
        raise AssertionError("a component out of use was chosen")

    def log_density(self, to, frm):
        raise AssertionError("a component out of use was evaluated")

    def log_density_many(self, to, frm):
        raise AssertionError("a component out of use was evaluated")

    def learn(self, transition, rng):
        pass

    def reset(self):
        pass

    def stats(self):
        return {}


def test_a_mixture_gives_a_component_out_of_use_no_weight():
    walk = IsotropicRandomWalk(2)
    mixture = MixtureProposal([(_Unused(), 0.5), (walk, 0.5)])
    weights, log_weights = mixture.live_weights()
    assert list(weights) == [0.0, 1.0] and log_weights[1] == 0.0
    rng = np.random.default_rng(5)
    x = np.zeros(2)
    for _ in range(50):
        new, log_q = mixture.propose(x, rng)
        assert mixture.chosen == 1
        assert log_q == pytest.approx(walk.log_density(new, x))
        assert mixture.log_density(x, new) == pytest.approx(walk.log_density(x, new))
    batch, log_qs = mixture.propose_many(np.zeros((6, 2)), rng)
    assert np.all(mixture.chosen_rows == 1)
    assert np.allclose(log_qs, walk.log_density_many(batch, np.zeros((6, 2))))
    assert np.allclose(mixture.log_density_many(batch, np.zeros((6, 2))), log_qs)
    assert np.allclose(mixture.covariance(x), walk.covariance(x))
