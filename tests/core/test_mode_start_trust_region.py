"""The climb's trust region (issue 67): no Newton step hundreds of conditional sds long."""

from __future__ import annotations

import numpy as np
import pytest

import pymc_kameleon.core.mode_start as mode_start
from pymc_kameleon.core.mode_start import find_mode_and_curvature

STARTS = [[0.3, 0.0], [0.3, -2.0], [1.0, 1.0], [0.0, -6.0], [-3.0, -3.5]]
#: the farthest along the ridge a climb may evaluate (the top is at u = 3.3-4.6; measured 4.5-9.7;
#: 13-839 without the trust region)
FARTHEST_U = 12.0


class RidgeWithAWall:
    """Along ``u = (x0 + x1) / sqrt 2`` nearly linear (curvature 1e-3) up to a wall at u = 4;
    across, ``v``, sd 0.1: the probes' scales are about 0.1, and the scaled Hessian's eigenvalue
    along ``u`` about 1e-3 of the other, so a Newton step predicts a mode hundreds of sds out.
    Records where it was evaluated."""

    def __init__(self) -> None:
        self.us: list[float] = []

    def __call__(self, x: np.ndarray) -> float:
        u, v = (x[0] + x[1]) / np.sqrt(2.0), (x[0] - x[1]) / np.sqrt(2.0)
        self.us.append(float(u))
        with np.errstate(over="ignore"):
            return float(-50.0 * v**2 + u - 0.0005 * u**2 - np.exp(u - 4.0))


def climb(start):
    target = RidgeWithAWall()
    result = find_mode_and_curvature(target, np.array(start, dtype=float))
    mode_u = (result.mode[0] + result.mode[1]) / np.sqrt(2.0)
    return result, mode_u, max(target.us)


@pytest.mark.parametrize("start", STARTS)
def test_a_climb_on_a_near_flat_direction_stays_near_and_reaches_the_top(start):
    result, mode_u, farthest = climb(start)
    assert result.status == "gaussian"
    assert 3.0 < mode_u < 5.0
    assert farthest < FARTHEST_U


def test_without_the_trust_region_the_same_climbs_evaluate_far_out(monkeypatch):
    """The negative control: the unbounded Newton step of before issue 67."""
    monkeypatch.setattr(mode_start, "TRUST_RADIUS", np.inf)
    farthest = [climb(start)[2] for start in STARTS]
    assert max(farthest) > 50 * FARTHEST_U
    assert sum(f > FARTHEST_U for f in farthest) >= 3


def test_the_radius_grows_along_a_long_ridge():
    """A Gaussian ridge (marginal sd 100, conditional sd 0.01) started 30 marginal sds out
    along it is followed to within one marginal sd of its mode, the radius doubling."""
    covariance = np.array([[1.0, 0.99999999], [0.99999999, 1.0]]) * 1e4
    precision = np.linalg.inv(covariance)
    mode = np.array([50.0, 50.0])

    def log_density(x):
        gap = x - mode
        return -0.5 * float(gap @ precision @ gap)

    result = find_mode_and_curvature(log_density, np.array([-3000.0, -3000.0]))
    assert result.status == "gaussian"
    np.testing.assert_allclose(result.mode, mode, atol=100.0)
    assert result.n_evals < 200  # (104 measured; 38 without the trust region)
