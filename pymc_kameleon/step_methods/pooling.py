"""The pooled classes: the package's steps with their warm-up pooled across chains.

:class:`PooledKMCStep`, :class:`PooledKameleonStep`, :class:`PooledAdaptiveMetropolis` and
:class:`PooledAdaptiveMHStep` are the package's steps with
:class:`~pymc_kameleon.step_methods.pooled_warmup.PooledWarmup` mixed in, as PyMC population
steps: during warm-up every chain learns from the states of all chains (see
:mod:`~pymc_kameleon.step_methods.pooled_warmup`). They take the arguments of the step they pool.
No step is pooled by default, because PyMC's population sampler, which pooling needs, has three
limits its other paths do not: Ctrl-C raises ``KeyboardInterrupt`` without returning the draws,
``callback=`` is never called, and with ``cores=1`` the chains share the other steps of a
compound step (so such a compound is refused; see
:class:`~pymc_kameleon.step_methods.pooled_warmup.PooledWarmup`).
"""

from __future__ import annotations

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


class PooledKMCStep(PooledWarmup, KMCStep, PopulationArrayStepShared):
    """:class:`~pymc_kameleon.KMCStep` with its warm-up pooled across chains: each chain's
    surrogate history, covariance windows and exploration moves learn from every chain's states,
    from starts spread over the posterior (see :mod:`~pymc_kameleon.step_methods.pooling` for
    what PyMC's population sampler costs). On the 8-D bananas, 4 x (4000 + 4000), pooling took
    the min ESS of B(0.03, 100) from 173 to 271 and of B(0.1, 100) from 18 to 168, at 2.5 times
    the wall time on 2 cores (benchmarks/notes/lab-notes.md).

    Parameters
    ----------
    *args, **kwargs
        The arguments of :class:`~pymc_kameleon.KMCStep`.
    """
