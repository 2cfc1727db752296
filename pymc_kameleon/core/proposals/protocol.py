"""What a Metropolis–Hastings step needs from a proposal, and the facts it learns from.

A :class:`Proposal` draws a candidate and its forward log-density, evaluates the log-density of
moving between two states, learns from the chain, resets to its untuned state and reports stats.
The step (:class:`~pymc_kameleon.step_methods.adaptive_mh.AdaptiveMHStep`) runs one iteration
as ``propose -> log-density of the target -> log_density (Hastings term, skipped when
symmetric) -> MH decision -> learn``.

A proposal is per-chain state: PyMC copies it into and out of the step's ``sampling_state``, so
it must deep-copy, pickle, and compare equal to an identical copy (:meth:`Proposal.__eq__`
compares every attribute). It must not keep a reference to the step or to the random generator;
the generator is passed to every call that draws.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import numpy as np

__all__ = ["ComparedByState", "Outcome", "Proposal", "Transition", "same_state"]


class Transition(NamedTuple):
    """What one Metropolis–Hastings iteration tells a proposal that learns.

    Parameters
    ----------
    state : numpy.ndarray, shape (d,)
        The chain's state after the accept/reject decision.
    accept_prob : float or None
        Acceptance probability of the iteration's proposal; None when another proposal made the
        move (the other components of a mixture): record the state, leave the scale alone.
    iteration : int
        Iterations since the chain started (0-based) at which ``state`` is current.
    tuning : bool
        Whether the chain is in warm-up.
    target_factor : float, default 1.0
        Multiplier of every acceptance target: the acceptance ceiling that the noise of a
        stochastic likelihood estimate imposes (1 without noise).
    log_density : float, default NaN
        The target's (estimated) log-density at ``state``.
    outcome : Outcome, optional
        The iteration's Metropolis–Hastings test, for a proposal that learns from it.
    evaluate : callable, optional
        ``x -> log-density`` of the target, for a proposal that learns from finite differences
        (None for a stochastic likelihood estimate); every call is counted as an evaluation.
    """

    state: np.ndarray
    accept_prob: float | None
    iteration: int
    tuning: bool
    target_factor: float = 1.0
    log_density: float = math.nan
    outcome: Outcome | None = None
    evaluate: Callable[[np.ndarray], float] | None = None

    def without_acceptance(self) -> Transition:
        """The same transition with ``accept_prob=None`` (another proposal made the move).

        Returns
        -------
        Transition
        """
        return self._replace(accept_prob=None)


class Outcome(NamedTuple):
    """How one Metropolis–Hastings test of a candidate ended.

    Parameters
    ----------
    logp_current : float
        The target's log-density at the state the candidate was proposed from.
    logp_new : float
        At the candidate (``-inf`` when it was not evaluated).
    log_ratio : float
        The log Metropolis–Hastings ratio.
    accepted : bool
    """

    logp_current: float
    logp_new: float
    log_ratio: float
    accepted: bool


class Proposal(ABC):
    """A Metropolis–Hastings proposal ``q(x' | x)`` that may learn from its chain.

    Subclasses implement :meth:`propose`, :meth:`log_density`, :meth:`learn`, :meth:`reset` and
    :meth:`stats`, and set :attr:`symmetric` and :attr:`stats_dtypes`.
    """

    #: whether ``q(a | b) = q(b | a)`` for all states: the Hastings term then cancels
    symmetric: ClassVar[bool] = False
    #: whether the log-densities are minus energies (a Hamiltonian move's kinetic energies):
    #: the step then sums the ratio as ``H(start) - H(end)``
    #: (:func:`~pymc_kameleon.core.mh.mh_log_ratio`'s ``as_energies``)
    hastings_as_energies: ClassVar[bool] = False
    #: attributes that live for one iteration (e.g. the last candidate's), left out of equality
    ephemeral: ClassVar[tuple[str, ...]] = ()
    #: name -> (dtype, shape) of every entry :meth:`stats` returns
    stats_dtypes: ClassVar[dict[str, tuple[Any, list]]] = {}

    @abstractmethod
    def propose(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Draw a candidate from ``q(. | x)``.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The current state (not modified).
        rng : numpy.random.Generator
            Source of every random draw.

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
            The candidate, of the dtype of ``x``.
        log_q_forward : float
            ``log q(x_new | x)``; NaN when there is no candidate (e.g. a trajectory that left
            the finite numbers): the step then rejects it without evaluating the target.

        Raises
        ------
        FloatingPointError
            If no proposal distribution can be formed at ``x``.
        """

    @abstractmethod
    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """``log q(to | frm)``; NaN if no proposal distribution can be formed at ``frm``.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """

    def propose_many(
        self, x: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """A candidate for each row of ``x`` (a population moved with one fixed proposal).

        The default proposes row by row; a proposal that can draw for all rows at once
        overrides it. The random stream may differ from that of :meth:`propose` row by row.

        Parameters
        ----------
        x : numpy.ndarray, shape (n, d)
            Current states as rows (not modified).
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (n, d)
            The candidates, of the dtype of ``x``.
        log_q_forward : numpy.ndarray, shape (n,)
            ``log q(x_new[i] | x[i])``.

        Raises
        ------
        FloatingPointError
            If no proposal distribution can be formed at some row.
        """
        pairs = [self.propose(row, rng) for row in x]
        x_new = np.array([pair[0] for pair in pairs], dtype=x.dtype).reshape(x.shape)
        return x_new, np.array([pair[1] for pair in pairs], dtype=float)

    def log_density_many(self, to: np.ndarray, frm: np.ndarray) -> np.ndarray:
        """``log q(to[i] | frm[i])`` for each row; NaN where no proposal can be formed.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (n, d)

        Returns
        -------
        numpy.ndarray, shape (n,)
        """
        return np.array([self.log_density(a, b) for a, b in zip(to, frm, strict=True)], dtype=float)

    def review(self, outcome: Outcome) -> dict[str, Any]:
        """Stats of the candidate just tested (called once per iteration, after the test).

        The default reports nothing; a move with stats of its own (a trajectory's energy
        error) returns them, keys of the step's stats.

        Parameters
        ----------
        outcome : Outcome

        Returns
        -------
        dict
        """
        return {}

    @abstractmethod
    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Learn from the chain after an iteration (called only while the step adapts).

        Parameters
        ----------
        transition : Transition
        rng : numpy.random.Generator
        """

    def observe(self, states: np.ndarray, iteration: int, rng: np.random.Generator) -> None:
        """Learn from other chains' current states (a warm-up pooled across chains).

        Called during warm-up, before the chain's own iteration, with the states the other
        chains of a population are at. The default ignores them; a proposal that learns from a
        history or a covariance adds them to it.

        Parameters
        ----------
        states : numpy.ndarray, shape (k, d)
            One row per other chain.
        iteration : int
            The chain's iteration (0-based) at which they are current.
        rng : numpy.random.Generator
        """

    def end_warmup(self) -> None:
        """Called once at the end of warm-up (e.g. to settle a learned scale)."""

    def plan_warmup(
        self, warmup_length: int | None, rng: np.random.Generator | None = None
    ) -> None:
        """Start a chain with this many warm-up iterations (None: unknown); resets.

        The default just calls :meth:`reset`; a proposal whose warm-up has stages fits them in.

        Parameters
        ----------
        warmup_length : int or None
        rng : numpy.random.Generator, optional
            The chain's generator, for a proposal that draws when a chain starts.
        """
        self.reset()

    @abstractmethod
    def reset(self) -> None:
        """Forget everything learned (start of a chain)."""

    @abstractmethod
    def stats(self) -> dict[str, Any]:
        """Sampler stats of the current iteration (keys of :attr:`stats_dtypes`)."""

    def __eq__(self, other: object) -> bool:
        """Same type and equal attributes (arrays compared exactly; used by ``sampling_state``).

        Attributes named ``_cache...`` hold values derived from the others and are not compared,
        nor are those named in :attr:`ephemeral`.
        """
        if type(other) is not type(self):
            return NotImplemented
        return same_state(_state_of(self), _state_of(other))

    __hash__ = None  # type: ignore[assignment]


def _state_of(proposal: Proposal) -> dict[str, Any]:
    skipped = proposal.ephemeral
    return {
        k: v for k, v in vars(proposal).items() if not k.startswith("_cache") and k not in skipped
    }


def same_state(a: Any, b: Any) -> bool:
    """Exact, NaN-tolerant equality of nested containers of arrays and plain values.

    Parameters
    ----------
    a, b : object

    Returns
    -------
    bool
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_state(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same_state(u, v) for u, v in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, float) and a != a:  # NaN
        return b != b
    return bool(a == b)


class ComparedByState:
    """Mixin: equal when of the same type with equal attributes (:func:`same_state`: arrays
    exactly, NaN equal to NaN), as PyMC's ``sampling_state`` round trips compare per-chain state.
    """

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return same_state(vars(self), vars(other))

    __hash__ = None  # type: ignore[assignment]
