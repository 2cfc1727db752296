"""PCAKameleonProposal: its density against SciPy's mixture, its draws, and its scales."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from pymc_kameleon.core.proposals import AffineMap, PCAKameleonProposal, Transition


def learned_proposal(d: int = 3, m: int = 4, seed: int = 0, **kwargs) -> PCAKameleonProposal:
    """A proposal that has used 300 states of a scaled Gaussian as its history."""
    rng = np.random.default_rng(seed)
    proposal = PCAKameleonProposal(d, n_components=m, n_history=200, adapt_start=50, **kwargs)
    for t in range(300):
        state = rng.standard_normal(d) * np.linspace(0.5, 2.0, d)
        proposal.learn(Transition(state, None, t, True), rng)
    return proposal


def scipy_log_density(proposal: PCAKameleonProposal, to: np.ndarray, frm: np.ndarray) -> float:
    """``log sum_j w_j N(to; frm, gamma^2 I + nu_j^2 b_j b_j^T)`` by dense SciPy densities."""
    u_to, u_frm = proposal.to_kernel(to), proposal.to_kernel(frm)
    directions = proposal.directions_at(u_frm)
    d = frm.shape[0]
    gamma2 = proposal.gamma**2
    density = sum(
        w * multivariate_normal(u_frm, gamma2 * np.eye(d) + n2 * np.outer(b, b)).pdf(u_to)
        for w, n2, b in zip(proposal.weights, proposal.nu2, directions.T, strict=True)
    )
    log_det = 0.0 if proposal.affine is None else proposal.affine.log_det
    return float(np.log(density)) - log_det


def test_directions_and_weights_come_from_the_history():
    proposal = learned_proposal()
    assert proposal.vectors.shape == (200, 4)
    assert proposal.weights.sum() == pytest.approx(1.0)
    assert np.all(np.diff(proposal.weights) <= 0)  # largest eigenvalue first
    assert proposal.nu2.shape == (4,) and np.all(proposal.nu2 > 0)


@pytest.mark.parametrize("mapped", [False, True], ids=["states", "affine map"])
def test_log_density_is_the_mixture_of_rank_one_gaussians(mapped):
    proposal = learned_proposal()
    if mapped:
        matrix = np.array([[2.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, -0.3, 0.7]])
        log_det = float(np.log(abs(np.linalg.det(matrix))))
        shift = np.array([0.1, -0.2, 0.3])
        proposal.set_map(AffineMap(shift, matrix, np.linalg.inv(matrix), log_det))
        proposal._refresh_subsample(np.zeros(3), 300, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    for _ in range(5):
        frm = rng.standard_normal(3)
        to = frm + rng.standard_normal(3)
        assert proposal.log_density(to, frm) == pytest.approx(
            scipy_log_density(proposal, to, frm), rel=1e-9, abs=1e-9
        )


def test_propose_returns_the_density_of_its_draw_and_records_the_direction():
    proposal = learned_proposal()
    rng = np.random.default_rng(3)
    x = rng.standard_normal(3)
    for _ in range(20):
        new, log_q = proposal.propose(x, rng)
        assert 0 <= proposal.chosen < 4
        assert log_q == pytest.approx(proposal.log_density(new, x), rel=1e-12)
    batch, log_qs = proposal.propose_many(np.tile(x, (4, 1)), rng)
    assert np.allclose(log_qs, proposal.log_density_many(batch, np.tile(x, (4, 1))))


def test_draws_have_the_covariance_and_direction_frequencies_of_the_mixture():
    proposal = learned_proposal()
    rng = np.random.default_rng(4)
    x = np.array([0.3, -0.5, 1.0])
    n = 30_000
    moves, chosen = np.empty((n, 3)), np.empty(n, dtype=int)
    for i in range(n):
        moves[i] = proposal.propose(x, rng)[0] - x
        chosen[i] = proposal.chosen
    frequency = np.bincount(chosen, minlength=4) / n
    w = proposal.weights
    assert np.all(np.abs(frequency - w) < 4.5 * np.sqrt(w * (1 - w) / n))
    products = moves[:, :, None] * moves[:, None, :]
    error = products.mean(axis=0) - proposal.covariance(x)
    standard_error = products.std(axis=0) / np.sqrt(n)
    assert np.all(np.abs(error) < 4.5 * standard_error)
    assert np.all(np.abs(moves.mean(axis=0)) < 4.5 * moves.std(axis=0) / np.sqrt(n))


def test_only_the_direction_that_moved_learns_from_the_acceptance():
    proposal = learned_proposal()
    rng = np.random.default_rng(5)
    x = np.zeros(3)
    proposal.propose(x, rng)
    before = proposal.nu2.copy()
    proposal.learn(Transition(x, 0.0, 301, True), rng)  # rejected: that direction shrinks
    changed = np.flatnonzero(~np.isclose(proposal.nu2, before))
    assert list(changed) == [proposal.chosen]
    assert proposal.nu2[proposal.chosen] < before[proposal.chosen]
    proposal.learn(Transition(x, None, 302, True), rng)  # another move's iteration: no change
    assert proposal.nu2[proposal.chosen] == pytest.approx(
        np.exp(proposal.scales[proposal.chosen].log_scale)
    )


def test_before_the_history_it_is_the_isotropic_walk():
    proposal = PCAKameleonProposal(2, gamma=0.5)
    rng = np.random.default_rng(6)
    x = np.zeros(2)
    new, log_q = proposal.propose(x, rng)
    assert proposal.chosen == -1 and proposal.stats()["direction"] == -1
    assert log_q == pytest.approx(multivariate_normal(x, 0.25 * np.eye(2)).logpdf(new))


def test_reset_forgets_the_directions_and_scales():
    proposal = learned_proposal()
    proposal.reset()
    assert proposal.vectors is None and proposal.weights is None and proposal.z is None
    assert all(scale.updates == 0 for scale in proposal.scales)


def test_directions_are_recomputed_at_intervals_not_every_iteration():
    proposal = learned_proposal(refresh_interval=50)
    rng = np.random.default_rng(7)
    proposal.learn(Transition(rng.standard_normal(3), None, 300, True), rng)
    assert proposal.last_refresh == 300
    vectors = proposal.vectors
    for t in range(301, 350):
        proposal.learn(Transition(rng.standard_normal(3), None, t, True), rng)
    assert proposal.vectors is vectors
    for t in range(350, 352):
        proposal.learn(Transition(rng.standard_normal(3), None, t, True), rng)
    assert proposal.vectors is not vectors


def test_use_states_fits_directions_for_a_population():
    proposal = PCAKameleonProposal(2, n_components=3)
    states = np.random.default_rng(8).standard_normal((100, 2))
    proposal.use_states(states, np.random.default_rng(9), nu2_factor=2.0)
    assert proposal.vectors.shape[1] == 3
    x_new, log_q = proposal.propose_many(states[:5], np.random.default_rng(10))
    assert x_new.shape == (5, 2) and np.all(np.isfinite(log_q))


def test_bad_component_count_is_refused():
    with pytest.raises(ValueError, match="n_components must be at least 1"):
        PCAKameleonProposal(2, n_components=0)
