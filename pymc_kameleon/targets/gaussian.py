"""A multivariate Gaussian as a PyMC model, for sanity checks with known moments."""

from __future__ import annotations

import numpy as np
import pymc as pm

__all__ = ["gaussian_model"]


def gaussian_model(cov: np.ndarray, name: str = "x") -> pm.Model:
    """Build a PyMC model whose posterior is N(0, cov), for sanity checks.

    Parameters
    ----------
    cov : numpy.ndarray
        Symmetric positive definite covariance matrix of shape ``(d, d)``.
    name : str, default "x"
        Name of the vector variable.

    Returns
    -------
    pymc.Model
        A model with the single variable ``pm.MvNormal(name, mu=0, cov=cov)``.
    """
    cov = np.asarray(cov, dtype=float)
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"cov must be a square matrix, got shape {cov.shape}")
    with pm.Model() as model:
        pm.MvNormal(name, mu=np.zeros(cov.shape[0]), cov=cov)
    return model
