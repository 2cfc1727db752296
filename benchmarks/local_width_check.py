"""KMCStep on B(b, 100) (8-D), plain or through a random affine map: the surrogate's coordinates.

``python benchmarks/local_width_check.py B COORDINATES SEED [plain|mapped] [oracle] [LENGTHSCALE]``
runs ``KMCStep(coordinates=COORDINATES)`` ("global" or "local"), 4 chains x (4000 + 4000),
``cores=2``, and prints the min bulk ESS of the banana's own coordinates, the max R-hat, the
chi-square quantile error (mean |F(q) - q| of ``|banana_to_gaussian(x)|^2`` against chi2(8) at
q = 0.1 ... 0.9), ESS per 1000 log-density evaluations, the mean acceptance and per chain the
step size, the last length scale and the divergences. ``mapped`` samples the banana under one
random affine map (a rotation times scales log-uniform in 1e-2..1e2, fixed seed 7); ``oracle``
hands every chain 2000 exact draws as ``initial_history`` (``n_history=2000``) and starts each
chain at one of them; otherwise chains start at N(0, I) draws (in the banana's coordinates).
``NPILOT=500`` in the environment changes the oracle's size, ``TUNE=12000`` the warm-up's
length and ``OPTIONS='{"pool_warmup": true}'`` (JSON) adds KMCStep arguments (``pool_warmup``
picks :class:`~pymc_kameleon.PooledKMCStep`). A last argument sets a fixed length scale.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from pymc_kameleon import KMCStep
from pymc_kameleon.bench.metrics import mixing_metrics
from pymc_kameleon.bench.problems import random_affine_map
from pymc_kameleon.bench.samplers import package_step
from pymc_kameleon.diagnostics import chi2_quantile_error
from pymc_kameleon.targets.banana import banana_to_gaussian, sample_banana

D, V = 8, 100.0
QUANTILES = np.array([0.1, 0.25, 0.5, 0.75, 0.9])


def affine_map(mapped: bool) -> np.ndarray:
    """The benchmark suite's fixed random map (rotation times log-uniform scales), or I."""
    return random_affine_map(D) if mapped else np.eye(D)


def run(b: float, coordinates: str, seed: int, mapped: bool, oracle: bool, lengthscale=None):
    """The run's InferenceData."""
    m = affine_map(mapped)
    draws = sample_banana(
        int(os.environ.get("NPILOT", 2000)), D, b, V, np.random.default_rng([seed, 11])
    )
    options = {"coordinates": coordinates}
    if oracle:
        options.update(initial_history=draws @ m.T, n_history=len(draws))
    options.update(json.loads(os.environ.get("OPTIONS", "{}")))
    if lengthscale is not None:
        options["lengthscale"] = lengthscale
    starts = draws[:4] if oracle else np.random.default_rng(seed).standard_normal((4, D))
    with pm.Model():
        y = pm.Flat("y", shape=D)
        x = pt.dot(np.linalg.inv(m), y)
        z2 = x[1] - b * (x[0] ** 2 - V)
        pm.Potential("lp", -0.5 * ((x[0] / np.sqrt(V)) ** 2 + z2**2 + pt.sum(x[2:] ** 2)))
        pm.Deterministic("x", x)
        return pm.sample(
            tune=int(os.environ.get("TUNE", 4000)), draws=4000, chains=4, cores=2,
            random_seed=seed, progressbar=False,
            step=package_step(KMCStep, **options), initvals=[{"y": m @ s} for s in starts],
            compute_convergence_checks=False, discard_tuned_samples=False,
        )  # fmt: skip


def report(idata, b: float) -> None:
    """Print the summary line and one line per chain."""
    mixing = mixing_metrics(idata, "x")
    ess, rhat = mixing["min_bulk_ess"], mixing["max_rhat"]
    draws = idata.posterior["x"].values.reshape(-1, D)
    error = chi2_quantile_error(banana_to_gaussian(draws, b=b, v=V), QUANTILES)
    stats = idata.sample_stats
    evals = int(idata.warmup_sample_stats["logp_evals"].sum() + stats["logp_evals"].sum())
    accept = np.minimum(stats["accept"].values, 1.0)
    print(
        f"min ESS {ess:.1f}, R-hat {rhat:.3f}, chi2 error {error:.4f}, "
        f"ESS per 1000 evaluations {1000 * ess / evals:.2f}, acceptance {accept.mean():.3f}"
    )
    for c in range(accept.shape[0]):
        print(
            f"  chain {c}: acceptance {accept[c].mean():.3f}, step size "
            f"{float(stats['step_size'].values[c].mean()):.3f}, length scale "
            f"{float(stats['lengthscale'].values[c, -1]):.2f}, divergences "
            f"{int(stats['diverging'].values[c].sum())}"
        )


def main() -> None:
    b, coordinates, seed = float(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    rest = sys.argv[4:]
    numbers = [float(a) for a in rest if a not in ("plain", "mapped", "oracle")]
    idata = run(b, coordinates, seed, "mapped" in rest, "oracle" in rest, *numbers[:1])
    print(f"B({b}, 100) {coordinates} seed {seed} {' '.join(rest)}")
    report(idata, b)


if __name__ == "__main__":
    main()
