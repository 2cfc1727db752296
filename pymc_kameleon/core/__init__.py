"""Pure NumPy/SciPy building blocks, no PyMC import: kernels, history, adaptation, proposals, MH."""

from pymc_kameleon.core.adaptation import (
    AdaptationSchedule,
    CallableSchedule,
    RunningMoments,
    ScaleAdapter,
    TuningOnly,
    VanishingAdaptation,
    make_schedule,
    optimal_rw_scale,
    robbins_monro_update,
)
from pymc_kameleon.core.bandwidth import median_heuristic
from pymc_kameleon.core.history import ChainHistory
from pymc_kameleon.core.kernels import (
    KERNELS,
    GaussianKernel,
    Kernel,
    LinearKernel,
    Matern32Kernel,
    Matern52Kernel,
    make_kernel,
)
from pymc_kameleon.core.mh import MHDecision, accept_probability, mh_decide, mh_log_ratio
from pymc_kameleon.core.proposals import (
    AdaptiveCovarianceProposal,
    KameleonProposal,
    MixtureProposal,
    Proposal,
    Transition,
    cholesky_with_jitter,
    gaussian_log_pdf,
    gaussian_log_pdf_of_noise,
    kameleon_covariance,
    kameleon_gradient_matrix,
)

__all__ = [
    "KERNELS",
    "AdaptationSchedule",
    "AdaptiveCovarianceProposal",
    "CallableSchedule",
    "ChainHistory",
    "GaussianKernel",
    "KameleonProposal",
    "Kernel",
    "LinearKernel",
    "MHDecision",
    "Matern32Kernel",
    "Matern52Kernel",
    "MixtureProposal",
    "Proposal",
    "RunningMoments",
    "ScaleAdapter",
    "Transition",
    "TuningOnly",
    "VanishingAdaptation",
    "accept_probability",
    "cholesky_with_jitter",
    "gaussian_log_pdf",
    "gaussian_log_pdf_of_noise",
    "kameleon_covariance",
    "kameleon_gradient_matrix",
    "make_kernel",
    "make_schedule",
    "median_heuristic",
    "mh_decide",
    "mh_log_ratio",
    "optimal_rw_scale",
    "robbins_monro_update",
]
