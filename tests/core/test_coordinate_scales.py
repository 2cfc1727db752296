"""Tests for :mod:`pymc_kameleon.core.coordinate_scales`."""

from __future__ import annotations

import doctest
import itertools
import math

import numpy as np
import pytest

from pymc_kameleon.core import coordinate_scales
from pymc_kameleon.core.adaptation import robbins_monro_update
from pymc_kameleon.core.checks import ArgumentTypeError
from pymc_kameleon.core.coordinate_scales import (
    SEARCH_GAIN,
    CoordinateScales,
    gaussian_coordinate_scale,
)

SDS = np.array([1e-3, 1.0, 1e3])


def _one_coordinate_metropolis(
    scales: CoordinateScales, sds: np.ndarray, sweeps: int, seed: int
) -> np.ndarray:
    """Metropolis on N(0, diag(sds**2)) moving one coordinate at a time; returns the state.

    Each sweep moves every coordinate once with a Gaussian random walk of that coordinate's
    current scale and feeds the acceptance probability back: one update per coordinate per sweep.
    """
    rng = np.random.default_rng(seed)
    x = 3.0 * sds  # start three sds from the mode
    for _ in range(sweeps):
        for i in range(sds.size):
            proposal = x[i] + scales.scales[i] * rng.normal()
            log_ratio = -0.5 * (proposal**2 - x[i] ** 2) / sds[i] ** 2
            accept_prob = 1.0 if log_ratio >= 0.0 else math.exp(log_ratio)
            if rng.uniform() < accept_prob:
                x[i] = proposal
            scales.update(i, accept_prob)
    return x


# the rule's fixed point on a Gaussian coordinate: 2 / tan(0.22 pi) = 2.418 sds
OPTIMUM = gaussian_coordinate_scale(0.44) * SDS


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "initial",
    [
        pytest.param(1.0, id="ones"),  # 2400 times too large, right, 2400 times too small
        pytest.param(1e3 * OPTIMUM, id="1000x_too_large"),
        pytest.param(1e-3 * OPTIMUM, id="1000x_too_small"),
    ],
)
def test_scales_reach_the_optimum_within_a_factor_3_in_500_updates(seed, initial):
    # not a lucky seed: over seeds 0-99 and these three starts the worst scale after 500
    # updates was within a factor 1.39 of the optimum
    scales = CoordinateScales(SDS.size, initial_scales=initial)
    _one_coordinate_metropolis(scales, SDS, sweeps=500, seed=seed)
    assert scales.updates.tolist() == [500, 500, 500]
    ratio = scales.scales / OPTIMUM
    assert np.all((ratio > 1 / 3) & (ratio < 3)), ratio
    # the 2.4 sd of the one-dimensional optimal-scaling literature, to the same factor
    assert np.all(np.abs(np.log(scales.scales / (2.4 * SDS))) < math.log(3))


def test_gaussian_coordinate_scale_closed_form():
    assert gaussian_coordinate_scale() == pytest.approx(2.0 / math.tan(0.22 * math.pi), rel=1e-15)
    assert gaussian_coordinate_scale() == pytest.approx(2.4176, abs=1e-4)
    values = [gaussian_coordinate_scale(t) for t in (0.1, 0.234, 0.44, 0.7, 0.95)]
    assert all(a > b > 0 for a, b in itertools.pairwise(values))  # decreasing


@pytest.mark.parametrize("target", [0.234, 0.44, 0.7])
def test_gaussian_coordinate_scale_gives_the_target_acceptance(target):
    """Monte Carlo: a random walk of that sd on N(0, 1) accepts with probability ``target``."""
    rng = np.random.default_rng(11)
    n = 200_000
    x = rng.normal(size=n)  # stationary current states
    proposal = x + gaussian_coordinate_scale(target) * rng.normal(size=n)
    accept = np.minimum(1.0, np.exp(-0.5 * (proposal**2 - x**2)))
    standard_error = accept.std() / math.sqrt(n)
    assert abs(accept.mean() - target) < 5.0 * standard_error


def test_update_searches_then_is_robbins_monro_on_one_coordinate():
    scales = CoordinateScales(3, target=0.3, initial_scales=[2.0, 0.5, 7.0], exponent=0.6)
    expected = np.log([2.0, 0.5, 7.0])
    settled = [0, 0, 0]
    # coordinate 1: searches above the target (gain 2) and keeps searching, crosses at 0.0
    # (from then on Robbins-Monro with the decaying gain); coordinate 0 searches below
    steps = [(1, 0.9, "search"), (1, 1.0, "search"), (1, 0.0, "rm"), (0, 0.25, "search"),
             (1, 1.0, "rm"), (0, 0.2, "search"), (0, 0.5, "rm")]  # fmt: skip
    for index, p, kind in steps:
        if kind == "search":
            expected[index] += SEARCH_GAIN * (p - 0.3)
        else:
            expected[index] = robbins_monro_update(expected[index], p, 0.3, settled[index], 0.6)
            settled[index] += 1
        assert scales.update(index, p) == pytest.approx(math.exp(expected[index]), rel=1e-15)
        np.testing.assert_allclose(scales.log_scales, expected, rtol=1e-15)
    assert scales.updates.tolist() == [3, 4, 0]
    assert scales.searching.tolist() == [False, False, True]
    assert scales.update(2, 0.3) == pytest.approx(7.0, rel=1e-15)  # at the target: no change


def test_reset_restores_the_initial_scales():
    scales = CoordinateScales(2, initial_scales=np.array([3.0, 4.0]))
    for _ in range(5):
        scales.update(0, 0.0)
        scales.update(1, 1.0)
    scales.reset()
    np.testing.assert_allclose(scales.scales, [3.0, 4.0], rtol=1e-15)
    assert scales.updates.tolist() == [0, 0]
    assert scales.searching.all()
    scales.update(0, 0.0)  # searching again
    assert scales.scales[0] == pytest.approx(3.0 * math.exp(-0.44 * SEARCH_GAIN), rel=1e-15)


def test_properties_are_copies():
    scales = CoordinateScales(np.int64(2), target=np.float64(0.5))
    assert (scales.dim, scales.target) == (2, 0.5)
    scales.scales[0] = 9.0
    scales.log_scales[0] = 9.0
    scales.updates[0] = 9
    assert scales.scales.tolist() == [1.0, 1.0] and scales.updates.tolist() == [0, 0]


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"dim": 0}, ValueError, r"`dim` must be an integer >= 1"),
        ({"dim": 1.5}, ArgumentTypeError, r"`dim` must be an integer"),
        ({"dim": 2, "target": 0.0}, ValueError, r"`target` must be .*strictly between 0 and 1"),
        ({"dim": 2, "target": 1.0}, ValueError, r"`target` must be .*strictly between 0 and 1"),
        ({"dim": 2, "target": "0.44"}, ArgumentTypeError, r"`target`.*without quotes"),
        ({"dim": 2, "exponent": 0.0}, ValueError, r"`exponent` must be a number in \(0, 1\]"),
        ({"dim": 2, "exponent": 1.5}, ValueError, r"`exponent` must be a number in \(0, 1\]"),
        ({"dim": 2, "initial_scales": 0.0}, ValueError, r"`initial_scales` must be .* > 0"),
        ({"dim": 2, "initial_scales": True}, ArgumentTypeError, r"`initial_scales`"),
        ({"dim": 2, "initial_scales": "1"}, ArgumentTypeError, r"`initial_scales`"),
        ({"dim": 2, "initial_scales": [1.0, -1.0]}, ValueError, r"positive and finite"),
        ({"dim": 2, "initial_scales": [1.0, np.inf]}, ValueError, r"positive and finite"),
        ({"dim": 2, "initial_scales": [1.0, 2.0, 3.0]}, ValueError, r"shape \(2,\).*\(3,\)"),
        ({"dim": 2, "initial_scales": ["a", "b"]}, ArgumentTypeError, r"positive numbers"),
        ({"dim": 2, "initial_scales": [True, True]}, ArgumentTypeError, r"positive numbers"),
    ],
)
def test_bad_constructor_arguments(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        CoordinateScales(**kwargs)


def test_bad_target_of_gaussian_coordinate_scale():
    with pytest.raises(ValueError, match=r"`target` must be a number strictly between 0 and 1"):
        gaussian_coordinate_scale(1.2)


@pytest.mark.parametrize(
    ("index", "accept_prob", "error", "pattern"),
    [
        (-1, 0.5, ValueError, r"`index` must be an integer in \[0, 2\]"),
        (3, 0.5, ValueError, r"`index` must be an integer in \[0, 2\]"),
        (1.0, 0.5, ArgumentTypeError, r"`index` must be an integer"),
        (0, 1.5, ValueError, r"`accept_prob` must be a number in \[0, 1\].*min\(1, alpha\)"),
        (0, float("nan"), ValueError, r"`accept_prob` must be a number in \[0, 1\]"),
        (0, None, ArgumentTypeError, r"`accept_prob` must be a number"),
    ],
)
def test_bad_update_arguments(index, accept_prob, error, pattern):
    scales = CoordinateScales(3)
    with pytest.raises(error, match=pattern):
        scales.update(index, accept_prob)
    assert scales.updates.tolist() == [0, 0, 0]  # nothing changed


def test_docstring_examples_run():
    results = doctest.testmod(coordinate_scales, optionflags=doctest.ELLIPSIS)
    assert results.attempted > 0 and results.failed == 0
