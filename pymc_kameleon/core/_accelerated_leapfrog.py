"""Compiled whole-trajectory leapfrog loops of the KMC surrogates.

Moved to :mod:`pymc_kameleon.core.surrogates._compiled`; this module re-exports it
so that imports from ``pymc_kameleon.core._accelerated_leapfrog`` keep working.
"""

from pymc_kameleon.core.surrogates._compiled import (
    HAVE_NUMBA,
    finite_leapfrog,
    finite_leapfrog_numpy,
    lite_leapfrog,
    lite_leapfrog_numpy,
)

__all__ = [
    "HAVE_NUMBA",
    "finite_leapfrog",
    "finite_leapfrog_numpy",
    "lite_leapfrog",
    "lite_leapfrog_numpy",
]
