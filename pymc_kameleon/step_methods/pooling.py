"""The pooled classes of the steps that do not pool by default.

:class:`PooledKameleonStep`, :class:`PooledAdaptiveMetropolis` and :class:`PooledAdaptiveMHStep`
are the package's steps with :class:`~pymc_kameleon.step_methods.pooled_warmup.PooledWarmup`
mixed in, as PyMC population steps: during warm-up every chain learns from the states of all
chains (see :mod:`~pymc_kameleon.step_methods.pooled_warmup`). They take the arguments of the
step they pool. :class:`~pymc_kameleon.KMCStep` pools by default; :class:`PooledKMCStep` is its
earlier name.
"""

from __future__ import annotations

from typing import Any

from pymc.step_methods.arraystep import PopulationArrayStepShared

from pymc_kameleon.step_methods.adaptive_metropolis import AdaptiveMetropolis
from pymc_kameleon.step_methods.adaptive_mh import AdaptiveMHStep
from pymc_kameleon.step_methods.kameleon import KameleonStep
from pymc_kameleon.step_methods.kmc import KMCStep
from pymc_kameleon.step_methods.pooled_warmup import PooledWarmup, ProcessLocal

__all__ = [
    "PooledAdaptiveMHStep",
    "PooledAdaptiveMetropolis",
    "PooledKMCStep",
    "PooledKameleonStep",
    "PooledWarmup",
    "ProcessLocal",
]


class PooledAdaptiveMHStep(PooledWarmup, AdaptiveMHStep, PopulationArrayStepShared):
    """:class:`~pymc_kameleon.step_methods.adaptive_mh.AdaptiveMHStep` with its warm-up pooled
    across chains (see :mod:`~pymc_kameleon.step_methods.pooling`).

    Parameters
    ----------
    *args, **kwargs
        The arguments of :class:`~pymc_kameleon.step_methods.adaptive_mh.AdaptiveMHStep`.
    """


class PooledKameleonStep(PooledWarmup, KameleonStep, PopulationArrayStepShared):
    """:class:`~pymc_kameleon.KameleonStep` with its warm-up pooled across chains: each chain's
    kernel history and covariance windows learn from every chain's states (see
    :mod:`~pymc_kameleon.step_methods.pooling`).

    Parameters
    ----------
    *args, **kwargs
        The arguments of :class:`~pymc_kameleon.KameleonStep`.
    """


class PooledAdaptiveMetropolis(PooledWarmup, AdaptiveMetropolis, PopulationArrayStepShared):
    """:class:`~pymc_kameleon.AdaptiveMetropolis` with its warm-up pooled across chains: each
    chain's covariance windows (or running covariance) learn from every chain's states (see
    :mod:`~pymc_kameleon.step_methods.pooling`).

    Parameters
    ----------
    *args, **kwargs
        The arguments of :class:`~pymc_kameleon.AdaptiveMetropolis`.
    """


class PooledKMCStep(KMCStep):
    """:class:`~pymc_kameleon.KMCStep` itself, whose warm-up is pooled across chains by default:
    the name code written against earlier versions used (see
    :mod:`~pymc_kameleon.step_methods.pooled_warmup`).

    Parameters
    ----------
    *args, **kwargs
        The arguments of :class:`~pymc_kameleon.KMCStep`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
