"""The population moves of kernel SMC: map, proposal, sweep, decorrelation rule."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core.population import (
    DecorrelationRule,
    components,
    default_max_sweeps,
    population_map,
    population_proposal,
    rescale_components,
    split_by_value,
    updated_log_factor,
)
from pymc_kameleon.core.population_checks import check_population
from pymc_kameleon.core.population_sweep import mh_sweep
from pymc_kameleon.core.proposals import KameleonProposal, MixtureProposal
from pymc_kameleon.core.proposals.kameleon import kernel_term_trace, random_walk_trace


def correlated_population(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    scales = np.array([1e-3, 1.0, 1e3])
    mixing = np.array([[1.0, 0.0, 0.0], [0.9, 0.4, 0.0], [0.2, -0.5, 0.8]])
    return rng.standard_normal((n, 3)) @ mixing.T * scales + np.array([5.0, -2.0, 1e4])


def test_population_map_whitens_the_population():
    particles = correlated_population()
    u = population_map(particles).to_kernel(particles)
    np.testing.assert_allclose(u.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(np.cov(u, rowvar=False, ddof=0), np.eye(3), atol=1e-6)


def test_population_map_names_a_collapsed_coordinate():
    particles = correlated_population()
    particles[:, 1] = 3.0
    with pytest.raises(ValueError, match=r"every particle for coordinates \[1\].*resampling"):
        population_map(particles)


def test_a_constant_initial_coordinate_is_blamed_on_the_prior_draws_by_name():
    particles = correlated_population()
    particles[:, 1:] = [55.0, 3.2]
    names = ["w", "mu[0]", "mu[1]"]
    with pytest.raises(ValueError, match=r"\[mu\[0\], mu\[1\]\].*prior.*ordered.*start="):
        check_population(particles, initial=True, names=names)


def test_non_finite_particles_are_named():
    particles = correlated_population()
    particles[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinite values in coordinates \[2\]"):
        check_population(particles, initial=True)
    with pytest.raises(ValueError, match=r"NaN or infinite"):
        population_map(particles)


def test_a_healthy_population_passes_the_check():
    check_population(correlated_population(), initial=True)


def test_population_map_names_a_population_collapsed_to_a_few_points():
    rng = np.random.default_rng(9)
    particles = rng.standard_normal((3, 4))[rng.integers(3, size=500)]  # 3 distinct, 4-D
    with pytest.raises(ValueError, match=r"only 3 distinct particles for 4 coordinates.*prior"):
        population_map(particles)


def test_use_states_matches_the_random_walk_trace_on_average():
    rng = np.random.default_rng(1)
    particles = correlated_population(400)
    proposal = population_proposal(particles, rng, gamma=0.2, n_basis=400, log_factors=(0.0, 0.0))
    assert isinstance(proposal, KameleonProposal)
    basis = proposal.basis
    mean_trace = np.mean([kernel_term_trace(u, basis, proposal.kernel) for u in basis])
    # matched on 50 of the 400 points: the average over all agrees to within their spread
    assert proposal.scaling * mean_trace == pytest.approx(random_walk_trace(basis), rel=0.25)
    doubled = population_proposal(
        particles, np.random.default_rng(1), gamma=0.2, n_basis=400, log_factors=(math.log(2), 0)
    )
    assert doubled.scaling == pytest.approx(2.0 * proposal.scaling)


def test_use_states_rejects_identical_states():
    proposal = KameleonProposal(2, n_history=10)
    with pytest.raises(ValueError, match=r"n >= 2"):
        proposal.use_states(np.ones((1, 2)), np.random.default_rng(0))


def test_global_weight_makes_a_mixture_whose_scales_can_be_changed():
    rng = np.random.default_rng(2)
    proposal = population_proposal(
        correlated_population(300), rng, gamma=0.2, n_basis=100, global_weight=0.2
    )
    assert isinstance(proposal, MixtureProposal)
    kameleon, walk = components(proposal)
    before = (kameleon.scaling, walk.scaling)
    rescale_components(proposal, [math.log(0.5), math.log(3.0)])
    assert kameleon.scaling == pytest.approx(0.5 * before[0])
    assert walk.scaling == pytest.approx(3.0 * before[1])
    np.testing.assert_allclose(proposal.weights, [0.8, 0.2])


def test_updated_log_factor_moves_toward_the_target():
    assert updated_log_factor(0.0, 0.134, 0.234) == pytest.approx(-0.2)
    assert updated_log_factor(1.0, 0.334, 0.234) == pytest.approx(1.2)


def gaussian_log_parts(x):
    return -0.5 * float(x @ x), 0.0


def test_mh_sweep_keeps_stored_values_consistent_and_rejects_invalid_points():
    rng = np.random.default_rng(3)
    particles = rng.standard_normal((200, 2))
    log_parts = np.array([gaussian_log_parts(x) for x in particles])
    proposal = population_proposal(particles, rng, gamma=0.2, n_basis=100, global_weight=0.2)
    accept, chosen = mh_sweep(proposal, particles, log_parts, 1.0, gaussian_log_parts, rng)
    assert accept.shape == chosen.shape == (200,)
    assert set(np.unique(chosen)) <= {0, 1}
    np.testing.assert_allclose(log_parts, [gaussian_log_parts(x) for x in particles])
    before = particles.copy()

    def nowhere(x):
        return -math.inf, 0.0

    accept, _ = mh_sweep(proposal, particles, log_parts, 1.0, nowhere, rng)
    assert np.all(accept == 0.0)
    np.testing.assert_array_equal(particles, before)


def test_mh_sweep_keeps_a_banana_population_in_place():
    """Invariance: exact draws of a 2-D banana stay exact draws (variances within 4 se)."""
    b = 0.1
    rng = np.random.default_rng(4)
    n = 3000
    x1 = rng.normal(0.0, 10.0, n)
    particles = np.column_stack([x1, rng.normal(0.0, 1.0, n) - b * (x1**2 - 100.0)])

    def banana(x):
        return -0.5 * (x[0] / 10.0) ** 2 - 0.5 * (x[1] + b * (x[0] ** 2 - 100.0)) ** 2, 0.0

    log_parts = np.array([banana(x) for x in particles])
    proposal = population_proposal(particles, rng, gamma=0.2, n_basis=300, global_weight=0.2)
    for _ in range(15):
        mh_sweep(proposal, particles, log_parts, 1.0, banana, rng)
    # exact: var x1 = 100, var x2 = 1 + 2 b^2 100^2 = 201; the particles stay correlated with
    # exact draws, so their error is at most that of n independent draws (se from the kurtosis)
    for column, exact, kurtosis in ((0, 100.0, 3.0), (1, 201.0, 15.0)):
        se = exact * math.sqrt((kurtosis - 1.0) / n)
        assert abs(particles[:, column].var() - exact) < 4 * se


def test_decorrelation_rule_stops_when_particles_forgot_the_start():
    rng = np.random.default_rng(5)
    start = rng.standard_normal((400, 3))
    rule = DecorrelationRule(start, max_correlation=0.1, max_sweeps=10)
    halfway = 0.7 * start + 0.7 * rng.standard_normal((400, 3))
    assert rule.another_sweep(halfway)  # correlation about 0.7, and it fell from 1
    assert not rule.another_sweep(rng.standard_normal((400, 3)))  # fresh draws: about 0
    assert rule.sweeps == 2


def test_decorrelation_rule_stops_when_a_coordinate_stalls():
    """Particles that keep their mode keep a high correlation: the rule does not wait for it."""
    rng = np.random.default_rng(7)
    mode = rng.choice([-4.0, 4.0], size=(400, 1))
    start = mode + rng.standard_normal((400, 1))
    rule = DecorrelationRule(start, max_correlation=0.5, max_sweeps=30)
    assert rule.another_sweep(mode + rng.standard_normal((400, 1)))  # 1 -> about 0.94
    assert not rule.another_sweep(mode + rng.standard_normal((400, 1)))  # no lower: stalled
    assert rule.sweeps == 2


def with_correlation(start, rho, rng):
    """Particles whose every coordinate has exactly correlation ``rho`` with ``start``."""
    a = start - start.mean(axis=0)
    e = rng.standard_normal(start.shape)
    e -= e.mean(axis=0)
    e -= a * (a * e).sum(axis=0) / (a * a).sum(axis=0)  # orthogonal to a, column by column
    e *= np.sqrt((a * a).sum(axis=0) / (e * e).sum(axis=0))  # and as long
    return rho * a + math.sqrt(1.0 - rho**2) * e


def test_decorrelation_rule_respects_the_noise_floor_and_the_cap():
    rng = np.random.default_rng(6)
    start = rng.standard_normal((25, 2))
    rule = DecorrelationRule(start, max_correlation=0.01, max_sweeps=3)
    assert rule.max_correlation == pytest.approx(3.0 / 5.0)
    assert rule.correlation(with_correlation(start, 0.9, rng)) == pytest.approx([0.9, 0.9])
    assert rule.another_sweep(with_correlation(start, 0.9, rng))
    assert rule.another_sweep(with_correlation(start, 0.8, rng))
    assert not rule.another_sweep(with_correlation(start, 0.7, rng))  # still falling: the cap
    below = DecorrelationRule(start, max_correlation=0.01)
    assert not below.another_sweep(with_correlation(start, 0.55, rng))  # under the noise floor


def test_the_default_cap_grows_with_the_dimension():
    assert default_max_sweeps(2) == 30 and default_max_sweeps(35) == 175
    assert DecorrelationRule(np.zeros((10, 40))).max_sweeps == 200


def test_split_by_value_keeps_copies_together_and_halves_the_values():
    rng = np.random.default_rng(4)
    values = rng.standard_normal((400, 3))
    particles = values[rng.integers(400, size=1000)]  # resampled: many copies
    side = split_by_value(particles, np.random.default_rng(5))
    for row in np.unique(particles, axis=0):
        copies = np.all(particles == row, axis=1)
        assert np.all(side[copies] == side[copies][0])
    first = np.unique(particles[side], axis=0).shape[0]
    second = np.unique(particles[~side], axis=0).shape[0]
    assert abs(first - second) < 4 * math.sqrt(first + second) / 2


def test_split_by_value_declines_when_a_half_would_be_too_small():
    particles = np.repeat(np.eye(4)[:, :3], 50, axis=0)  # 4 distinct points in 3-D
    assert split_by_value(particles, np.random.default_rng(0)) is None
