"""
The banana: KameleonStep against PyMC's Metropolis
==================================================

Haario's banana B(b, v) bends a Gaussian: :math:`x_1 \\sim N(0, v)` and
:math:`x_2 \\mid x_1 \\sim N(b x_1^2 - b v, 1)`. No single covariance fits it, so a random walk
with a global proposal either takes tiny steps or is rejected in the arms. KameleonStep's proposal
is built at each state from the chain's own history, and bends with the posterior.

This page samples the 2-D banana B(0.1, 100) with :class:`~pymc_kameleon.KameleonStep` and with
``pm.Metropolis``, reads the diagnostics, and draws the proposals KameleonStep learned (the KAMH
paper's Figure 2) with :func:`~pymc_kameleon.plots.plot_proposals`.
"""

import os

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
import pymc as pm

from pymc_kameleon import KameleonStep
from pymc_kameleon.plots import plot_proposals
from pymc_kameleon.targets import banana_logp, banana_model

# Scale of the run: 1.0 is the full budget; the docs build uses 0.25 and the tests much less.
SCALE = float(os.environ.get("KAMELEON_EXAMPLE_SCALE", "1.0"))
TUNE, DRAWS = max(150, int(4000 * SCALE)), max(20, int(4000 * SCALE))

# %%
# The model
# ---------
# :func:`~pymc_kameleon.targets.banana_model` writes the banana as a PyMC model: a flat variable
# ``x`` of length ``d`` and a ``pm.Potential`` with the banana's log-density. Any PyMC model
# works the same way; this one has an exact answer to compare with.
model = banana_model(d=2, b=0.1, v=100.0)

# %%
# Sampling
# --------
# ``KameleonStep()`` replaces ``pm.Metropolis()``. It adapts during ``tune`` and then freezes, so
# the kept draws come from one fixed Metropolis–Hastings kernel. Here it runs the published
# algorithm, ``warmup="classic"``, in the model's own units: this banana is already on a
# scale of about 1, where the classic warm-up mixes about twice as fast as the default one
# (which first learns the posterior's scales and correlations, and is what real models need;
# see :doc:`/concepts/warmup`), and its proposals are the paper's Figure 2 below. ``cores=1``
# keeps the step object in this process, so that we can plot what it learned afterwards (it
# then holds the last chain's frozen proposal).
with model:
    kameleon = KameleonStep(warmup="classic")
    idata_kameleon = pm.sample(
        tune=TUNE, draws=DRAWS, chains=4, cores=1, step=kameleon, random_seed=1, progressbar=False
    )
    idata_metropolis = pm.sample(
        tune=TUNE,
        draws=DRAWS,
        chains=4,
        cores=1,
        step=pm.Metropolis(),
        random_seed=1,
        progressbar=False,
    )

# %%
# Reading the diagnostics
# -----------------------
# ``az.summary(..., kind="diagnostics")`` gives the Monte Carlo standard errors, the bulk and tail
# effective sample sizes (ESS) and R-hat of each coordinate. R-hat above 1.01 or an ESS below
# about 100 per chain means the run is too short to trust. ``ess_bulk`` is what a posterior mean
# is worth; ``ess_tail`` what the tail quantiles are worth (5 % and 95 % in ArviZ 0.x, 5.5 % and
# 94.5 % in ArviZ 1).
print("KameleonStep")
print(az.summary(idata_kameleon, kind="diagnostics"))
print("\npm.Metropolis")
print(az.summary(idata_metropolis, kind="diagnostics"))

# %%
# The exact banana has mean (0, 0) and standard deviations (10, sqrt(1 + 2 b^2 v^2) = 14.2).
# The sampler statistics tell what the step did: ``accept`` is the Metropolis–Hastings acceptance
# probability of each iteration (KameleonStep tunes it toward 0.234 during warm-up), ``scaling``
# is the learned :math:`\nu^2` and ``bandwidth`` the kernel length scale, both frozen after
# warm-up.
stats = idata_kameleon["sample_stats"]
print("posterior sd:", idata_kameleon["posterior"]["x"].std(("chain", "draw")).values.round(2))
print("mean acceptance:", float(stats["accept"].mean()).__round__(3))
print("nu^2 per chain:", stats["scaling"].values[:, -1].round(3))
print("bandwidth per chain:", stats["bandwidth"].values[:, -1].round(2))
print("log-density evaluations per draw:", float(stats["logp_evals"].mean()))

# %%
# The draws over the exact density
# --------------------------------
grid = np.linspace(-35, 35, 200), np.linspace(-45, 15, 200)
xx, yy = np.meshgrid(*grid)
density = np.exp(banana_logp(np.column_stack([xx.ravel(), yy.ravel()]), b=0.1, v=100.0))

fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharex=True, sharey=True, layout="constrained")
for ax, (name, idata) in zip(
    axes, (("KameleonStep", idata_kameleon), ("pm.Metropolis", idata_metropolis)), strict=True
):
    draws = idata["posterior"]["x"].values.reshape(-1, 2)
    ax.contour(xx, yy, density.reshape(xx.shape), levels=6, colors="0.6")
    ax.plot(draws[:, 0], draws[:, 1], ".", ms=1.5, alpha=0.4)
    ess = float(az.ess(idata)["x"].min())
    ax.set_title(f"{name}: min bulk ESS {ess:.0f} of {draws.shape[0]} draws")
    ax.set_xlabel("x[0]")
axes[0].set_ylabel("x[1]")

# %%
# What KameleonStep learned: the KAMH paper's Figure 2
# ----------------------------------------------------
# At a state :math:`y` the proposal is :math:`N(y, \gamma^2 I + \nu^2 M_y H M_y^\top)`, where
# the columns of :math:`M_y` are kernel gradients between :math:`y` and the history subsample
# :math:`z` (the grey points). Each ellipse is the 95 % region of the proposal at one state:
# along the arm it is long and thin and follows the curve; at the bend it is round.
fig, ax = plt.subplots(figsize=(6.5, 5), layout="constrained")
plot_proposals(kameleon, n_states=5, ax=ax, rng=3)
ax.set_title("KameleonStep proposals (95 %) on B(0.1, 100)")
plt.show()
