"""DiagonalMetric, UniformTrajectoryLength and log_accept_ratio of core.hamiltonian."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core.hamiltonian import (
    DiagonalMetric,
    UniformTrajectoryLength,
    draw_trajectory_length,
    hamiltonian_log_accept,
    kinetic_energy,
    log_accept_ratio,
    sample_momentum,
)


@pytest.mark.parametrize("inv_mass", [None, np.array([0.5, 2.0, 4.0])])
def test_metric_matches_the_functions(inv_mass):
    metric = DiagonalMetric(inv_mass)
    p = np.array([1.0, -2.0, 0.5])
    assert metric.kinetic_energy(p) == kinetic_energy(p, inv_mass)
    a = metric.draw_momentum(np.random.default_rng(3), 3)
    b = sample_momentum(np.random.default_rng(3), 3, inv_mass)
    assert np.array_equal(a, b)
    expected = p if inv_mass is None else inv_mass * p
    assert np.array_equal(metric.velocity(p), expected)


def test_metric_validation_and_equality():
    with pytest.raises(ValueError, match="inv_mass_diag"):
        DiagonalMetric.checked(np.array([1.0, -1.0]), 2)
    with pytest.raises(ValueError, match="shape"):
        DiagonalMetric.checked(np.ones(3), 2)
    assert DiagonalMetric() == DiagonalMetric(None)
    assert DiagonalMetric(np.ones(2)) == DiagonalMetric(np.ones(2))
    assert DiagonalMetric(np.ones(2)) != DiagonalMetric()


def test_uniform_trajectory_length_draws_as_the_function():
    lengths = UniformTrajectoryLength((3, 9), (0.1, 0.4))
    for seed in range(5):
        assert lengths.draw(np.random.default_rng(seed)) == draw_trajectory_length(
            np.random.default_rng(seed), (3, 9), (0.1, 0.4)
        )
    n_steps, step_size = lengths.draw(np.random.default_rng(0), step_scale=10.0)
    assert 3 <= n_steps <= 9 and 1.0 <= step_size <= 4.0
    assert lengths.step_size_bounds(2.0) == (0.2, 0.8)
    assert UniformTrajectoryLength((2, 2), (0.3, 0.3)).draw(np.random.default_rng(0)) == (2, 0.3)
    with pytest.raises(ValueError, match="step_size_range"):
        UniformTrajectoryLength((1, 2), (0.0, 0.1))
    with pytest.raises(ValueError, match="n_steps_range"):
        UniformTrajectoryLength((0, 2), (0.1, 0.2))


def test_log_accept_ratio_agrees_with_hamiltonian_log_accept():
    metric = DiagonalMetric(np.array([2.0, 0.5]))
    p0, p1 = np.array([0.3, -1.0]), np.array([1.2, 0.4])
    start = metric.kinetic_energy(p0)
    for logp_new, logp_current in [(-1.0, -2.0), (-math.inf, -1.0), (math.nan, -1.0),
                                   (-1.0, -math.inf), (-1.0, math.nan)]:  # fmt: skip
        got = log_accept_ratio(logp_new, logp_current, p1, start, metric)
        want = hamiltonian_log_accept(logp_new, logp_current, p1, p0, metric.inv_mass_diag)
        assert got == want or (math.isnan(got) and math.isnan(want))
    assert log_accept_ratio(-1.0, -2.0, p1, start, metric, finite=False) == -math.inf
