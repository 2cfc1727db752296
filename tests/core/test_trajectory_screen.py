"""KMC's trajectory screen (issue 67): the surrogate's own energy error, decided unevaluated."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core.adaptation import ScaleAdapter
from pymc_kameleon.core.hamiltonian import UniformTrajectoryLength
from pymc_kameleon.core.proposals.protocol import Outcome
from pymc_kameleon.core.proposals.trajectory import (
    MAX_SURROGATE_ENERGY_ERROR,
    TRAJECTORY_STATS,
    SurrogateTrajectory,
    quiet_move_stats,
)
from pymc_kameleon.core.surrogates.coordinates import LearnerCoordinates
from pymc_kameleon.core.surrogates.learner import LearnerSettings, SurrogateLearner

D = 2


def fitted_learner(seed: int = 0, scale=(1.0, 3.0)) -> SurrogateLearner:
    settings = LearnerSettings(
        estimator="lite", n_history=60, n_features=12, lengthscale=None, lite_ridge=1.0,
        finite_ridge=5.0, diagonal_mass=False, adapt_start=20, refit_growth=1.5, capacity=500,
    )  # fmt: skip
    learner, rng = SurrogateLearner(settings, D), np.random.default_rng(seed)
    for _ in range(60):
        learner.learn(rng.standard_normal(D) * np.asarray(scale), learner.n_learned, rng, True)
    assert learner.surrogate is not None
    return learner


def move(learner, step_size: float, n_steps: int) -> SurrogateTrajectory:
    lengths = UniformTrajectoryLength((n_steps, n_steps), (step_size, step_size))
    return SurrogateTrajectory(learner, LearnerCoordinates(), lengths, ScaleAdapter())


def surrogate_energy(learner, q, p) -> float:
    return -learner.surrogate_scale * float(learner.surrogate.value(q)) + 0.5 * float(p @ p)


def test_energy_error_is_the_change_of_the_surrogate_hamiltonian():
    learner = fitted_learner()
    trajectory = move(learner, 0.3, 10)
    x = np.array([0.4, -1.0])
    x_new, _ = trajectory.propose(x, np.random.default_rng(1))
    run = trajectory.last
    expected = surrogate_energy(learner, run.result.q, run.result.p) - surrogate_energy(
        learner, run.start, run.momentum
    )
    assert run.surrogate_energy_error == pytest.approx(expected, abs=1e-10)
    assert np.array_equal(x_new, run.result.q)


def test_small_steps_conserve_the_surrogate_energy():
    learner = fitted_learner()
    run = _run(learner, 0.01, 50, np.array([1.0, 2.0]), seed=3)
    assert abs(run.surrogate_energy_error) < 1e-3
    assert not run.screened


@pytest.mark.parametrize("seed", range(5))
def test_the_reversed_trajectory_has_the_opposite_energy_error(seed):
    learner = fitted_learner(seed)
    forward = _run(learner, 0.8, 12, np.array([0.5, -2.0]), seed=seed)
    p_end = forward.result.p
    back = learner.trajectory(forward.result.q, -p_end, forward.step_size, forward.n_steps)
    np.testing.assert_allclose(back.q, forward.start, atol=1e-8)
    reverse_error = (
        learner.potential_change(forward.result.q, back.q)
        + 0.5 * float(back.p @ back.p)
        - 0.5 * float(p_end @ p_end)
    )
    assert reverse_error == pytest.approx(-forward.surrogate_energy_error, rel=1e-8, abs=1e-8)


def _run(learner, step_size, n_steps, x, seed):
    trajectory = move(learner, step_size, n_steps)
    trajectory.propose(x, np.random.default_rng(seed))
    return trajectory.last


def unstable_trajectory(seed: int = 0):
    """A step size far above the surrogate's stability limit: the leapfrog blows up."""
    learner = fitted_learner(scale=(0.05, 0.05))
    trajectory = move(learner, 2.0, 30)
    x = np.array([0.01, -0.02])
    x_new, log_q = trajectory.propose(x, np.random.default_rng(seed))
    return trajectory, x_new, log_q


def test_an_unstable_trajectory_is_screened_without_a_candidate():
    trajectory, x_new, log_q = unstable_trajectory()
    run = trajectory.last
    assert run.result.finite
    assert abs(run.surrogate_energy_error) > MAX_SURROGATE_ENERGY_ERROR
    assert run.screened
    assert np.all(np.isnan(x_new)) and math.isnan(log_q)
    stats = trajectory.review(Outcome(-1.0, -math.inf, -math.inf, False))
    assert stats["screened"] and stats["diverging"]
    assert set(stats) == set(TRAJECTORY_STATS)
    assert quiet_move_stats(1.0)["screened"] is False
