"""PyMC step methods: thin ``ArrayStepShared`` subclasses on top of :mod:`pymc_kameleon.core`."""

from pymc_kameleon.step_methods.adaptive_metropolis import AdaptiveMetropolis
from pymc_kameleon.step_methods.kameleon import KameleonStep
from pymc_kameleon.step_methods.kmc import KMCStep

__all__ = ["AdaptiveMetropolis", "KMCStep", "KameleonStep"]
