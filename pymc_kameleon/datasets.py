"""Moved: the UCI Glass data now lives in :mod:`pymc_kameleon.targets.glass`.

This module re-exports the same names, so ``from pymc_kameleon.datasets import load_glass_gpc``
keeps working.
"""

from pymc_kameleon.targets.glass import (
    GLASS_CLASS_NAMES,
    GLASS_FEATURES,
    glass_window_labels,
    load_glass,
    load_glass_gpc,
    whiten,
)

__all__ = [
    "GLASS_CLASS_NAMES",
    "GLASS_FEATURES",
    "glass_window_labels",
    "load_glass",
    "load_glass_gpc",
    "whiten",
]
