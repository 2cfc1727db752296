"""
PCA-Kameleon: the kernel's principal directions instead of the full covariance
==============================================================================

The KAMH paper's appendix C proposes a cheaper Kameleon proposal: instead of the full
kernel-gradient covariance :math:`\\gamma^2 I + \\nu^2 M_y H M_y^\\top`, pick one of the
:math:`m` leading eigenvectors :math:`a_j` of the centred kernel matrix :math:`HKH` (with
probability :math:`w_j \\propto \\lambda_j`) and move along the direction it gives at the current
state, :math:`b_j(y) = M_y H a_j`, with a scale :math:`\\nu_j` of its own:
:math:`x^* \\sim N(y, \\gamma^2 I + \\nu_j^2 b_j b_j^\\top)`. The proposal density is the
mixture over :math:`j`, so the Metropolis–Hastings ratio stays exact.

This page samples the 2-D banana B(0.1, 100) with both proposals, draws what each proposes at a
few states, and shows the recorded comparison on the paper's 8-D targets
(``benchmarks/pca_kameleon_check.py``; numbers in ``BENCHMARKS.md``).
"""

import os
from pathlib import Path

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
import pymc as pm

from pymc_kameleon import KameleonStep
from pymc_kameleon.bench.runner import load_records
from pymc_kameleon.targets import banana_logp, banana_model

# Scale of the run: 1.0 is the full budget; the docs build uses 0.25 and the tests much less.
SCALE = float(os.environ.get("KAMELEON_EXAMPLE_SCALE", "1.0"))
TUNE, DRAWS = max(200, int(4000 * SCALE)), max(20, int(4000 * SCALE))

# %%
# Sampling with both proposals
# ----------------------------
# ``proposal="pca"`` swaps the kernel move; everything else (the history, its subsample, the
# median bandwidth, the learned scales, the freezing after warm-up) works as for the full
# proposal. As in :doc:`plot_banana`, the published warm-up (``warmup="classic"``) runs in the
# model's own units, which suit this banana; ``cores=1`` keeps the step objects here, so that we
# can look at what they learned.
model = banana_model(d=2, b=0.1, v=100.0)
steps, runs = {}, {}
with model:
    for name, options in (("full", {}), ("pca", {"proposal": "pca", "n_components": 10})):
        steps[name] = KameleonStep(warmup="classic", **options)
        runs[name] = pm.sample(
            tune=TUNE,
            draws=DRAWS,
            chains=4,
            cores=1,
            step=steps[name],
            random_seed=2,
            progressbar=False,
        )

for name, idata in runs.items():
    stats = idata["sample_stats"]
    ess = float(az.ess(idata)["x"].min())
    print(
        f"{name:4s}: min bulk ESS {ess:6.0f}, max R-hat {float(az.rhat(idata)['x'].max()):.3f}, "
        f"acceptance {float(stats['accept'].mean()):.3f}"
    )
# the PCA proposal's stats: which direction moved, and the weighted mean of the nu_j^2
directions = runs["pca"]["sample_stats"]["direction"].values.ravel()
print("share of moves per direction:", np.bincount(directions, minlength=10) / directions.size)

# %%
# What each proposal offers at a state
# ------------------------------------
# 400 candidates from each proposal at three states of the banana (the last chain's frozen
# proposals). The full proposal is one Gaussian per state, bent by the history around it; the
# PCA proposal is a mixture of thin Gaussians, one per principal direction, each a line through
# the state along :math:`b_j(y)` blurred by :math:`\gamma`.
grid = np.linspace(-35, 35, 200), np.linspace(-45, 15, 200)
xx, yy = np.meshgrid(*grid)
density = np.exp(banana_logp(np.column_stack([xx.ravel(), yy.ravel()]), b=0.1, v=100.0))
states = np.array([[-20.0, -6.0], [0.0, -10.0], [15.0, 2.0]])
rng = np.random.default_rng(0)
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharex=True, sharey=True, layout="constrained")
for ax, name in zip(axes, steps, strict=True):
    proposal = steps[name].kernel_proposal
    ax.contour(xx, yy, density.reshape(xx.shape), levels=6, colors="0.7")
    for state in states:
        candidates = np.array([proposal.propose(state, rng)[0] for _ in range(400)])
        ax.plot(candidates[:, 0], candidates[:, 1], ".", ms=2, alpha=0.5)
        ax.plot(*state, "k+", ms=12)
    ax.set_title(f'KameleonStep(proposal="{name}"): candidates at three states')
    ax.set_xlabel("x[0]")
axes[0].set_ylabel("x[1]")

# %%
# The recorded comparison on the paper's targets
# ----------------------------------------------
# ``python benchmarks/pca_kameleon_check.py`` runs the full proposal, the PCA proposal,
# ``AdaptiveMetropolis()`` and ``KMCStep()`` on B(0.03, 100), B(0.1, 100) and the 8-D flower,
# 4 chains x (4000 + 4000), three seeds, with the default (whitened) warm-up and the published
# one. Dots are seeds, bars their medians; one evaluation per iteration for every sampler.
root = Path(globals().get("__file__", "plot_pca_kameleon.py")).resolve().parent.parent
results = root / "benchmarks" / "results" / "pca"
problems, samplers = ("banana-0.03", "banana-0.1", "flower"), ("KAMH-LS", "KAMH-PCA", "AM-LS")
if (results / "whitened.jsonl").exists():
    fig, axes = plt.subplots(2, 3, figsize=(14, 7), layout="constrained")
    for column, problem in enumerate(problems):
        for row, key in enumerate(("ess_per_1k_evals", "quantile_error")):
            ax = axes[row, column]
            for offset, warmup in enumerate(("whitened", "classic")):
                path = results / f"{warmup}.jsonl"
                records = load_records(path) if path.exists() else []
                for i, sampler in enumerate(samplers):
                    values = [
                        r[key]
                        for r in records
                        if r["problem"] == problem and r["sampler"] == sampler
                        and r.get("status") == "ok"
                    ]  # fmt: skip
                    x = i + 0.2 * (2 * offset - 1)
                    ax.plot([x] * len(values), values, "o", color=f"C{offset}", alpha=0.6)
                    if values:
                        ax.plot([x - 0.08, x + 0.08], [np.median(values)] * 2, "k-")
            ax.set_xticks(range(len(samplers)), samplers)
            ax.set_yscale("log")
            ax.set_title(problem if row == 0 else "")
        axes[0, column].set_ylabel("min ESS per 1000 evaluations" if column == 0 else "")
        axes[1, column].set_ylabel("quantile error (lower is better)" if column == 0 else "")
    axes[0, 0].plot([], [], "o", color="C0", label="whitened warm-up (default)")
    axes[0, 0].plot([], [], "o", color="C1", label="classic warm-up (published)")
    axes[0, 0].legend(fontsize=8)
else:
    print(f"{results} not found: run from a clone of the repository to see the recorded runs.")
plt.show()
