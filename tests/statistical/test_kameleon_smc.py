"""KameleonSMC against exact answers: moments, quantiles, mode weights and the evidence.

Each case runs ``RUNS`` independent SMC runs (``pm.sample_smc`` chains); a run's estimate of a
summary is computed from its final particles, and the error of the mean over runs is measured in
its standard error estimated from the spread between runs (the Monte Carlo standard error of the
average; the runs are independent, so it needs no autocorrelation correction). A summary passes
when ``|z| < Z_TOL`` (4), the log marginal likelihood when ``|z| < 3``. With 16 runs the z-scores
follow Student's t with 15 degrees of freedom under a correct sampler: ``P(|t| > 4) = 0.0012`` per
summary. The negative control (no Hastings term) must fail by more than ``2 * Z_TOL``.
"""

from __future__ import annotations

import math

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from scipy import stats

from pymc_kameleon import KameleonSMC, noisy_potential
from pymc_kameleon.smc import final_log_marginal_likelihood

Z_TOL = 4.0
Z_TOL_EVIDENCE = 3.0
RUNS = 16
PARTICLES = 500
QUANTILES = (0.1, 0.5, 0.9)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class KameleonSMCWithoutHastings(KameleonSMC):
    """Deliberately wrong: treats the state-dependent proposal as symmetric."""

    hastings = False


def run_smc(model, kernel=KameleonSMC, seed=1, draws=PARTICLES, **kernel_kwargs):
    # cores=1: the runs are the same draw for draw as with cores=2 (the contract tests check
    # it), without worker processes competing with pytest-xdist's for the two cores
    with model:
        return pm.sample_smc(
            draws=draws, kernel=kernel, chains=RUNS, cores=1, random_seed=seed,
            progressbar=False, compute_convergence_checks=False, **kernel_kwargs,
        )  # fmt: skip


def between_run_z(per_run: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """z-scores of the mean over runs (rows) against exact values, in between-run MCSEs."""
    per_run = np.asarray(per_run, dtype=float)
    mcse = per_run.std(axis=0, ddof=1) / math.sqrt(per_run.shape[0])
    return (per_run.mean(axis=0) - exact) / mcse


def summary_z(draws: np.ndarray, mean, variance, quantiles) -> np.ndarray:
    """z-scores of every coordinate's mean, variance and quantiles; draws (run, particle, d)."""
    per_run = [draws.mean(axis=1), ((draws - mean) ** 2).mean(axis=1)]
    per_run += [np.quantile(draws, q, axis=1) for q in QUANTILES]
    exact = [mean, variance, *[quantiles[q] for q in QUANTILES]]
    return np.concatenate([between_run_z(r, e) for r, e in zip(per_run, exact, strict=True)])


def stacked(idata, names) -> np.ndarray:
    """The named variables' particles as (run, particle, d)."""
    parts = []
    for name in names:
        values = np.asarray(idata["posterior"][name].values, dtype=float)
        parts.append(values.reshape(*values.shape[:2], -1))
    return np.concatenate(parts, axis=2)


# ------------------------------------------------------------------------------------------
# a correlated Gaussian posterior with a conjugate likelihood: exact moments and evidence
B = np.array([[1.0, 0.5, 0.0], [0.3, 1.0, -0.4], [0.0, 0.8, 1.0], [1.0, 1.0, 1.0]])
Y = np.array([1.0, -0.5, 2.0, 0.3])
PRIOR_SD = 2.0


def gaussian_model() -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, PRIOR_SD, shape=3)
        pm.Normal("y", pt.dot(B, x), 1.0, observed=Y)
    return model


def gaussian_truth():
    precision = np.eye(3) / PRIOR_SD**2 + B.T @ B
    cov = np.linalg.inv(precision)
    mean = cov @ B.T @ Y
    sd = np.sqrt(np.diag(cov))
    quantiles = {q: mean + sd * stats.norm.ppf(q) for q in QUANTILES}
    evidence = stats.multivariate_normal(np.zeros(4), PRIOR_SD**2 * B @ B.T + np.eye(4))
    return mean, np.diag(cov), quantiles, float(evidence.logpdf(Y))


def test_gaussian_moments_and_evidence():
    idata = run_smc(gaussian_model(), seed=11)
    mean, variance, quantiles, log_z = gaussian_truth()
    z = summary_z(stacked(idata, ["x"]), mean, variance, quantiles)
    assert np.max(np.abs(z)) < Z_TOL, np.round(z, 2)
    z_evidence = between_run_z(final_log_marginal_likelihood(idata)[:, None], np.array([log_z]))
    assert abs(z_evidence[0]) < Z_TOL_EVIDENCE, z_evidence


# ------------------------------------------------------------------------------------------
# the 8-D banana B(0.03, 100) with a proper prior: the likelihood divides out x2's prior, so the
# posterior is the banana itself and the evidence is exactly 1
BANANA_B = 0.03


def banana_model() -> pm.Model:
    with pm.Model() as model:
        x1 = pm.Normal("x1", 0.0, 10.0)
        x2 = pm.Normal("x2", 0.0, 20.0)
        pm.Normal("rest", 0.0, 1.0, shape=6)
        twisted = x2 - BANANA_B * (x1**2 - 100.0)  # the package's B(b, v)
        pm.Potential(
            "likelihood",
            pm.logp(pm.Normal.dist(0.0, 1.0), twisted) - pm.logp(pm.Normal.dist(0.0, 20.0), x2),
        )
    return model


def banana_truth():
    """Exact moments of (x1, x2); quantiles of x2 from 4 million exact draws (error < 0.01 sd)."""
    rng = np.random.default_rng(2014)
    x1 = rng.normal(0.0, 10.0, 4_000_000)
    x2 = rng.normal(0.0, 1.0, x1.size) + BANANA_B * (x1**2 - 100.0)
    mean = np.zeros(2)
    variance = np.array([100.0, 1.0 + BANANA_B**2 * 2 * 100.0**2])
    quantiles = {q: np.array([10.0 * stats.norm.ppf(q), np.quantile(x2, q)]) for q in QUANTILES}
    return mean, variance, quantiles


def banana_z(idata) -> np.ndarray:
    return summary_z(stacked(idata, ["x1", "x2"]), *banana_truth())


def test_banana_moments_quantiles_and_evidence():
    idata = run_smc(banana_model(), seed=12)
    z = banana_z(idata)
    assert np.max(np.abs(z)) < Z_TOL, np.round(z, 2)
    z_evidence = between_run_z(final_log_marginal_likelihood(idata)[:, None], np.zeros(1))
    assert abs(z_evidence[0]) < Z_TOL_EVIDENCE, z_evidence


def test_negative_control_without_hastings_term_fails_on_the_banana():
    # every move a Kameleon move (no symmetric random walks in the mix), so every decision
    # misses the Hastings term
    idata = run_smc(banana_model(), kernel=KameleonSMCWithoutHastings, seed=12, global_weight=0.0)
    z = banana_z(idata)
    assert np.max(np.abs(z)) > 2 * Z_TOL, np.round(z, 2)


# ------------------------------------------------------------------------------------------
# two separated modes, weights 0.3 and 0.7; the evidence is exactly 1 again
WEIGHT = 0.3
CENTRE = np.array([4.0, 4.0])


def mixture_model() -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 5.0, shape=2)
        near = pm.logp(pm.MvNormal.dist(-CENTRE, np.eye(2)), x)
        far = pm.logp(pm.MvNormal.dist(CENTRE, np.eye(2)), x)
        mixture = pt.logaddexp(math.log(WEIGHT) + near, math.log(1 - WEIGHT) + far)
        pm.Potential("likelihood", mixture - pm.logp(pm.Normal.dist(0.0, 5.0), x).sum())
    return model


def test_mixture_mode_weights_moments_and_evidence():
    idata = run_smc(mixture_model(), seed=13)
    draws = stacked(idata, ["x"])
    weight = (draws[..., 0] < 0.0).mean(axis=1)
    z_weight = between_run_z(weight[:, None], np.array([WEIGHT]))
    mean = (1 - 2 * WEIGHT) * CENTRE
    variance = 1.0 + CENTRE**2 - mean**2  # E[x^2] - E[x]^2 of the mixture, per coordinate
    per_run = [draws.mean(axis=1), ((draws - mean) ** 2).mean(axis=1)]
    z = np.concatenate([between_run_z(per_run[0], mean), between_run_z(per_run[1], variance)])
    assert abs(z_weight[0]) < Z_TOL, z_weight
    assert np.max(np.abs(z)) < Z_TOL, np.round(z, 2)
    z_evidence = between_run_z(final_log_marginal_likelihood(idata)[:, None], np.zeros(1))
    assert abs(z_evidence[0]) < Z_TOL_EVIDENCE, z_evidence


# ------------------------------------------------------------------------------------------
# pseudo-marginal: an unbiased noisy estimate of a Gaussian likelihood (log-noise sd 0.8)
Y_PM = np.array([1.0, -0.5])
NOISE_SD = 0.8


def noisy_model() -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=2)
        loglike = pm.logp(pm.Normal.dist(x, 1.0), Y_PM).sum()
        noise = pm.Normal.dist(0.0, 1.0)
        noisy_potential("loglike", loglike + NOISE_SD * noise - NOISE_SD**2 / 2)
    return model


def test_pseudo_marginal_moments_and_evidence():
    idata = run_smc(noisy_model(), seed=14)
    mean, variance = Y_PM / 2, np.full(2, 0.5)
    quantiles = {q: mean + math.sqrt(0.5) * stats.norm.ppf(q) for q in QUANTILES}
    z = summary_z(stacked(idata, ["x"]), mean, variance, quantiles)
    assert np.max(np.abs(z)) < Z_TOL, np.round(z, 2)
    log_z = stats.norm(0.0, math.sqrt(2.0)).logpdf(Y_PM).sum()
    z_evidence = between_run_z(final_log_marginal_likelihood(idata)[:, None], np.array([log_z]))
    assert abs(z_evidence[0]) < Z_TOL_EVIDENCE, z_evidence
