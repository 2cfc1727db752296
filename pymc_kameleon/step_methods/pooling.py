"""Warm-up pooled across chains, through PyMC's population sampling: explicit step classes.

``pm.sample`` runs its population sampler for a step that is a
:class:`~pymc.step_methods.arraystep.PopulationArrayStepShared`: all chains in lock-step
(``cores > 1`` puts each chain in its own process and sends it the population at every
iteration), and each chain sees the current points of the others. :class:`PooledKameleonStep`,
:class:`PooledAdaptiveMetropolis`, :class:`PooledKMCStep` and :class:`PooledAdaptiveMHStep` are
the package's steps with :class:`PooledWarmup` mixed in: during warm-up, before each of its
iterations, the step hands the other chains' states to what its proposal learns from
(:meth:`~pymc_kameleon.core.proposals.Proposal.observe`: the history, the covariance windows,
KMC's surrogate history); it learns from the states of every chain, from starts spread over the
posterior. After warm-up nothing is pooled: every chain's kernel is frozen and the chains are
independent again, so each is an exact Metropolis–Hastings chain. They take the arguments of
the step they pool.
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
