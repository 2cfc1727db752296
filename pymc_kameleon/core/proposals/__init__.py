"""Proposals for Metropolis–Hastings steps, as objects (see :class:`Proposal`).

- :class:`Proposal`, :class:`Transition` and :class:`Outcome`: the protocol every proposal
  follows (in :mod:`~pymc_kameleon.core.proposals.protocol`);
- :class:`GaussianRandomWalk`: ``N(x, gamma^2 I + s S(x))`` with a learned ``S`` and scale;
- :class:`AdaptiveCovarianceProposal`: Haario's adaptive Metropolis;
- :class:`KameleonProposal`: the kernel-informed Kameleon proposal (and its M H M^T maths);
- :class:`MixtureProposal`: a weighted mixture of proposals, with the mixture density;
- :class:`AffineMap`: the coordinates a Gaussian random walk may work in (e.g. whitened ones);
- :class:`CoordinateRandomWalk`: one coordinate at a time, each with its learned scale;
- :class:`IsotropicRandomWalk`: ``N(x, s I)`` in mapped coordinates (whitened adaptive Metropolis);
- KMC's moves, :mod:`~pymc_kameleon.core.proposals.trajectory` (a leapfrog trajectory on a
  learned surrogate) and :mod:`~pymc_kameleon.core.proposals.kmc_moves` (the trajectories and
  the moves that feed them, as one proposal);
- :class:`WhitenedProposal`: the unit-free warm-up (per-coordinate start, whitening windows)
  around a main proposal.

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
from pymc_kameleon.core.proposals.affine import AffineMap, diagonal_map
from pymc_kameleon.core.proposals.coordinate_walk import CoordinateRandomWalk
from pymc_kameleon.core.proposals.isotropic_walk import IsotropicRandomWalk
from pymc_kameleon.core.proposals.kameleon import (
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
from pymc_kameleon.core.proposals.pca_kameleon import PCAKameleonProposal
from pymc_kameleon.core.proposals.protocol import Outcome, Proposal, Transition
from pymc_kameleon.core.proposals.random_walk import GaussianRandomWalk
from pymc_kameleon.core.proposals.whitened import (
    WARMUP_STAGES,
    WhitenedProposal,
    default_first_window,
    default_start_length,
    planned_window_stops,
)

__all__ = [
    "WARMUP_STAGES",
    "AdaptiveCovarianceProposal",
    "AffineMap",
    "CoordinateRandomWalk",
    "GaussianRandomWalk",
    "IsotropicRandomWalk",
    "KameleonProposal",
    "MixtureProposal",
    "Outcome",
    "PCAKameleonProposal",
    "Proposal",
    "Transition",
    "WhitenedProposal",
    "centered_gradient_matrix",
    "cholesky_with_jitter",
    "default_first_window",
    "default_start_length",
    "diagonal_map",
    "gaussian_log_pdf",
    "gaussian_log_pdf_of_noise",
    "kameleon_covariance",
    "kameleon_gradient_matrix",
    "kameleon_scatter",
    "kernel_term_trace",
    "planned_window_stops",
    "proposal_cholesky",
    "random_walk_trace",
    "scale_for_trace",
    "scaled_cholesky_numpy",
]
