"""Learning from every chain during warm-up: the mixin of the population steps.

``pm.sample`` runs PyMC's population sampler for a step that is a
:class:`~pymc.step_methods.arraystep.PopulationArrayStepShared`: all chains advance in lock-step
(``cores > 1`` puts each chain in its own process and sends it the population at every
iteration), and each chain sees the current points of the others. A step with
:class:`PooledWarmup` mixed in hands those states, during warm-up and before each of its
iterations, to what its proposal learns from
(:meth:`~pymc_kameleon.core.proposals.Proposal.observe`): it learns from the states of every
chain, from starts spread over the posterior. After warm-up nothing is pooled: each chain's
kernel is its own and the chains are independent again, each an exact Metropolis–Hastings chain.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pymc.blocking import DictToArrayBijection

from pymc_kameleon.core._threads import limit_blas_in_forked_worker

__all__ = ["PooledWarmup", "ProcessLocal"]


class ProcessLocal:
    """A reference that does not travel: a shallow copy shares it, a pickle (or a deep copy)
    arrives empty.

    Parameters
    ----------
    value : object, optional
    """

    def __init__(self, value: Any = None) -> None:
        self.value = value

    def __reduce__(self):
        """Pickle as an empty reference (a worker process cannot reach this one's object)."""
        return (ProcessLocal, ())


class PooledWarmup:
    """Mixin of the pooled variants: hands the other chains' states to the step in warm-up.

    PyMC runs a shallow copy of the step per chain and never the step object the user passed.
    The copies share its ``origin_step`` (the object itself, held by a :class:`ProcessLocal`),
    and each copy, when PyMC links it to the population, hands the user's object its own
    proposal and current point: so that, as without pooling, the step the user holds shows the
    last chain's proposal as that chain learns it, during and after the run (what the plotting
    helpers read). Copies sent to worker processes (``cores > 1``) learn in their own copy,
    which does not come back.
    """

    #: whether warm-up learns from the other chains (a step may take it as an argument)
    pool_warmup = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.origin = ProcessLocal(self)  # (the object the user holds)

    @property
    def origin_step(self) -> Any:
        """The step object the user built (None in a worker process)."""
        return self.origin.value

    def link_population(self, population: list, chain_index: int) -> None:
        """Link the step to the population's list of current points (PyMC calls this).

        PyMC's own check asks for at least 3 chains (DEMetropolis needs them); pooling needs
        only one other chain, and with a single chain there is nothing to pool.

        Parameters
        ----------
        population : list of dict
            Every chain's current point, updated by PyMC at each iteration.
        chain_index : int
            This chain's position in ``population``.
        """
        self.population = population
        self.this_chain = chain_index
        self.other_chains = [c for c in range(len(population)) if c != chain_index]
        origin = self.origin_step
        if origin is not None and origin is not self:
            # live links: the chain's own proposal and current point, updated as it runs
            origin.proposal, origin.current = self.proposal, self.current

    def astep(self, q0: Any) -> Any:
        """Learn from the other chains' states (warm-up only), then the step's own iteration."""
        # PyMC's population workers are forked after the chains started: limit BLAS here
        limit_blas_in_forked_worker()
        if self.pool_warmup and self.tune and self.population is not None and self.other_chains:
            self._observe_others(self.other_states())
        return super().astep(q0)

    def other_states(self) -> np.ndarray:
        """The other chains' current states, raveled like this step's variables.

        Returns
        -------
        numpy.ndarray, shape (n_chains - 1, d)
        """
        names = [v.name for v in self.vars]
        rows = [
            DictToArrayBijection.map({n: self.population[c][n] for n in names}).data
            for c in self.other_chains
        ]
        return np.asarray(rows, dtype=np.float64)
