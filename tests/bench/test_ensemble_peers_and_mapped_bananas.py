"""The affine-mapped bananas of the benchmark suite and the ensemble peers (emcee, zeus)."""

from __future__ import annotations

import json
import logging
import random

import numpy as np
import pytest
import xarray as xr

from pymc_kameleon.bench.ensemble_peers import ENSEMBLE_PEERS, run_ensemble_peer
from pymc_kameleon.bench.problems import random_affine_map
from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.bench.runner import Task, _score, _step_options, run_task

MAPPED = ("banana-0.03-mapped", "banana-0.1-mapped")

#: the fields of a PyMC run's record on a target with an exact answer
RECORD_FIELDS = {
    "min_bulk_ess", "min_tail_ess", "max_rhat", "mean_norm", "max_mean_error",
    "coord_quantile_error", "quantile_error", "chain_min_ess", "chain_mean_norm",
    "chain_quantile_error", "acceptance", "draw_evals", "sampling_s", "us_per_iter",
    "ess_per_1k_evals", "ess_per_s",
}  # fmt: skip


def _plain(mapped_name: str):
    return get_problem(mapped_name.removesuffix("-mapped"))


def test_the_map_is_a_rotation_times_log_uniform_scales_seeded_7():
    m = random_affine_map()
    rng = np.random.default_rng(7)
    rotation, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    scales = np.exp(rng.uniform(np.log(1e-2), np.log(1e2), 8))
    np.testing.assert_array_equal(m, rotation @ np.diag(scales))
    np.testing.assert_allclose(m.T @ m, np.diag(scales**2), atol=1e-9 * scales.max() ** 2)
    for name in MAPPED:
        np.testing.assert_array_equal(get_problem(name).coordinate_map, m)


@pytest.mark.parametrize("name", MAPPED)
def test_mapped_logp_is_the_plain_one_minus_log_det(name):
    mapped, plain = get_problem(name), _plain(name)
    m = mapped.coordinate_map
    mapped_logp = mapped.build_model().compile_logp()
    plain_logp = plain.build_model().compile_logp()
    log_det = np.linalg.slogdet(m)[1]
    for x in plain.exact_draws(5, np.random.default_rng(1)):
        assert mapped_logp({"y": m @ x}) == pytest.approx(plain_logp({"x": x}) - log_det, abs=1e-9)


def _result(draws: np.ndarray, var_name: str) -> dict:
    """A sampling result of one vector variable, as the runner reads it."""
    chains, n, _ = draws.shape
    posterior = xr.Dataset(
        {var_name: (("chain", "draw", "dim"), draws)}, attrs={"sampling_time": 1.0}
    )
    stats = xr.Dataset({"logp_evals": (("chain", "draw"), np.ones((chains, n), dtype=int))})
    return {"posterior": posterior, "sample_stats": stats}


@pytest.mark.parametrize("name", MAPPED)
def test_mapped_scoring_maps_the_draws_back(name):
    mapped, plain = get_problem(name), _plain(name)
    exact = plain.exact_draws(4 * 500, np.random.default_rng(2)).reshape(4, 500, 8)
    plain_task = Task("t", plain.name, "KMC-lite", 0, 4, 500, 500)
    mapped_task = Task("t", name, "KMC-lite", 0, 4, 500, 500)
    plain_scores = _score(plain_task, plain, _result(exact, "x"), None)
    mapped_scores = _score(mapped_task, mapped, _result(exact @ mapped.coordinate_map.T, "y"), None)
    assert plain_scores["quantile_error"] < 0.03  # exact draws
    assert mapped_scores["quantile_error"] == plain_scores["quantile_error"]
    assert mapped_scores.keys() == plain_scores.keys()
    for key, value in plain_scores.items():  # equal up to rounding in M^-1 (condition 3e3)
        np.testing.assert_allclose(mapped_scores[key], value, rtol=1e-5, err_msg=key)


@pytest.mark.parametrize("name", MAPPED)
def test_starts_and_oracle_draws_are_mapped(name):
    mapped, plain = get_problem(name), _plain(name)
    m = mapped.coordinate_map
    np.testing.assert_allclose(mapped.starting_points(3, 16), plain.starting_points(3, 16) @ m.T)
    # the PyMC chains start where they always have, and where the first walkers of an ensemble do
    rng = np.random.default_rng([3, 7])
    np.testing.assert_array_equal(plain.starting_points(3, 4), rng.standard_normal((4, 8)))
    np.testing.assert_array_equal(plain.starting_points(3, 4), plain.starting_points(3, 16)[:4])

    def oracle(problem):
        task = Task("t", problem.name, "KMC-lite", 3, 4, 10, 10, n_oracle=50)
        return _step_options(task, problem)["initial_history"]

    np.testing.assert_allclose(oracle(mapped), oracle(plain) @ m.T)


@pytest.mark.parametrize("sampler", list(ENSEMBLE_PEERS))
def test_ensemble_peer_spends_its_budget_and_gives_a_full_record(sampler):
    handlers = list(logging.getLogger().handlers)
    numpy_state, python_state = np.random.get_state()[1].copy(), random.getstate()
    task = Task("t", "banana-0.1-mapped", sampler, 0, 4, 250, 250)  # 2000 evaluations
    record = run_task(task)
    assert record["status"] == "ok", record["status"]
    assert RECORD_FIELDS <= record.keys()
    assert np.isfinite(record["min_bulk_ess"]) and record["min_bulk_ess"] > 0
    assert abs(record["total_evals"] - 2000) <= 0.05 * 2000
    assert record["draw_evals"] == pytest.approx(record["total_evals"] / 2, rel=0.1)
    assert len(record["chain_min_ess"]) == record["walkers"] == 16  # each walker as a chain
    if sampler == "emcee":
        assert record["total_evals"] == 2000 and 0 < record["acceptance"] < 1
    else:
        assert np.isnan(record["acceptance"])
    json.dumps(record)  # the results file is JSON lines
    # zeus draws from the global generators and resets the root logger: all are restored
    np.testing.assert_array_equal(np.random.get_state()[1], numpy_state)
    assert random.getstate() == python_state
    assert logging.getLogger().handlers == handlers
    again = run_task(task)
    assert again["min_bulk_ess"] == record["min_bulk_ess"]  # seeded


@pytest.mark.parametrize("sampler", list(ENSEMBLE_PEERS))
def test_ensemble_peer_rejects_a_budget_below_one_step(sampler):
    problem = get_problem("banana-0.1")
    task = Task("t", problem.name, sampler, 0, 1, 4, 4)  # 8 evaluations, 16 walkers
    with pytest.raises(ValueError, match=r"banana-0\.1"):
        run_ensemble_peer(task, problem, problem.build_model())
