"""Fixed-seed runs whose draws and stats must not change when the code is only reorganised.

``record_draws.py`` stores the draws and every sampler stat of each configuration in
``reference_draws.npz``; ``test_same_draws.py`` re-runs them and compares them with
``draw_comparison.py`` (accept decisions and discrete stats exactly, the rest to a relative
1e-8). A commit that changes the numbers on purpose re-records the file and says why.

**Budgets.** Steps whose proposal depends on the current state through a learned density (the
kernel moves, KMC's surrogate trajectories) amplify a last-bit difference by about 2x per
iteration once that density is fitted: another BLAS kernel (``OPENBLAS_CORETYPE=Prescott``) or
Numba built for another CPU (``NUMBA_CPU_NAME=generic``) took such runs from 1e-16 to 1e-9 within
20-40 iterations of the first fit, and flipped accept decisions within 60-250. Those
configurations therefore run a short budget that ends a few iterations after the first fit
(``adapt_start`` lowered where the default would fit after the run ends), and a step whose
proposal does not depend on the state (Adaptive Metropolis, the whitened warm-up's moves) keeps
the long one, where the difference stays below 1e-13. ``benchmarks/regression_horizon.py``
measures the margin of every configuration under those two perturbations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pymc as pm

from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    PooledAdaptiveMetropolis,
    PooledKMCStep,
    estimator_potential,
)

TUNE, DRAWS, CHAINS, SEED = 450, 150, 2, 20261123


@dataclass(frozen=True)
class Config:
    """One fixed-seed run: the model, the step, and the budget that keeps it rounding-stable."""

    build_model: Callable[[], pm.Model]
    build_step: Callable[[], Any]
    tune: int = TUNE
    draws: int = DRAWS
    chains: int = CHAINS


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
KMC_CLASSIC = {"warmup": "classic", "estimator": "lite"}

#: the classic KMC configurations fit their surrogate after 100 states (200 by default), so that
#: a short run sees the fit and the trajectories it drives
KMC_EARLY = {**KMC_CLASSIC, "adapt_start": 100}
#: budgets: the long default where the proposal does not depend on the state; a short one ending
#: a few iterations after the first fit of a state-dependent density (the module docstring)
KERNEL = {"tune": 220, "draws": 40}
FIT_THEN_STOP = {"tune": 104, "draws": 4, "chains": 4}

CONFIGS: dict[str, Config] = {
    "kameleon": Config(gaussian_model, lambda: KameleonStep(**CLASSIC), **KERNEL),
    "kameleon-matern32": Config(gaussian_model,
                                lambda: KameleonStep(**CLASSIC, kernel="matern32"), **KERNEL),
    "kameleon-matern52": Config(gaussian_model,
                                lambda: KameleonStep(**CLASSIC, kernel="matern52"), **KERNEL),
    "kameleon-linear": Config(gaussian_model, lambda: KameleonStep(**CLASSIC, kernel="linear")),
    "kameleon-fixed-bandwidth": Config(gaussian_model, lambda: KameleonStep(
        **CLASSIC, bandwidth=0.8, nu2=0.5), **FIT_THEN_STOP),
    "kameleon-vanishing": Config(gaussian_model,
                                 lambda: KameleonStep(**CLASSIC, adaptation="vanishing"), **KERNEL),
    "kameleon-initial-history": Config(gaussian_model, lambda: KameleonStep(
        **CLASSIC, initial_history=_history()), **KERNEL),
    "am-learn": Config(gaussian_model, AdaptiveMetropolis),
    "am-fixed": Config(gaussian_model, lambda: AdaptiveMetropolis(scale="fixed", gamma=0.1)),
    "am-classic": Config(gaussian_model, lambda: AdaptiveMetropolis(warmup="classic")),
    "kameleon-whitened": Config(gaussian_model, lambda: KameleonStep(warmup="whitened")),
    "am-initial-history": Config(gaussian_model,
                                 lambda: AdaptiveMetropolis(initial_history=_history())),
    # the published KMC (the default warm-up is the whitened one, kmc-whitened)
    "kmc-lite": Config(gaussian_model, lambda: KMCStep(**KMC_EARLY), **FIT_THEN_STOP),
    "kmc-finite": Config(gaussian_model, lambda: KMCStep(
        **{**KMC_EARLY, "estimator": "finite"}, n_features=60), **FIT_THEN_STOP),
    # the defaults but the first fit after 60 learned states (200 by default), within the run
    "kmc-whitened": Config(gaussian_model, lambda: KMCStep(adapt_start=60),
                           **{**FIT_THEN_STOP, "tune": 90}),
    # one chain alone, the lite surrogate, globally whitened
    "kmc-whitened-alone": Config(gaussian_model, lambda: KMCStep(
        estimator="lite", coordinates="global", adapt_start=30),
        **FIT_THEN_STOP),
    "am-pooled": Config(gaussian_model, PooledAdaptiveMetropolis),
    "kmc-pooled": Config(gaussian_model, PooledKMCStep, **{**FIT_THEN_STOP, "tune": 90}),
    "kmc-auto": Config(gaussian_model, lambda: KMCStep(
        **{**KMC_EARLY, "estimator": "auto"}, n_features=40), **FIT_THEN_STOP),
    "kmc-diagonal-mass": Config(gaussian_model, lambda: KMCStep(
        **KMC_EARLY, mass="diagonal", lengthscale=1.2), **FIT_THEN_STOP),
    "kmc-initial-history": Config(gaussian_model, lambda: KMCStep(
        **KMC_EARLY, initial_history=_history()), **FIT_THEN_STOP),
    "kmc-vanishing": Config(gaussian_model, lambda: KMCStep(
        **KMC_EARLY, adaptation="vanishing"), **FIT_THEN_STOP),
    "pm-kameleon": Config(noisy_model, lambda: KameleonStep(**CLASSIC), **KERNEL),
    "pm-kameleon-whitened": Config(noisy_model, KameleonStep),  # the default warm-up
    "pm-am": Config(noisy_model, AdaptiveMetropolis),
    "pm-kmc": Config(noisy_model, lambda: KMCStep(**KMC_EARLY, n_steps_range=(5, 20)),
                     **FIT_THEN_STOP),
}  # fmt: skip


def run(name: str, tune: int | None = None, draws: int | None = None) -> dict[str, np.ndarray]:
    """Draws and stats (warm-up included) of one configuration, as flat arrays by key.

    ``tune`` and ``draws`` override the configuration's budget (to measure its horizon).
    """
    config = CONFIGS[name]
    with config.build_model():
        idata = pm.sample(
            tune=config.tune if tune is None else tune,
            draws=config.draws if draws is None else draws,
            chains=config.chains,
            cores=1,
            step=config.build_step(),
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
