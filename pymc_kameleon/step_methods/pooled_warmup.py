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

What PyMC's population sampler costs (PyMC 5.28 and 6.4 alike; the unpooled steps have none of
it): Ctrl-C stops the run, but ``pm.sample`` re-raises ``KeyboardInterrupt`` after closing the
traces, so the draws made so far are not returned; ``callback=`` is never called; and with
``cores=1`` every chain gets a shallow copy of the other steps of a compound step, so a step that
keeps its tuning in arrays updated in place (``pm.Metropolis``'s acceptance counter) tunes on all
chains at once and can freeze its variable. Such a compound is refused with ``cores=1``; with
``cores > 1`` each chain's copy lives in its own process and it runs.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from pymc.blocking import DictToArrayBijection

from pymc_kameleon.core._threads import limit_blas_in_forked_worker

__all__ = ["PooledWarmup", "ProcessLocal", "SharedCompoundError"]

_log = logging.getLogger("pymc")  # (PyMC's own logger: said where PyMC says "Population sampling")


class SharedCompoundError(ValueError):
    """A pooled step in a compound step whose chains would share the other steps' state."""


def population_limits_notice(step_name: str) -> str:
    """What a pooled step's run gives up, said once when it starts."""
    return (
        f"{step_name} pools its warm-up on PyMC's population sampler: Ctrl-C there raises "
        "without returning the draws, and callback= is not called. The unpooled step has "
        "neither limit."
    )


def shared_compound_message(step_name: str, others: list[str]) -> str:
    """Why a pooled step refuses a compound step with cores=1, and what to use instead."""
    unpooled = step_name.removeprefix("Pooled")
    return (
        f"{step_name} is in a compound step with other steps (for {', '.join(others)}), and with "
        "cores=1 PyMC's population sampler gives every chain a shallow copy of them: a step "
        "that tunes arrays in place, such as pm.Metropolis, would tune on all chains at once "
        f"and can freeze its variables. Use {unpooled}(...) in the compound step, or "
        "pm.sample(cores=2 or more), where each chain's copy lives in its own process."
    )


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
    #: whether this chain's copy has checked what it shares with the other chains
    _population_checked = False

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
        if chain_index == 0 and len(population) > 1:
            _log.info(population_limits_notice(type(self).__name__))

    def astep(self, q0: Any) -> Any:
        """Learn from the other chains' states (warm-up only), then the step's own iteration."""
        # PyMC's population workers are forked after the chains started: limit BLAS here
        limit_blas_in_forked_worker()
        if not self._population_checked:
            self._refuse_a_shared_compound()
        if self.pool_warmup and self.tune and self.population is not None and self.other_chains:
            self._observe_others(self.other_states())
        return super().astep(q0)

    def _refuse_a_shared_compound(self) -> None:
        """Refuse to run beside other steps whose per-chain copies share state (cores=1).

        Variables of the model outside this step's (``self.shared``) are another step's. In a
        worker process (``cores > 1``) the origin reference arrived empty: each chain's copies
        were pickled apart and share nothing.

        Raises
        ------
        SharedCompoundError
        """
        self._population_checked = True
        in_one_process = self.origin_step is not None
        several_chains = len(getattr(self, "population", None) or ()) > 1
        if in_one_process and several_chains and self.shared:
            others = sorted(str(name) for name in self.shared)
            raise SharedCompoundError(shared_compound_message(type(self).__name__, others))

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
