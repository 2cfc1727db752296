"""Proposals for Metropolis–Hastings steps, as objects (see :class:`Proposal`).

- :class:`Proposal` and :class:`Transition`: the protocol every proposal follows (in
  :mod:`~pymc_kameleon.core.proposals.protocol`);
- :class:`GaussianRandomWalk`: ``N(x, gamma^2 I + s S(x))`` with a learned ``S`` and scale;
- :class:`AdaptiveCovarianceProposal`: Haario's adaptive Metropolis;
- :class:`KameleonProposal`: the kernel-informed Kameleon proposal (and its M H M^T maths);
- :class:`MixtureProposal`: a weighted mixture of proposals, with the mixture density.

The Gaussian helpers that lived here (``cholesky_with_jitter``, ``gaussian_log_pdf``, ...) are
in :mod:`pymc_kameleon.core.linalg` and still importable from this package.
"""

from pymc_kameleon.core.linalg import (
    cholesky_with_jitter,
    gaussian_log_pdf,
    gaussian_log_pdf_of_noise,
    proposal_cholesky,
    scaled_cholesky_numpy,
)
from pymc_kameleon.core.proposals.adaptive_covariance import AdaptiveCovarianceProposal
from pymc_kameleon.core.proposals.kameleon import (
    AffineMap,
    KameleonProposal,
    centered_gradient_matrix,
    kameleon_covariance,
    kameleon_gradient_matrix,
    kameleon_scatter,
    kernel_term_trace,
    random_walk_trace,
    scale_for_trace,
)
from pymc_kameleon.core.proposals.mixture import MixtureProposal
from pymc_kameleon.core.proposals.protocol import Proposal, Transition
from pymc_kameleon.core.proposals.random_walk import GaussianRandomWalk

__all__ = [
    "AdaptiveCovarianceProposal",
    "AffineMap",
    "GaussianRandomWalk",
    "KameleonProposal",
    "MixtureProposal",
    "Proposal",
    "Transition",
    "centered_gradient_matrix",
    "cholesky_with_jitter",
    "gaussian_log_pdf",
    "gaussian_log_pdf_of_noise",
    "kameleon_covariance",
    "kameleon_gradient_matrix",
    "kameleon_scatter",
    "kernel_term_trace",
    "proposal_cholesky",
    "random_walk_trace",
    "scale_for_trace",
    "scaled_cholesky_numpy",
]
