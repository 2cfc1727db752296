"""Pseudo-marginal test models: x ~ N(0, I_2), a Gaussian likelihood of Y_OBS made noisy.

The noise ``NOISE_SD * z - NOISE_SD**2 / 2`` on the log-likelihood keeps the likelihood estimate
unbiased, so the exact posterior is N(Y_OBS / 2, I / 2). Both forms of a noisy term: a native
``noisy_potential`` graph and a black-box ``estimator_potential``.
"""

from __future__ import annotations

import math

import numpy as np
import pymc as pm

from pymc_kameleon import estimator_potential, noisy_potential

__all__ = [
    "MODELS",
    "NOISE_SD",
    "Y_OBS",
    "blackbox_model",
    "exact_loglike",
    "native_model",
    "noisy_estimate",
]

Y_OBS = np.array([1.0, -0.5])
NOISE_SD = 0.8


def exact_loglike(theta: np.ndarray) -> float:
    return -0.5 * float(np.sum((theta - Y_OBS) ** 2)) - math.log(2 * math.pi)


def noisy_estimate(theta: np.ndarray, rng: np.random.Generator) -> float:
    return exact_loglike(theta) + NOISE_SD * rng.standard_normal() - NOISE_SD**2 / 2


def native_model(extra_y: bool = False, noise_on_y: bool = False) -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=2)
        loglike = pm.logp(pm.Normal.dist(x, 1.0), Y_OBS).sum()
        if extra_y:
            y = pm.Normal("y", x, 1.0, shape=2)
            if noise_on_y:
                loglike = loglike + 0.0 * y.sum()
        z = pm.Normal.dist(0.0, 1.0)
        noisy_potential("loglike", loglike + NOISE_SD * z - NOISE_SD**2 / 2)
    return model


def blackbox_model(estimate=noisy_estimate) -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=2)
        estimator_potential("loglike", estimate, x)
    return model


MODELS = {"native": native_model, "blackbox": blackbox_model}
