"""Every function that reads sampling output gives the same answer on an ArviZ 0.x
``InferenceData`` and on an ``xarray.DataTree`` (what PyMC 6 / ArviZ 1 return) holding the same
draws, and names the accepted types in a TypeError for anything else.

Each answer is compared with the one computed from plain ``xarray.Dataset`` groups rebuilt from
the raw NumPy arrays (``plain``), and, for the diagnostics, from the arrays themselves. With
ArviZ 0.x, ``pm.sample`` returns an ``InferenceData`` and its ``to_datatree()`` is the DataTree;
with ArviZ 1 ``pm.sample`` returns the DataTree and there is no ``InferenceData`` to test.
"""

from __future__ import annotations

import warnings

import numpy as np
import pymc as pm
import pytest
import xarray as xr

from pymc_kameleon import KameleonSMC, KameleonStep, initial_history_from_smc
from pymc_kameleon._compat import (
    ARVIZ_MAJOR,
    ess_array,
    is_sampling_result,
    posterior_dataset,
    result_groups,
    rhat_array,
)
from pymc_kameleon.bench.metrics import mixing_metrics
from pymc_kameleon.bench.problems import PROBLEMS, Problem
from pymc_kameleon.bench.real.reference import Reference
from pymc_kameleon.bench.real.scoring import score_run
from pymc_kameleon.bench.real.suite import _smc_evaluations
from pymc_kameleon.bench.real.summaries import scalar_draws, summarise
from pymc_kameleon.bench.runner import Task, _score
from pymc_kameleon.demo import summarise as demo_summarise
from pymc_kameleon.diagnostics import (
    count_logp_evals,
    ess_per_1000_evals,
    max_rhat,
    mean_acceptance,
    min_ess,
    posterior_array,
)
from pymc_kameleon.smc import final_log_marginal_likelihood, stage_stat
from pymc_kameleon.targets import gaussian_model

COV = np.array([[1.0, 0.6], [0.6, 2.0]])
CHAINS, TUNE, DRAWS, PARTICLES = 2, 100, 100, 100
FORMS = ("InferenceData", "DataTree")
NO_INFERENCE_DATA = (
    "ArviZ 1 has no InferenceData: pm.sample returns the DataTree, compared with plain Datasets"
)


def plain(result) -> dict[str, xr.Dataset]:
    """Every group rebuilt as an ``xarray.Dataset`` of NumPy arrays (no ArviZ object left)."""
    groups = {}
    for name in result_groups(result):
        group = posterior_dataset(result, name)
        groups[name] = xr.Dataset(
            {v: (group[v].dims, np.array(group[v].values)) for v in group.data_vars},
            coords={c: np.array(group[c].values) for c in group.coords},
            attrs=dict(group.attrs),
        )
    return groups


def forms(result) -> dict[str, object]:
    """The result as InferenceData and as DataTree (ArviZ 0.x), or as DataTree only (ArviZ 1)."""
    if ARVIZ_MAJOR >= 1:
        assert isinstance(result, xr.DataTree)
        return {"DataTree": result}
    return {"InferenceData": result, "DataTree": result.to_datatree()}


def pick(results: dict[str, object], form: str):
    if form not in results:
        pytest.skip(NO_INFERENCE_DATA)
    return results[form]


@pytest.fixture(scope="module")
def mcmc():
    """2 chains x (100 + 100) of KameleonStep on a 2-D Gaussian, warm-up kept."""
    with gaussian_model(COV), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = pm.sample(
            tune=TUNE, draws=DRAWS, chains=CHAINS, cores=1, step=KameleonStep(), random_seed=11,
            discard_tuned_samples=False, progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    return forms(result), plain(result)


def smc_model() -> pm.Model:
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 3.0, shape=2)
        sigma = pm.HalfNormal("sigma", 2.0)  # a transformed variable for initial_history_from_smc
        pm.Normal("y", mu.sum(), sigma, observed=np.array([0.5, 1.5, 1.0]))
    return model


@pytest.fixture(scope="module")
def smc():
    """``pm.sample_smc`` with KameleonSMC, 2 chains of 100 particles."""
    model = smc_model()
    with model, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = pm.sample_smc(
            draws=PARTICLES, kernel=KameleonSMC, chains=CHAINS, cores=1, random_seed=5,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    return forms(result), plain(result), model


def test_the_forms_are_sampling_results_with_the_same_groups(mcmc, smc):
    for results, reference in (mcmc[:2], smc[:2]):
        for result in results.values():
            assert is_sampling_result(result)
            assert set(result_groups(result)) == set(reference)
            for name, group in reference.items():
                assert isinstance(posterior_dataset(result, name), xr.Dataset)
                xr.testing.assert_identical(posterior_dataset(result, name), group)
    assert {"posterior", "sample_stats", "warmup_posterior"} <= set(mcmc[1])


# -----------------------------------------------------------------------------------------------
# pymc_kameleon.diagnostics


@pytest.mark.parametrize("form", FORMS)
def test_posterior_array(mcmc, form):
    results, reference = mcmc
    draws = posterior_array(pick(results, form), "x")
    assert draws.shape == (CHAINS, DRAWS, 2)
    np.testing.assert_array_equal(draws, reference["posterior"]["x"].values)
    warm = posterior_array(pick(results, form), "x", group="warmup_posterior")
    np.testing.assert_array_equal(warm, reference["warmup_posterior"]["x"].values)


@pytest.mark.parametrize("form", FORMS)
def test_count_logp_evals(mcmc, form):
    results, reference = mcmc
    result = pick(results, form)
    for group in ("sample_stats", "warmup_sample_stats"):
        expected = int(reference[group]["logp_evals"].values.sum())
        assert count_logp_evals(result, "kameleon", 2, group=group) == expected
        assert count_logp_evals(reference, "kameleon", 2, group=group) == expected


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("method", ["bulk", "tail", "mean"])
def test_min_ess(mcmc, form, method):
    results, reference = mcmc
    expected = float(np.min(ess_array(reference["posterior"]["x"].values, method=method)))
    assert min_ess(reference, "x", method=method) == expected
    assert min_ess(pick(results, form), "x", method=method) == expected


@pytest.mark.parametrize("form", FORMS)
def test_max_rhat(mcmc, form):
    results, reference = mcmc
    expected = float(np.max(rhat_array(reference["posterior"]["x"].values)))
    assert max_rhat(reference, "x") == expected
    assert max_rhat(pick(results, form), "x") == expected


@pytest.mark.parametrize("form", FORMS)
def test_mean_acceptance(mcmc, form):
    results, reference = mcmc
    expected = float(np.mean(reference["sample_stats"]["accepted"].values.astype(float)))
    assert mean_acceptance(pick(results, form)) == expected
    assert mean_acceptance(pick(results, form), group="warmup_sample_stats") == mean_acceptance(
        reference, group="warmup_sample_stats"
    )


@pytest.mark.parametrize("form", FORMS)
def test_ess_per_1000_evals(mcmc, form):
    results, reference = mcmc
    expected = ess_per_1000_evals(reference, "x", "kameleon", 2)
    assert np.isfinite(expected) and expected > 0
    assert ess_per_1000_evals(pick(results, form), "x", "kameleon", 2) == expected


# -----------------------------------------------------------------------------------------------
# pymc_kameleon.smc


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", ["beta", "logp_evals", "log_marginal_likelihood"])
def test_stage_stat(smc, form, name):
    results, reference, _ = smc
    expected = stage_stat(reference, name)
    assert len(expected) == CHAINS and all(chain.size >= 1 for chain in expected)
    got = stage_stat(pick(results, form), name)
    assert len(got) == CHAINS
    for chain, want in zip(got, expected, strict=True):
        np.testing.assert_array_equal(chain, want)


@pytest.mark.parametrize("form", FORMS)
def test_final_log_marginal_likelihood(smc, form):
    results, reference, _ = smc
    expected = final_log_marginal_likelihood(reference)
    assert expected.shape == (CHAINS,) and np.all(np.isfinite(expected))
    np.testing.assert_array_equal(final_log_marginal_likelihood(pick(results, form)), expected)


@pytest.mark.parametrize("form", FORMS)
def test_initial_history_from_smc(smc, form):
    results, reference, model = smc
    with model:
        expected = initial_history_from_smc(reference)
        got = initial_history_from_smc(pick(results, form))
    assert expected.shape == (CHAINS * PARTICLES, 3)
    sigma = reference["posterior"]["sigma"].values.reshape(-1)
    np.testing.assert_allclose(expected[:, 2], np.log(sigma))  # the sampled (log) scale
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("form", FORMS)
def test_smc_evaluations_of_the_suite(smc, form):
    results, reference, _ = smc
    expected = _smc_evaluations(reference, CHAINS, PARTICLES)
    assert expected > CHAINS * PARTICLES
    assert _smc_evaluations(pick(results, form), CHAINS, PARTICLES) == expected


# -----------------------------------------------------------------------------------------------
# pymc_kameleon.bench


def tiny_problem() -> Problem:
    chol = np.linalg.cholesky(COV)
    return Problem(
        name="tiny-gauss",
        title="N(0, COV), d=2",
        dim=2,
        build_model=lambda: gaussian_model(COV),
        exact_draws=lambda n, rng: rng.standard_normal((n, 2)) @ chol.T,
        statistic=lambda x: np.sum(np.linalg.solve(chol, np.reshape(x, (-1, 2)).T) ** 2, axis=0),
        statistic_is_chi2=True,
    )


@pytest.mark.parametrize("form", FORMS)
def test_mixing_metrics(mcmc, form):
    results, reference = mcmc
    draws = reference["posterior"]["x"].values
    expected = {
        "min_bulk_ess": float(np.min(ess_array(draws))),
        "min_tail_ess": float(np.min(ess_array(draws, "tail"))),
        "max_rhat": float(np.max(rhat_array(draws))),
    }
    assert mixing_metrics(reference, "x") == expected
    assert mixing_metrics(pick(results, form), "x") == expected


@pytest.mark.parametrize("form", FORMS)
def test_score_of_the_benchmark_runner(mcmc, form, monkeypatch):
    results, reference = mcmc
    result = pick(results, form)
    problem = tiny_problem()
    monkeypatch.setitem(PROBLEMS, problem.name, problem)  # its exact quantiles are looked up
    task = Task("t", problem.name, "KAMH-LS", 0, CHAINS, TUNE, DRAWS)
    expected = _score(task, problem, reference, None)
    # one evaluation per iteration, none for a move bounded unevaluated (issue 67)
    evals = int(reference["sample_stats"]["logp_evals"].values.sum())
    assert expected["draw_evals"] == evals and 0.97 * CHAINS * DRAWS <= evals <= CHAINS * DRAWS
    np.testing.assert_equal(_score(task, problem, result, None), expected)


@pytest.mark.parametrize("form", FORMS)
def test_scalar_draws_summarise_and_score_run(mcmc, form):
    results, reference = mcmc
    labels, draws = scalar_draws(reference, ["x"])
    assert labels == ["x[0]", "x[1]"]
    np.testing.assert_array_equal(draws, reference["posterior"]["x"].values)
    got_labels, got_draws = scalar_draws(pick(results, form), ["x"])
    assert got_labels == labels
    np.testing.assert_array_equal(got_draws, draws)
    np.testing.assert_equal(summarise(got_draws), summarise(draws))
    exact = np.random.default_rng(0).multivariate_normal(np.zeros(2), COV, size=(4, 2000))
    ref = Reference("tiny", labels, summarise(exact), None, {})
    np.testing.assert_equal(
        vars(score_run(pick(results, form), ref)), vars(score_run(reference, ref))
    )


@pytest.mark.parametrize("form", FORMS)
def test_demo_summarise(mcmc, form):
    results, reference = mcmc
    expected = demo_summarise("KameleonStep", reference, "kameleon", 1.0)
    got = demo_summarise("KameleonStep", pick(results, form), "kameleon", 1.0)
    np.testing.assert_array_equal(got.samples, expected.samples)
    np.testing.assert_equal(got.metrics, expected.metrics)


# -----------------------------------------------------------------------------------------------
# pymc_kameleon.plots


@pytest.mark.parametrize("form", FORMS)
def test_plot_proposals(mcmc, form):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pymc_kameleon.plots import plot_proposals

    results, reference = mcmc

    def drawn(result):
        ax = plot_proposals(result, n_states=2, rng=0, grid_size=20)
        lines = {line.get_gid(): line.get_xydata() for line in ax.get_lines()}
        history = next(c for c in ax.collections if c.get_gid() == "history").get_offsets()
        plt.close(ax.figure)
        return lines, np.asarray(history)

    expected_lines, expected_history = drawn(reference)
    assert {"proposal-0", "proposal-1", "state-0", "state-1"} <= set(expected_lines)
    lines, history = drawn(pick(results, form))
    np.testing.assert_array_equal(history, expected_history)
    assert set(lines) == set(expected_lines)
    for gid, xy in expected_lines.items():
        np.testing.assert_array_equal(lines[gid], xy)


# -----------------------------------------------------------------------------------------------
# anything else is a TypeError that names what is accepted


def _plot(obj):
    pytest.importorskip("matplotlib")
    from pymc_kameleon.plots import plot_proposals

    return plot_proposals(obj)


def _initial_history(obj):
    with smc_model():
        return initial_history_from_smc(obj)


READERS = {
    "posterior_dataset": posterior_dataset,
    "result_groups": result_groups,
    "posterior_array": lambda obj: posterior_array(obj, "x"),
    "count_logp_evals": lambda obj: count_logp_evals(obj, "kameleon", 2),
    "min_ess": lambda obj: min_ess(obj, "x"),
    "max_rhat": lambda obj: max_rhat(obj, "x"),
    "mean_acceptance": mean_acceptance,
    "ess_per_1000_evals": lambda obj: ess_per_1000_evals(obj, "x", "kameleon", 2),
    "stage_stat": lambda obj: stage_stat(obj, "beta"),
    "final_log_marginal_likelihood": final_log_marginal_likelihood,
    "initial_history_from_smc": _initial_history,
    "mixing_metrics": lambda obj: mixing_metrics(obj, "x"),
    "scalar_draws": lambda obj: scalar_draws(obj, ["x"]),
    "demo.summarise": lambda obj: demo_summarise("x", obj, "kameleon", 1.0),
    "plot_proposals": _plot,
}
NOT_RESULTS = {
    "int": 42,
    "array": np.zeros((2, 10, 2)),
    "list": [np.zeros((2, 10))],
    "str": "posterior",
}


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("obj", list(NOT_RESULTS))
def test_a_non_result_is_a_clear_type_error(reader, obj):
    with pytest.raises(TypeError, match=r"InferenceData.*DataTree"):
        READERS[reader](NOT_RESULTS[obj])


@pytest.mark.parametrize("reader", ["posterior_array", "min_ess", "mean_acceptance"])
def test_one_group_is_not_a_result(mcmc, reader):
    """A single Dataset (what ``idata.posterior`` is in ArviZ 0.x) is refused with a hint."""
    _, reference = mcmc
    with pytest.raises(TypeError, match=r"one group: pass the whole result"):
        READERS[reader](reference["posterior"])


def test_a_missing_group_is_a_key_error_naming_the_groups(mcmc):
    results, _ = mcmc
    for result in results.values():
        with pytest.raises(KeyError, match=r"no 'sample_stats_prior' group.*posterior"):
            posterior_dataset(result, "sample_stats_prior")
