"""The start-up's climb next to where the log-density is -inf (a bound of the support).

Finite differences with a side or a corner at -inf once gave NaN gradients and Hessians: NumPy
warned ("invalid value encountered in scalar subtract / matmul / divide") and an eigenvalue
solver could fail outright. The climb now keeps its differences finite, ends with the status
``"near_bound"`` where it runs into a bound (no Gaussian fits there), and still climbs away
from a bound to an interior mode.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pymc_kameleon.core.mode_start import conditional_scales, find_mode_and_curvature
from pymc_kameleon.core.start_up import gaussian_start_up

Y = np.array([0.2, 0.9, 1.4, 1.9])


def truncated_likelihood(x: np.ndarray) -> float:
    """mu ~ N(0, 2), lo ~ N(0, 1), Y ~ N(mu, 1) truncated below at lo: -inf for lo > 0.2."""
    mu, lo = x
    if np.any(lo > Y):
        return -math.inf
    prior = stats.norm.logpdf(mu, 0, 2) + stats.norm.logpdf(lo, 0, 1)
    return float(prior + stats.norm.logpdf(Y, mu, 1).sum() - Y.size * stats.norm.logsf(lo - mu))


def half_space(x: np.ndarray) -> float:
    """N(0, I) restricted to x_0 > 0: the mode is on the bound."""
    return -0.5 * float(x @ x) if x[0] > 0 else -math.inf


def diagonal_wall(x: np.ndarray) -> float:
    """N(0, I) restricted to x_0 + x_1 > 0.3 (a bound that no axis probe meets head-on)."""
    return -0.5 * float(x @ x) if x[0] + x[1] > 0.3 else -math.inf


def flat_box(x: np.ndarray) -> float:
    """Nearly flat inside [-1, 1]^3, -inf outside."""
    return -1e-3 * float(x @ x) if np.all(np.abs(x) < 1) else -math.inf


def interior_mode(x: np.ndarray) -> float:
    """N((5, 0), I) restricted to x_0 + x_1 > 0: the mode is 3.5 sds from the bound."""
    return -0.5 * float((x[0] - 5.0) ** 2 + x[1] ** 2) if x[0] + x[1] > 0 else -math.inf


def starts(name: str, n: int = 25) -> list[np.ndarray]:
    """Points with a finite log-density, many of them near the bound."""
    rng = np.random.default_rng(sum(map(ord, name)))
    target = TARGETS[name]
    found = []
    while len(found) < n:
        d = 3 if name == "flat_box" else 2
        x = rng.normal(0.0, 0.4, d)
        if name == "truncated_likelihood":
            x = np.array([rng.normal(0.5, 0.5), rng.uniform(-0.5, 0.2)])
        if math.isfinite(target(x)):
            found.append(x)
    return found


TARGETS = {
    "truncated_likelihood": truncated_likelihood,
    "half_space": half_space,
    "diagonal_wall": diagonal_wall,
    "flat_box": flat_box,
}


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("name", list(TARGETS))
def test_no_numpy_warnings_or_failures_next_to_a_bound(name):
    target = TARGETS[name]
    with np.errstate(all="raise", under="ignore"):  # (an underflow is no fault)
        for k, start in enumerate(starts(name)):
            result = find_mode_and_curvature(target, start)
            assert math.isfinite(result.log_density)
            assert result.log_density >= target(start)  # a climb never descends
            more = np.random.default_rng(k)
            start_up = gaussian_start_up(
                target, start, 400, more, lambda j, r=more: r.normal(0, 0.4, start.size)
            )
            assert math.isfinite(start_up.log_density)


@pytest.mark.parametrize(
    ("name", "start"),
    [
        ("truncated_likelihood", [0.0, 0.0]),
        ("truncated_likelihood", [0.5, 0.19]),
        ("half_space", [0.05, 0.3]),
        ("half_space", [1e-4, 0.0]),
        ("diagonal_wall", [0.5, 0.5]),
    ],
)
def test_a_climb_into_a_bound_ends_near_bound(name, start):
    result = find_mode_and_curvature(TARGETS[name], np.array(start))
    assert result.status == "near_bound"
    assert result.covariance is None


@pytest.mark.parametrize("start", [[0.05, 0.0], [0.01, 0.3], [0.5, -0.4], [1e-4, 0.0]])
def test_a_climb_from_next_to_a_bound_reaches_an_interior_mode(start):
    result = find_mode_and_curvature(interior_mode, np.array(start))
    assert result.status == "gaussian"
    np.testing.assert_allclose(result.mode, [5.0, 0.0], atol=0.05)
    np.testing.assert_allclose(result.covariance, np.eye(2), atol=0.05)


def test_conditional_scales_next_to_a_bound_on_both_sides_are_none():
    """A coordinate with a bound within a short step both ways has no conditional scale."""
    x = np.array([0.0, 0.0, 0.0])
    assert conditional_scales(flat_box, x, flat_box(x)) is None
    assert conditional_scales(half_space, np.array([1.0, 0.0]), half_space(np.array([1.0, 0]))) \
        is not None  # fmt: skip
