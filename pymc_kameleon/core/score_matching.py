"""Kernel exponential-family surrogate (KMC lite).

Moved to :mod:`pymc_kameleon.core.surrogates.lite`; this module re-exports it
so that imports from ``pymc_kameleon.core.score_matching`` keep working.
"""

from pymc_kameleon.core.surrogates.lite import (
    LiteSurrogate,
    lite_fit,
    lite_gradient,
    lite_objective,
    lite_value,
)

__all__ = [
    "LiteSurrogate",
    "lite_fit",
    "lite_gradient",
    "lite_objective",
    "lite_value",
]
