"""PyMC step methods: thin ``ArrayStepShared`` subclasses on top of :mod:`pymc_kameleon.core`."""

from pymc_kameleon.step_methods.adaptive_metropolis import AdaptiveMetropolis
from pymc_kameleon.step_methods.kameleon import KameleonStep
from pymc_kameleon.step_methods.kmc import KMCStep
from pymc_kameleon.step_methods.pooling import (
    PooledAdaptiveMetropolis,
    PooledKameleonStep,
    PooledKMCStep,
)

__all__ = [
    "AdaptiveMetropolis",
    "KMCStep",
    "KameleonStep",
    "PooledAdaptiveMetropolis",
    "PooledKMCStep",
    "PooledKameleonStep",
]
