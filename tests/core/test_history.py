"""Tests for :mod:`pymc_kameleon.core.history`."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest

from pymc_kameleon.core.history import ChainHistory


def _filled(n: int, capacity: int, dim: int = 1, seed: int = 0) -> ChainHistory:
    """History in which state t (all coordinates equal to t) is recorded at iteration t."""
    hist = ChainHistory(dim=dim, capacity=capacity)
    rng = np.random.default_rng(seed)
    for t in range(n):
        hist.record(np.full(dim, float(t)), iteration=t, rng=rng)
    return hist


# ---------------------------------------------------------------------------------------------
# Construction and bookkeeping
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [0, -1])
def test_dim_must_be_positive(dim):
    with pytest.raises(ValueError, match="dim"):
        ChainHistory(dim=dim, capacity=10)


@pytest.mark.parametrize("capacity", [1, 0, -5])
def test_capacity_must_be_at_least_two(capacity):
    with pytest.raises(ValueError, match="capacity"):
        ChainHistory(dim=2, capacity=capacity)


def test_fresh_history_is_empty():
    hist = ChainHistory(dim=3, capacity=5)
    assert hist.dim == 3
    assert hist.capacity == 5
    assert hist.size == 0
    assert hist.n_seen == 0
    assert hist.subsample(10, np.random.default_rng(0)).shape == (0, 3)


def test_size_grows_until_capacity():
    hist = ChainHistory(dim=2, capacity=4)
    rng = np.random.default_rng(0)
    for t in range(10):
        hist.record(np.array([t, -t], dtype=float), iteration=t, rng=rng)
        assert hist.n_seen == t + 1
        assert hist.size == min(t + 1, 4)
        assert hist.capacity == 4


def test_records_every_state_including_repeats():
    hist = ChainHistory(dim=2, capacity=100)
    rng = np.random.default_rng(0)
    chain = [[0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [2.0, 3.0], [2.0, 3.0], [0.0, 1.0]]
    for t, x in enumerate(chain):
        hist.record(np.array(x), iteration=t, rng=rng)
    assert hist.n_seen == len(chain)
    assert hist.size == len(chain)
    np.testing.assert_array_equal(hist.values[: hist.size], np.array(chain))
    np.testing.assert_array_equal(hist.iterations[: hist.size], np.arange(len(chain)))


def test_repeats_are_weighted_by_time_spent():
    """A state held for 90% of the iterations fills about 90% of the reservoir."""
    capacity, n_runs = 20, 300
    fractions = []
    for seed in range(n_runs):
        rng = np.random.default_rng(seed)
        hist = ChainHistory(dim=1, capacity=capacity)
        for t in range(200):
            x = np.array([1.0]) if t % 10 else np.array([-1.0])
            hist.record(x, iteration=t, rng=rng)
        fractions.append(np.mean(hist.values[:, 0] == 1.0))
    # Each reservoir holds capacity draws without replacement from 180 ones and 20 minus-ones.
    se = math.sqrt(0.9 * 0.1 / capacity / n_runs)
    assert abs(np.mean(fractions) - 0.9) <= 5 * se


def test_record_copies_the_state():
    hist = ChainHistory(dim=3, capacity=4)
    x = np.array([1.0, 2.0, 3.0])
    hist.record(x, iteration=0, rng=np.random.default_rng(0))
    x[:] = -1.0
    np.testing.assert_array_equal(hist.values[0], [1.0, 2.0, 3.0])


def test_memory_is_bounded():
    capacity, dim = 16, 3
    hist = ChainHistory(dim=dim, capacity=capacity)
    values_id = id(hist.values)
    rng = np.random.default_rng(0)
    for t in range(10 * capacity):
        hist.record(rng.normal(size=dim), iteration=t, rng=rng)
    assert hist.n_seen == 10 * capacity
    assert hist.size == capacity
    assert hist.values.shape == (capacity, dim)
    assert hist.iterations.shape == (capacity,)
    assert id(hist.values) == values_id


def test_reset_forgets_states():
    hist = _filled(30, capacity=8, dim=2)
    hist.reset()
    assert hist.size == 0
    assert hist.n_seen == 0
    assert hist.count_since(0) == 0
    assert hist.subsample(5, np.random.default_rng(0)).shape == (0, 2)
    assert hist.values.shape == (8, 2)


def test_repr_mentions_sizes():
    text = repr(_filled(7, capacity=5, dim=2))
    assert "dim=2" in text and "capacity=5" in text and "n_seen=7" in text


# ---------------------------------------------------------------------------------------------
# Reservoir uniformity
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n_states", "capacity", "n_runs"), [(12, 3, 4000), (40, 10, 2000)])
def test_reservoir_is_uniform_over_all_recorded_states(n_states, capacity, n_runs):
    inclusion = np.zeros(n_states)
    pair_first_last = 0
    for seed in range(n_runs):
        hist = _filled(n_states, capacity=capacity, seed=seed)
        stored = hist.values[:, 0].astype(int)
        assert len(set(stored.tolist())) == capacity  # without replacement
        np.testing.assert_array_equal(hist.iterations, stored)  # iteration travels with state
        inclusion[stored] += 1
        pair_first_last += (0 in stored) and (n_states - 1 in stored)

    p = capacity / n_states
    se = math.sqrt(n_runs * p * (1.0 - p))
    deviation = np.abs(inclusion - n_runs * p)
    assert deviation.max() <= 5.0 * se, deviation.max() / se

    # Early and late states are kept together at the rate of a simple random sample.
    p_pair = capacity * (capacity - 1) / (n_states * (n_states - 1))
    se_pair = math.sqrt(n_runs * p_pair * (1.0 - p_pair))
    assert abs(pair_first_last - n_runs * p_pair) <= 5.0 * se_pair


def test_reservoir_mean_index_is_unbiased():
    """A sanity check with more power against drift towards early or late states."""
    n_states, capacity, n_runs = 20, 4, 4000
    means = np.array(
        [_filled(n_states, capacity, seed=seed).values[:, 0].mean() for seed in range(n_runs)]
    )
    # Simple random sample of size C from 0..N-1: variance of the mean with finite-population
    # correction.
    pop_var = (n_states**2 - 1) / 12.0
    var_mean = pop_var / capacity * (n_states - capacity) / (n_states - 1)
    se = math.sqrt(var_mean / n_runs)
    assert abs(means.mean() - (n_states - 1) / 2.0) <= 5.0 * se


# ---------------------------------------------------------------------------------------------
# subsample
# ---------------------------------------------------------------------------------------------


def test_subsample_without_replacement_and_only_stored_states():
    hist = _filled(200, capacity=50, dim=2)
    stored = set(hist.values[:, 0].tolist())
    rng = np.random.default_rng(1)
    for _ in range(50):
        sub = hist.subsample(20, rng)
        assert sub.shape == (20, 2)
        idx = sub[:, 0].tolist()
        assert len(set(idx)) == 20
        assert set(idx) <= stored


def test_subsample_returns_everything_when_too_few():
    hist = _filled(6, capacity=10, dim=2)
    sub = hist.subsample(100, np.random.default_rng(0))
    assert sorted(sub[:, 0].tolist()) == list(range(6))


@pytest.mark.parametrize("since", [0, 1, 37, 120, 199])
def test_subsample_since_restricts_to_recent_states(since):
    hist = _filled(200, capacity=64, dim=3)
    rng = np.random.default_rng(since)
    eligible = {int(t) for t in hist.iterations[: hist.size] if t >= since}
    assert hist.count_since(since) == len(eligible)
    for n in (1, 5, 30, 1000):
        sub = hist.subsample(n, rng, since=since)
        got = sub[:, 0].astype(int).tolist()
        assert all(t >= since for t in got)
        assert len(set(got)) == len(got)  # distinct
        assert set(got) <= eligible
        assert len(got) == min(n, len(eligible))
        if n >= len(eligible):
            assert set(got) == eligible


def test_subsample_since_beyond_last_iteration_is_empty():
    hist = _filled(20, capacity=8, dim=2)
    assert hist.count_since(20) == 0
    assert hist.subsample(5, np.random.default_rng(0), since=20).shape == (0, 2)


def test_subsample_since_is_uniform_over_eligible_states():
    hist = _filled(30, capacity=30)  # everything stored
    since, n, n_draws = 10, 5, 8000
    rng = np.random.default_rng(3)
    counts = np.zeros(30)
    for _ in range(n_draws):
        counts[hist.subsample(n, rng, since=since)[:, 0].astype(int)] += 1
    assert np.all(counts[:since] == 0)
    p = n / (30 - since)
    se = math.sqrt(n_draws * p * (1.0 - p))
    assert np.abs(counts[since:] - n_draws * p).max() <= 5.0 * se


def test_subsample_is_a_copy():
    hist = _filled(10, capacity=10, dim=2)
    before = hist.values.copy()
    hist.subsample(10, np.random.default_rng(0))[:] = 99.0
    hist.subsample(3, np.random.default_rng(0), since=4)[:] = 99.0
    np.testing.assert_array_equal(hist.values, before)


# ---------------------------------------------------------------------------------------------
# Equality, pickling, copying
# ---------------------------------------------------------------------------------------------


def test_equality_compares_content():
    a = _filled(25, capacity=10, dim=2, seed=4)
    b = _filled(25, capacity=10, dim=2, seed=4)
    assert a == b
    assert a != _filled(25, capacity=10, dim=2, seed=5)  # different reservoir
    assert a != _filled(26, capacity=10, dim=2, seed=4)  # different n_seen
    assert a != _filled(25, capacity=11, dim=2, seed=4)  # different capacity
    assert a != "not a history"
    c = copy.deepcopy(a)
    c.values[3, 1] += 1.0
    assert a != c
    c = copy.deepcopy(a)
    c.iterations[0] += 1
    assert a != c


def test_equality_ignores_unused_slots():
    a = _filled(20, capacity=8, dim=2)
    a.reset()
    b = ChainHistory(dim=2, capacity=8)
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    for t in range(3):
        a.record(np.array([t, t], dtype=float), iteration=t, rng=rng_a)
        b.record(np.array([t, t], dtype=float), iteration=t, rng=rng_b)
    assert a == b


def test_not_hashable():
    with pytest.raises(TypeError):
        hash(ChainHistory(dim=1, capacity=2))


@pytest.mark.parametrize("roundtrip", [lambda h: pickle.loads(pickle.dumps(h)), copy.deepcopy])
def test_pickle_and_deepcopy_roundtrip(roundtrip):
    hist = _filled(57, capacity=12, dim=3, seed=9)
    clone = roundtrip(hist)
    assert clone == hist
    assert clone is not hist
    assert clone.values is not hist.values
    # The clone evolves independently and identically given the same random stream.
    rng_a, rng_b = np.random.default_rng(11), np.random.default_rng(11)
    for t in range(57, 80):
        hist.record(np.full(3, float(t)), iteration=t, rng=rng_a)
        clone.record(np.full(3, float(t)), iteration=t, rng=rng_b)
    assert clone == hist


def test_subsample_with_replacement_is_uniform_over_eligible_states():
    history = ChainHistory(dim=1, capacity=100)
    rng = np.random.default_rng(5)
    for t in range(100):
        history.record(np.array([float(t)]), t, rng)
    picks = history.subsample(20_000, np.random.default_rng(6), since=60, replace=True)[:, 0]
    assert picks.shape == (20_000,)
    assert picks.min() >= 60
    counts = np.bincount(picks.astype(int) - 60, minlength=40)
    expected = 20_000 / 40
    # every eligible state is drawn, each about equally often (5 binomial SEs)
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected))


def test_subsample_with_replacement_from_empty_selection_is_empty():
    history = ChainHistory(dim=2, capacity=10)
    rng = np.random.default_rng(0)
    history.record(np.zeros(2), 0, rng)
    assert history.subsample(5, rng, since=3, replace=True).shape == (0, 2)


def test_transform_states_maps_every_stored_row():
    rng = np.random.default_rng(0)
    history = ChainHistory(dim=2, capacity=5)
    for i in range(8):  # past capacity: the reservoir holds 5 of the 8
        history.record(rng.normal(size=2), i, rng)
    before = history.values[: history.size].copy()
    iterations = history.iterations.copy()
    history.transform_states(lambda rows: 3.0 * rows + 1.0)
    np.testing.assert_array_equal(history.values[: history.size], 3.0 * before + 1.0)
    np.testing.assert_array_equal(history.iterations, iterations)
    assert history.n_seen == 8


def test_transform_states_must_keep_the_shape():
    history = ChainHistory(dim=2, capacity=5)
    history.record(np.ones(2), 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="same dimension"):
        history.transform_states(lambda rows: rows[:, :1])
