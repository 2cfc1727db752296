"""Cross-validated choice of the KMC length scale.

Moved to :mod:`pymc_kameleon.core.surrogates.lengthscale_cv`; this module re-exports it
so that imports from ``pymc_kameleon.core.lengthscale_cv`` keep working.
"""

from pymc_kameleon.core.surrogates.lengthscale_cv import (
    cross_validated_objective,
    select_lengthscale,
)

__all__ = [
    "cross_validated_objective",
    "select_lengthscale",
]
