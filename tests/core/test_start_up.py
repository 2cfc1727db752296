"""A chain's start-up (``core/start_up.py``): when the Gaussian at a mode is trusted, and the
climb's budget and evaluations (``core/mode_start.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core.mode_start import axis_drops, find_mode_and_curvature
from pymc_kameleon.core.start_up import (
    START_SPREAD,
    gaussian_start_up,
    minimum_start_up_budget,
)


def gaussian(mean, cov):
    precision = np.linalg.inv(cov)

    def log_density(x):
        r = np.asarray(x) - mean
        return -0.5 * float(r @ precision @ r)

    return log_density


def banana(b=0.03, v=100.0, d=2):
    """Haario's twisted Gaussian B(b, v)."""

    def log_density(x):
        y = np.array(x, dtype=float)
        y[1] = x[1] + b * (x[0] ** 2 - v)
        return -0.5 * (y[0] ** 2 / v + float(np.sum(y[1:] ** 2)))

    return log_density


def funnel(x):
    """Neal's funnel, 1 + 4 dimensions: the scale of x[1:] is exp(x[0] / 2)."""
    v = x[0]
    return -(v**2) / 18.0 - 0.5 * float(np.sum(x[1:] ** 2)) * math.exp(-v) - 2.0 * v


def test_a_correlated_gaussian_gets_its_own_covariance_and_an_overdispersed_start():
    rng = np.random.default_rng(0)
    sds = np.array([1e-3, 1.0, 1e3])
    corr = np.array([[1.0, 0.9, -0.5], [0.9, 1.0, -0.3], [-0.5, -0.3, 1.0]])
    mean, cov = np.array([1.0, -2.0, 3e3]), corr * np.outer(sds, sds)
    log_density = gaussian(mean, cov)
    result = gaussian_start_up(log_density, np.zeros(3), budget=500, rng=rng)
    assert result.status == "gaussian" and result.uses_gaussian
    np.testing.assert_allclose(result.covariance, cov, rtol=1e-6, atol=1e-12)
    assert result.n_evals <= 500
    assert result.log_density == log_density(result.point)
    # the start is a draw, not the mode; its whitened distance is about START_SPREAD sqrt(d)
    whitened = np.linalg.solve(np.linalg.cholesky(cov), result.point - mean)
    assert 0.05 < np.linalg.norm(whitened) < 5 * START_SPREAD * math.sqrt(3)


def test_the_starts_of_many_chains_are_overdispersed_draws_of_the_gaussian():
    mean, cov = np.array([2.0, -1.0]), np.array([[4.0, 1.9], [1.9, 1.0]])
    log_density = gaussian(mean, cov)
    starts = np.array(
        [
            gaussian_start_up(log_density, np.zeros(2), 200, np.random.default_rng(s)).point
            for s in range(400)
        ]
    )
    whitened = np.linalg.solve(np.linalg.cholesky(cov), (starts - mean).T).T
    # each whitened coordinate ~ N(0, START_SPREAD^2): the sd within 4 standard errors
    sd = whitened.std(axis=0)
    assert np.all(np.abs(sd / START_SPREAD - 1.0) < 4.0 / math.sqrt(2 * 400))


@pytest.mark.parametrize(
    ("log_density", "start", "dim"),
    [(banana(0.03), np.array([0.1, 0.1]), 2), (banana(0.1, d=4), np.full(4, 0.1), 4)],
    ids=["banana-0.03", "banana-0.1-4d"],
)
def test_a_banana_mode_is_not_trusted(log_density, start, dim):
    result = gaussian_start_up(log_density, start, 1000, np.random.default_rng(1))
    assert result.status == "not_gaussian" and not result.uses_gaussian
    # the best point of the climb is reported (the steps keep the chain at its initial point)
    assert result.log_density >= log_density(start)


def test_a_funnel_is_not_trusted():
    result = gaussian_start_up(funnel, np.ones(5), 2000, np.random.default_rng(2))
    assert not result.uses_gaussian
    assert result.status != "gaussian"


def test_heavier_tails_within_a_factor_two_are_trusted():
    """A Student t with 10 degrees of freedom drops by 3.5 at 3 sds instead of 4.5."""

    def student(x, nu=10.0):
        return -0.5 * (nu + x.size) * math.log1p(float(x @ x) / nu)

    result = gaussian_start_up(student, np.ones(3), 500, np.random.default_rng(3))
    assert result.status == "gaussian"


@pytest.mark.parametrize("budget", [40, 60, 90, 150, 400])
def test_the_budget_is_never_exceeded(budget):
    rho = 0.99995
    cov = np.array([[9e5**2, rho * 9e5 * 2], [rho * 9e5 * 2, 4.0]])
    log_density = gaussian(np.array([-3.4e6, 1.5]), cov)
    calls = []

    def counted(x):
        calls.append(1)
        return log_density(x)

    result = gaussian_start_up(counted, np.zeros(2), budget, np.random.default_rng(0))
    assert result.n_evals == len(calls) <= budget


def test_out_of_budget_keeps_the_best_point():
    log_density = gaussian(np.array([5.0, 5.0]), np.eye(2) * 1e-4)
    result = find_mode_and_curvature(log_density, np.zeros(2), max_evals=7)
    assert result.status == "out_of_budget" and result.n_evals == 7
    assert result.log_density >= log_density(np.zeros(2))
    assert result.log_density == log_density(result.mode)


def test_a_ridge_is_climbed_from_far_out_with_newton_steps_alone():
    """longley's ridge: the curvature along it is ~1e-10 of the largest, and must be followed."""
    rho = 0.99995
    sds = np.array([9e5, 2.0])
    cov = np.array([[1.0, rho], [rho, 1.0]]) * np.outer(sds, sds)
    mean = np.array([-3.4e6, 1.5])
    result = find_mode_and_curvature(gaussian(mean, cov), np.array([0.0, 0.0]))
    assert result.status == "gaussian"
    whitened = np.linalg.solve(np.linalg.cholesky(cov), result.mode - mean)
    assert np.max(np.abs(whitened)) < 1.0  # within an sd: converged to a gain below 0.5


def test_axis_drops_of_a_gaussian_are_exact():
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    mean = np.array([1.0, 1.0])
    drops = axis_drops(gaussian(mean, cov), mean, 0.0, cov, 3.0)
    np.testing.assert_allclose(drops, 4.5, rtol=1e-12)


def test_the_minimum_budget_pays_for_one_curvature():
    assert minimum_start_up_budget(3) == 9 + 15 + 10
    assert minimum_start_up_budget(19) == 361 + 95 + 10
