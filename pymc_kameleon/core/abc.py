"""Moved: the skew-normal ABC target now lives in :mod:`pymc_kameleon.targets.abc_skew_normal`.

``core/`` holds sampler algorithms only; this module re-exports the same names, so
``from pymc_kameleon.core.abc import ...`` keeps working.
"""

from pymc_kameleon.targets.abc_skew_normal import (
    ABC_DIMENSION,
    ABC_EPSILON,
    ABC_N_DRAWS,
    ABC_N_SIMULATIONS,
    ABC_OBSERVED_SEED,
    ABC_PRIOR_VARIANCE,
    ABC_SHAPE,
    ABC_THETA_TRUE,
    ABCLogLikelihoodEstimator,
    abc_log_likelihood_estimate,
    abc_log_prior,
    make_abc_log_likelihood_estimator,
    observed_summary,
    sample_skew_normal,
    simulate_summaries,
    skew_normal_covariance,
    skew_normal_delta,
    skew_normal_marginal_shape,
    skew_normal_mean,
)

__all__ = [
    "ABC_DIMENSION",
    "ABC_EPSILON",
    "ABC_N_DRAWS",
    "ABC_N_SIMULATIONS",
    "ABC_OBSERVED_SEED",
    "ABC_PRIOR_VARIANCE",
    "ABC_SHAPE",
    "ABC_THETA_TRUE",
    "ABCLogLikelihoodEstimator",
    "abc_log_likelihood_estimate",
    "abc_log_prior",
    "make_abc_log_likelihood_estimator",
    "observed_summary",
    "sample_skew_normal",
    "simulate_summaries",
    "skew_normal_covariance",
    "skew_normal_delta",
    "skew_normal_marginal_shape",
    "skew_normal_mean",
]
