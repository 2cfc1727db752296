"""The two pseudo-marginal targets of the papers, as PyMC models with an estimated likelihood.

GP classification on UCI Glass (:func:`glass_gpc_model`) and ABC with a skew-normal simulator
(:func:`abc_skew_normal_model`). The likelihood estimators themselves are plain NumPy/SciPy
(:mod:`pymc_kameleon.targets.gp_classification`, :mod:`pymc_kameleon.targets.abc_skew_normal`);
here they are wrapped with :func:`pymc_kameleon.estimator_potential`.
"""

from __future__ import annotations

import numpy as np
import pymc as pm

from pymc_kameleon.pseudo_marginal import estimator_potential
from pymc_kameleon.targets.abc_skew_normal import (
    ABC_DIMENSION,
    ABC_PRIOR_VARIANCE,
    make_abc_log_likelihood_estimator,
)
from pymc_kameleon.targets.glass import load_glass_gpc
from pymc_kameleon.targets.gp_classification import (
    GPC_PRIOR_VARIANCE,
    make_gpc_log_likelihood_estimator,
)

__all__ = ["abc_skew_normal_model", "glass_gpc_model"]


def glass_gpc_model(n_importance: int = 100, name: str = "theta") -> pm.Model:
    """GP classification on UCI Glass with an importance-sampling likelihood estimate.

    The experiment of both papers: 9 ARD log squared length scales ``theta`` of a Gaussian
    kernel on the whitened Glass features, labels window (163) vs non-window (51) glass, prior
    ``N(0, 5 I)``, and ``log p_hat(y | theta)`` by importance sampling from the Laplace
    approximation (:mod:`pymc_kameleon.targets.gp_classification`), wrapped with
    :func:`pymc_kameleon.estimator_potential`. Sample it with this package's steps only.

    Parameters
    ----------
    n_importance : int, default 100
        Importance samples per likelihood estimate (fewer: cheaper but noisier).
    name : str, default "theta"
        Name of the free variable (shape ``(9,)``).

    Returns
    -------
    pymc.Model
    """
    X, y = load_glass_gpc()
    estimate = make_gpc_log_likelihood_estimator(X, y, n_importance=n_importance)
    with pm.Model() as model:
        theta = pm.Normal(name, 0.0, np.sqrt(GPC_PRIOR_VARIANCE), shape=X.shape[1])
        estimator_potential("loglike", estimate, theta)
    return model


def abc_skew_normal_model(
    n_simulations: int = 10, epsilon: float = 0.55, name: str = "theta"
) -> pm.Model:
    """ABC posterior of the 10-D skew-normal location, as an exact pseudo-marginal target.

    Prior ``N(0, 25 I)``; the likelihood of the observed summary (the mean of 10 skew-normal
    draws at ``theta_true = 10 * 1``) is estimated by averaging a normalised Gaussian ABC kernel
    of bandwidth ``epsilon`` over ``n_simulations`` fresh simulations
    (:mod:`pymc_kameleon.targets.abc_skew_normal`). The samplers of this package keep the
    current state's estimate, so the chain targets the ABC posterior exactly.

    Parameters
    ----------
    n_simulations : int, default 10
        Simulated data sets per likelihood estimate.
    epsilon : float, default 0.55
        ABC kernel bandwidth.
    name : str, default "theta"
        Name of the free variable (shape ``(10,)``).

    Returns
    -------
    pymc.Model
    """
    estimate = make_abc_log_likelihood_estimator(n_simulations=n_simulations, epsilon=epsilon)
    with pm.Model() as model:
        theta = pm.Normal(name, 0.0, np.sqrt(ABC_PRIOR_VARIANCE), shape=ABC_DIMENSION)
        estimator_potential("loglike", estimate, theta)
    return model
