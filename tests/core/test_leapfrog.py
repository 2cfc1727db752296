"""Tests for the leapfrog and momentum helpers of :mod:`pymc_kameleon.core.hamiltonian`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core.hamiltonian import (
    LeapfrogResult,
    draw_trajectory_length,
    hamiltonian_log_accept,
    kinetic_energy,
    leapfrog,
    sample_momentum,
)

COV = np.array([[1.0, 0.6, 0.2], [0.6, 2.0, -0.4], [0.2, -0.4, 0.5]])
PREC = np.linalg.inv(COV)
INV_MASS = np.array([0.5, 2.0, 1.5])


def log_density(q: np.ndarray) -> float:
    """Unnormalised log-density of N(0, COV)."""
    return -0.5 * float(q @ PREC @ q)


def grad_log_density(q: np.ndarray) -> np.ndarray:
    """True gradient of :func:`log_density`."""
    return -PREC @ q


def hamiltonian(q: np.ndarray, p: np.ndarray, inv_mass: np.ndarray | None = None) -> float:
    """``H(q, p) = -log pi(q) + K(p)``."""
    return -log_density(q) + kinetic_energy(p, inv_mass)


def start_state(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A reproducible start position and momentum in d=3."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(3), rng.standard_normal(3)


def max_energy_error(step_size: float, total_time: float, inv_mass=None) -> float:
    """Largest end-point |Delta H| over several starts for a fixed integration time."""
    n_steps = round(total_time / step_size)
    errors = []
    for seed in range(10):
        q0, p0 = start_state(seed)
        q, p, _, finite = leapfrog(q0, p0, grad_log_density, step_size, n_steps, inv_mass)
        assert finite
        errors.append(abs(hamiltonian(q, p, inv_mass) - hamiltonian(q0, p0, inv_mass)))
    return max(errors)


# ---------------------------------------------------------------------------------------------
# leapfrog
# ---------------------------------------------------------------------------------------------


def test_returns_named_result_and_leaves_inputs_untouched():
    q0, p0 = start_state()
    q0_copy, p0_copy = q0.copy(), p0.copy()
    out = leapfrog(q0, p0, grad_log_density, 0.1, 5)
    assert isinstance(out, LeapfrogResult)
    assert out.finite is True
    np.testing.assert_array_equal(q0, q0_copy)
    np.testing.assert_array_equal(p0, p0_copy)


def test_single_step_matches_hand_computation():
    q0, p0 = start_state(3)
    eps = 0.2
    p_half = p0 + 0.5 * eps * grad_log_density(q0)
    q1 = q0 + eps * INV_MASS * p_half
    p1 = p_half + 0.5 * eps * grad_log_density(q1)
    q, p, n_evals, finite = leapfrog(q0, p0, grad_log_density, eps, 1, INV_MASS)
    np.testing.assert_allclose(q, q1, rtol=0, atol=1e-14)
    np.testing.assert_allclose(p, p1, rtol=0, atol=1e-14)
    assert n_evals == 2 and finite


@pytest.mark.parametrize("inv_mass", [None, INV_MASS])
def test_reversibility(inv_mass):
    q0, p0 = start_state(1)
    q, p, _, finite = leapfrog(q0, p0, grad_log_density, 0.13, 25, inv_mass)
    assert finite
    q_back, p_back, _, finite = leapfrog(q, -p, grad_log_density, 0.13, 25, inv_mass)
    assert finite
    np.testing.assert_allclose(q_back, q0, rtol=0, atol=1e-10)
    np.testing.assert_allclose(p_back, -p0, rtol=0, atol=1e-10)


@pytest.mark.parametrize("inv_mass", [None, INV_MASS])
def test_volume_preservation(inv_mass):
    q0, p0 = start_state(2)
    x0 = np.concatenate([q0, p0])
    h = 1e-5

    def flow(x: np.ndarray) -> np.ndarray:
        q, p, _, _ = leapfrog(x[:3], x[3:], grad_log_density, 0.1, 12, inv_mass)
        return np.concatenate([q, p])

    jac = np.empty((6, 6))
    for j in range(6):
        e = np.zeros(6)
        e[j] = h
        jac[:, j] = (flow(x0 + e) - flow(x0 - e)) / (2 * h)
    assert np.linalg.det(jac) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("inv_mass", [None, INV_MASS])
def test_energy_error_is_second_order(inv_mass):
    coarse = max_energy_error(0.05, 2.0, inv_mass)
    fine = max_energy_error(0.025, 2.0, inv_mass)
    assert coarse > 0
    assert 3.0 < coarse / fine < 5.0


@pytest.mark.parametrize("n_steps", [1, 2, 7, 30])
def test_gradient_evaluation_count(n_steps):
    calls = []

    def counting_grad(q):
        calls.append(1)
        return grad_log_density(q)

    q0, p0 = start_state()
    _, _, n_evals, finite = leapfrog(q0, p0, counting_grad, 0.1, n_steps)
    assert finite
    assert n_evals == n_steps + 1 == len(calls)


def test_non_finite_gradient_stops_early():
    calls = []

    def bad_grad(q):
        calls.append(1)
        return grad_log_density(q) if len(calls) <= 3 else np.full(3, np.nan)

    q0, p0 = start_state()
    _, p, n_evals, finite = leapfrog(q0, p0, bad_grad, 0.1, 50)
    assert finite is False
    assert n_evals == len(calls) == 4
    assert np.all(np.isfinite(p))  # the NaN gradient was never applied


def test_non_finite_start_or_blow_up_is_flagged():
    q0, p0 = start_state()
    bad_p0 = p0.copy()
    bad_p0[1] = np.inf
    assert leapfrog(q0, bad_p0, grad_log_density, 0.1, 5).finite is False

    def exploding_grad(q):
        return 1e300 * np.ones_like(q)

    out = leapfrog(q0, p0, exploding_grad, 1e10, 20)
    assert out.finite is False
    assert out.n_grad_evals < 21


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"step_size": 0.0, "n_steps": 3}, "step_size"),
        ({"step_size": math.nan, "n_steps": 3}, "step_size"),
        ({"step_size": 0.1, "n_steps": 0}, "n_steps"),
        ({"step_size": 0.1, "n_steps": 2.5}, "n_steps"),
        ({"step_size": 0.1, "n_steps": 3, "inv_mass_diag": np.ones(2)}, "inv_mass_diag"),
        ({"step_size": 0.1, "n_steps": 3, "inv_mass_diag": -np.ones(3)}, "inv_mass_diag"),
    ],
)
def test_leapfrog_argument_errors(kwargs, match):
    q0, p0 = start_state()
    with pytest.raises(ValueError, match=match):
        leapfrog(q0, p0, grad_log_density, **kwargs)


# ---------------------------------------------------------------------------------------------
# kinetic energy and momentum
# ---------------------------------------------------------------------------------------------


def test_kinetic_energy():
    p = np.array([1.0, -2.0, 3.0])
    assert kinetic_energy(p) == pytest.approx(0.5 * 14.0)
    assert kinetic_energy(p, INV_MASS) == pytest.approx(0.5 * (0.5 + 8.0 + 13.5))
    assert kinetic_energy(-p, INV_MASS) == kinetic_energy(p, INV_MASS)


@pytest.mark.parametrize("inv_mass", [None, INV_MASS])
def test_sample_momentum_variance(inv_mass):
    rng = np.random.default_rng(42)
    n = 20_000
    draws = np.array([sample_momentum(rng, 3, inv_mass) for _ in range(n)])
    target_var = np.ones(3) if inv_mass is None else 1.0 / inv_mass
    # SE of a sample variance of a normal: var * sqrt(2 / (n - 1)).
    se = target_var * math.sqrt(2.0 / (n - 1))
    assert np.all(np.abs(draws.var(axis=0, ddof=1) - target_var) < 4 * se)
    assert np.all(np.abs(draws.mean(axis=0)) < 4 * np.sqrt(target_var / n))


# ---------------------------------------------------------------------------------------------
# draw_trajectory_length
# ---------------------------------------------------------------------------------------------


def test_draw_trajectory_length_bounds_and_ends():
    rng = np.random.default_rng(7)
    draws = [draw_trajectory_length(rng, (3, 6), (0.05, 0.3)) for _ in range(2000)]
    steps = np.array([d[0] for d in draws])
    sizes = np.array([d[1] for d in draws])
    assert all(isinstance(d[0], int) and isinstance(d[1], float) for d in draws)
    assert set(steps.tolist()) == {3, 4, 5, 6}
    assert np.all((sizes >= 0.05) & (sizes <= 0.3))
    assert sizes.min() < 0.06 and sizes.max() > 0.29


def test_draw_trajectory_length_degenerate_ranges():
    rng = np.random.default_rng(0)
    assert draw_trajectory_length(rng, (4, 4), (0.1, 0.1)) == (4, 0.1)


@pytest.mark.parametrize(
    ("n_steps_range", "step_size_range", "match"),
    [
        ((5, 3), (0.1, 0.2), "n_steps_range"),
        ((0, 3), (0.1, 0.2), "n_steps_range"),
        ((-2, 3), (0.1, 0.2), "n_steps_range"),
        ((1.5, 3), (0.1, 0.2), "n_steps_range"),
        ((1, 3), (0.0, 0.2), "step_size_range"),
        ((1, 3), (-0.1, 0.2), "step_size_range"),
        ((1, 3), (0.3, 0.2), "step_size_range"),
        ((1, 3), (math.nan, 0.2), "step_size_range"),
        ((1, 3), (0.1, math.nan), "step_size_range"),
        ((1, 3), (0.1, math.inf), "step_size_range"),
    ],
)
def test_draw_trajectory_length_errors(n_steps_range, step_size_range, match):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=match) as info:
        draw_trajectory_length(rng, n_steps_range, step_size_range)
    assert "<=" in str(info.value)  # the message states the allowed values


# ---------------------------------------------------------------------------------------------
# hamiltonian_log_accept
# ---------------------------------------------------------------------------------------------


def test_hamiltonian_log_accept_arithmetic():
    p_new = np.array([1.0, 0.0, 2.0])
    p_cur = np.array([0.5, -1.0, 0.0])
    got = hamiltonian_log_accept(-3.0, -2.0, p_new, p_cur)
    assert got == pytest.approx((-3.0 - 2.5) - (-2.0 - 0.625))
    got = hamiltonian_log_accept(-3.0, -2.0, p_new, p_cur, INV_MASS)
    k_new = 0.5 * (0.5 * 1.0 + 1.5 * 4.0)
    k_cur = 0.5 * (0.5 * 0.25 + 2.0 * 1.0)
    assert got == pytest.approx((-3.0 - k_new) - (-2.0 - k_cur))
    # Flipping the momentum does not change the ratio.
    assert hamiltonian_log_accept(-3.0, -2.0, -p_new, p_cur) == hamiltonian_log_accept(
        -3.0, -2.0, p_new, p_cur
    )


def test_hamiltonian_log_accept_matches_energy_change():
    q0, p0 = start_state(5)
    q, p, _, finite = leapfrog(q0, p0, grad_log_density, 0.1, 10, INV_MASS)
    got = hamiltonian_log_accept(log_density(q), log_density(q0), p, p0, INV_MASS, finite=finite)
    assert got == pytest.approx(hamiltonian(q0, p0, INV_MASS) - hamiltonian(q, p, INV_MASS))


def test_hamiltonian_log_accept_invalid():
    p = np.ones(3)
    assert hamiltonian_log_accept(math.nan, -1.0, p, p) == -math.inf
    assert hamiltonian_log_accept(-math.inf, -1.0, p, p) == -math.inf
    assert hamiltonian_log_accept(-1.0, -1.0, p, p, finite=False) == -math.inf
    assert hamiltonian_log_accept(-1.0, -1.0, np.array([1.0, np.nan, 0.0]), p) == -math.inf
    assert hamiltonian_log_accept(-1.0, -math.inf, p, p) == math.inf
