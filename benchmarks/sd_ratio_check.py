"""Whether a step's draws of the non-centred eight schools are too narrow: sd ratios to NUTS.

``python benchmarks/sd_ratio_check.py STEP TUNE SEED [SEED ...]`` runs ``pm.sample(step=STEP(),
tune=TUNE, draws=TUNE, chains=4, cores=1, random_seed=SEED)`` (the real-model suite's budget is
3000) and prints, per seed, the sd of ``mu``, ``tau`` and each ``theta[i]`` over the shipped NUTS
reference's, and their mean. A step whose independence moves under-cover the tails (too narrow a
t) gives ratios below 1 at every seed; a chance shortfall at one seed does not repeat.
"""

from __future__ import annotations

import logging
import sys

import numpy as np
import pymc as pm

import pymc_kameleon as pk
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.real.models import REAL_MODELS
from pymc_kameleon.bench.real.reference import load_reference

MODEL = "schools-noncentred"
LABELS = ["mu", "tau"] + [f"theta[{i}]" for i in range(8)]


def main() -> None:
    logging.getLogger("pymc").setLevel(logging.ERROR)
    step, tune, seeds = getattr(pk, sys.argv[1]), int(sys.argv[2]), map(int, sys.argv[3:])
    reference = load_reference(MODEL)
    reference_sd = reference.summary["sd"][[reference.labels.index(k) for k in LABELS]]
    model = REAL_MODELS[MODEL].build()
    for seed in seeds:
        with model:
            idata = pm.sample(step=step(), tune=tune, draws=tune, chains=4, cores=1,
                              random_seed=seed, progressbar=False,
                              compute_convergence_checks=False)  # fmt: skip
        post = posterior_dataset(idata, "posterior")
        draws = np.hstack([post[v].values.reshape(4 * tune, -1) for v in ("mu", "tau", "theta")])
        ratio = draws.std(axis=0) / reference_sd
        print(seed, "sd ratios", np.round(ratio, 3), "mean", ratio.mean().round(3), flush=True)


if __name__ == "__main__":
    main()
