"""Random Fourier features and the finite KMC surrogate.

Moved to :mod:`pymc_kameleon.core.surrogates.finite`; this module re-exports it
so that imports from ``pymc_kameleon.core.random_features`` keep working.
"""

from pymc_kameleon.core.surrogates.finite import (
    FiniteScoreMatching,
    RandomFeatures,
    relative_ridge,
)

__all__ = [
    "FiniteScoreMatching",
    "RandomFeatures",
    "relative_ridge",
]
