"""GP classification on Glass: MMD to the benchmark sample against iteration, for every sampler.

The KMC paper's Figure 4 (left) plots, for one chain of 6000 iterations per sampler, the MMD
between the chain's first ``t`` states and a long benchmark sample, against ``t``. This script
runs that protocol with the package's defaults and the random walk:

- ``KMCStep()``, ``KameleonStep()``, ``AdaptiveMetropolis()`` (the defaults);
- ``SM``: the isotropic random walk of the bench suite (scale ``2.38 / sqrt(d)``), the papers'
  baseline;
- ``KMCStep(oracle history)``, only when asked for with ``--samplers``: the ceiling, KMC handed
  1000 benchmark draws as ``initial_history`` (not plotted).

PyMC's own samplers are not in it: they would re-estimate the current state's likelihood at
every iteration (a different, wrong target), and refuse to be built on the model
(``NoisyTermError``; see the docs' pseudo-marginal page).

Each chain starts at 0 (``glass_gpc_model``'s initial point) with 1000 warm-up iterations and
5000 draws, at seeds 1000-1002; warm-up states are part of the curve (they are the chain's first
iterations, as in the paper). The score is the unbiased squared MMD with the cubic polynomial
kernel (:func:`~pymc_kameleon.diagnostics.polynomial_mmd2`, the papers' choice), of every 5th
state up to ``t``. Usage::

    python benchmarks/glass_mmd_trace.py benchmarks/results/glass-mmd [--seeds 1000 1001 1002]
    python benchmarks/glass_mmd_trace.py benchmarks/results/glass-mmd \
        --plot docs/_static/glass_mmd.png

Records (one JSON line per sampler and seed: the curve, min bulk ESS of the 5000 draws, wall
time) go to ``OUT_DIR/trace.jsonl``; a finished (sampler, seed) is not run again. ``--plot``
draws the median curve over the seeds per sampler from the records.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path
from typing import NamedTuple

import numpy as np

from pymc_kameleon.bench.records import load_records, run_resumable

SAMPLERS = ("KMCStep()", "KameleonStep()", "AdaptiveMetropolis()", "SM")
#: the ceiling, not a default: KMC handed 1000 benchmark draws (chosen by the seed) as history
ORACLE = "KMCStep(oracle history)"
TUNE, DRAWS, THIN = 1000, 5000, 5
CHECKPOINTS = tuple(range(250, TUNE + DRAWS + 1, 250))


def make_step(name: str, seed: int):
    """The step of a sampler name (inside the model context)."""
    from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
    from pymc_kameleon.bench.problems import GLASS_REFERENCE
    from pymc_kameleon.bench.registry import get_problem

    if name == ORACLE:
        reference = np.load(GLASS_REFERENCE)["draws"]
        chosen = np.random.default_rng(seed).choice(len(reference), 1000, replace=False)
        return KMCStep(initial_history=reference[chosen], n_history=1000)
    from pymc_kameleon.bench.samplers import get_sampler

    steps = {
        "KMCStep()": KMCStep,
        "KameleonStep()": KameleonStep,
        "AdaptiveMetropolis()": AdaptiveMetropolis,
    }
    if name in steps:
        return steps[name]()
    return get_sampler(name).make_step(get_problem("glass"), {})


def run_one(name: str, seed: int) -> dict:
    """One chain of ``TUNE + DRAWS`` iterations from 0; its MMD curve, ESS and wall time."""
    import pymc as pm

    from pymc_kameleon.bench.problems import GLASS_REFERENCE
    from pymc_kameleon.diagnostics import min_ess, polynomial_mmd2
    from pymc_kameleon.targets import glass_gpc_model

    reference = np.load(GLASS_REFERENCE)["draws"]
    start = time.perf_counter()
    with glass_gpc_model(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = pm.sample(
            step=make_step(name, seed),
            tune=TUNE,
            draws=DRAWS,
            chains=1,
            cores=1,
            random_seed=seed,
            progressbar=False,
            compute_convergence_checks=False,
            discard_tuned_samples=False,
        )
    wall = time.perf_counter() - start
    warm = np.asarray(idata["warmup_posterior"]["theta"].values)[0]
    kept = np.asarray(idata["posterior"]["theta"].values)[0]
    chain = np.concatenate([warm, kept])
    curve = [polynomial_mmd2(chain[:t:THIN], reference) for t in CHECKPOINTS]
    return {
        "sampler": name,
        "seed": seed,
        "checkpoints": list(CHECKPOINTS),
        "mmd2": curve,
        "min_bulk_ess": float(min_ess(idata, "theta")),
        "wall_s": wall,
    }


class Chain(NamedTuple):
    """One sampler at one seed; its records are named by ``(sampler, seed)``."""

    sampler: str
    seed: int

    @property
    def key(self) -> tuple[str, int]:
        return (self.sampler, self.seed)


def plot(records: list[dict], path: Path) -> None:
    """Median MMD² over seeds against iteration, one line per sampler (log scale)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name in SAMPLERS:
        curves = [r["mmd2"] for r in records if r["sampler"] == name]
        if not curves:
            continue
        ess = np.median([r["min_bulk_ess"] for r in records if r["sampler"] == name])
        median = np.median(np.array(curves), axis=0)
        # the unbiased estimate can dip below 0 near equality: floor it for the log axis
        ax.plot(CHECKPOINTS, np.maximum(median, 1.0), label=f"{name} (min ESS {ess:.0f})")
    ax.axvline(TUNE, color="grey", lw=0.8, ls=":")
    ax.set_yscale("log")
    ax.set_xlabel("iteration (warm-up: the first 1000)")
    ax.set_ylabel("MMD² to the benchmark sample (median of 3 seeds)")
    ax.set_title("GP classification on Glass, one chain from 0")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1000, 1001, 1002])
    parser.add_argument(
        "--samplers", nargs="+", choices=(*SAMPLERS, ORACLE), default=list(SAMPLERS)
    )
    parser.add_argument("--plot", type=Path)
    args = parser.parse_args()
    path = args.out / "trace.jsonl"
    if args.plot is not None:
        plot(load_records(path), args.plot)
        return
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run_resumable(
        [Chain(name, seed) for name in args.samplers for seed in args.seeds],
        lambda chain: run_one(chain.sampler, chain.seed), path,
        key=lambda r: (r["sampler"], r["seed"]), finished=lambda r: True,
        summary=lambda r: f"{r['sampler']} {r['seed']} min ESS {r['min_bulk_ess']:.0f}",
        progress=lambda line: print(line, flush=True),
    )  # fmt: skip


if __name__ == "__main__":
    main()
