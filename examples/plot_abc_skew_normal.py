"""
Exact ABC with a simulator: the 10-D skew-normal
================================================

The KMC paper's ABC experiment. Data :math:`y \\mid \\theta` follow a 10-D skew-normal with
location :math:`\\theta` (shape parameter 1 in every coordinate); the observed summary is the mean
of 10 draws at :math:`\\theta_{true} = 10 \\cdot 1`, and the prior is N(0, 25 I). The likelihood
is unavailable. Each evaluation averages a normalised Gaussian ABC kernel (bandwidth 0.55) over
10 fresh simulations, which is an unbiased estimate of the ABC likelihood.

Because the steps keep the current state's estimate, the chain targets the ABC posterior
exactly: this is pseudo-marginal MCMC with a simulator, no SMC needed.
"""

import os

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
import pymc as pm

from pymc_kameleon import KameleonStep, KMCStep
from pymc_kameleon.targets import abc_skew_normal_model
from pymc_kameleon.targets.abc_skew_normal import ABC_THETA_TRUE

SCALE = float(os.environ.get("KAMELEON_EXAMPLE_SCALE", "1.0"))
# the warm-up keeps its full length down to the docs build's scale: the start-up and the
# independence moves it enables need their share of it
TUNE = 1000 if SCALE >= 0.2 else max(20, int(1000 * SCALE))
DRAWS = max(20, int(4000 * SCALE))

# %%
# Sampling with KMCStep and KameleonStep
# --------------------------------------
# The chains start at :math:`\theta_{true}`, as in the paper, and every step runs with its
# defaults. The estimate is noisy (``noise_sd`` about 3.7, and the steps warn), which makes a
# random walk stick; the steps' warm-up mixes in independence moves from a Student t at the
# mode its start-up climbed to (:doc:`/concepts/warmup`), and KMCStep's surrogate keeps
# learning after warm-up (:doc:`/concepts/adaptation`). At the full budget (4 chains of
# 1000 + 5000, three seeds) that gives KMCStep 9.9 effective draws per 1000 simulations,
# KameleonStep 4.0 and a plain random walk 0.7; PyMC's ``pm.sample_smc`` on a ``pm.Simulator``
# gets 9.0 (BENCHMARKS.md, "ABC with the 10-D skew-normal simulator").
results = {}
for name, make_step in (("KMCStep", KMCStep), ("KameleonStep", KameleonStep)):
    with abc_skew_normal_model():
        results[name] = pm.sample(
            tune=TUNE,
            draws=DRAWS,
            chains=2,
            step=make_step(),
            random_seed=20261121,
            initvals={"theta": ABC_THETA_TRUE},
            compute_convergence_checks=False,
            progressbar=False,
        )
for name, idata in results.items():
    stats = idata["sample_stats"]
    theta = np.asarray(idata["posterior"]["theta"].values)
    print(f"--- {name}")
    print(f"posterior mean of theta: {np.round(theta.mean(axis=(0, 1)), 2)}")
    print(f"acceptance rate:         {float(stats['accept'].mean()):.3f}")
    print(f"noise sd of log p_hat:   {float(stats['noise_sd'].values[:, -1].mean()):.2f}")
    ess = float(az.ess(idata)["theta"].min())
    simulations = 10 * int(stats["logp_evals"].sum())  # 10 simulated data sets per estimate
    print(f"min bulk ESS:            {ess:.0f}")
    print(f"ESS per 1000 simulations (draws only): {1000 * ess / simulations:.2f}")


# %%
# Marginal posterior and autocorrelation
# --------------------------------------
def autocorrelation(x, max_lag):
    """Autocorrelation of a 1-D series at lags 0..max_lag."""
    x = x - x.mean()
    denom = float(x @ x) or 1.0
    return np.array([float(x[: x.size - k] @ x[k:]) / denom for k in range(max_lag + 1)])


fig, (ax_density, ax_acf) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
for name, idata in results.items():
    theta0 = np.asarray(idata["posterior"]["theta"].values)[..., 0]
    ax_density.hist(theta0.ravel(), bins=50, density=True, histtype="step", label=name)
    max_lag = max(1, min(200, theta0.shape[1] // 4))
    ax_acf.plot(np.mean([autocorrelation(c, max_lag) for c in theta0], axis=0), label=name)
ax_density.axvline(ABC_THETA_TRUE[0], color="k", ls=":", label="theta_true")
ax_density.set_title("ABC posterior of theta[0]")
ax_density.legend()
ax_acf.set_title("autocorrelation of theta[0]")
ax_acf.set_xlabel("lag")
ax_acf.legend()
plt.show()
