"""Moved: the GP-classification likelihood estimator is now in
:mod:`pymc_kameleon.targets.gp_classification`.

``core/`` holds sampler algorithms only; this module re-exports the same names, so
``from pymc_kameleon.core.gp_classification import ...`` keeps working.
"""

from pymc_kameleon.targets.gp_classification import (
    DEFAULT_JITTER,
    DEFAULT_N_IMPORTANCE,
    GPC_PRIOR_VARIANCE,
    GPCLogLikelihoodEstimator,
    LaplaceApproximation,
    LaplaceConvergenceError,
    ard_gaussian_kernel,
    gpc_log_prior,
    importance_sampling_log_marginal,
    importance_sampling_log_weights,
    laplace_approximation,
    logistic_log_likelihood,
    make_gpc_log_likelihood_estimator,
)

__all__ = [
    "DEFAULT_JITTER",
    "DEFAULT_N_IMPORTANCE",
    "GPC_PRIOR_VARIANCE",
    "GPCLogLikelihoodEstimator",
    "LaplaceApproximation",
    "LaplaceConvergenceError",
    "ard_gaussian_kernel",
    "gpc_log_prior",
    "importance_sampling_log_marginal",
    "importance_sampling_log_weights",
    "laplace_approximation",
    "logistic_log_likelihood",
    "make_gpc_log_likelihood_estimator",
]
