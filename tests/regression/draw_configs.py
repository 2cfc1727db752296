"""Fixed-seed runs whose draws and stats must not change when the code is only reorganised.

``record_draws.py`` stores the draws and every sampler stat of each configuration in
``reference_draws.npz``; ``test_same_draws.py`` re-runs them and demands bit-identical results.
A commit that changes the numbers on purpose re-records the file and says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pymc as pm

from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    PooledAdaptiveMetropolis,
    estimator_potential,
)

TUNE, DRAWS, CHAINS, SEED = 450, 150, 2, 20261123


def environment_fingerprint() -> str:
    """What bit-identical floating point depends on: library versions, CPU and SIMD features.

    Draws are reproducible bit for bit only where these agree (NumPy picks its SIMD kernels,
    and so its summation order, from the CPU at run time).
    """
    import platform

    import pytensor
    import scipy
    from numpy._core._multiarray_umath import __cpu_features__

    try:
        import numba

        jit = f", numba {numba.__version__}"
    except ImportError:
        jit = ", no numba"
    simd = ",".join(sorted(name for name, on in __cpu_features__.items() if on))
    versions = f"numpy {np.__version__}, scipy {scipy.__version__}, " \
        f"pytensor {pytensor.__version__}, pymc {pm.__version__}{jit}"  # fmt: skip
    return f"{platform.machine()} {platform.python_version()}; {versions}; SIMD {simd}"


def gaussian_model() -> pm.Model:
    with pm.Model() as model:
        pm.MvNormal("x", mu=np.array([0.5, -1.0, 2.0]), cov=np.array(
            [[1.0, 0.6, 0.1], [0.6, 2.0, -0.3], [0.1, -0.3, 0.5]]))  # fmt: skip
        pm.HalfNormal("s", 2.0)
    return model


def _estimate(theta: np.ndarray, rng: np.random.Generator) -> float:
    return -0.5 * float(np.sum((theta - 1.0) ** 2)) + 0.8 * rng.standard_normal() - 0.32


def noisy_model() -> pm.Model:
    with pm.Model() as model:
        theta = pm.Normal("theta", 0.0, 2.0, shape=2)
        estimator_potential("loglike", _estimate, theta)
    return model


def _history() -> np.ndarray:
    return np.random.default_rng(5).normal(size=(300, 4)) * np.array([1.0, 1.4, 0.7, 0.5])


CLASSIC = {"warmup": "classic"}
#: KMCStep as published: one chain learning alone (in the classic warm-up's model units), the
#: lite surrogate unless a configuration says otherwise
KMC_CLASSIC = {"warmup": "classic", "estimator": "lite", "pool_warmup": False}

CONFIGS: dict[str, tuple[Callable[[], pm.Model], Callable[[], Any]]] = {
    "kameleon": (gaussian_model, lambda: KameleonStep(**CLASSIC)),
    "kameleon-matern32": (gaussian_model, lambda: KameleonStep(**CLASSIC, kernel="matern32")),
    "kameleon-matern52": (gaussian_model, lambda: KameleonStep(**CLASSIC, kernel="matern52")),
    "kameleon-linear": (gaussian_model, lambda: KameleonStep(**CLASSIC, kernel="linear")),
    "kameleon-fixed-bandwidth": (gaussian_model,
                                 lambda: KameleonStep(**CLASSIC, bandwidth=0.8, nu2=0.5)),
    "kameleon-vanishing": (gaussian_model, lambda: KameleonStep(**CLASSIC, adaptation="vanishing")),
    "kameleon-initial-history": (gaussian_model,
                                 lambda: KameleonStep(**CLASSIC, initial_history=_history())),
    "am-learn": (gaussian_model, AdaptiveMetropolis),
    "am-fixed": (gaussian_model, lambda: AdaptiveMetropolis(scale="fixed", gamma=0.1)),
    "am-classic": (gaussian_model, lambda: AdaptiveMetropolis(warmup="classic")),
    "kameleon-whitened": (gaussian_model, lambda: KameleonStep(warmup="whitened")),
    "am-initial-history": (gaussian_model,
                           lambda: AdaptiveMetropolis(initial_history=_history())),
    # the published KMC (the default warm-up is the whitened one, kmc-whitened)
    "kmc-lite": (gaussian_model, lambda: KMCStep(**KMC_CLASSIC)),
    "kmc-finite": (gaussian_model,
                   lambda: KMCStep(**{**KMC_CLASSIC, "estimator": "finite"}, n_features=60)),
    "kmc-whitened": (gaussian_model, KMCStep),  # the defaults (pooled, local, auto)
    # the defaults before issue 48: one chain alone, the lite surrogate, globally whitened
    "kmc-whitened-alone": (gaussian_model, lambda: KMCStep(
        estimator="lite", coordinates="global", pool_warmup=False)),
    "am-pooled": (gaussian_model, PooledAdaptiveMetropolis),
    "kmc-auto": (gaussian_model,
                 lambda: KMCStep(**{**KMC_CLASSIC, "estimator": "auto"}, n_features=40)),
    "kmc-diagonal-mass": (gaussian_model,
                          lambda: KMCStep(**KMC_CLASSIC, mass="diagonal", lengthscale=1.2)),
    "kmc-initial-history": (gaussian_model,
                            lambda: KMCStep(**KMC_CLASSIC, initial_history=_history())),
    "kmc-vanishing": (gaussian_model, lambda: KMCStep(**KMC_CLASSIC, adaptation="vanishing")),
    "pm-kameleon": (noisy_model, lambda: KameleonStep(**CLASSIC)),
    "pm-kameleon-whitened": (noisy_model, KameleonStep),  # the default warm-up
    "pm-am": (noisy_model, AdaptiveMetropolis),
    "pm-kmc": (noisy_model, lambda: KMCStep(**KMC_CLASSIC, n_steps_range=(5, 20))),
}  # fmt: skip


def run(name: str) -> dict[str, np.ndarray]:
    """Draws and stats (warm-up included) of one configuration, as flat arrays by key."""
    build_model, build_step = CONFIGS[name]
    with build_model():
        idata = pm.sample(
            tune=TUNE,
            draws=DRAWS,
            chains=CHAINS,
            cores=1,
            step=build_step(),
            random_seed=SEED,
            discard_tuned_samples=False,
            progressbar=False,
            compute_convergence_checks=False,
        )
    out = {}
    for group in ("warmup_posterior", "posterior", "warmup_sample_stats", "sample_stats"):
        data = idata[group]
        for var in data.data_vars:
            values = np.asarray(data[var].values)
            if values.dtype == object:  # sparse stats such as a SamplerWarning: skip
                continue
            out[f"{name}/{group}/{var}"] = values
    return out
