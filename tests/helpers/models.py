"""Small PyMC models with exact answers: a correlated 3-D Gaussian and a two-level Normal model."""

from __future__ import annotations

import numpy as np
import pymc as pm

__all__ = [
    "B_PRIOR_SD",
    "MV_COV",
    "MV_MU",
    "N_OBS",
    "Y_OBS",
    "coupled_model",
    "exact_posterior_mean_b",
    "mv_model",
]

# A correlated 3-D Gaussian target.
MV_MU = np.array([-0.1, 0.5, 1.1])
_L = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [-0.3, 0.4, 0.5]])
MV_COV = _L @ _L.T


def mv_model() -> pm.Model:
    with pm.Model() as model:
        pm.MvNormal("x", mu=MV_MU, cov=MV_COV)
    return model


# b ~ N(0, B_PRIOR_SD^2), a_i | b ~ N(b, 1), y_ij | a_i ~ N(a_i, 1): b's posterior mean is exact.
N_OBS = 20
Y_OBS = np.random.default_rng(42).normal(loc=[[2.0, 3.0]], scale=1.0, size=(N_OBS, 2))
B_PRIOR_SD = 10.0


def coupled_model() -> pm.Model:
    with pm.Model() as model:
        b = pm.Normal("b", 0.0, B_PRIOR_SD)
        a = pm.Normal("a", mu=b, sigma=1.0, shape=2)
        pm.Normal("y", mu=a, sigma=1.0, observed=Y_OBS)
    return model


def exact_posterior_mean_b() -> float:
    # integrating a out: ybar_i | b ~ N(b, 1 + 1/n)
    v = 1.0 + 1.0 / N_OBS
    ybar = Y_OBS.mean(axis=0)
    precision = 2.0 / v + 1.0 / B_PRIOR_SD**2
    return float(ybar.sum() / v / precision)
