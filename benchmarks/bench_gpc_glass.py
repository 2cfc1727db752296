"""Build the GP-Glass benchmark sample that the benchmark suite scores GP classification against.

The sample comes from 4 long AdaptiveMetropolis chains (about 15 min on 2 cores, single-threaded
BLAS) and is shipped in ``pymc_kameleon/bench/data/glass_reference.npz``. The GP-Glass sampler
comparison itself is the suite's ``glass`` experiment
(``python -m pymc_kameleon.bench full --experiments glass``).

Usage::

    python benchmarks/bench_gpc_glass.py [--reference-draws 25000]
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pymc as pm

try:
    import pymc_kameleon  # noqa: F401
except ModuleNotFoundError as err:  # a source checkout that is not installed
    if err.name != "pymc_kameleon":
        raise
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pymc_kameleon import AdaptiveMetropolis
from pymc_kameleon.bench.problems import GLASS_REFERENCE as REFERENCE
from pymc_kameleon.diagnostics import max_rhat, min_ess
from pymc_kameleon.targets import glass_gpc_model


def build_reference(tune: int, draws: int, thin: int, seed: int) -> None:
    """Long AdaptiveMetropolis chains; save the thinned, pooled draws."""
    start = time.perf_counter()
    with glass_gpc_model():
        idata = pm.sample(
            tune=tune,
            draws=draws,
            chains=4,
            cores=2,
            step=AdaptiveMetropolis(),
            random_seed=seed,
            progressbar=False,
            compute_convergence_checks=False,
        )
    theta = np.asarray(idata["posterior"]["theta"].values)
    ess = min_ess(idata, "theta")  # InferenceData (PyMC 5) or DataTree (PyMC 6)
    rhat = max_rhat(idata, "theta")
    pooled = theta[:, ::thin].reshape(-1, theta.shape[-1])
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        REFERENCE,
        draws=pooled,
        min_ess=ess,
        max_rhat=rhat,
        settings=np.array([tune, draws, thin, seed]),
    )
    print(
        f"reference: {pooled.shape[0]} draws (4 chains x {draws}, thin {thin}), min ESS {ess:.0f}, "
        f"max R-hat {rhat:.4f}, {time.perf_counter() - start:.0f} s; wrote {REFERENCE}",
        file=sys.stderr,
    )


def main(argv=None) -> None:
    """Build (or rebuild) the benchmark sample."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference-draws", type=int, default=25_000)
    args = parser.parse_args(argv)
    build_reference(tune=5000, draws=args.reference_draws, thin=25, seed=20261121)


if __name__ == "__main__":
    main()
