"""Tests of the unit-free warm-up proposals (no PyMC): the one-coordinate walk, the isotropic walk
in mapped coordinates, the affine maps and :class:`WhitenedProposal`."""

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
    WARMUP_STAGES,
    AdaptiveCovarianceProposal,
    AffineMap,
    CoordinateRandomWalk,
    IsotropicRandomWalk,
    KameleonProposal,
    MixtureProposal,
    Transition,
    WhitenedProposal,
    diagonal_map,
)
from pymc_kameleon.core.windowed_covariance import whitening_map

DIM = 4
SDS = np.logspace(-3, 3, DIM)  # posterior sds from 1e-3 to 1e3
CORRELATION = np.array(
    [[1.0, 0.95, 0.0, 0.0], [0.95, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -0.9], [0.0, 0.0, -0.9, 1.0]]
)
COV = np.outer(SDS, SDS) * CORRELATION
MEAN = 5.0 * SDS  # five sds from the starting point 0 in every coordinate
PRECISION = np.linalg.inv(COV)


def _log_target(x: np.ndarray) -> float:
    r = x - MEAN
    return -0.5 * float(r @ PRECISION @ r)


def _metropolis(proposal, n_tune: int, n_draws: int, seed: int):
    """Metropolis–Hastings over ``proposal`` on the Gaussian above; kept draws and acceptances."""
    rng = np.random.default_rng(seed)
    x, logp = np.zeros(DIM), _log_target(np.zeros(DIM))
    draws, accepts = [], []
    for t in range(n_tune + n_draws):
        if t == n_tune:
            proposal.end_warmup()
        x_new, log_forward = proposal.propose(x, rng)
        logp_new = _log_target(x_new)
        log_ratio = logp_new - logp
        if not proposal.symmetric:
            log_ratio += proposal.log_density(x, x_new) - log_forward
        accept = math.exp(min(0.0, log_ratio))
        if rng.random() < accept:
            x, logp = x_new, logp_new
        if t < n_tune:
            proposal.learn(Transition(x, accept, t, True), rng)
        else:
            draws.append(x)
            accepts.append(accept)
    return np.array(draws), np.array(accepts)


def _kameleon_mixture(dim: int = DIM) -> MixtureProposal:
    kameleon = KameleonProposal(
        dim, kernel=GaussianKernel(1.0), schedule=TuningOnly(), n_history=200, capacity=1000
    )
    return MixtureProposal([(kameleon, 0.8), (IsotropicRandomWalk(dim), 0.2)])


# ---------------------------------------------------------------------------------------------
# CoordinateRandomWalk
def test_coordinate_walk_moves_one_coordinate_with_its_gaussian_density():
    walk = CoordinateRandomWalk(3, initial_scales=[0.1, 1.0, 10.0])
    x = np.array([1.0, 2.0, 3.0])
    x_new, log_q = walk.propose(x, np.random.default_rng(3))
    changed = np.flatnonzero(x_new != x)
    assert changed.tolist() == [walk.index]
    i = walk.index
    expected = math.log(1 / 3) + stats.norm(x[i], walk.scales[i]).logpdf(x_new[i])
    assert log_q == pytest.approx(expected, rel=1e-12)
    assert walk.log_density(x, x_new) == pytest.approx(expected, rel=1e-12)  # symmetric
    assert walk.log_density(x + 1.0, x) == -math.inf  # two coordinates changed: no density


def test_coordinate_walk_learns_only_the_coordinate_it_moved():
    walk = CoordinateRandomWalk(3)
    rng = np.random.default_rng(0)
    walk.propose(np.zeros(3), rng)
    before = walk.scales
    walk.learn(Transition(np.zeros(3), 0.0, 0, True), rng)
    after = walk.scales
    moved = np.flatnonzero(after != before)
    assert moved.tolist() == [walk.index]
    assert after[walk.index] < before[walk.index]  # rejected: shrink
    walk.learn(Transition(np.zeros(3), None, 1, True), rng)  # another move's acceptance
    np.testing.assert_array_equal(walk.scales, after)


# ---------------------------------------------------------------------------------------------
# maps
def test_diagonal_map_standardises_each_coordinate():
    affine = diagonal_map([1.0, -2.0], [1e-3, 1e3])
    np.testing.assert_allclose(affine.to_kernel(np.array([1.002, 998.0])), [2.0, 1.0])
    assert affine.log_det == pytest.approx(0.0, abs=1e-12)
    assert affine == copy.deepcopy(affine)
    with pytest.raises(ValueError, match="positive"):
        diagonal_map([0.0, 0.0], [1.0, 0.0])


@pytest.mark.parametrize("make", [lambda: IsotropicRandomWalk(3, gamma=0.3), _kameleon_mixture])
def test_mapped_random_walk_has_the_mapped_gaussian_density(make):
    proposal = make() if make is not _kameleon_mixture else _kameleon_mixture(3)
    rng = np.random.default_rng(1)
    for t in range(300):  # give the kernel move a history
        x = rng.normal(size=3)
        proposal.propose(x, rng)
        proposal.learn(Transition(x, 0.3, t, True), rng)
    matrix = np.array([[2.0, 0.0, 0.0], [0.5, 1e-3, 0.0], [1.0, -3.0, 40.0]])
    proposal.set_map(AffineMap(np.ones(3), matrix, np.linalg.inv(matrix), math.log(80e-3)))
    x = np.array([0.3, 1.0, -2.0])
    x_new, log_q = proposal.propose(x, np.random.default_rng(2))
    if isinstance(proposal, IsotropicRandomWalk):
        cov = matrix @ ((0.09 + proposal.scaling) * np.eye(3)) @ matrix.T
        np.testing.assert_allclose(proposal.covariance(x), cov, rtol=1e-12)
        # the map is ill-conditioned (1e-3 next to 40): SciPy's and our factorisations agree to
        # 1e-9 on some CPUs and to 6e-9 on others (SIMD paths); 1e-6, as for the mixture below
        assert log_q == pytest.approx(stats.multivariate_normal(x, cov).logpdf(x_new), rel=1e-6)
    else:  # a mixture: compare with the mixture of the components' mapped Gaussians
        dens = [
            w * stats.multivariate_normal(x, p.covariance(x)).pdf(x_new)
            for w, p in zip(proposal.weights, proposal.proposals, strict=True)
        ]
        # the map is ill-conditioned (1e-3 next to 40): agreement to 1e-6 only
        assert log_q == pytest.approx(math.log(sum(dens)), rel=1e-6)


# ---------------------------------------------------------------------------------------------
# WhitenedProposal
def test_whitened_proposal_goes_through_its_stages_and_freezes():
    proposal = WhitenedProposal(IsotropicRandomWalk(DIM), start_length=100, first_window=50)
    assert proposal.stats()["warmup_stage"] == WARMUP_STAGES["start"]
    assert proposal.symmetric and proposal.affine is None
    _metropolis(proposal, n_tune=99, n_draws=0, seed=0)
    assert proposal.in_start
    _metropolis_continue(proposal, 99, 100)
    assert not proposal.in_start and proposal.affine is not None  # the diagonal map
    assert proposal.stats()["warmup_stage"] == WARMUP_STAGES["windows"]
    _metropolis_continue(proposal, 100, 150)  # the first window ends at 150
    assert proposal.n_windows == 1
    frozen_map = proposal.affine
    proposal.end_warmup()
    assert proposal.stats()["warmup_stage"] == WARMUP_STAGES["frozen"]
    _metropolis_continue(proposal, 150, 400)  # learning after warm-up leaves the map alone
    assert proposal.affine is frozen_map


def test_without_modes_independence_moves_begin_at_the_first_window_and_follow_the_windows():
    """A start-up that found no mode hands in no anchors: the t waits for a window's moments."""
    proposal = WhitenedProposal(IsotropicRandomWalk(DIM), start_length=100, first_window=50)
    proposal.mix_independence([])
    _metropolis_continue(proposal, 0, 149)
    assert proposal.mixing is None and proposal.stats()["independence_share"] == 0.0
    _metropolis_continue(proposal, 149, 150)  # the first window ends at 150
    assert proposal.n_windows == 1
    mixing = proposal.mixing
    assert mixing is proposal.independence and mixing.proposal.anchors == ()
    assert mixing.proposal.maps == (proposal.affine,)
    first = proposal.affine
    _metropolis_continue(proposal, 150, 400)
    assert proposal.n_windows >= 2 and proposal.affine is not first
    assert mixing.proposal.maps == (proposal.affine,)  # the last window's moments, alone
    assert mixing.tries > 0
    proposal.end_warmup()
    assert proposal.mixing is None  # (not kept after warm-up unless asked)


def test_without_modes_and_without_a_window_there_are_no_independence_moves():
    proposal = WhitenedProposal(IsotropicRandomWalk(DIM), start_length=100, first_window=50)
    proposal.mix_independence([], keep_after_warmup=True)
    _metropolis_continue(proposal, 0, 120)
    proposal.end_warmup()  # warm-up ended before the first window closed
    assert proposal.mixing is None and proposal.symmetric
    rng = np.random.default_rng(0)
    assert np.all(np.isfinite(proposal.propose(MEAN, rng)[0]))


def _metropolis_continue(proposal, start: int, stop: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed + start)
    x = MEAN.copy()
    for t in range(start, stop):
        x_new, _ = proposal.propose(x, rng)
        accept = math.exp(min(0.0, _log_target(x_new) - _log_target(x)))
        if rng.random() < accept:
            x = x_new
        proposal.learn(Transition(x, accept, t, not proposal.frozen), rng)


@pytest.mark.parametrize("main", ["isotropic", "kameleon mixture"])
def test_whitened_proposal_finds_scales_a_million_apart_and_correlations(main):
    """From a start 5 sds away in every coordinate, 3000 warm-up iterations suffice; the kept
    draws then have the target's sds and means (Monte Carlo tolerances from the ESS)."""
    inner = IsotropicRandomWalk(DIM) if main == "isotropic" else _kameleon_mixture()
    proposal = WhitenedProposal(inner)
    draws, accepts = _metropolis(proposal, n_tune=3000, n_draws=6000, seed=11)
    assert 0.1 < accepts.mean() < 0.5
    assert proposal.n_windows >= 4
    whitened = (draws - MEAN) @ np.linalg.inv(np.linalg.cholesky(COV)).T
    # with ESS >= 6000 / 40 = 150 per coordinate: means within 5 / sqrt(150) = 0.41 sd, sds
    # within 25 %
    assert np.all(np.abs(whitened.mean(axis=0)) < 0.41)
    np.testing.assert_allclose(whitened.std(axis=0), 1.0, atol=0.25)


def test_whitened_proposal_state_copies_pickles_and_resets():
    proposal = WhitenedProposal(_kameleon_mixture(), start_length=100, first_window=50)
    _metropolis(proposal, n_tune=400, n_draws=0, seed=2)
    clones = [copy.deepcopy(proposal), pickle.loads(pickle.dumps(proposal))]
    assert all(clone == proposal for clone in clones)
    x = MEAN.copy()
    expected = proposal.propose(x, np.random.default_rng(5))
    for clone in clones:
        got = clone.propose(x, np.random.default_rng(5))
        np.testing.assert_array_equal(got[0], expected[0])
        assert got[1] == expected[1]
    fresh = WhitenedProposal(_kameleon_mixture(), start_length=100, first_window=50)
    proposal.reset()
    assert proposal == fresh


def test_initial_states_skip_the_start_and_whiten_by_their_covariance():
    rng = np.random.default_rng(0)
    states = MEAN + rng.normal(size=(500, DIM)) @ np.linalg.cholesky(COV).T
    proposal = WhitenedProposal(IsotropicRandomWalk(DIM), initial_states=states)
    assert not proposal.in_start
    expected = whitening_map(states.mean(axis=0), np.cov(states.T))
    np.testing.assert_allclose(proposal.affine.shift, expected.shift)
    np.testing.assert_allclose(proposal.affine.matrix, expected.matrix, rtol=1e-6)
    # the map whitens the states: their covariance in u is the identity
    u = proposal.affine.to_kernel(states)
    np.testing.assert_allclose(np.cov(u.T), np.eye(DIM), atol=1e-6)


def test_main_proposal_must_work_in_mapped_coordinates():
    with pytest.raises(TypeError, match="set_map"):
        WhitenedProposal(CoordinateRandomWalk(2))


def test_stage_names_follow_the_stats():
    proposal = WhitenedProposal(IsotropicRandomWalk(DIM), start_length=10, first_window=10)
    proposal.plan_warmup(200)
    rng = np.random.default_rng(0)
    x = np.zeros(DIM)
    seen = []
    for t in range(200):
        proposal.learn(Transition(x + rng.normal(size=DIM), 0.3, t, True), rng)
        seen.append((proposal.stage, proposal.stats()["warmup_stage"]))
    proposal.end_warmup()
    seen.append((proposal.stage, proposal.stats()["warmup_stage"]))
    assert [name for name, _ in dict.fromkeys(seen)] == ["start", "windows", "settle", "frozen"]
    assert all(WARMUP_STAGES[name] == code for name, code in seen)


def test_a_pilot_map_can_be_kept_for_the_whole_run():
    rng = np.random.default_rng(0)
    states = MEAN + rng.normal(size=(500, DIM)) @ np.linalg.cholesky(COV).T
    proposal = WhitenedProposal(IsotropicRandomWalk(DIM), initial_states=states, learn_map=False)
    proposal.plan_warmup(1000)
    pilot = proposal.affine
    assert proposal.stage == "settle"
    _metropolis(proposal, 1000, 10, seed=1)
    assert proposal.affine is pilot and proposal.n_windows == 0


def test_keeping_the_map_needs_initial_states():
    with pytest.raises(ValueError, match="initial_states"):
        WhitenedProposal(IsotropicRandomWalk(DIM), learn_map=False)


def test_other_chains_states_enter_the_windows_and_the_main_proposal():
    rng = np.random.default_rng(3)
    main = _kameleon_mixture()
    proposal = WhitenedProposal(main, start_length=10, first_window=40)
    proposal.plan_warmup(400)
    kameleon = main.proposals[0]
    others = rng.normal(size=(3, DIM))
    proposal.observe(others, 0, rng)  # the start: each chain learns its own scales
    assert proposal.windows.count == 0 and kameleon.history.n_seen == 0
    for t in range(10):
        proposal.learn(Transition(rng.normal(size=DIM), 0.3, t, True), rng)
    assert proposal.stage == "windows"
    proposal.observe(others, 10, rng)
    assert proposal.windows.count == 3 and kameleon.history.n_seen == 3
    np.testing.assert_array_equal(kameleon.history.values[:3], others)
    proposal.end_warmup()
    proposal.observe(others, 11, rng)  # frozen: nothing more
    assert kameleon.history.n_seen == 3


def test_adaptive_covariance_counts_other_chains_states():
    proposal = AdaptiveCovarianceProposal(DIM)
    states = np.random.default_rng(0).normal(size=(5, DIM))
    proposal.observe(states, 0, np.random.default_rng(1))
    assert proposal.moments.count == 5
    np.testing.assert_allclose(proposal.moments.mean, states.mean(axis=0))
