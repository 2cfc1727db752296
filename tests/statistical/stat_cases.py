"""The statistical test cases: a model with an exact answer, a step, a budget and a seed.

One registry serves the tests (``test_stat_*.py``) and the seed sweep
(``seed_sweep.py`` beside it), so the sweep measures exactly what the tests check. Every case
compares sample means, variances and quantiles with exact values in Monte Carlo standard errors
(:func:`pymc_kameleon.diagnostics.mcse_zscores`); the heavy-tailed cases compare the tail masses
beyond exact 5 % and 95 % quantiles instead of quantiles (:func:`heavy_tail_zscores`). A test
passes when every ``|z| < Z_TOL``. A negative control is a deliberately wrong sampler that the
same check must reject by more than ``2 * Z_TOL``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pymc.blocking import DictToArrayBijection, RaveledVars
from scipy import integrate, optimize, stats
from scipy.special import digamma, polygamma

from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    PooledAdaptiveMetropolis,
    PooledKameleonStep,
    estimator_potential,
    noisy_potential,
)
from pymc_kameleon._compat import ess_array, mcse_array, rhat_array
from pymc_kameleon.bench.problems import random_affine_map
from pymc_kameleon.core import start_up as core_start_up
from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.proposals import (
    AdaptiveCovarianceProposal,
    KameleonProposal,
    MixtureProposal,
    Proposal,
)
from pymc_kameleon.core.proposals.independence import IndependenceProposal
from pymc_kameleon.diagnostics import ZScores, mcse_zscores
from pymc_kameleon.step_methods.adaptive_mh import AdaptiveMHStep
from pymc_kameleon.targets import MIXTURES, weight_zscores

Z_TOL = 4.0
QUANTILES = (0.1, 0.5, 0.9)
CHAINS = 4


@dataclass(frozen=True)
class Truth:
    """Exact mean, variance and quantiles of every coordinate of ``x``.

    With ``tails`` (exact quantiles by probability ``p``) the case compares, instead of the
    quantiles, the fraction of draws below the ``p`` quantile (``p < 0.5``) or above it, with
    ``p`` or ``1 - p`` (:func:`heavy_tail_zscores`); a NaN variance is not compared.
    """

    mean: np.ndarray
    variance: np.ndarray
    quantiles: dict[float, np.ndarray]
    tails: dict[float, np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class StatCase:
    """One statistical check: sample ``model()`` with ``step()`` and compare with ``truth()``."""

    name: str
    model: Callable[[], pm.Model]
    step: Callable[[], Any]
    truth: Callable[[], Truth]
    tune: int
    draws: int
    seed: int
    negative_control: bool = False
    checks: tuple[Callable[[Any], None], ...] = field(default=())


def sample(case: StatCase, seed: int):
    """Run the case's sampler at ``seed`` (4 chains, one after another in this process)."""
    # cores=1: the chains are the same draw for draw as with cores=2 (tests/integration and
    # tests/step_methods check it for every step and for pooled warm-up), so the seed sweep's
    # budgets still hold, without worker processes competing with pytest-xdist's for 2 cores
    with case.model():
        return pm.sample(
            tune=case.tune,
            draws=case.draws,
            chains=CHAINS,
            cores=1,
            step=case.step(),
            random_seed=seed,
            progressbar=False,
            compute_convergence_checks=False,
        )


def draws_of(idata) -> np.ndarray:
    """Posterior draws of ``x`` as (chain, draw, d)."""
    return np.asarray(idata["posterior"]["x"].values)


def zscores(case: StatCase, idata) -> ZScores:
    """The case's z-scores for one run."""
    truth = case.truth()
    if truth.tails:
        return heavy_tail_zscores(draws_of(idata), truth)
    return mcse_zscores(
        draws_of(idata), mean=truth.mean, variance=truth.variance, quantiles=truth.quantiles
    )


def heavy_tail_zscores(draws: np.ndarray, truth: Truth) -> ZScores:
    """Means, variances (where finite) and tail masses against ``truth``, in MCSEs.

    The tail mass beyond an exact quantile is the mean of an indicator, so its MCSE is the
    indicator's (ArviZ's, from its autocorrelation): a chain that visits a heavy tail rarely
    but at length gets the wide MCSE it deserves only if it went there at all, so a thin tail
    shows as a missing mass. The variance is the mean of ``(x - mean)**2`` as in
    :func:`~pymc_kameleon.diagnostics.mcse_zscores` (it needs a finite fourth moment).
    """
    values, labels, ess = [], [], []

    def add(label: str, x: np.ndarray, exact: float) -> None:
        values.append((float(np.mean(x)) - exact) / float(mcse_array(x, "mean")))
        labels.append(label)
        ess.append(float(ess_array(x, "mean")))

    for j in range(draws.shape[-1]):
        xj = draws[..., j]
        add(f"mean[{j}]", xj, truth.mean[j])
        if np.isfinite(truth.variance[j]):
            add(f"var[{j}]", (xj - truth.mean[j]) ** 2, truth.variance[j])
        for prob, quantile in truth.tails.items():
            below = prob < 0.5
            beyond = (xj < quantile[j]) if below else (xj > quantile[j])
            side = "<" if below else ">"
            add(f"P(x{side}q{prob:g})[{j}]", beyond.astype(float), prob if below else 1.0 - prob)
    return ZScores(np.asarray(values), tuple(labels), np.asarray(ess))


def gaussian_truth(mean: np.ndarray, var: np.ndarray) -> Truth:
    sd = np.sqrt(var)
    return Truth(mean, var, {q: mean + sd * stats.norm.ppf(q) for q in QUANTILES})


# --------------------------------------------------------------------------------------------
# invariance of a frozen kernel
@dataclass(frozen=True)
class InvarianceCase:
    """Exactness of a tuned kernel, free of mixing: exact draws must stay exact.

    The step is tuned by the loop PyMC runs (``tune`` iterations with ``step.tune`` set, then
    ``stop_tuning``), then frozen. Each of ``n_starts`` independent exact draws is moved
    ``n_steps`` times by the frozen kernel; a kernel that leaves the posterior invariant maps
    exact draws to exact draws, so the endpoints are independent exact draws whatever the
    mixing, and their means, variances and quantiles are compared with the exact values in
    standard errors. A long-run test conflates a wrong kernel with a slowly mixing one (whose
    MCSE estimates are unreliable); this one isolates the first.
    """

    name: str
    model: Callable[[], pm.Model]
    step: Callable[[], Any]
    exact_sample: Callable[[int, int], np.ndarray]  # (n, seed) -> (n, d) exact draws
    truth: Callable[[], Truth]
    tune: int
    n_starts: int
    n_steps: int
    seed: int
    negative_control: bool = False
    # sets the step's stored state for an exact start x (pseudo-marginal: x with its noise drawn
    # from the law it has under the extended target); None: the step evaluates x itself
    exact_state: Callable[[Any, np.ndarray, np.random.Generator], None] | None = None


def tuned_step(case: InvarianceCase, seed: int):
    """The case's step after ``case.tune`` warm-up iterations from the initial point, frozen."""
    model = case.model()
    with model:
        step = case.step()
    step.set_rng(np.random.default_rng(seed))
    start = model.initial_point()
    q = DictToArrayBijection.map({v.name: start[v.name] for v in step.vars})
    step.tune = True
    for _ in range(case.tune):
        q, _ = step.astep(q)
    step.stop_tuning()
    step.tune = False
    return step, q.point_map_info


def invariance_draws(case: InvarianceCase, seed: int) -> np.ndarray:
    """Endpoints of ``n_steps`` frozen-kernel moves from exact starts, as (CHAINS, n, d)."""
    step, info = tuned_step(case, seed)
    starts = case.exact_sample(case.n_starts, seed + 1_000_003)
    noise_rng = np.random.default_rng(seed + 2_000_003)
    ends = np.empty_like(starts)
    for i, x in enumerate(starts):
        q = RaveledVars(np.array(x, dtype=float), info)
        if case.exact_state is not None:
            case.exact_state(step, q.data, noise_rng)
        for _ in range(case.n_steps):
            q, _ = step.astep(q)
        ends[i] = q.data
    # independent endpoints: split into CHAINS groups only to reuse the MCSE machinery
    return ends.reshape(CHAINS, -1, ends.shape[-1])


def invariance_zscores(case: InvarianceCase, draws: np.ndarray) -> ZScores:
    truth = case.truth()
    return mcse_zscores(draws, mean=truth.mean, variance=truth.variance, quantiles=truth.quantiles)


# --------------------------------------------------------------------------------------------
# a 5-D correlated Gaussian
def correlated_gaussian(dim: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(dim, dim))
    return 0.5 * np.arange(dim), a @ a.T / dim + 0.1 * np.eye(dim)


def gaussian_model() -> pm.Model:
    mean, cov = correlated_gaussian()
    with pm.Model() as model:
        pm.MvNormal("x", mu=mean, cov=cov)
    return model


def gaussian15_model() -> pm.Model:
    """A 15-D correlated Gaussian: the kernel term is about as global as it is local here, so
    ``KameleonStep()``'s locality measure stands the kernel move down in some chains."""
    mean, cov = correlated_gaussian(15, seed=15)
    with pm.Model() as model:
        pm.MvNormal("x", mu=mean, cov=cov)
    return model


def gaussian15_exact() -> Truth:
    mean, cov = correlated_gaussian(15, seed=15)
    return gaussian_truth(mean, np.diag(cov))


def gaussian_exact_sample(n: int, seed: int) -> np.ndarray:
    mean, cov = correlated_gaussian()
    return np.random.default_rng(seed).multivariate_normal(mean, cov, size=n)


def gaussian_exact() -> Truth:
    mean, cov = correlated_gaussian()
    return gaussian_truth(mean, np.diag(cov))


# --------------------------------------------------------------------------------------------
# 2-D banana B(b, v): X ~ N(0, diag(v, 1)), Y2 = X2 + b (X1^2 - v); mean 0, quantiles and
# variances from a large exact sample
def banana_model(b: float, v: float) -> pm.Model:
    with pm.Model() as model:
        x = pm.Flat("x", shape=2)
        y2 = x[1] - b * (x[0] ** 2 - v)
        pm.Potential("banana", -0.5 * (x[0] ** 2 / v + y2**2))
    return model


def banana_exact_sample(b: float, v: float, n: int = 2_000_000, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    x[:, 0] *= np.sqrt(v)
    x[:, 1] += b * (x[:, 0] ** 2 - v)
    return x


@functools.cache
def banana_exact(b: float, v: float) -> Truth:
    exact = banana_exact_sample(b, v)
    quantiles = {q: np.quantile(exact, q, axis=0) for q in QUANTILES}
    return Truth(np.zeros(2), exact.var(axis=0), quantiles)


def mapped_banana_model(b: float, v: float) -> pm.Model:
    """The 2-D banana sampled as ``y = M x`` under a fixed random affine map (a rotation times
    scales log-uniform in 1e-2..1e2, as a user's own parameterisation might be), ``x`` kept as
    a deterministic to be scored in the banana's coordinates."""
    inverse = np.linalg.inv(random_affine_map(2))
    with pm.Model() as model:
        y = pm.Flat("y", shape=2)
        x = pm.Deterministic("x", pt.dot(inverse, y))
        y2 = x[1] - b * (x[0] ** 2 - v)
        pm.Potential("banana", -0.5 * (x[0] ** 2 / v + y2**2))
    return model


def gaussianise_banana(y: np.ndarray, b: float, v: float) -> np.ndarray:
    out = np.array(y, dtype=float, copy=True)
    out[..., 1] = y[..., 1] - b * (y[..., 0] ** 2 - v)
    out[..., 0] = y[..., 0] / np.sqrt(v)
    return out


# --------------------------------------------------------------------------------------------
# pseudo-marginal: x ~ N(0, I_2), likelihood N(y | x, I_2) seen through the unbiased estimate
# p_hat = N(y | x, I) exp(s z - s^2 / 2), z ~ N(0, 1); the posterior is N(y / 2, I / 2)
Y_OBS = np.array([1.0, -0.5])
NOISE_SD = 1.2


def gaussian_log_likelihood(x):
    return pm.logp(pm.Normal.dist(x, 1.0), Y_OBS).sum()


def noisy_gaussian_estimate(theta: np.ndarray, rng: np.random.Generator) -> float:
    """NumPy black-box form of the estimate."""
    exact = -0.5 * float(np.sum((theta - Y_OBS) ** 2)) - np.log(2 * np.pi)
    return exact + NOISE_SD * rng.standard_normal() - NOISE_SD**2 / 2


def noisy_gaussian_model(form: str) -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=2)
        if form == "native":
            z = pm.Normal.dist(0.0, 1.0)
            noisy_potential("loglike", gaussian_log_likelihood(x) + NOISE_SD * z - NOISE_SD**2 / 2)
        else:
            estimator_potential("loglike", noisy_gaussian_estimate, x)
    return model


def noisy_gaussian_exact_sample(n: int, seed: int) -> np.ndarray:
    """Exact posterior draws N(y / 2, I / 2)."""
    rng = np.random.default_rng(seed)
    return Y_OBS / 2 + np.sqrt(0.5) * rng.normal(size=(n, 2))


def native_exact_state(step, x: np.ndarray, rng: np.random.Generator) -> None:
    """Store ``x`` with noise from its law under the extended target, and that estimate.

    The pseudo-marginal chain targets ``p(x) N(z) exp(s z - s^2 / 2)``: given ``x`` the noise
    is ``z ~ N(s, 1)``, not ``N(0, 1)`` (an exact ``x`` with fresh noise is not an exact state).
    """
    noise = [np.asarray(rng.normal(NOISE_SD, 1.0))]
    step.x_current = np.array(x, copy=True)
    step.noise_current = noise
    step.logp_current = step.density.noisy(step.x_current, noise)  # the step's own f(x, u)


NOISE_CHECK_TAIL = 5e-5  # per side: 1e-4 false failures per run


def check_noise_sd(idata, tune: int, interval: int = 100, repeats: int = 4) -> None:
    """The chains' ``noise_sd`` stats agree with ``NOISE_SD`` by a chi-square test.

    The stat pools ``repeats`` fresh estimates at the current state, taken at the first
    iteration and every ``interval`` warm-up iterations, around each check's own mean: with
    Gaussian noise ``noise_sd**2 * dof / NOISE_SD**2`` is chi-square with ``dof`` degrees of
    freedom, independently in each chain, so their sum over the chains is chi-square with
    ``chains * dof``. (A fixed ``|noise_sd - NOISE_SD| < 0.5`` per chain failed 1 of 24 sweep
    seeds at 1.72; the pooled test also rejects a noise_sd off by a factor sqrt(2).)
    """
    dof = (1 + (tune - 1) // interval) * (repeats - 1)
    noise_sd = idata["sample_stats"]["noise_sd"].values[:, -1]
    total, total_dof = float(np.sum(noise_sd**2)) * dof / NOISE_SD**2, dof * noise_sd.size
    low, high = stats.chi2.ppf([NOISE_CHECK_TAIL, 1 - NOISE_CHECK_TAIL], total_dof)
    assert low < total < high, (noise_sd, NOISE_SD * np.sqrt(np.array([low, high]) / total_dof))


def mixture_truth(name: str) -> Truth:
    """The exact mean and variance of a mixture of :data:`~pymc_kameleon.targets.MIXTURES`
    (no quantiles: a quantile in the gap between two modes has no useful MCSE)."""
    mixture = MIXTURES[name]
    return Truth(mixture.mean, mixture.variance, {})


def check_mixture_weights(idata, name: str) -> None:
    """The fraction of draws in each component within ``Z_TOL`` MCSEs of its weight, and the
    chains agreeing (R-hat at most 1.01): no converged-looking wrong answer (issue 46)."""
    draws = draws_of(idata)
    z = weight_zscores(MIXTURES[name], draws)
    assert z.max_abs < Z_TOL, f"component weights: {z.describe()}"
    rhat = float(np.max(rhat_array(draws)))
    assert rhat <= 1.01, f"R-hat {rhat:.4f}: the chains disagree"


# --------------------------------------------------------------------------------------------
# a heavy right tail on the log scale (issue 46): s ~ InverseGamma(alpha, 1), which PyMC samples
# as u = log s (an exponential right tail, exp(-alpha u), and a steep left one), with two
# companions: y | s ~ N(0, sqrt(s)), a funnel whose y is a Student t with 2 alpha degrees of
# freedom and scale sqrt(1 / alpha); and c | s ~ N(log s, RIDGE_SD), a narrow ridge along the
# tail (as log K_m and log V_m of the PK model move together). x = (log s, y, c).
HEAVY_ALPHA = 2.0
RIDGE_SD = 0.25
TAIL_PROBS = (0.05, 0.95)


def heavy_tail_model(alpha: float = HEAVY_ALPHA) -> pm.Model:
    with pm.Model() as model:
        s = pm.InverseGamma("s", alpha, 1.0)
        y = pm.Normal("y", 0.0, pm.math.sqrt(s))
        c = pm.Normal("c", pm.math.log(s), RIDGE_SD)
        pm.Deterministic("x", pm.math.stack([pm.math.log(s), y, c]))
    return model


def _ridge_tail_quantile(alpha: float, prob: float) -> float:
    """The ``prob`` quantile of c = u + N(0, RIDGE_SD^2) by quadrature over u = -log G."""
    gamma = stats.gamma(alpha)

    def cdf(q: float) -> float:
        # over g = exp(-u): P(c < q) = E_g Phi((q + log g) / RIDGE_SD)
        inner = lambda g: gamma.pdf(g) * stats.norm.cdf((q + math.log(g)) / RIDGE_SD)  # noqa: E731
        return integrate.quad(inner, 0.0, np.inf, limit=200, epsabs=1e-12)[0]

    return optimize.brentq(lambda q: cdf(q) - prob, -20.0, 20.0, xtol=1e-12)


@functools.cache
def heavy_tail_exact(alpha: float = HEAVY_ALPHA) -> Truth:
    """u = -log G with G ~ Gamma(alpha, 1); y ~ t(2 alpha, scale sqrt(1 / alpha)); c = u + noise.

    The variance of y (1 / (alpha - 1)) is not compared: its estimate needs E y^4, infinite at
    alpha <= 2.
    """
    gamma, t = stats.gamma(alpha), stats.t(2.0 * alpha, scale=math.sqrt(1.0 / alpha))
    tails = {
        p: np.array([-math.log(gamma.ppf(1.0 - p)), t.ppf(p), _ridge_tail_quantile(alpha, p)])
        for p in TAIL_PROBS
    }
    mean_u, var_u = -float(digamma(alpha)), float(polygamma(1, alpha))
    mean = np.array([mean_u, 0.0, mean_u])
    return Truth(mean, np.array([var_u, math.nan, var_u + RIDGE_SD**2]), {}, tails)


# --------------------------------------------------------------------------------------------
# negative controls (deliberately wrong samplers)
class ClaimsSymmetry(Proposal):
    """Test-only wrapper: a proposal that claims to be symmetric, so the step drops the Hastings
    term ``log q(x | x*) - log q(x* | x)`` (wrong for a state-dependent proposal)."""

    symmetric = True

    def __init__(self, inner: Proposal) -> None:
        self.inner = inner
        self.stats_dtypes = inner.stats_dtypes

    def propose(self, x, rng):
        return self.inner.propose(x, rng)

    def log_density(self, to, frm):
        return self.inner.log_density(to, frm)

    def learn(self, transition, rng):
        self.inner.learn(transition, rng)

    def end_warmup(self):
        self.inner.end_warmup()

    def plan_warmup(self, warmup_length, rng=None):
        self.inner.plan_warmup(warmup_length, rng)

    def review(self, outcome):
        return self.inner.review(outcome)

    def observe(self, states, iteration, rng):
        self.inner.observe(states, iteration, rng)

    def __getattr__(self, name):
        # what a step reads of its own proposal (KMC's learner, coordinates, ...)
        if name == "inner":  # (not yet set: a copy or an unpickling in progress)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def reset(self):
        self.inner.reset()

    def stats(self):
        return self.inner.stats()


def without_hastings(step: AdaptiveMHStep) -> AdaptiveMHStep:
    """The step with its proposal wrapped in :class:`ClaimsSymmetry` (wrong)."""
    step.proposal = ClaimsSymmetry(step.proposal)
    return step


def kameleon_am_mixture(kameleon_weight: float = 0.8) -> AdaptiveMHStep:
    """Metropolis–Hastings over a Kameleon (bandwidth 1) + adaptive-covariance mixture."""

    def make(dim: int) -> MixtureProposal:
        kameleon = KameleonProposal(dim, kernel=GaussianKernel(1.0), median_bandwidth=False)
        covariance = AdaptiveCovarianceProposal(dim)
        return MixtureProposal([(kameleon, kameleon_weight), (covariance, 1.0 - kameleon_weight)])

    return AdaptiveMHStep(proposal=make)


class KMCAcceptingWithSurrogate(KMCStep):
    """The Metropolis test of a trajectory uses the surrogate, not the target (wrong)."""

    def _decide(self, x, x_new, logp_new, log_q_forward):
        run = self.proposal.trajectory.last
        if self.proposal.chosen != "trajectory" or self.surrogate is None:
            return super()._decide(x, x_new, logp_new, log_q_forward)
        if not math.isfinite(logp_new):
            return super()._decide(x, x_new, logp_new, log_q_forward)
        # the trajectory runs in the surrogate's coordinates: its change stands in for the target's
        change = self.surrogate.value(run.result.q) - self.surrogate.value(run.start)
        return super()._decide(x, x_new, self.logp_current + change, log_q_forward)


class _IndependenceWithoutHastings(IndependenceProposal):
    """Test-only: reports ``log q = 0`` both ways, so the step drops the independence move's
    Hastings term ``log q(x) - log q(x')`` (wrong: the chain then favours where the t is
    dense, and its tails come out too thin at a high ESS)."""

    def propose(self, x, rng):
        return super().propose(x, rng)[0], 0.0

    def log_density(self, to, frm):
        return 0.0


class IndependenceWithoutHastings(AdaptiveMetropolis):
    """AdaptiveMetropolis whose independence moves have no Hastings term (wrong)."""

    def mix_independence(self, anchors):
        super().mix_independence(anchors)
        mixing = getattr(self.proposal, "independence", None)
        if mixing is not None:
            mixing.proposal.__class__ = _IndependenceWithoutHastings


class _StateDependentDefensiveWeight(IndependenceProposal):
    """Test-only: after warm-up the wide copies' weight depends on the current state (0.95 where
    it lies beyond one whitened unit of the map's centre in some coordinate, 0.02 inside),
    while the Hastings terms are those of the fixed mixture (wrong: the kernel from a state in
    the tail is not the one the ratio divides by, and the chain lingers in the tails)."""

    def propose(self, x, rng):
        if self.wide_scale == 1.0:
            return super().propose(x, rng)
        fixed = self.wide_weight
        u = self.maps[-1].to_kernel(np.asarray(x, dtype=float)[None, :])
        self.wide_weight = 0.95 if float(np.max(np.abs(u))) > 1.0 else 0.02
        try:
            x_new = super().propose(x, rng)[0]
        finally:
            self.wide_weight = fixed
        return x_new, self.log_density(x_new, x)


class StateDependentDefensiveWeight(AdaptiveMetropolis):
    """AdaptiveMetropolis whose defensive weight follows the current state (wrong)."""

    def mix_independence(self, anchors):
        super().mix_independence(anchors)
        mixing = getattr(self.proposal, "independence", None)
        if mixing is not None:
            mixing.proposal.__class__ = _StateDependentDefensiveWeight


def without_modes(step_cls: type) -> type:
    """``step_cls`` as on a posterior whose start-up finds no mode (a saddle, or out of budget):
    the modes it found are not handed on, so its independence moves follow the windows only."""

    class WithoutModes(step_cls):
        def mix_independence(self, anchors):
            super().mix_independence([])

    WithoutModes.__name__ = f"{step_cls.__name__}WithoutModes"
    return WithoutModes


#: the published KameleonStep, in the model's units (the default warm-up is the whitened one)
ClassicKameleon = functools.partial(KameleonStep, warmup="classic")


class MonteCarloWithinMetropolis(KameleonStep):
    """Re-estimates the current state every iteration (biased on pseudo-marginal models)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{"warmup": "classic", **kwargs})

    def refresh_current(self, x0):
        self.x_current = None  # forget the stored estimate: a fresh one with new noise (wrong)
        return super().refresh_current(x0)


def _highest_anchor_only(result) -> list:
    return [(result.modes[0].mode, result.modes[0].covariance, 1.0)] if result.modes else []


class HighestModeStart(AdaptiveMetropolis):
    """The start-up before issue 46: every chain starts at the highest mode its climbs found,
    with independence moves about that mode alone (wrong on a mixture: the lighter modes' mass
    is lost in every chain alike). AdaptiveMetropolis, whose moves cannot cross twelve sds; a
    KMCStep's trajectories on a surrogate that is flat far from its history sometimes do."""

    def _start_up(self):
        with (
            mock.patch.object(core_start_up, "draw_mode", lambda shares, rng: 0),
            mock.patch.object(core_start_up.StartUp, "anchors", _highest_anchor_only),
        ):
            return super()._start_up()


# --------------------------------------------------------------------------------------------
def mixture_case(name: str, mixture: str, step, prior_sd=None, tune=2000) -> StatCase:
    """Issue 46: a mixture of known weights, sampled with a step at its defaults; its check is
    :func:`check_mixture_weights`."""
    return StatCase(
        name, model=functools.partial(MIXTURES[mixture].model, prior_sd=prior_sd), step=step,
        truth=functools.partial(mixture_truth, mixture), tune=tune, draws=4000, seed=20261128,
        checks=(functools.partial(check_mixture_weights, name=mixture),),
    )  # fmt: skip


def _cases() -> dict[str, StatCase]:
    gaussian = {"model": gaussian_model, "truth": gaussian_exact, "seed": 20261121}
    kamh_budget = {"tune": 2000, "draws": 8000}
    kmc_budget = {"tune": 2000, "draws": 6000}
    post_var = np.full(2, 0.5)
    pm_truth = functools.partial(gaussian_truth, Y_OBS / 2, post_var)
    noisy = {"truth": pm_truth, "tune": 1000, "draws": 15000, "seed": 20261121,
             "checks": (functools.partial(check_noise_sd, tune=1000),)}  # fmt: skip
    native = functools.partial(noisy_gaussian_model, "native")
    blackbox = functools.partial(noisy_gaussian_model, "blackbox")
    mapped_banana = {"model": functools.partial(mapped_banana_model, 0.03, 100.0),
                     "truth": functools.partial(banana_exact, 0.03, 100.0), "tune": 2000,
                     "draws": 4000, "seed": 20261128}  # fmt: skip
    heavy = {"model": heavy_tail_model, "truth": heavy_tail_exact, "tune": 1000, "draws": 3000,
             "seed": 20261128}  # fmt: skip
    cases = [
        StatCase("gaussian-kameleon", step=ClassicKameleon, **gaussian, **kamh_budget),
        StatCase("gaussian-kameleon-bandwidth1",
                 step=lambda: ClassicKameleon(bandwidth=1.0), **gaussian, **kamh_budget),
        StatCase("gaussian-kameleon-vanishing",
                 step=lambda: ClassicKameleon(adaptation="vanishing"), **gaussian, **kamh_budget),
        StatCase("gaussian-am-ls",
                 step=lambda: AdaptiveMetropolis(scale="learn"), **gaussian, **kamh_budget),
        StatCase("gaussian-am-fs",
                 step=lambda: AdaptiveMetropolis(scale="fixed"), **gaussian, **kamh_budget),
        StatCase("gaussian-kameleon-whitened",
                 step=lambda: KameleonStep(warmup="whitened"), **gaussian, **kamh_budget),
        StatCase("gaussian-am-classic",
                 step=lambda: AdaptiveMetropolis(warmup="classic"), **gaussian, **kamh_budget),
        StatCase("gaussian-kameleon-no-hastings",
                 step=lambda: without_hastings(ClassicKameleon(bandwidth=1.0)),
                 negative_control=True, **gaussian, **kamh_budget),
        # issue 50: PCA-Kameleon, published warm-up, and its reverse density dropped
        StatCase("gaussian-kameleon-pca",
                 step=lambda: ClassicKameleon(proposal="pca"), **gaussian, **kamh_budget),
        StatCase("gaussian-kameleon-pca-no-hastings",
                 step=lambda: without_hastings(ClassicKameleon(proposal="pca", bandwidth=1.0)),
                 negative_control=True, **gaussian, **kamh_budget),
        # issue 50: the default where the kernel's locality is borderline (moves stand down)
        StatCase("gaussian15-kameleon", model=gaussian15_model, truth=gaussian15_exact,
                 step=KameleonStep, tune=3000, draws=4000, seed=20261128),
        StatCase("gaussian-mixture-kameleon-am", step=kameleon_am_mixture,
                 **gaussian, **kamh_budget),
        StatCase("gaussian-mixture-kameleon-am-no-hastings",
                 step=lambda: without_hastings(kameleon_am_mixture()), negative_control=True,
                 **gaussian, **kamh_budget),
        StatCase("gaussian-kmc-lite",
                 step=lambda: KMCStep(warmup="classic", estimator="lite"),
                 **gaussian, **kmc_budget),
        StatCase("gaussian-kmc-finite",
                 step=lambda: KMCStep(warmup="classic", estimator="finite"),
                 **gaussian, **kmc_budget),
        StatCase("gaussian-kmc-whitened",
                 step=lambda: KMCStep(warmup="whitened"), **gaussian, **kmc_budget),
        # warm-up pooled across the 4 chains (population sampling on 2 processes)
        StatCase("gaussian-am-pooled",
                 step=PooledAdaptiveMetropolis, **gaussian, **kamh_budget),
        StatCase("gaussian-kameleon-whitened-pooled",
                 step=lambda: PooledKameleonStep(warmup="whitened"),
                 **gaussian, **kamh_budget),
        # twice the draws of its positive twin: at 8000 one of 12 seeds reached only 7.4
        StatCase("gaussian-kameleon-whitened-pooled-no-hastings",
                 step=lambda: without_hastings(
                     PooledKameleonStep(warmup="whitened", bandwidth=1.0)),
                 negative_control=True, **gaussian, **{**kamh_budget, "draws": 16000}),
        # KMCStep() pools its warm-up (gaussian-kmc-whitened is the default): the same step
        # without the trajectories' momentum terms in the test
        StatCase("gaussian-kmc-default-no-hastings",
                 step=lambda: without_hastings(KMCStep()), negative_control=True,
                 **gaussian, **kmc_budget),
        # issue 48: a curved posterior in the user's own (affine-mapped) parameterisation
        StatCase("banana-mapped-kmc", step=KMCStep, **mapped_banana),
        StatCase("banana-mapped-kmc-no-hastings", step=lambda: without_hastings(KMCStep()),
                 negative_control=True, **mapped_banana),
        StatCase("pm-kameleon-blackbox", model=blackbox, step=ClassicKameleon, **noisy),
        StatCase("pm-kameleon-whitened-blackbox", model=blackbox,
                 step=lambda: KameleonStep(warmup="whitened"), **noisy),
        StatCase("pm-kameleon-pca-blackbox", model=blackbox,
                 step=lambda: KameleonStep(proposal="pca"), **noisy),
        StatCase("pm-am-pooled-blackbox", model=blackbox,
                 step=PooledAdaptiveMetropolis, **noisy),
        # one KMC pseudo-marginal case, the default warm-up: the classic and pooled warm-ups
        # keep the current estimate through the same code (dropped to keep CI under 30 minutes)
        StatCase("pm-kmc-whitened-blackbox", model=blackbox,
                 step=lambda: KMCStep(warmup="whitened", n_steps_range=(5, 20)), **noisy),
        StatCase("pm-monte-carlo-within-metropolis", model=native,
                 step=MonteCarloWithinMetropolis, negative_control=True, **noisy),
        # issue 46: separate modes of known weights, each step at its defaults
        mixture_case("mixture-two-kmc", "two-0.3", KMCStep),
        mixture_case("mixture-two-kameleon", "two-0.3", KameleonStep),
        mixture_case("mixture-two-am", "two-0.3", AdaptiveMetropolis),
        mixture_case("mixture-three-kmc", "three", KMCStep, prior_sd=10.0),
        # the narrow component's basin holds 4 % of the prior: the screening a 3000-iteration
        # warm-up pays for misses it in 0.03 % of chains (2000: 0.5 %)
        mixture_case("mixture-widths-kameleon", "widths", KameleonStep, prior_sd=10.0,
                     tune=3000),
        mixture_case("mixture-three-am", "three", AdaptiveMetropolis, prior_sd=10.0),
        # a heavy right tail (issue 46): the sd of log s and the tail masses of log s and y
        StatCase("heavy-tail-kameleon", step=KameleonStep, **heavy),
        StatCase("heavy-tail-am", step=AdaptiveMetropolis, **heavy),
        StatCase("heavy-tail-kmc", step=KMCStep, **heavy),
        StatCase("heavy-tail-am-independence-no-hastings", step=IndependenceWithoutHastings,
                 negative_control=True, **heavy),
        # issue 69: independence moves about the windows' moments only (no start-up mode)
        StatCase("heavy-tail-am-without-modes", step=without_modes(AdaptiveMetropolis), **heavy),
        StatCase("heavy-tail-kameleon-without-modes", step=without_modes(KameleonStep), **heavy),
        StatCase("heavy-tail-am-without-modes-no-hastings",
                 step=without_modes(IndependenceWithoutHastings), negative_control=True,
                 **heavy),
        # the defensive weight must not depend on the state without its Hastings term
        StatCase("heavy-tail-am-state-dependent-defensive-weight",
                 step=StateDependentDefensiveWeight, negative_control=True, **heavy),
    ]  # fmt: skip
    return {case.name: case for case in cases}


CASES: dict[str, StatCase] = _cases()


#: KMCStep whose kept moves are all trajectories of one frozen surrogate
KMC_TRAJECTORIES_ONLY = {"warmup": "whitened", "independence": "warmup", "adaptation": "tune"}


def _invariance_cases() -> dict[str, InvarianceCase]:
    b4 = {
        "model": functools.partial(banana_model, 0.1, 4.0),
        "exact_sample": lambda n, seed: banana_exact_sample(0.1, 4.0, n, seed),
        "truth": functools.partial(banana_exact, 0.1, 4.0),
        "tune": 1500,
        "n_starts": 8000,
        "n_steps": 20,
        "seed": 7,
    }
    b25 = {
        **b4,
        "model": functools.partial(banana_model, 0.1, 25.0),
        "exact_sample": lambda n, seed: banana_exact_sample(0.1, 25.0, n, seed),
        "truth": functools.partial(banana_exact, 0.1, 25.0),
        "tune": 3000,
    }
    native = {
        **b4,
        "model": functools.partial(noisy_gaussian_model, "native"),
        "exact_sample": noisy_gaussian_exact_sample,
        "truth": functools.partial(gaussian_truth, Y_OBS / 2, np.full(2, 0.5)),
        "tune": 1000,
        "seed": 20261121,
        "exact_state": native_exact_state,
    }
    gauss = {
        **b4,
        "model": gaussian_model,
        "exact_sample": gaussian_exact_sample,
        "truth": gaussian_exact,
        "tune": 2000,
        "seed": 20261121,
    }
    cases = [
        InvarianceCase("gaussian-kameleon-matern52-invariance",
                       step=lambda: ClassicKameleon(kernel="matern52"), **gauss),
        InvarianceCase("gaussian-kameleon-matern52-no-hastings-invariance",
                       step=lambda: without_hastings(
                           ClassicKameleon(kernel="matern52", bandwidth=1.0)),
                       negative_control=True, **gauss),
        InvarianceCase("banana25-kameleon-invariance", step=ClassicKameleon, **b25),
        InvarianceCase("banana25-am-ls-invariance", step=AdaptiveMetropolis, **b25),
        InvarianceCase("banana25-kameleon-whitened-invariance",
                       step=lambda: KameleonStep(warmup="whitened"), **b25),
        # twice the starts of its positive twin: at 8000 it reached only 8.7-16 over 10 seeds;
        # with the kernel move in 80 % of the iterations, as before issue 46 made it 50 % off a
        # Gaussian start-up (at 50 % the missing Hastings term showed only at 6.8)
        InvarianceCase("banana25-kameleon-whitened-no-hastings-invariance",
                       step=lambda: without_hastings(
                           KameleonStep(warmup="whitened", global_weight=0.2)),
                       negative_control=True, **{**b25, "n_starts": 16000}),
        InvarianceCase("banana25-kameleon-no-hastings-invariance",
                       step=lambda: without_hastings(ClassicKameleon()),
                       negative_control=True, **b25),
        InvarianceCase("banana25-kameleon-pca-invariance",
                       step=lambda: ClassicKameleon(proposal="pca"), **b25),
        InvarianceCase("banana25-kameleon-pca-no-hastings-invariance",
                       step=lambda: without_hastings(ClassicKameleon(proposal="pca")),
                       negative_control=True, **b25),
        InvarianceCase("pm-kameleon-native-invariance", step=ClassicKameleon, **native),
        # a long run here had rms z 1.26 over 12 seeds (sticky pseudo-marginal stretches make
        # its MCSEs unreliable): an estimated false-failure rate of 1.5 %
        InvarianceCase("pm-am-native-invariance", step=AdaptiveMetropolis, **native),
        InvarianceCase("banana4-kmc-lite-invariance",
                       step=lambda: KMCStep(warmup="classic", estimator="lite"), **b4),
        InvarianceCase("banana4-kmc-finite-invariance",
                       step=lambda: KMCStep(warmup="classic", estimator="finite"), **b4),
        # the trajectories' kernel alone, frozen (the defaults' vanishing adaptation and kept
        # independence moves are checked by the posterior cases; mixed with independence moves
        # the negative control below reached only max |z| 3.1)
        InvarianceCase("banana4-kmc-whitened-invariance",
                       step=lambda: KMCStep(**KMC_TRAJECTORIES_ONLY), **b4),
        # the surrogate in local-width coordinates (finite-difference scores in warm-up)
        InvarianceCase("banana4-kmc-local-invariance",
                       step=lambda: KMCStep(coordinates="local"), **b4),
        # the negative control of KMC's acceptance, on the default (whitened) path
        InvarianceCase("banana4-kmc-whitened-surrogate-accept-invariance",
                       step=lambda: KMCAcceptingWithSurrogate(**KMC_TRAJECTORIES_ONLY),
                       negative_control=True, **b4),
    ]  # fmt: skip
    return {case.name: case for case in cases}


INVARIANCE_CASES: dict[str, InvarianceCase] = _invariance_cases()


def names(prefix: str, negative: bool = False) -> list[str]:
    """Names of the cases that start with ``prefix`` (positive cases, or negative controls)."""
    return [n for n, c in CASES.items() if n.startswith(prefix) and c.negative_control == negative]
