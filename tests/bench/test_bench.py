"""The benchmark suite's pieces: targets and their exact answers, metrics, counting, reports."""

from __future__ import annotations

import json
import math

import numpy as np
import pymc as pm
import pytest
from scipy import stats

from pymc_kameleon._compat import SLICE_MAX_STEPS, posterior_dataset
from pymc_kameleon.bench import build_tasks, get_problem, load_records, run_task
from pymc_kameleon.bench.__main__ import main as bench_main
from pymc_kameleon.bench.metrics import (
    accuracy_metrics,
    mixing_metrics_of_draws,
    posterior_mixing_metrics,
    quantile_error,
)
from pymc_kameleon.bench.problems import correlated_covariance
from pymc_kameleon.bench.runner import Task
from pymc_kameleon.bench.samplers import count_evaluations
from pymc_kameleon.diagnostics import DEFAULT_QUANTILES
from pymc_kameleon.targets import flower_logp, flower_model, sample_flower


def test_flower_model_matches_numpy_logp():
    logp = flower_model().compile_logp()
    rng = np.random.default_rng(0)
    for x in 6.0 * rng.standard_normal((5, 8)):
        assert logp({"x": x}) == pytest.approx(flower_logp(x), rel=1e-12)


def test_flower_draws_match_quadrature():
    """E[r] and E[cos(6 phi)] of the exact sampler against 2-D quadrature of the density."""
    draws = sample_flower(200_000, rng=3)
    radius = np.hypot(draws[:, 0], draws[:, 1])
    petal = np.cos(6 * np.arctan2(draws[:, 1], draws[:, 0]))
    r, phi = np.meshgrid(np.linspace(0, 40, 4001), np.linspace(-np.pi, np.pi, 2001))
    weight = r * np.exp(-0.5 * (r - 10 - 6 * np.cos(6 * phi)) ** 2)  # polar Jacobian r
    for sample, f in ((radius, r), (petal, np.cos(6 * phi))):
        exact = np.sum(weight * f) / np.sum(weight)
        se = sample.std() / np.sqrt(sample.size)
        assert abs(sample.mean() - exact) < 4 * se
    # the other coordinates are standard normal
    assert stats.kstest(draws[:20_000, 5], "norm").pvalue > 1e-3


def test_flower_rejects_bad_parameters():
    with pytest.raises(ValueError, match="r0 > amplitude"):
        flower_model(r0=5.0, amplitude=6.0)


def test_correlated_covariance_is_spd_with_the_stated_condition():
    cov = correlated_covariance()
    eig = np.linalg.eigvalsh(cov)
    assert np.all(eig > 0)
    assert eig[-1] / eig[0] == pytest.approx(1e4, rel=1e-8)
    corr = cov / np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
    assert np.max(np.abs(corr - np.eye(8))) > 0.5


@pytest.mark.parametrize("name", ["banana-0.1", "flower", "gauss-corr"])
def test_quantile_error_separates_exact_from_wrong_draws(name):
    """Exact draws score near 0; draws from a 30 % too narrow target do not (negative control)."""
    problem = get_problem(name)
    exact = problem.exact_draws(20_000, np.random.default_rng(1))
    good = accuracy_metrics(exact[None], problem)
    bad = accuracy_metrics(0.7 * exact[None], problem)
    assert good["quantile_error"] < 0.01
    assert good["coord_quantile_error"] < 0.03
    assert bad["quantile_error"] > 0.05
    assert bad["coord_quantile_error"] > 0.1


def test_quantile_error_of_chi2_draws():
    draws = stats.chi2.rvs(3, size=50_000, random_state=2)
    assert quantile_error(draws, stats.chi2.ppf(DEFAULT_QUANTILES, 3)) < 0.01
    assert quantile_error(draws, stats.chi2.ppf(DEFAULT_QUANTILES, 4)) > 0.05


@pytest.mark.parametrize(
    ("step", "kind", "calls_per_new_point"),
    [(pm.Metropolis, "metropolis", 2.0), (pm.DEMetropolisZ, "demz", 2.0), (pm.Slice, "slice", 1.0)],
)
def test_evaluation_counts_from_stats_match_the_call_counter(step, kind, calls_per_new_point):
    """The stats-based count equals the costly Op's own call count (PyMC's Metropolis-type
    steps evaluate both points of ``logp(new) - logp(current)``).

    PyMC 6's Slice is the exception: an end of the stepping out that uses up its random budget
    skips an evaluation that no stat records, and the count subtracts the expected number of
    those, so it is allowed three standard deviations (the square root of that number)."""
    problem = get_problem("banana-0.1-costly")
    model = problem.build_model()
    op = model.costly_op
    op.seconds = 0.0  # count calls without waiting
    with model:
        instance = step()
        op.reset_counters()
        idata = pm.sample(
            step=instance,
            tune=0,
            draws=30,
            chains=1,
            cores=1,
            random_seed=1,
            progressbar=False,
            compute_convergence_checks=False,
        )
    stats = posterior_dataset(idata, "sample_stats")
    counted = count_evaluations(stats, kind, problem.dim)
    initial_point_checks = op.calls - round(calls_per_new_point * counted)
    slack = 0.0
    if kind == "slice" and SLICE_MAX_STEPS is not None:
        iterations = stats.sizes["chain"] * stats.sizes["draw"]
        steps_out = int(stats["nstep_out"].values.sum())
        slack = 3.0 * math.sqrt((steps_out + 2 * problem.dim * iterations) / SLICE_MAX_STEPS)
    assert -slack <= initial_point_checks <= 3 + slack


def test_build_tasks_sizes_and_errors():
    quick = build_tasks("quick")
    full = build_tasks("full")
    assert {t.experiment for t in quick} == {t.experiment for t in full}
    assert len(full) > len(quick)
    practitioner = [t for t in full if t.experiment == "practitioner"]
    assert {(t.chains, t.tune, t.draws) for t in practitioner} == {(4, 2000, 5000)}
    assert all(t.sampler != "NUTS(0.95)" for t in full if t.problem == "banana-0.1-costly")
    with pytest.raises(ValueError, match="unknown experiments"):
        build_tasks("quick", ("nope",))
    with pytest.raises(KeyError, match="choose one of"):
        get_problem("nope")


def test_run_task_records_metrics_and_errors(tmp_path):
    ok = run_task(Task("t", "gauss-iso", "AM-LS", 0, 2, 200, 200))
    assert ok["status"] == "ok"
    assert ok["draw_evals"] == 400
    assert ok["ess_per_1k_evals"] == pytest.approx(1000 * ok["min_bulk_ess"] / 400)
    assert len(ok["chain_quantile_error"]) == 2
    assert ok["peak_rss_mb"] > 0 and ok["peak_rss_scope"] in ("task", "lifetime")
    failed = run_task(Task("t", "gauss-iso", "no-such-sampler", 0, 2, 10, 10))
    assert failed["status"].startswith("KeyError")
    json.dumps(ok)  # records are JSON-serialisable


def test_cli_report_redraws_from_results(tmp_path, capsys):
    record = run_task(Task("practitioner", "banana-0.1", "SM", 0, 2, 100, 100))
    (tmp_path / "results.jsonl").write_text(json.dumps(record) + "\n")
    assert bench_main(["report", str(tmp_path)]) == 0
    report = (tmp_path / "report.md").read_text()
    assert "| SM |" in report and "Practitioner budget" in report
    assert load_records(tmp_path / "results.jsonl")[0]["key"] == record["key"]
    assert bench_main(["report", str(tmp_path / "empty")]) == 1


def test_glass_oracle_draws_are_distinct_reference_draws():
    """GP-Glass has no exact sampler: its oracle history is drawn from the benchmark sample."""
    problem = get_problem("glass")
    reference = problem.reference_draws()
    oracle = problem.oracle_draws(50, np.random.default_rng(0))
    assert oracle.shape == (50, 9)
    rows = {tuple(row) for row in reference}
    assert all(tuple(row) in rows for row in oracle)
    assert len({tuple(row) for row in oracle}) == 50
    with pytest.raises(ValueError, match="at most"):
        problem.oracle_draws(len(reference) + 1, np.random.default_rng(0))


def test_oracle_draws_of_an_exact_target_are_its_exact_draws():
    problem = get_problem("banana-0.03")
    expected = problem.exact_draws(5, np.random.default_rng(1))
    assert np.array_equal(problem.oracle_draws(5, np.random.default_rng(1)), expected)


def test_posterior_mixing_metrics_cover_every_scalar_of_every_variable():
    import xarray as xr

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 50, 3)), rng.standard_normal((2, 50))
    b[1] += 3.0  # the scalar variable's chains disagree: its R-hat is the largest
    posterior = xr.Dataset({"a": (("chain", "draw", "i"), a), "b": (("chain", "draw"), b)})
    got = posterior_mixing_metrics({"posterior": posterior})
    assert got == mixing_metrics_of_draws(np.concatenate([a, b[..., None]], axis=-1))
    assert got["max_rhat"] > 1.5
