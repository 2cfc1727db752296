"""Importance-sampling references: the weighted summaries against closed forms, on a model whose
posterior is known (a transform, and a bound that depends on another variable), with a negative
control (the transforms' Jacobians left out) that must fail the same checks."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
from scipy import stats

from pymc_kameleon.bench.real.importance import (
    ImportanceSettings,
    importance_sample,
    weighted_summary,
)

Z = 4.0
"""Tolerance in Monte Carlo standard errors (each estimate's own, from the weights)."""


def test_equal_weights_give_the_plain_sample_summaries():
    x = np.random.default_rng(0).normal(3.0, 2.0, size=(40_000, 2))
    s = weighted_summary(x, np.ones(len(x)))
    np.testing.assert_allclose(s["mean"], x.mean(axis=0))
    np.testing.assert_allclose(s["sd"], x.std(axis=0), rtol=1e-12)
    np.testing.assert_allclose(s["q95"], np.quantile(x, 0.95, axis=0), atol=1e-3)
    np.testing.assert_allclose(s["mcse_mean"], x.std(axis=0) / np.sqrt(len(x)), rtol=1e-12)
    np.testing.assert_allclose(s["ess_bulk"], len(x), rtol=1e-12)
    # an iid normal sample: the sd's MCSE is sd / sqrt(2 n), the 5 % quantile's
    # sqrt(0.05 * 0.95 / n) / density
    np.testing.assert_allclose(s["mcse_sd"], 2.0 / np.sqrt(2 * len(x)), rtol=0.05)
    density = stats.norm.pdf(stats.norm.ppf(0.05)) / 2.0
    np.testing.assert_allclose(s["mcse_q05"], np.sqrt(0.05 * 0.95 / len(x)) / density, rtol=0.15)
    np.testing.assert_allclose(s["ess_q05"], len(x), rtol=0.01)
    assert np.all(np.isnan(s["rhat"]))


@pytest.mark.parametrize("seed", [1, 2])
def test_weighted_summaries_recover_a_known_target_within_their_mcse(seed):
    rng = np.random.default_rng(seed)
    proposal = stats.t(df=4, loc=0.0, scale=3.0)
    x = proposal.rvs(size=100_000, random_state=rng)
    w = np.exp(stats.norm.logpdf(x, 1.0, 2.0) - proposal.logpdf(x))
    s = weighted_summary(x[:, None], w)
    assert abs(s["mean"][0] - 1.0) < Z * s["mcse_mean"][0]
    assert abs(s["sd"][0] - 2.0) < Z * s["mcse_sd"][0]
    assert abs(s["q05"][0] - stats.norm.ppf(0.05, 1.0, 2.0)) < Z * s["mcse_q05"][0]
    # negative control: the proposal's draws without their weights
    plain = weighted_summary(x[:, None], np.ones_like(w))
    assert abs(plain["sd"][0] - 2.0) > Z * s["mcse_sd"][0]


A, B, COUNTS = 3.0, 2.0, np.array([4, 7, 2, 5, 6])


def _gamma_poisson():
    """lam ~ Gamma(3, 2), counts ~ Poisson(lam): lam | counts ~ Gamma(3 + 24, 2 + 5); and
    frac ~ Uniform(0, lam), untouched by the data, so E[frac] = E[lam] / 2."""
    with pm.Model() as model:
        lam = pm.Gamma("lam", A, B)
        pm.Uniform("frac", 0.0, lam)
        pm.Poisson("y", lam, observed=COUNTS)
    return model


POSTERIOR = stats.gamma(A + COUNTS.sum(), scale=1.0 / (B + len(COUNTS)))


def _check(draws, w):
    """|error| / MCSE of E lam, sd lam, E frac and sd(frac / lam) (Uniform(0, 1): 1 / sqrt 12)."""
    s = weighted_summary(np.column_stack([draws, draws[:, 1] / draws[:, 0]]), w)
    return [
        abs(s["mean"][0] - POSTERIOR.mean()) / s["mcse_mean"][0],
        abs(s["sd"][0] - POSTERIOR.std()) / s["mcse_sd"][0],
        abs(s["mean"][1] - POSTERIOR.mean() / 2) / s["mcse_mean"][1],
        abs(s["sd"][2] - 12**-0.5) / s["mcse_sd"][2],
    ]


def _pilot(seed):
    rng = np.random.default_rng(seed)
    lam = POSTERIOR.rvs(size=500, random_state=rng) * 1.2  # a rough pilot: the weights correct it
    return np.column_stack([lam, lam * rng.uniform(size=500)])


@pytest.mark.parametrize("seed", [3, 4])
def test_a_model_with_transforms_and_a_dependent_bound_gives_its_known_posterior(seed):
    settings = ImportanceSettings(n_draws=20_000, seed=seed)
    draws, w, diag = importance_sample(_gamma_poisson(), _pilot(seed), ["lam", "frac"], settings)
    assert diag["pareto_k"] < 0.5 and diag["ess"] > 5_000
    assert max(_check(draws, w)) < Z, _check(draws, w)


def test_without_the_jacobians_the_same_checks_fail(monkeypatch):
    compile_logp = pm.Model.compile_logp
    monkeypatch.setattr(
        pm.Model, "compile_logp", lambda self, *a, **k: compile_logp(self, *a, jacobian=False)
    )
    settings = ImportanceSettings(n_draws=20_000, seed=3)
    draws, w, _ = importance_sample(_gamma_poisson(), _pilot(3), ["lam", "frac"], settings)
    assert max(_check(draws, w)) > 2 * Z  # fails the tolerance with room


def test_a_reference_without_every_free_variable_is_refused():
    with pytest.raises(ValueError, match="every free variable"):
        importance_sample(_gamma_poisson(), _pilot(3)[:, :1], ["lam"], ImportanceSettings(100))


def test_the_command_compares_with_the_shipped_reference_and_saves_nothing_unasked(capsys):
    from pymc_kameleon.bench.real.cli import main
    from pymc_kameleon.bench.real.reference import REFERENCE_DIR

    before = (REFERENCE_DIR / "nile-arma11.json").read_text()
    main(["real-references-is", "--models", "nile-arma11", "--draws", "3000"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "nile-arma11: shipped vs importance sampling"
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["c", "phi", "theta", "sigma"]
    assert (REFERENCE_DIR / "nile-arma11.json").read_text() == before


def test_pareto_khat_reads_a_known_tail_on_either_arviz():
    from pymc_kameleon._compat import pareto_khat_of_log_weights

    rng = np.random.default_rng(0)
    heavy = np.log(rng.pareto(2.0, 20_000) + 1.0)  # weights with tail index 2: k = 1 / 2
    assert abs(pareto_khat_of_log_weights(heavy) - 0.5) < 0.1
    assert pareto_khat_of_log_weights(rng.normal(0.0, 0.1, 20_000)) < 0.1


def test_a_simplex_and_odd_scales_are_handled():
    """w ~ Dirichlet(1, 1, 1) with counts (3, 5, 12): w | counts ~ Dirichlet(4, 6, 13); and
    x ~ Normal(0, 1e-6), untouched by the data, beside it (scales 1e6 apart)."""
    alpha = np.array([4.0, 6.0, 13.0])
    with pm.Model() as model:
        w = pm.Dirichlet("w", np.ones(3))
        pm.Normal("x", 0.0, 1e-6)
        pm.Multinomial("y", 20, w, observed=[3, 5, 12])
    rng = np.random.default_rng(5)
    pilot = np.column_stack([rng.dirichlet(alpha, 500), rng.normal(0.0, 1e-6, 500)])
    draws, weights, diag = importance_sample(
        model, pilot, ["w", "x"], ImportanceSettings(n_draws=20_000, seed=5)
    )
    s = weighted_summary(draws, weights)
    truth = np.append(alpha / alpha.sum(), 0.0)
    assert diag["pareto_k"] < 0.5
    assert np.all(np.abs(s["mean"] - truth) < Z * s["mcse_mean"]), (s["mean"], truth)
    assert abs(s["sd"][3] - 1e-6) < Z * s["mcse_sd"][3]
