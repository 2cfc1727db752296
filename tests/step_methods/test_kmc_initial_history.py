"""KMCStep: the ``initial_history`` argument, and the compiled trajectory inside the step."""

from __future__ import annotations

import copy
import math
import pickle

import cloudpickle
import numpy as np
import pymc as pm
import pytest
from helpers.sampling import SAMPLE_KW, assert_states_equal, posterior_array

from pymc_kameleon import KMCStep
from pymc_kameleon.core.hamiltonian import leapfrog

D = 4


def gaussian_model() -> pm.Model:
    with pm.Model() as model:
        pm.Normal("x", 0.0, 1.0, shape=D)
    return model


def exact_draws(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, D))


# -----------------------------------------------------------------------------------------------
# initial_history
@pytest.mark.parametrize("estimator", ["lite", "finite", "auto"])
def test_surrogate_fitted_at_iteration_zero(estimator):
    rows = exact_draws(120)
    model = gaussian_model()
    with model:
        step = KMCStep(
            warmup="classic", estimator=estimator, n_history=60, n_features=40, initial_history=rows
        )
    step.set_rng(4)
    assert step.history.n_seen == 120 and step.learner.n_learned == 120
    assert np.array_equal(step.history.values[:120], rows)
    assert step.surrogate is None  # fitted lazily, with the chain's generator
    _, stats = step.step(model.initial_point())
    assert step.surrogate is not None
    assert stats[0]["n_basis"] == (60 if estimator == "lite" else 40)
    assert stats[0]["n_steps"] > 0, "the first iteration must be a Hamiltonian move"
    assert math.isfinite(stats[0]["lengthscale"])
    expected = "finite" if estimator in ("finite", "auto") else "lite"  # auto: 120 >= 2 * 40
    assert step.learner.active_estimator == expected
    assert step.history.n_seen == 121, "warm-up states are still learned"


def test_fixed_lengthscale_and_diagonal_mass_with_tune_zero():
    rows = exact_draws(50) * np.array([1.0, 2.0, 3.0, 4.0])
    model = gaussian_model()
    with model:
        step = KMCStep(
            warmup="classic", lengthscale=2.0, mass="diagonal", n_history=40, initial_history=rows
        )
    step.set_rng(0)
    step.stop_tuning()
    step.step(model.initial_point())
    assert step.lengthscale == 2.0
    np.testing.assert_allclose(step.inv_mass_diag, rows.var(axis=0))


def test_gaussian_tune_zero_accepts_well_from_the_start_and_learns_the_score():
    model = gaussian_model()
    with model:
        step = KMCStep(warmup="classic", initial_history=exact_draws(500))
        idata = pm.sample(
            tune=0, draws=60, chains=2, cores=1, step=step, random_seed=12, **SAMPLE_KW
        )
    stats = idata.sample_stats
    assert np.all(stats["n_basis"].values[:, 0] == 500)
    assert np.all(stats["n_steps"].values > 0)
    assert float(stats["accept"].values.mean()) > 0.7
    assert np.all(stats["surrogate_scale"].values == 1.0)
    points = np.random.default_rng(5).standard_normal((200, D))
    grads = np.array([step.surrogate_gradient(x) for x in points])
    rel_err = np.linalg.norm(grads + points, axis=1) / np.linalg.norm(points, axis=1)
    assert np.median(rel_err) < 0.3, f"median relative error {np.median(rel_err):.2f}"


def test_every_chain_starts_from_the_same_initial_history():
    rows = exact_draws(80)
    model = gaussian_model()
    with model:
        step = KMCStep(
            warmup="classic", n_history=40, n_features=40, lengthscale=1.5, initial_history=rows
        )
    point = model.initial_point()
    for seed in (1, 2):
        step.set_rng(seed)
        assert step.history.n_seen == 80 and np.array_equal(step.history.values[:80], rows)
        assert np.array_equal(step.history.iterations[:80], np.arange(-80, 0))
        for _ in range(30):
            point, _ = step.step(point)
        assert step.history.n_seen == 110
    step.reset_tuning()
    assert step.history.n_seen == 80 and step.surrogate is None
    assert not step.initial_history.flags.writeable


@pytest.mark.parametrize("estimator", ["lite", "finite"])
def test_sampling_state_round_trip_and_pickling(estimator):
    model = gaussian_model()
    with model:
        step = KMCStep(
            warmup="classic",
            estimator=estimator,
            n_history=40,
            n_features=40,
            initial_history=exact_draws(60),
        )
    fresh = cloudpickle.loads(cloudpickle.dumps(step))
    step.set_rng(9)
    orig = step.sampling_state  # before the fit at the first iteration
    start = model.initial_point()
    point_a, stats_a = step.step(copy.deepcopy(start))
    state_a = step.sampling_state
    fresh.sampling_state = pickle.loads(pickle.dumps(orig))
    point_b, stats_b = fresh.step(copy.deepcopy(start))
    assert np.array_equal(point_a["x"], point_b["x"]) and stats_a == stats_b
    assert_states_equal(fresh.sampling_state, state_a)


def test_parallel_chains_reproducible():
    model = gaussian_model()
    with model:
        step = KMCStep(
            warmup="classic", n_history=40, lengthscale=1.5, initial_history=exact_draws(60)
        )
        kw = {"tune": 20, "draws": 20, "chains": 2, "cores": 2, "step": step, **SAMPLE_KW}
        kw["discard_tuned_samples"] = False
        run1 = pm.sample(random_seed=3, **kw)
        run2 = pm.sample(random_seed=3, **kw)
    assert np.array_equal(posterior_array(run1), posterior_array(run2))
    assert np.all(run1.warmup_sample_stats["n_basis"].values[:, 0] == 40)


@pytest.mark.parametrize(
    ("value", "kwargs", "match"),
    [
        (np.zeros((50, D + 1)), {}, "5 columns but the step samples 4"),
        (np.zeros(50), {}, r"shape \(n, d\)"),
        (np.zeros((2, 3, D)), {}, r"shape \(n, d\)"),
        (np.full((50, D), np.nan), {}, "non-finite"),
        (np.vstack([np.zeros((49, D)), [[np.inf] * D]]), {}, "non-finite"),
        (np.zeros((1, D)), {"lengthscale": 1.0}, "fewer than the 2"),
        (np.zeros((3, D)), {}, "fewer than the 4"),
        ([["a", "b", "c", "d"]] * 5, {}, "numeric array"),
    ],
)
def test_bad_initial_history_raises(value, kwargs, match):
    with gaussian_model(), pytest.raises(ValueError, match=match):
        KMCStep(warmup="classic", initial_history=value, **kwargs)


def test_small_initial_history_with_fixed_lengthscale_runs():
    model = gaussian_model()
    with model:
        step = KMCStep(
            warmup="classic", lengthscale=1.0, n_history=10, initial_history=exact_draws(2)
        )
    step.set_rng(0)
    _, stats = step.step(model.initial_point())
    assert stats[0]["n_basis"] == 10


# -----------------------------------------------------------------------------------------------
# the compiled trajectory inside the step equals the generic leapfrog on surrogate_gradient
@pytest.mark.parametrize("estimator", ["lite", "finite"])
@pytest.mark.parametrize("mass", ["identity", "diagonal"])
def test_step_trajectory_matches_generic_leapfrog(estimator, mass):
    model = gaussian_model()
    with model:
        step = KMCStep(
            warmup="classic",
            estimator=estimator, mass=mass, n_history=80, n_features=60,
            initial_history=exact_draws(150) * 1.5,
        )  # fmt: skip
    step.set_rng(2)
    step.step(model.initial_point())
    step.surrogate_scale = 0.8
    rng = np.random.default_rng(0)
    for _ in range(5):
        x, p0 = rng.standard_normal(D), rng.standard_normal(D)
        fast = step.learner.trajectory(x, p0, 0.2, 40)
        slow = leapfrog(x, p0, step.surrogate_gradient, 0.2, 40, step.inv_mass_diag)
        assert fast.finite and slow.finite and fast.n_grad_evals == slow.n_grad_evals == 41
        np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(fast.p, slow.p, rtol=0, atol=1e-12)
