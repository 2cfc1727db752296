"""The one Metropolis–Hastings iteration every step of this package runs.

:class:`AdaptiveMHStep` runs, at each iteration, ``proposal.propose`` -> the model's
log-density at the candidate -> ``proposal.log_density`` for the Hastings term (skipped when
the proposal is symmetric) -> the MH decision -> ``proposal.review`` (the move's stats) ->
``proposal.learn`` (while adapting). The proposal (:mod:`pymc_kameleon.core.proposals`) holds
everything it learns; the step holds the compiled log-density and the chain's current point.
:class:`~pymc_kameleon.KameleonStep`, :class:`~pymc_kameleon.AdaptiveMetropolis` and
:class:`~pymc_kameleon.KMCStep` only parse their arguments and build the proposal (KMC's is a
mixture of its moves, :class:`~pymc_kameleon.core.proposals.kmc_moves.KMCMoves`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from pymc_kameleon._compat import EMIT_TUNE_STAT, RaveledVars, SamplerWarning, dataclass_state
from pymc_kameleon.core.mh import MHDecision, mh_decide, mh_log_ratio
from pymc_kameleon.core.proposals import Proposal, Transition
from pymc_kameleon.core.proposals.protocol import Outcome
from pymc_kameleon.core.start_up import START_UP_STATUSES
from pymc_kameleon.step_methods.arguments import check_independence
from pymc_kameleon.step_methods.base import GradientFreeState, GradientFreeStep
from pymc_kameleon.step_methods.options import document_options
from pymc_kameleon.step_methods.progress import ProgressField

__all__ = ["AdaptiveMHState", "AdaptiveMHStep"]

#: the progress bar's columns
PROGRESS_FIELDS = (
    ProgressField("accept_rate", "Accept Rate", "accept", "0.2f"),
    ProgressField("scaling", "Scaling", "scaling", "0.3g"),
)


@dataclass_state
class AdaptiveMHState(GradientFreeState):
    """Per-chain state of :class:`AdaptiveMHStep`: the common state and the proposal."""

    proposal: Proposal


@document_options
class AdaptiveMHStep(GradientFreeStep):
    """Metropolis–Hastings over one :class:`~pymc_kameleon.core.proposals.Proposal`.

    Use it directly to sample with a proposal of your own making, e.g. a
    :class:`~pymc_kameleon.core.proposals.MixtureProposal` of a Kameleon and an
    adaptive-covariance move::

        step = AdaptiveMHStep(proposal=lambda dim: MixtureProposal([...]))

    Parameters
    ----------
    vars : list of PyMC variables, optional
        Continuous variables to sample jointly; defaults to all continuous variables.
    proposal : Proposal or callable
        The proposal, or ``make(dim) -> Proposal`` to build it once the dimension of the sampled
        (raveled, transformed) space is known. Each chain works on a copy of its own, made and reset
        when the chain starts (``step.proposal`` is the current chain's).
    adaptation : {"tune", "vanishing"}, AdaptationSchedule or callable, default "tune"
        While the proposal learns: during warm-up only (``"tune"``), or also afterwards.
    independence : {"off", "warmup", "always"}, default "off"
        As for :class:`~pymc_kameleon.KameleonStep`, for a
        :class:`~pymc_kameleon.core.proposals.WhitenedProposal` (other proposals have no
        independence moves); off by default, so a proposal built by hand is used as it is.
    <shared options>

    Attributes
    ----------
    proposal : Proposal
        The chain's proposal: what it learned, its covariance (``proposal.covariance(x)`` for the
        Gaussian ones) and its stats.

    Notes
    -----
    Sampler statistics: ``accept``, ``accepted``, ``model_logp``, ``logp_evals``, ``start_up``,
    ``invalid_proposal``, ``warning``, and the proposal's stats (``scaling``, ...). A warm-up
    pooled across chains is :class:`~pymc_kameleon.PooledAdaptiveMHStep` (its proposal's
    :meth:`~pymc_kameleon.core.proposals.Proposal.observe` gets the other chains' states).
    """

    stats_dtypes_shapes: ClassVar[dict[str, tuple[Any, list]]] = {
        "accept": (np.float64, []),
        "accepted": (np.float64, []),
        "scaling": (np.float64, []),
        "model_logp": (np.float64, []),
        "logp_evals": (np.int64, []),
        "start_up": (np.int64, []),
        "invalid_proposal": (bool, []),
        "warning": (SamplerWarning, None),
        **({"tune": (bool, [])} if EMIT_TUNE_STAT else {}),
    }
    _state_class = AdaptiveMHState
    progress_fields = PROGRESS_FIELDS

    def __init__(
        self,
        vars=None,
        *,
        proposal: Proposal | Callable[[int], Proposal],
        adaptation: Any = "tune",
        independence: str = "off",
        **options: Any,
    ) -> None:
        self.proposal: Proposal | None = None
        self.independence = check_independence(independence)
        super().__init__(vars, adaptation=adaptation, **options)
        self.proposal = proposal if isinstance(proposal, Proposal) else proposal(self.dim)
        self._reset_chain_state()
        extra = {
            k: v for k, v in self.proposal.stats_dtypes.items() if k not in self.stats_dtypes_shapes
        }
        if extra:
            self._add_stats(extra)

    # ----------------------------------------------------------------------------------------
    # chain life cycle
    def _reset_chain_state(self) -> None:
        """Put every piece of per-chain state back to its untuned value."""
        self._reset_common_state()
        if self.proposal is not None:
            # PyMC's population sampler gives each chain a shallow copy of the step: without a
            # copy of its own, every chain would train one shared proposal
            self.proposal = copy.deepcopy(self.proposal)
            self.proposal.plan_warmup(self.warmup_length, self.rng)  # resets it for the chain

    def _observe_others(self, states: np.ndarray) -> None:
        """Learn from other chains' current states (a pooled warm-up, during warm-up)."""
        self.proposal.observe(states, self.iteration, self.rng)

    @property
    def takes_gaussian_start(self) -> bool:
        """Whether the proposal can begin from a Gaussian's shape (a whitened warm-up can)."""
        default = hasattr(self.proposal, "start_from")
        return bool(getattr(self.proposal, "accepts_gaussian_start", default))

    def begin_from_gaussian(self, mean: np.ndarray, covariance: np.ndarray) -> None:
        """The proposal begins in the coordinates that whiten ``covariance``; see the base.

        Parameters
        ----------
        mean : numpy.ndarray, shape (d,)
        covariance : numpy.ndarray, shape (d, d)
        """
        self.proposal.start_from(mean, covariance)

    def mix_independence(self, anchors: list[tuple[np.ndarray, np.ndarray, float]]) -> None:
        """A whitened warm-up mixes in independence moves about the modes; see the base.

        Parameters
        ----------
        anchors : list of (mode, covariance, weight)
        """
        if self.independence != "off" and hasattr(self.proposal, "mix_independence"):
            keep = self.independence == "always"
            self.proposal.mix_independence(anchors, keep_after_warmup=keep)

    def stop_tuning(self) -> None:
        """End warm-up: the proposal settles (e.g. its scale at the warm-up average); freeze."""
        if self.tune:
            self.proposal.end_warmup()
        super().stop_tuning()

    # ----------------------------------------------------------------------------------------
    # public seams
    @property
    def scaling(self) -> float:
        """The proposal's learned scale (its ``scaling`` stat)."""
        return float(self.proposal.stats().get("scaling", math.nan))

    def divergence_notice(self) -> str | None:
        """The notice of a chain's first divergent move after warm-up.

        Returns
        -------
        str or None
            None: no notice (a step whose moves can diverge overrides it).
        """
        return None

    def _first_iteration(self) -> None:
        """At a chain's first iteration, before anything else (a hook; e.g. KMC's first fit)."""

    # ----------------------------------------------------------------------------------------
    # one iteration
    def astep(self, q0: RaveledVars) -> tuple[RaveledVars, list[dict[str, Any]]]:
        """Propose, accept or reject, learn; one new log-density evaluation.

        Parameters
        ----------
        q0 : RaveledVars
            The current state, raveled.

        Returns
        -------
        tuple of (RaveledVars, list of dict)
            The new state and the iteration's sampler statistics.
        """
        logp_evals = self.refresh_current(q0.data)
        if self.iteration == 0:
            self._first_iteration()
        self._check_start(q0)
        logp_evals += self._measure_noise()
        logp_evals += self._start_up()
        proposal, current = self.proposal, self.current
        x, logp_current = current.x, current.logp
        try:
            x_new, log_q_forward = proposal.propose(x, self.rng)
        except FloatingPointError as error:
            raise FloatingPointError(f"{type(self).__name__}: {error}") from None
        logp_new, noise_new = -math.inf, None
        if log_q_forward == log_q_forward:  # NaN: no candidate (a trajectory that diverged)
            logp_new, noise_new = self.density.estimate(x_new, self.rng)
            logp_evals += 1
        decision, valid = self._decide(x, x_new, logp_new, log_q_forward)
        outcome = Outcome(logp_current, logp_new, decision.log_ratio, decision.accepted)
        move_stats = proposal.review(outcome)
        if not valid:
            self.health.n_invalid += 1
        if decision.accepted:
            self.accept_state(x_new, logp_new, noise_new)
        if move_stats.get("diverging") and not self.tune:
            notice = self.divergence_notice()  # PyMC counts these: say what to change
            if notice is not None:
                self.health.note("divergence", notice)
        if self.tune or self.schedule.adapts_after_tuning:
            proposal.learn(self._transition(decision, outcome), self.rng)
        self.iteration += 1
        if self.density.n_counted:  # (finite differences a proposal took while learning)
            logp_evals += self.density.take_count()
        stats = self._stats(decision, valid, logp_evals, move_stats)
        return RaveledVars(self.current.x, q0.point_map_info), [stats]

    def _decide(
        self, x: np.ndarray, x_new: np.ndarray, logp_new: float, log_q_forward: float
    ) -> tuple[MHDecision, bool]:
        """The Metropolis–Hastings test of ``x_new``, and whether it was a valid candidate."""
        proposal = self.proposal
        valid = math.isfinite(logp_new)
        log_q_reverse = 0.0
        symmetric = proposal.symmetric
        if valid and not symmetric:
            log_q_reverse = proposal.log_density(x, x_new)
            valid = not math.isnan(log_q_reverse)
        if valid and symmetric:
            log_q_forward = 0.0  # the terms cancel
        log_ratio = mh_log_ratio(
            logp_new if valid else -math.inf,
            self.current.logp,
            log_q_reverse if valid else 0.0,
            log_q_forward if valid else 0.0,
            as_energies=proposal.hastings_as_energies,
        )
        return mh_decide(log_ratio, self.rng), valid

    def _transition(self, decision: MHDecision, outcome: Outcome) -> Transition:
        density, current = self.density, self.current
        return Transition(
            current.x,
            decision.accept_prob,
            self.iteration,
            bool(self.tune),
            self.noise.acceptance_ceiling(),
            current.logp,
            outcome,
            None if density.noisy is not None else density.counted,
        )

    def _stats(
        self, decision: MHDecision, valid: bool, logp_evals: int, move_stats: dict[str, Any]
    ) -> dict[str, Any]:
        stats = {
            "accept": decision.accept_prob,
            "accepted": float(decision.accepted),
            "model_logp": self.current.logp,
            "logp_evals": logp_evals,
            "start_up": START_UP_STATUSES[self.start_up_status],
            "warning": self.health.warning_stat(self.iteration, bool(self.tune)),
            **self.proposal.stats(),
            **move_stats,
        }
        if self.density.noisy is not None:
            stats["noise_sd"] = self.noise.noise_sd
        if "invalid_proposal" in self.stats_dtypes_shapes:
            stats["invalid_proposal"] = not valid
        if EMIT_TUNE_STAT:
            stats["tune"] = bool(self.tune)
        return stats
