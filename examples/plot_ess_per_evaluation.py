"""
ESS per log-density evaluation: our steps against PyMC's samplers
=================================================================

When the model's log-density is expensive or has no gradient, what matters is how many
effective draws each log-density evaluation buys. This page uses the benchmark suite that ships
with the package (``python -m pymc_kameleon.bench``) to compare, on the 8-D banana B(0.03, 100)
(KAMH paper, Section 5):

* ours: KameleonStep (KAMH-LS), AdaptiveMetropolis with a fixed (AM-FS) or learned (AM-LS)
  scale, KMCStep (lite);
* PyMC's: Metropolis, DEMetropolisZ, Slice, and NUTS with ``target_accept=0.95`` (which uses
  gradients: its evaluations are counted as gradient evaluations).

Evaluations are counted from each sampler's statistics: one per iteration for our steps and
DEMetropolisZ, ``d`` per iteration for PyMC's Metropolis (one per coordinate), the slice
expansions and shrinkages for Slice, the leapfrog steps for NUTS. The first part runs a small
comparison live; the second shows the recorded full run of the suite (3 seeds, 4 chains x
(2000 + 5000)), whose numbers are discussed in ``BENCHMARKS.md``.
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from pymc_kameleon.bench.runner import Task, load_records, run_task

SCALE = float(os.environ.get("KAMELEON_EXAMPLE_SCALE", "1.0"))
TUNE, DRAWS = max(40, int(2000 * SCALE)), max(40, int(5000 * SCALE))
SAMPLERS = [
    "KAMH-LS",
    "AM-FS",
    "AM-LS",
    "KMC-lite",
    "pm.Metropolis",
    "pm.DEMetropolisZ",
    "pm.Slice",
    "NUTS(0.95)",
]


def bar_chart(ax, records, title):
    """Median ESS per 1000 evaluations per sampler (bars) and each run (dots)."""
    values = [[r["ess_per_1k_evals"] for r in records if r["sampler"] == s] for s in SAMPLERS]
    colors = ["C1" if s.startswith(("pm.", "NUTS")) else "C0" for s in SAMPLERS]
    ax.bar(SAMPLERS, [np.median(v) if v else np.nan for v in values], color=colors)
    for i, v in enumerate(values):
        ax.plot([i] * len(v), v, "k.", ms=4)
    ax.set_yscale("log")
    ax.set_ylabel("min bulk ESS per 1000 evaluations")
    ax.tick_params(axis="x", rotation=35)
    ax.set_title(title)


# %%
# A small live comparison
# -----------------------
# :class:`~pymc_kameleon.bench.runner.Task` describes one run (target, sampler, seed, budget);
# :func:`~pymc_kameleon.bench.runner.run_task` samples it with seeded starting points and returns
# its metrics: ESS, R-hat, the accuracy against exact quantiles, and evaluation counts.
live = [
    run_task(Task("example", "banana-0.03", sampler, 0, 2, TUNE, DRAWS)) for sampler in SAMPLERS
]
print(f"{'sampler':18s} {'ESS/1k evals':>13s} {'min ESS':>8s} {'max R-hat':>9s} {'evals':>8s}")
for r in live:
    print(
        f"{r['sampler']:18s} {r['ess_per_1k_evals']:13.2f} {r['min_bulk_ess']:8.0f} "
        f"{r['max_rhat']:9.3f} {r['draw_evals']:8d}"
    )

fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
bar_chart(ax, live, f"B(0.03, 100), d=8: 2 chains x ({TUNE} + {DRAWS})")

# %%
# The recorded full run
# ---------------------
# ``benchmarks/results/suite/results.jsonl`` in the repository holds every run of
# ``python -m pymc_kameleon.bench full``. Read it with its R-hat values (in ``BENCHMARKS.md``):
# after a 2000-iteration warm-up no gradient-free sampler, ours included, has converged on the
# two harder targets (R-hat up to 2-3), so these bars say how fast each is getting there, not
# settled efficiencies. On B(0.03) NUTS and DEMetropolisZ lead; on B(0.1) KameleonStep has the
# highest median, within the seed spread of AM-FS and NUTS; on the flower DEMetropolisZ leads and
# NUTS is last per gradient evaluation (its trajectories must be long on the thin ring). KMC
# comes close to NUTS once its history covers the posterior (the oracle experiment in
# ``BENCHMARKS.md``): long warm-ups or ``initial_history`` from a pilot run are what make the
# kernel methods pay off.
root = Path(globals().get("__file__", "plot_ess_per_evaluation.py")).resolve().parent.parent
recorded_file = root / "benchmarks" / "results" / "suite" / "results.jsonl"
if recorded_file.exists():
    recorded = [
        r
        for r in load_records(recorded_file)
        if r["status"] == "ok" and r["experiment"] == "practitioner"
    ]
    problems = ("banana-0.03", "banana-0.1", "flower")
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8), sharey=True, layout="constrained")
    for ax, problem in zip(axes, problems, strict=True):
        bar_chart(ax, [r for r in recorded if r["problem"] == problem], f"{problem}, d=8")
    fig.suptitle("Recorded full run: 3 seeds, 4 chains x (2000 + 5000); ours blue, PyMC orange")
else:
    print(f"{recorded_file} not found: run from a clone of the repository to see the full run.")
plt.show()
