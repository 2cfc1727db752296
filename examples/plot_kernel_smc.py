"""
Two separated modes: kernel SMC against single chains
=====================================================

A posterior with two modes far apart is where a random-walk chain fails without saying so: it
settles in the mode it reaches first and, with Gaussian proposals tuned to that mode, practically
never proposes a jump to the other one. Within the chain the draws look well mixed, and the
weight of each mode is decided by where the chain started.

Sequential Monte Carlo (SMC) does not rely on one chain crossing. ``pm.sample_smc`` starts from
many particles drawn from the prior, which cover both modes, and tempers the likelihood in from
:math:`\\beta = 0` to :math:`\\beta = 1`; at every stage it reweights and resamples the particles,
so the share of particles in each mode follows the posterior's weights, and the weights give an
estimate of the marginal likelihood (the evidence) along the way. Between stages a Markov kernel
moves the particles. :class:`~pymc_kameleon.KameleonSMC` is kernel SMC (Schuster, Strathmann,
Paige and Sejdinovic, 2017): its moves are Kameleon proposals built from the current population
(see :doc:`/concepts/kernel-smc`).

This page runs :class:`~pymc_kameleon.KameleonStep` chains on a two-mode posterior whose mode
weights and evidence are known exactly, then ``pm.sample_smc`` with ``KameleonSMC`` and with
PyMC's ``IMH`` and ``MH`` kernels, reads KameleonSMC's per-stage statistics with
:func:`~pymc_kameleon.smc.stage_stat`, and ends with the SMC-to-MCMC pipeline
:func:`~pymc_kameleon.initial_history_from_smc`.
"""

import os

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
import pymc as pm
import pytensor.tensor as pt

from pymc_kameleon import KameleonSMC, KameleonStep, initial_history_from_smc
from pymc_kameleon.smc import final_log_marginal_likelihood, stage_stat

# Scale of the run: 1.0 is the full budget; the docs build uses 0.25 and the tests much less.
SCALE = float(os.environ.get("KAMELEON_EXAMPLE_SCALE", "1.0"))
TUNE, DRAWS = max(150, int(2000 * SCALE)), max(50, int(2000 * SCALE))
PARTICLES = max(50, int(1000 * SCALE))  # particles per SMC chain (pm.sample_smc's ``draws``)
SMC_CHAINS = 4 if SCALE >= 0.5 else 2

# %%
# A posterior with two modes and a known answer
# ---------------------------------------------
# The prior is a proper :math:`x \sim N(0, 5^2 I)` in two dimensions (SMC starts from prior
# draws, so it needs a prior it can sample). A ``pm.Potential`` adds the log of the mixture
# :math:`0.3\, N((-4, -4), I) + 0.7\, N((4, 4), I)` minus the prior's log-density, so the
# posterior is exactly that mixture, and since the mixture is normalised the evidence
# :math:`\int p(x)\, L(x)\, dx` is exactly 1: the log marginal likelihood is 0. The modes are
# :math:`8\sqrt 2 \approx 11.3` standard deviations apart, and the line :math:`x_0 + x_1 = 0`
# separates them.
WEIGHTS = np.array([0.3, 0.7])
MEANS = np.array([[-4.0, -4.0], [4.0, 4.0]])
PRIOR_SD = 5.0


def mixture_logpdf(points):
    """Exact log-density of the mixture at rows of ``points`` (NumPy, for plots)."""
    points = np.atleast_2d(points)
    parts = [
        np.log(w) - 0.5 * np.sum((points - m) ** 2, axis=-1) - np.log(2 * np.pi)
        for w, m in zip(WEIGHTS, MEANS, strict=True)
    ]
    return np.logaddexp(*parts)


def low_mode_fraction(draws):
    """Share of the draws (rows) in the (-4, -4) mode."""
    draws = np.asarray(draws).reshape(-1, 2)
    return float(np.mean(draws.sum(axis=1) < 0.0))


with pm.Model() as model:
    x = pm.Normal("x", 0.0, PRIOR_SD, shape=2)
    components = [
        np.log(w) - 0.5 * pt.sum((x - m) ** 2) - np.log(2 * np.pi)
        for w, m in zip(WEIGHTS, MEANS, strict=True)
    ]
    prior_logp = pt.sum(pm.logp(pm.Normal.dist(0.0, PRIOR_SD), x))
    pm.Potential("mixture", pm.math.logsumexp(pt.stack(components)) - prior_logp)

# %%
# Single chains get stuck
# -----------------------
# Four ``KameleonStep`` chains, each started from its own draw of the prior (an over-dispersed
# start, as R-hat expects). Each proposal is learned from the chain's own history, which lies in
# one mode, so a jump of eleven standard deviations to the other is practically never proposed.
starts = np.random.default_rng(5).normal(0.0, PRIOR_SD, size=(4, 2))
with model:
    idata_mcmc = pm.sample(
        tune=TUNE,
        draws=DRAWS,
        chains=4,
        cores=1,
        step=KameleonStep(),
        initvals=[{"x": start} for start in starts],
        random_seed=1,
        progressbar=False,
        compute_convergence_checks=False,
    )
chains_mcmc = idata_mcmc["posterior"]["x"].values
for chain, start in enumerate(starts):
    print(
        f"chain {chain}: started at {start.round(1)}, "
        f"share in the (-4, -4) mode {low_mode_fraction(chains_mcmc[chain]):.2f}"
    )
print(f"pooled share in the (-4, -4) mode: {low_mode_fraction(chains_mcmc):.2f} (exact 0.30)")
print("R-hat of x:", az.rhat(idata_mcmc)["x"].values.round(2))

# %%
# Each chain's share is 0 or 1: the pooled weight of the low mode is the fraction of chains that
# settled in it, whatever the posterior says. When the chains disagree R-hat shows it;
# had every start fallen on the same side, they would agree on a wrong answer and R-hat would
# stay near 1.
#
# Sequential Monte Carlo with three kernels
# -----------------------------------------
# Each kernel is passed to ``pm.sample_smc`` as ``kernel=``, with the same number of particles
# and the same seed. PyMC's ``IMH`` moves particles with an independent proposal (a Gaussian fitted
# to the population), ``MH`` with a random walk whose covariance is the population's;
# ``KameleonSMC`` with the Kameleon proposal mixed with such a random walk. All three reweight and
# resample the same way; they differ in how they move the particles within a stage.
kernels = {
    "KameleonSMC": KameleonSMC,
    "pm.smc.kernels.IMH": pm.smc.kernels.IMH,
    "pm.smc.kernels.MH": pm.smc.kernels.MH,
}
smc = {}
for name, kernel in kernels.items():
    with model:
        smc[name] = pm.sample_smc(
            draws=PARTICLES,
            kernel=kernel,
            chains=SMC_CHAINS,
            cores=1,
            random_seed=3,
            progressbar=False,
            compute_convergence_checks=False,
        )

for name, idata in smc.items():
    particles = idata["posterior"]["x"].values  # (chain, particle, 2)
    shares = [low_mode_fraction(chain) for chain in particles]
    log_z = final_log_marginal_likelihood(idata)
    print(name)
    print("  share in the (-4, -4) mode per chain:", np.round(shares, 3), "(exact 0.3)")
    print("  log marginal likelihood per chain:   ", np.round(log_z, 3), "(exact 0)")
    if "logp_evals" in idata["sample_stats"]:
        evals = [int(np.nansum(chain)) for chain in stage_stat(idata, "logp_evals")]
        print("  log-density evaluations per chain:   ", evals)
    else:
        print("  log-density evaluations: not reported by this kernel")

# %%
# The particles of the three runs over the exact density: every kernel keeps both modes. The
# SMC particles are equally weighted draws (the last resampling happens at :math:`\beta = 1`), so
# their share in each mode is the estimate of the mode's weight. Its Monte Carlo error is at
# least :math:`\sqrt{0.3 \cdot 0.7 / n}`, that of :math:`n` independent draws (0.029 for 250
# particles, 0.014 for 1000); the particles of one run are not independent, so expect more.
grid = np.linspace(-9, 9, 200)
xx, yy = np.meshgrid(grid, grid)
density = np.exp(mixture_logpdf(np.column_stack([xx.ravel(), yy.ravel()]))).reshape(xx.shape)

fig, axes = plt.subplots(1, 3, figsize=(13, 4.5), sharex=True, sharey=True, layout="constrained")
axes[0].set_ylabel("x[1]")
for ax, (name, idata) in zip(axes, smc.items(), strict=True):
    particles = idata["posterior"]["x"].values.reshape(-1, 2)
    ax.contour(xx, yy, density, levels=6, colors="0.6")
    ax.plot(particles[:, 0], particles[:, 1], ".", ms=2, alpha=0.5)
    ax.set_title(f"{name}\n(-4, -4) mode: {low_mode_fraction(particles):.2f} of the particles")
    ax.set_xlabel("x[0]")

# %%
# KameleonSMC's stages
# --------------------
# The per-stage statistics are in ``sample_stats``, one value per stage and chain; chains may
# need different numbers of stages, and :func:`~pymc_kameleon.smc.stage_stat` reads them as one
# array per chain. ``beta`` is the inverse temperature the stage reached, ``accept_rate`` the
# mean acceptance probability of its moves (the scale is adapted toward 0.234), ``n_steps`` the
# Metropolis–Hastings sweeps it made: sweeps go on until every coordinate's correlation with the
# stage's start is below 0.1 or has stopped falling, at most 30.
stats = {
    name: stage_stat(smc["KameleonSMC"], name)[0] for name in ("beta", "accept_rate", "n_steps")
}
stage = np.arange(1, len(stats["beta"]) + 1)
fig, axes = plt.subplots(1, 3, figsize=(11, 3), layout="constrained")
fig.suptitle("KameleonSMC, first chain")
for ax, (name, values) in zip(axes, stats.items(), strict=True):
    ax.plot(stage, values, "o-")
    ax.set_xlabel("stage")
    ax.set_title(name)
    ax.set_xticks(stage)
for name, values in stats.items():
    print(f"{name:12s}", np.round(values, 3))
plt.show()

# %%
# On this target the last stage needs the most sweeps. Most of a coordinate's spread across the
# particles is the distance between the modes, so its correlation with the stage's start falls
# only as particles change mode, and the sharper the modes, the rarer such moves; the rule stops
# when it stops falling, or at its cap of 30 sweeps. The sweeps in between also move the
# particles within their modes, and all of them count in ``logp_evals``.
#
# From SMC particles to an MCMC chain
# -----------------------------------
# :func:`~pymc_kameleon.initial_history_from_smc` turns the final particles into an
# ``initial_history`` for :class:`~pymc_kameleon.KameleonStep` or
# :class:`~pymc_kameleon.KMCStep`: the first proposal is built from them (their whitening, their
# median-heuristic bandwidth) instead of from a chain that has seen nothing yet.
idata_smc = smc["KameleonSMC"]
with model:
    history = initial_history_from_smc(idata_smc)
    idata_pipeline = pm.sample(
        step=KameleonStep(initial_history=history),
        tune=TUNE,
        draws=DRAWS,
        chains=2,
        cores=1,
        random_seed=4,
        progressbar=False,
        compute_convergence_checks=False,
    )
chains_pipeline = idata_pipeline["posterior"]["x"].values
print("history:", history.shape, f"rows, {low_mode_fraction(history):.2f} in the (-4, -4) mode")
for chain in range(chains_pipeline.shape[0]):
    side = chains_pipeline[chain].sum(axis=1) < 0.0
    print(
        f"pipeline chain {chain}: share in the (-4, -4) mode {side.mean():.2f}, "
        f"{int(np.sum(side[1:] != side[:-1]))} crossings between the modes in {side.size} draws"
    )
print(f"pooled: {low_mode_fraction(chains_pipeline):.2f} (exact 0.30)")
print("R-hat of x:", az.rhat(idata_pipeline)["x"].values.round(2))
print("bulk ESS of x:", az.ess(idata_pipeline)["x"].values.round(0))

# %%
# ``initial_history`` shapes the proposal, it does not move the chain. Here the history holds
# particles of both modes, so the kernel term built at a state also weighs particles of the other
# mode, and some proposals land there: the chains can cross (the crossings are counted above).
# Compare the crossings with the number of draws, though: each crossing is an accepted
# Metropolis–Hastings move the chain has to make on its own, and the share of each mode in a chain's
# draws is only as good as the number of crossings. The chains cannot reweight the modes the way the
# particles are reweighted, and nothing guarantees the jumps: how often they are proposed and
# accepted depends on how far apart the modes are relative to the proposal the history gives. For
# separated modes the answer is SMC's own output: the final particles (equally weighted after the
# last resampling) and its evidence estimate. The pipeline is for posteriors a single chain can
# traverse, curved or badly scaled ones, where a proposal learned from SMC particles spares the
# chain the part of its warm-up spent finding the posterior's shape.
