"""Per-seed and per-chain detail of KameleonStep's runs in ``bench_banana.py``.

Re-runs KameleonStep with the same seeds, starting points and budget as
``bench_banana.py --evals 80000`` (sampling is reproducible, so the per-seed metrics equal that
table's) and prints, per chain, where it went during and after warm-up. This is how a chain that
leaves the region its frozen history covers shows up.

Usage::

    python benchmarks/kameleon_per_chain.py [--seeds 5] [--evals 80000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pymc as pm

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_banana as bench

from pymc_kameleon import KameleonStep
from pymc_kameleon.targets import banana_model


def main() -> None:
    """Print one line per seed and one per chain."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--evals", type=int, default=80_000)
    args = parser.parse_args()
    half = args.evals // 2
    model = banana_model(bench.D, bench.B, bench.V)
    for seed in range(args.seeds):
        with model:
            idata = pm.sample(
                step=KameleonStep(),
                tune=half,
                draws=half,
                chains=bench.CHAINS,
                cores=2,
                random_seed=seed,
                initvals=bench.initial_values(seed),
                progressbar=False,
                compute_convergence_checks=False,
                discard_tuned_samples=False,
            )
        m = bench.run_metrics(idata, "kameleon", bench.CHAINS * args.evals)
        print(
            f"seed {seed}: min bulk ESS {m['min_bulk_ess']:.0f}, ESS/1k evals "
            f"{m['ess_per_1k']:.2f}, max R-hat {m['max_rhat']:.2f}"
        )
        x = idata["posterior"]["x"].values
        warm = idata["warmup_posterior"]["x"].values
        accept = idata["sample_stats"]["accept"].values
        for c in range(x.shape[0]):
            print(
                f"  chain {c}: x1 mean {x[c, :, 0].mean():6.1f}, range "
                f"[{x[c, :, 0].min():6.1f}, {x[c, :, 0].max():6.1f}]; warm-up range "
                f"[{warm[c, :, 0].min():6.1f}, {warm[c, :, 0].max():6.1f}]; "
                f"acceptance {accept[c].mean():.2f}"
            )


if __name__ == "__main__":
    main()
