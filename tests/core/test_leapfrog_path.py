"""Tests for :func:`pymc_kameleon.core.hamiltonian.leapfrog_path`."""

from __future__ import annotations

import numpy as np
import pytest

from pymc_kameleon.core.hamiltonian import leapfrog, leapfrog_path

COV = np.array([[1.0, 0.6, 0.2], [0.6, 2.0, -0.4], [0.2, -0.4, 0.5]])
PREC = np.linalg.inv(COV)


def grad_gaussian(q: np.ndarray) -> np.ndarray:
    """Gradient of the log-density of N(0, COV)."""
    return -PREC @ q


def grad_banana(q: np.ndarray, b: float = 0.1, v: float = 100.0) -> np.ndarray:
    """Gradient of the log-density of the 3-D banana B(b, v) (a non-linear field)."""
    z2 = q[1] - b * (q[0] ** 2 - v)
    return np.array([-q[0] / v + 2.0 * b * q[0] * z2, -z2, -q[2]])


@pytest.mark.parametrize("grad", [grad_gaussian, grad_banana])
@pytest.mark.parametrize("inv_mass", [None, np.array([0.5, 2.0, 1.5])])
@pytest.mark.parametrize("n_steps", [1, 2, 17])
def test_path_ends_where_leapfrog_ends(grad, inv_mass, n_steps):
    rng = np.random.default_rng(n_steps)
    q0, p0 = rng.standard_normal(3), rng.standard_normal(3)
    path = leapfrog_path(q0, p0, grad, 0.13, n_steps, inv_mass)
    end = leapfrog(q0, p0, grad, 0.13, n_steps, inv_mass)
    assert end.finite
    assert path.shape == (n_steps + 1, 3)
    np.testing.assert_array_equal(path[0], q0)
    np.testing.assert_allclose(path[-1], end.q, rtol=0, atol=1e-12)


def test_every_row_is_an_intermediate_end_point():
    # the position after k steps differs from leapfrog(..., k) only by the momentum half steps,
    # which do not move the position, so rows agree with shorter runs
    rng = np.random.default_rng(3)
    q0, p0 = rng.standard_normal(3), rng.standard_normal(3)
    path = leapfrog_path(q0, p0, grad_banana, 0.2, 6)
    for k in range(1, 7):
        np.testing.assert_allclose(path[k], leapfrog(q0, p0, grad_banana, 0.2, k).q, atol=1e-12)


def test_path_stops_at_first_non_finite_value():
    def exploding(q: np.ndarray) -> np.ndarray:
        return np.full_like(q, np.inf) if q[0] > 1.0 else np.ones_like(q)

    path = leapfrog_path(np.zeros(2), np.zeros(2), exploding, 0.5, 50)
    assert 1 < path.shape[0] < 51
    assert np.all(np.isfinite(path))
    assert path[-1, 0] > 1.0 >= path[-2, 0]  # the gradient failed at the last row

    overflow = leapfrog_path(np.zeros(2), np.array([1e308, 0.0]), np.zeros_like, 10.0, 5)
    np.testing.assert_array_equal(overflow, np.zeros((1, 2)))


def test_path_validates_like_leapfrog():
    with pytest.raises(ValueError, match="n_steps"):
        leapfrog_path(np.zeros(2), np.zeros(2), grad_gaussian, 0.1, 0)
    with pytest.raises(ValueError, match="step_size"):
        leapfrog_path(np.zeros(2), np.zeros(2), grad_gaussian, -0.1, 3)
    with pytest.raises(ValueError, match="equal length"):
        leapfrog_path(np.zeros(2), np.zeros(3), grad_gaussian, 0.1, 3)
