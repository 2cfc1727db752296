"""Tests for :mod:`pymc_kameleon.core.adaptation`."""

from __future__ import annotations

import copy
import itertools
import math
import pickle

import numpy as np
import pytest

from pymc_kameleon.core.adaptation import (
    AdaptationSchedule,
    CallableSchedule,
    RunningMoments,
    ScaleAdapter,
    TuningOnly,
    VanishingAdaptation,
    make_schedule,
    optimal_rw_acceptance,
    optimal_rw_scale,
    robbins_monro_update,
)

# ---------------------------------------------------------------------------------------------
# Schedules
# ---------------------------------------------------------------------------------------------


def test_base_schedule_is_abstract():
    with pytest.raises(NotImplementedError):
        AdaptationSchedule().probability(0, True)


def test_tuning_only():
    schedule = TuningOnly()
    assert schedule.adapts_after_tuning is False
    for t in (0, 1, 17, 10_000):
        assert schedule.probability(t, tuning=True) == 1.0
        assert schedule.probability(t, tuning=False) == 0.0


def test_vanishing_is_one_during_tuning():
    schedule = VanishingAdaptation()
    assert schedule.exponent == 0.5
    assert schedule.adapts_after_tuning is True
    for t in (0, 5, 10**6):
        assert schedule.probability(t, tuning=True) == 1.0


@pytest.mark.parametrize("exponent", [0.3, 0.5, 1.0])
def test_vanishing_formula_and_limit(exponent):
    schedule = VanishingAdaptation(exponent=exponent)
    for t in (0, 1, 9, 99, 12345):
        assert schedule.probability(t, tuning=False) == pytest.approx((t + 1.0) ** -exponent)
    probs = [schedule.probability(t, tuning=False) for t in (10, 10**3, 10**5, 10**8, 10**12)]
    assert all(0.0 < p <= 1.0 for p in probs)
    assert all(later < earlier for earlier, later in itertools.pairwise(probs))
    assert probs[-1] < 1e-3  # p_t -> 0


def test_vanishing_partial_sums_diverge():
    schedule = VanishingAdaptation(exponent=0.5)
    p = np.array([schedule.probability(t, tuning=False) for t in range(10**6)])
    partial = np.cumsum(p)
    assert partial[-1] > 1000.0
    # Growth like 2 sqrt(T): no sign of levelling off.
    assert partial[-1] - partial[10**5 - 1] > partial[10**5 - 1] - partial[10**4 - 1]

    harmonic = VanishingAdaptation(exponent=1.0)
    total = sum(harmonic.probability(t, tuning=False) for t in range(10**5))
    assert total >= math.log(10**5)  # harmonic series, unbounded


@pytest.mark.parametrize("exponent", [0.0, -0.5, 1.0000001, 2.0, math.nan, math.inf])
def test_vanishing_rejects_bad_exponent(exponent):
    with pytest.raises(ValueError, match="exponent"):
        VanishingAdaptation(exponent=exponent)


def test_callable_schedule_passes_arguments_and_validates():
    calls = []

    def fn(iteration, tuning):
        calls.append((iteration, tuning))
        return 0.25

    schedule = CallableSchedule(fn)
    assert schedule.adapts_after_tuning is True
    assert schedule.probability(7, False) == 0.25
    assert schedule.probability(3, True) == 0.25
    assert calls == [(7, False), (3, True)]
    assert CallableSchedule(fn, adapts_after_tuning=False).adapts_after_tuning is False

    assert CallableSchedule(lambda t, tuning: 0).probability(0, False) == 0.0
    assert CallableSchedule(lambda t, tuning: 1).probability(0, False) == 1.0


@pytest.mark.parametrize("bad", [-0.01, 1.01, 5.0, math.nan, math.inf, -math.inf])
def test_callable_schedule_rejects_non_probabilities(bad):
    schedule = CallableSchedule(lambda t, tuning: bad)
    with pytest.raises(ValueError, match="probability"):
        schedule.probability(3, False)


def test_make_schedule_strings():
    assert make_schedule("tune") == TuningOnly()
    assert isinstance(make_schedule("tune"), TuningOnly)
    vanishing = make_schedule("vanishing")
    assert isinstance(vanishing, VanishingAdaptation)
    assert vanishing.exponent == 0.5


def test_make_schedule_instance_and_callable():
    instance = VanishingAdaptation(exponent=0.8)
    assert make_schedule(instance) is instance

    def fn(iteration, tuning):
        return 1.0 if tuning else 1.0 / (iteration + 1)

    schedule = make_schedule(fn)
    assert isinstance(schedule, CallableSchedule)
    assert schedule.fn is fn
    assert schedule.probability(3, False) == 0.25


@pytest.mark.parametrize("name", ["Tune", "vanish", "", "tuning", "none"])
def test_make_schedule_unknown_string(name):
    with pytest.raises(ValueError, match="adaptation"):
        make_schedule(name)


@pytest.mark.parametrize("value", [None, 0.5, 3, ["tune"], b"tune"])
def test_make_schedule_wrong_type(value):
    with pytest.raises(TypeError):
        make_schedule(value)


def test_schedules_pickle():
    for schedule in (TuningOnly(), VanishingAdaptation(0.7)):
        assert pickle.loads(pickle.dumps(schedule)) == schedule


# ---------------------------------------------------------------------------------------------
# Robbins-Monro
# ---------------------------------------------------------------------------------------------


def test_robbins_monro_direction():
    for count in (0, 1, 10, 1000):
        assert robbins_monro_update(0.3, 0.9, 0.234, count) > 0.3
        assert robbins_monro_update(0.3, 0.1, 0.234, count) < 0.3
        assert robbins_monro_update(0.3, 0.234, 0.234, count) == 0.3


@pytest.mark.parametrize("count", [0, 1, 3, 99, 10**6])
def test_robbins_monro_step_size(count):
    got = robbins_monro_update(-1.0, 0.8, 0.3, count)
    assert got == pytest.approx(-1.0 + (count + 1.0) ** -0.5 * 0.5, rel=1e-14)
    got = robbins_monro_update(-1.0, 0.1, 0.3, count, exponent=0.75)
    assert got == pytest.approx(-1.0 + (count + 1.0) ** -0.75 * -0.2, rel=1e-14)


def test_robbins_monro_clipping():
    assert robbins_monro_update(49.9, 1.0, 0.0, 0) == 50.0
    assert robbins_monro_update(-49.9, 0.0, 1.0, 0) == -50.0
    assert robbins_monro_update(1e6, 0.5, 0.5, 0) == 50.0
    assert robbins_monro_update(-1e6, 0.5, 0.5, 0) == -50.0
    assert isinstance(robbins_monro_update(0.0, 0.5, 0.2, 0), float)


@pytest.mark.parametrize(
    ("f", "f_inv", "target"),
    [
        (lambda s: 1.0 / (1.0 + s), lambda p: 1.0 / p - 1.0, 0.3),
        (lambda s: math.exp(-s), lambda p: -math.log(p), 0.234),
        (lambda s: math.exp(-(s**2)), lambda p: math.sqrt(-math.log(p)), 0.44),
    ],
    ids=["rational", "exp", "gauss"],
)
@pytest.mark.parametrize("start", [-4.0, 0.0, 3.0])
def test_robbins_monro_converges_to_root(f, f_inv, target, start):
    """accept_prob = f(exp(log_scale)) with f decreasing: the scale settles at f^-1(target)."""
    log_scale = start
    for count in range(20_000):
        log_scale = robbins_monro_update(log_scale, f(math.exp(log_scale)), target, count)
    assert math.exp(log_scale) == pytest.approx(f_inv(target), rel=1e-3)


def test_optimal_rw_scale():
    for d in (1, 2, 10):
        assert optimal_rw_scale(d) == pytest.approx(2.38**2 / d)


# ---------------------------------------------------------------------------------------------
# RunningMoments
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "d"), [(2, 3), (10, 1), (500, 4)])
def test_running_moments_match_numpy(n, d):
    rng = np.random.default_rng(n + d)
    data = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + rng.normal(scale=5.0, size=d)
    moments = RunningMoments(d)
    for x in data:
        moments.update(x)
    assert moments.count == n
    np.testing.assert_allclose(moments.mean, np.mean(data, axis=0), rtol=1e-10, atol=1e-10)
    expected = np.atleast_2d(np.cov(data, rowvar=False))
    np.testing.assert_allclose(moments.covariance(), expected, rtol=1e-10, atol=1e-10)


def test_running_moments_need_two_vectors():
    moments = RunningMoments(2)
    with pytest.raises(ValueError, match="two"):
        moments.covariance()
    moments.update(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="two"):
        moments.covariance()
    moments.update(np.array([3.0, 0.0]))
    np.testing.assert_allclose(moments.covariance(), [[2.0, -2.0], [-2.0, 2.0]])


def test_running_moments_reset():
    moments = RunningMoments(3)
    for x in np.random.default_rng(0).normal(size=(5, 3)):
        moments.update(x)
    moments.reset()
    assert moments == RunningMoments(3)
    assert moments.count == 0
    with pytest.raises(ValueError):
        moments.covariance()


def test_running_moments_equality_and_pickle():
    data = np.random.default_rng(1).normal(size=(20, 3))
    a, b = RunningMoments(3), RunningMoments(3)
    for x in data:
        a.update(x)
        b.update(x)
    assert a == b
    assert pickle.loads(pickle.dumps(a)) == a
    assert copy.deepcopy(a) == a
    assert a != "moments"
    b.update(data[0])
    assert a != b
    c = copy.deepcopy(a)
    c.mean = c.mean + 1e-9
    assert a != c
    with pytest.raises(TypeError):
        hash(a)


def test_tuning_only_with_refresh_probability():
    schedule = TuningOnly(0.25)
    assert schedule.probability(10, tuning=True) == 0.25
    assert schedule.probability(10, tuning=False) == 0.0
    for bad in (0.0, -0.1, 1.5, True):
        with pytest.raises(ValueError, match="probability_during_tuning"):
            TuningOnly(bad)


def test_make_schedule_rejects_a_class():
    with pytest.raises(TypeError, match="instance"):
        make_schedule(TuningOnly)


def test_running_moments_has_spread_only_after_the_stream_moved():
    moments = RunningMoments(2)
    for _ in range(50):
        moments.update(np.array([1.0, 2.0]))
    assert not moments.has_spread()  # a stuck chain: zero covariance
    moments.update(np.array([1.5, 2.0]))
    moments.update(np.array([1.5, 2.5]))
    assert not moments.has_spread()  # two changes in 2-D: not yet
    moments.update(np.array([1.0, 2.5]))
    assert moments.has_spread()


def test_running_moments_batch_counts_changes_like_single_updates():
    rows = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 2.0], [3.0, 2.0]])
    one, batch = RunningMoments(2), RunningMoments(2)
    for row in rows:
        one.update(row)
    batch.update_batch(rows[:3])
    batch.update_batch(rows[3:])
    assert one.changes == batch.changes == 3


# ---------------------------------------------------------------------------------------------
# ScaleAdapter
# ---------------------------------------------------------------------------------------------


def _replay(start: float, steps: list[tuple[float, float]]) -> tuple[float, list[float]]:
    """The Robbins–Monro iterates written out with the one-line update."""
    log_scale, iterates = start, []
    for count, (accept_prob, target) in enumerate(steps):
        log_scale = robbins_monro_update(log_scale, accept_prob, target, count)
        iterates.append(log_scale)
    return log_scale, iterates


def test_scale_adapter_follows_robbins_monro_and_averages_with_linear_weights():
    steps = [(0.9, 0.234), (0.1, 0.234), (0.5, 0.3), (0.0, 0.234), (1.0, 0.234)]
    adapter = ScaleAdapter(math.log(0.7))
    for accept_prob, target in steps:
        adapter.update(accept_prob, target)
    last, iterates = _replay(math.log(0.7), steps)
    assert adapter.log_scale == last
    assert adapter.current == math.exp(last)
    assert adapter.updates == len(steps)
    weights = np.arange(1, len(steps) + 1)
    assert adapter.final() == pytest.approx(np.dot(weights, iterates) / weights.sum(), rel=1e-14)
    adapter.settle()
    assert adapter.log_scale == adapter.final()


def test_scale_adapter_final_without_updates_is_the_iterate():
    adapter = ScaleAdapter(-1.5)
    assert adapter.final() == -1.5
    adapter.settle()
    assert adapter.log_scale == -1.5 and adapter.current == math.exp(-1.5)


def test_scale_adapter_restart_forgets_the_average_but_keeps_the_count():
    adapter = ScaleAdapter()
    for _ in range(4):
        adapter.update(1.0, 0.234)
    adapter.restart(2.0)
    assert adapter.log_scale == 2.0 and adapter.final() == 2.0 and adapter.updates == 4
    adapter.update(0.0, 0.234)
    expected = robbins_monro_update(2.0, 0.0, 0.234, 4)
    assert adapter.log_scale == expected
    assert adapter.final() == pytest.approx(expected, rel=1e-14)
    adapter.restart()  # stays where it is
    assert adapter.log_scale == expected and adapter.weight_sum == 0.0


def test_scale_adapter_reset_starts_afresh():
    adapter = ScaleAdapter(0.3)
    adapter.update(0.9, 0.5)
    adapter.reset()
    assert adapter == ScaleAdapter(0.3)


def test_scale_adapter_state_compares_copies_and_pickles():
    adapter = ScaleAdapter(0.1)
    adapter.update(0.4, 0.234)
    clone = pickle.loads(pickle.dumps(copy.deepcopy(adapter)))
    assert clone == adapter
    clone.update(0.4, 0.234)
    assert clone != adapter


# -----------------------------------------------------------------------------------------------
# the optimal random walk's acceptance rate on a Gaussian
@pytest.mark.parametrize("dim", [1, 2, 5, 12])
def test_optimal_rw_acceptance_matches_a_monte_carlo_of_the_walk(dim):
    """Stationary x ~ N(0, I), move 2.38/sqrt(d) z: the mean of min(1, p(y)/p(x))."""
    rng = np.random.default_rng(dim)
    n = 200_000
    x = rng.standard_normal((n, dim))
    y = x + 2.38 / np.sqrt(dim) * rng.standard_normal((n, dim))
    accept = np.minimum(1.0, np.exp(0.5 * ((x * x).sum(1) - (y * y).sum(1))))
    se = accept.std() / np.sqrt(n)
    assert abs(optimal_rw_acceptance(dim) - accept.mean()) < 4.0 * se


def test_optimal_rw_acceptance_runs_from_044_down_to_0234():
    rates = [optimal_rw_acceptance(d) for d in (1, 2, 3, 10, 100, 10_000)]
    assert rates == sorted(rates, reverse=True)
    assert rates[0] == pytest.approx(0.445, abs=2e-3)
    assert rates[-1] == pytest.approx(0.234, abs=1e-3)
