"""KMC's moves as one proposal: trajectories on the surrogate, and the moves that feed it.

A KMC chain (Strathmann et al., 2015) mixes several Metropolis–Hastings kernels, each tested
with its own Hastings term, the choice between them independent of the state (so every kernel,
and their mixture, leaves the target invariant):

- the exploration moves (a whitened adaptive-Metropolis random walk, with independence moves
  mixed in by the start-up; Haario's adaptive Metropolis with ``warmup="classic"``): every move
  before the surrogate's first fit, a share ``warmup_explore`` of the warm-up's moves after it,
  and a share ``explore_after_warmup`` of the kept moves, frozen;
- after warm-up, with the independence moves kept, their share fixed at the end of warm-up;
- otherwise a :class:`~pymc_kameleon.core.proposals.trajectory.SurrogateTrajectory`.

:class:`KMCMoves` also holds everything the chain learns: the surrogate's history and refits
(:class:`~pymc_kameleon.core.surrogates.learner.SurrogateLearner`), the surrogate's coordinates
(the warm-up's whitening map, or with ``coordinates="local"`` that map made of unit local width
by finite-difference scores), the step size, the exploration moves' scale and covariance.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pymc_kameleon.core.adaptation import AdaptationSchedule, ScaleAdapter
from pymc_kameleon.core.hamiltonian import UniformTrajectoryLength
from pymc_kameleon.core.local_precision import LocalWidthScores
from pymc_kameleon.core.proposals.adaptive_covariance import AdaptiveCovarianceProposal
from pymc_kameleon.core.proposals.affine import AffineMap
from pymc_kameleon.core.proposals.independence import (
    BASE_INDEPENDENCE_WEIGHT,
    DEFENSIVE_WEIGHT,
    INDEPENDENCE_STATS,
    independence_stats,
)
from pymc_kameleon.core.proposals.isotropic_walk import IsotropicRandomWalk
from pymc_kameleon.core.proposals.protocol import ComparedByState, Outcome, Proposal, Transition
from pymc_kameleon.core.proposals.tail_shortfall import FULL_DEFENSIVE_WEIGHT
from pymc_kameleon.core.proposals.trajectory import (
    TRAJECTORY_STATS,
    SurrogateTrajectory,
    quiet_move_stats,
)
from pymc_kameleon.core.proposals.whitened import WhitenedProposal
from pymc_kameleon.core.surrogates.coordinates import LearnerCoordinates
from pymc_kameleon.core.surrogates.learner import LearnerSettings, SurrogateLearner

__all__ = [
    "COORDINATES",
    "DIVERGENT_ACCEPT_STAT",
    "KMC_DEFENSIVE_WEIGHT",
    "KMC_LOW_DEFENSIVE_WEIGHT",
    "KMC_MAX_INDEPENDENCE_WEIGHT",
    "SCORE_INTERVAL_PER_DIM",
    "KMCMoves",
    "KMCSettings",
]

#: what a divergent trajectory counts as in the step-size tuning (a rejection counts 0)
DIVERGENT_ACCEPT_STAT = -10.0
#: after a change of coordinates the step size goes on with the Robbins–Monro step of this
#: update (gain 0.2): it follows the new surrogate within the settling stretch, and a divergence
#: (counted as acceptance -10) costs a factor 0.12 rather than the e^-10 of a first step
CARRIED_STEP_UPDATES = 25
#: at the end of warm-up the largest step of the range stays below this fraction of the smallest
#: step that diverged in warm-up (a leapfrog's stability limit is sharp: the tuning's average
#: acceptance can sit at its target while the top of the range is past it, ~0.1-1 % divergent
#: after warm-up on a 2-D location/scale model). A step that diverged with a wider kernel counts
#: shrunk by the ratio of the length scales (a narrower kernel makes a stiffer surrogate: the
#: divergences left after warm-up came from chains whose last refit halved it). The step shrinks
#: by at most :data:`MAX_STABILITY_SHRINK`, so that one divergence in a funnel's neck cannot
#: stall the chain.
STABLE_STEP_FRACTION = 0.9
MAX_STABILITY_SHRINK = 2.0
#: before the first fit the proposal is a random walk, tuned like one
RANDOM_WALK_TARGET = 0.234
#: ridge of the classic random walk's covariance, relative to its mean variance
RANDOM_WALK_RIDGE = 1e-6
#: ``coordinates`` choices, and what each means
COORDINATES = {
    "global": "the surrogate lives in the whitened warm-up's coordinates (unit global covariance)",
    "local": "the surrogate lives in coordinates of unit average local precision, from "
    "finite-difference scores taken during warm-up (d evaluations every 4 d iterations)",
}
#: warm-up iterations between local scores, per dimension
SCORE_INTERVAL_PER_DIM = 4
#: warm-up length assumed by the whitened warm-up when the sampler does not say
ASSUMED_WARMUP_LENGTH = 1000
#: the stats of the surrogate (and of the whitened warm-up)
SURROGATE_STATS = {
    "lengthscale": (np.float64, []),
    "n_basis": (np.int64, []),
    "surrogate_scale": (np.float64, []),
}
#: the base weight of the independence t's wide copies after warm-up, twice the random walks'
#: (:data:`~pymc_kameleon.core.proposals.independence.DEFENSIVE_WEIGHT`), raised to an even
#: mixture where the t falls short of the warm-up's states
#: (:mod:`~pymc_kameleon.core.proposals.tail_shortfall`). KMC's trajectories follow a surrogate
#: fitted where the warm-up's history has been and rarely leave it, so beyond it mostly the
#: wide copies propose: at 0.1 a saturable PK model's tail sd fell to 0.81 of the reference at
#: one seed of four, and on a banana in a user's affine parameterisation 8 of 24 seeds missed
#: the arms' tips at a fixed 0.2 (none at 0.5 or as measured; benchmarks/notes/lab-notes.md,
#: "KMCStep's wide copies on a curved posterior")
KMC_DEFENSIVE_WEIGHT = 0.2
#: the wide copies' weight for a chain whose t covers its warm-up's states about as evenly as a
#: Gaussian's t does (shortfall at most
#: :data:`~pymc_kameleon.core.proposals.tail_shortfall.SHORTFALL_LOW`): the random walks' fixed
#: weight. Eight of the real-model suite's eleven ordinary posteriors have every chain there,
#: and the suite's min ESS rose by 6 % / 2 % in geometric mean at seeds 1 / 2 against 0.2 there
#: (benchmarks/notes/lab-notes.md, "KMCStep's wide copies: the random walks' 0.1 where the t
#: fits"); a chain between that and the base's shortfall gets a weight between the two
KMC_LOW_DEFENSIVE_WEIGHT = DEFENSIVE_WEIGHT
#: the largest share of independence moves, the base one: a KMC trajectory on an elliptical
#: posterior yields about what an independence draw accepted 60 % of the time does, and with the
#: random walks' 0.8 KMCStep's min ESS fell by 5-21 % on five of the real-model suite's
#: posteriors (benchmarks/notes/lab-notes.md, "Independence moves where the t fits")
KMC_MAX_INDEPENDENCE_WEIGHT = BASE_INDEPENDENCE_WEIGHT
WHITENED_WARMUP_STATS = {"warmup_stage": (np.int64, []), "n_windows": (np.int64, [])}


class KMCSettings(ComparedByState):
    """What a KMC chain is built from (fixed for the run; see ``KMCStep`` for each).

    Parameters
    ----------
    learner : LearnerSettings
    lengths : UniformTrajectoryLength
    target_accept : float
    warmup : {"whitened", "classic"}
    schedule : AdaptationSchedule
    warmup_explore, explore_after_warmup : float
    local_coordinates : bool
        Whether the surrogate lives in coordinates of unit local width (``coordinates="local"``
        with a whitened warm-up and a deterministic log-density).
    initial_history : numpy.ndarray of shape (n, d), optional
    """

    def __init__(
        self,
        learner: LearnerSettings,
        lengths: UniformTrajectoryLength,
        target_accept: float,
        warmup: str,
        schedule: AdaptationSchedule,
        warmup_explore: float,
        explore_after_warmup: float,
        local_coordinates: bool,
        initial_history: np.ndarray | None,
    ) -> None:
        self.learner, self.lengths, self.target_accept = learner, lengths, target_accept
        self.warmup, self.schedule = warmup, schedule
        self.warmup_explore, self.explore_after_warmup = warmup_explore, explore_after_warmup
        self.local_coordinates, self.initial_history = local_coordinates, initial_history


class KMCMoves(Proposal):
    """The moves of a KMC chain and what they learn (see the module docstring).

    Parameters
    ----------
    dim : int
        Dimension of the sampled space.
    settings : KMCSettings

    Attributes
    ----------
    divergent_accept : float
        What a divergent trajectory counts as in the step-size tuning
        (:data:`DIVERGENT_ACCEPT_STAT`; a rejection counts 0).
    learner, explore, trajectory, coordinates, step_scale
        What the chain learned: the surrogate, the exploration moves, the trajectory move,
        the surrogate's coordinates, the step-size factor.

    Notes
    -----
    Each iteration's :meth:`propose` chooses a move; :attr:`symmetric`, :meth:`log_density`
    and :meth:`review` are those of the move chosen, so the step tests every move with its own
    Hastings term.
    """

    def __init__(self, dim: int, settings: KMCSettings) -> None:
        self.dim, self.settings = dim, settings
        self.divergent_accept = DIVERGENT_ACCEPT_STAT
        self.stats_dtypes = {
            **TRAJECTORY_STATS,
            **SURROGATE_STATS,
            **(WHITENED_WARMUP_STATS if settings.warmup == "whitened" else {}),
            **(INDEPENDENCE_STATS if settings.warmup == "whitened" else {}),
        }
        self.plan_warmup(None, np.random.default_rng(0))

    # ----------------------------------------------------------------------------------------
    # a chain's start
    def plan_warmup(
        self, warmup_length: int | None, rng: np.random.Generator | None = None
    ) -> None:
        """Start a chain: nothing learned, ``initial_history`` entered (drawn with ``rng``).

        Parameters
        ----------
        warmup_length : int or None
        rng : numpy.random.Generator, optional
            Needed with ``initial_history`` (its reservoir draws).
        """
        settings = self.settings
        self.warmup_length = warmup_length
        self.tuning = warmup_length != 0
        self.learner = SurrogateLearner(settings.learner, self.dim)
        # log of the factor on both ends of the step-size range, toward target_accept
        self.step_scale = ScaleAdapter()
        self.coordinates = LearnerCoordinates()
        self.local_scores: LocalWidthScores | None = None
        self.keep_independence = False
        self.chosen = "explore"
        self.n_divergent = 0
        # (step size, length scale) of the warm-up's divergent trajectories since the step was
        # last learned afresh
        self.divergent_steps: list[tuple[float, float]] = []
        if settings.warmup == "whitened":
            self._start_whitened(rng)
        else:
            self._start_classic(rng)
        self.trajectory = SurrogateTrajectory(
            self.learner, self.coordinates, settings.lengths, self.step_scale
        )
        self._cache_move: Proposal = self.explore

    def _start_classic(self, rng: np.random.Generator | None) -> None:
        # Haario's adaptive random walk; its covariance once the chain moved dim + 1 times
        self.explore = AdaptiveCovarianceProposal(
            self.dim, min_states=self.dim + 2, relative_ridge=RANDOM_WALK_RIDGE
        )
        pilot = self.settings.initial_history
        if pilot is not None:
            # recorded at iterations -n..-1 and counted as learned; fitted at the first iteration
            self.learner.enter_initial_history(pilot, _chain_rng(rng))
            for x in pilot:
                self.explore.record(x)

    def _start_whitened(self, rng: np.random.Generator | None) -> None:
        """The unit-free warm-up: the exploration moves carry the whitening."""
        pilot = self.settings.initial_history
        self.explore = WhitenedProposal(
            IsotropicRandomWalk(self.dim),
            initial_states=pilot,
            learn_map=pilot is None,  # a pilot's coordinates are kept: no exploration moves
        )
        length = self.warmup_length
        self.explore.plan_warmup(ASSUMED_WARMUP_LENGTH if length is None else length)
        self.coordinates = LearnerCoordinates(self.explore.affine)
        if self.settings.local_coordinates:
            self.local_scores = LocalWidthScores(SCORE_INTERVAL_PER_DIM * self.dim)
        if pilot is not None:
            self.learner.enter_initial_history(self.coordinates.to_kernel(pilot), _chain_rng(rng))

    def reset(self) -> None:
        """Start over with the same warm-up length (see :meth:`plan_warmup`).

        ``initial_history`` is entered with a generator of fixed seed; a step starts each chain
        with :meth:`plan_warmup` and the chain's own generator instead.
        """
        self.plan_warmup(self.warmup_length, np.random.default_rng(0))

    def first_iteration(self, evaluate, rng: np.random.Generator) -> None:
        """At a chain's first iteration: pilot scores and the fit on ``initial_history``.

        Parameters
        ----------
        evaluate : callable or None
            ``x -> log-density`` of the target (None: a stochastic estimate, no scores).
        rng : numpy.random.Generator
        """
        self._score_pilot(evaluate)
        pilot = self.settings.initial_history
        if self.learner.surrogate is None and pilot is not None:
            # fitted on initial_history with hyperparameters chosen as in warm-up, even tune=0
            if self.learner.refit(rng, learn=True):
                self._learn_step_afresh()

    @property
    def accepts_gaussian_start(self) -> bool:
        """Whether the warm-up can begin from a Gaussian's shape (the whitened one can)."""
        return self.settings.warmup == "whitened"

    def start_from(self, mean: np.ndarray, covariance: np.ndarray) -> None:
        """The exploration moves, the mass and the surrogate's coordinates begin whitened.

        Parameters
        ----------
        mean : numpy.ndarray, shape (d,)
        covariance : numpy.ndarray, shape (d, d)
            The Gaussian the start-up found at a mode.
        """
        self.explore.start_from(mean, covariance)
        self.coordinates.follow(self.kernel_affine(), self.learner)

    def mix_independence(self, anchors: list, keep_after_warmup: bool = False) -> None:
        """The whitened warm-up's exploration moves mix in independence moves about modes.

        Parameters
        ----------
        anchors : list of (mode, covariance, weight)
            The modes the start-up found (see ``WhitenedProposal.mix_independence``).
        keep_after_warmup : bool, default False
            Whether a share of the kept moves (fixed at the end of warm-up) are independence
            moves.
        """
        if self.settings.warmup == "whitened":
            self.explore.mix_independence(
                anchors,
                defensive_weight=KMC_DEFENSIVE_WEIGHT,
                max_weight=KMC_MAX_INDEPENDENCE_WEIGHT,
                top_defensive_weight=FULL_DEFENSIVE_WEIGHT,
                low_defensive_weight=KMC_LOW_DEFENSIVE_WEIGHT,
            )
            self.keep_independence = bool(keep_after_warmup)

    # ----------------------------------------------------------------------------------------
    # one iteration
    def propose(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Choose this iteration's move and propose with it.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
        rng : numpy.random.Generator
            Draws the choice, then the move.

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
        log_q_forward : float
            The chosen move's (see :meth:`Proposal.propose`).
        """
        self.chosen = self._choose(rng)
        self._cache_move = move = self.move  # (read four more times in the iteration)
        return move.propose(x, rng)

    def _choose(self, rng: np.random.Generator) -> str:
        if self.tuning:
            share = self.settings.warmup_explore
            # (never fitted during a whitened warm-up's start)
            if self.learner.surrogate is None or (share > 0.0 and rng.random() < share):
                return "explore"
            return "trajectory"
        mixing = self._kept_independence()
        if mixing is not None and rng.random() < mixing.frozen_weight:
            return "independence"
        share = self.settings.explore_after_warmup
        if share > 0.0 and rng.random() < share:
            return "explore"
        return "trajectory"

    def _kept_independence(self) -> Any:
        """The independence moves' mixing when they go on after warm-up (None otherwise)."""
        mixing = getattr(self.explore, "independence", None)
        if mixing is None or mixing.frozen_weight is None or not self.keep_independence:
            return None
        if not mixing.ready:  # no mode, and warm-up ended before a window closed
            return None
        return mixing

    @property
    def move(self) -> Proposal:
        """The move chosen at this iteration."""
        if self.chosen == "trajectory":
            return self.trajectory
        if self.chosen == "independence":
            return self.explore.independence.proposal
        return self.explore

    @property
    def symmetric(self) -> bool:  # type: ignore[override]
        """Whether the chosen move is symmetric."""
        return self._cache_move.symmetric

    @property
    def hastings_as_energies(self) -> bool:  # type: ignore[override]
        """Whether the chosen move's Hastings terms are energies (a trajectory's are)."""
        return self._cache_move.hastings_as_energies

    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """The chosen move's ``log q(to | frm)``.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """
        return self._cache_move.log_density(to, frm)

    def review(self, outcome: Outcome) -> dict[str, Any]:
        """The trajectory's stats, or zeros for another move (``n_steps = 0``).

        Parameters
        ----------
        outcome : Outcome

        Returns
        -------
        dict
            The keys of :data:`~pymc_kameleon.core.proposals.trajectory.TRAJECTORY_STATS`.
        """
        if self.chosen != "trajectory":
            kept = outcome.logp_new if outcome.accepted else outcome.logp_current
            return quiet_move_stats(-kept)
        stats = self.trajectory.review(outcome)
        self.n_divergent += int(self.trajectory.diverged)
        return stats

    # ----------------------------------------------------------------------------------------
    # what the chain learns
    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Adapt after an iteration: the step size, the exploration moves, the surrogate.

        Parameters
        ----------
        transition : Transition
            With the iteration's outcome (a trajectory's calibrates the surrogate scale) and,
            for local coordinates, ``evaluate``.
        rng : numpy.random.Generator
        """
        trajectory = self.chosen == "trajectory"
        if not transition.tuning:
            self._learn_after_warmup(transition, rng)
            return
        if trajectory:
            self.trajectory.calibrate(transition.outcome)
        accept = transition.accept_prob
        if trajectory and self.trajectory.diverged:
            accept = self.divergent_accept
            self.divergent_steps.append((self.trajectory.last.step_size, self.learner.lengthscale))
        if self.settings.warmup == "whitened":
            self._learn_whitened(transition, accept, not trajectory, rng)
        else:
            self._learn_classic(transition, accept, not trajectory, rng)

    def _learn_after_warmup(self, transition: Transition, rng: np.random.Generator) -> None:
        # the step size stays at its warm-up value: a surrogate refitted on more of the same
        # posterior needs no new step, and relearning it after each refit cost half the ESS
        t, x = transition.iteration, transition.state
        p = self.settings.schedule.probability(t, False)
        adapt = p >= 1.0 or (p > 0.0 and rng.random() < p)
        self.learner.keep(self.coordinates.to_kernel(x), t, rng, adapt)
        mixing = self._kept_independence()
        if mixing is not None:
            mixing.follow_kept(x, adapt)

    def _learn_classic(
        self, transition: Transition, accept: float, explored: bool, rng: np.random.Generator
    ) -> None:
        target_factor = transition.target_factor
        if explored:
            self.explore.scale.update(accept, RANDOM_WALK_TARGET * target_factor)
        else:
            self.step_scale.update(accept, self.settings.target_accept * target_factor)
        t, x = transition.iteration, transition.state
        if not self._learns_at(t, rng):
            return
        self.explore.record(x)
        if self.learner.learn(x, t, rng, tuning=True):
            self._learn_step_afresh()  # the proposal mechanism changed

    def _learn_whitened(
        self, transition: Transition, accept: float, explored: bool, rng: np.random.Generator
    ) -> None:
        x, t = transition.state, transition.iteration
        if not explored:
            self.step_scale.update(accept, self.settings.target_accept * transition.target_factor)
        explore_transition = Transition(
            x, accept if explored else None, t, True, transition.target_factor,
            transition.log_density,
        )  # fmt: skip
        self.explore.learn(explore_transition, rng)
        self._record_score(transition)
        self.coordinates.follow(self.kernel_affine(), self.learner)
        if not self._learns_at(t, rng):
            return
        if self.explore.stage == "start":  # the stuck start is not learned
            return
        if self.learner.learn(self.coordinates.to_kernel(x), t, rng, tuning=True):
            self._carry_step_size()

    def _carry_step_size(self) -> None:
        """After a fit in new whitened coordinates: the step size carries over.

        The first fit learns the step size from its initial range. A later change of the
        whitening map (or of the surrogate's kind) refits in coordinates of the same units,
        where the step size already learned is the better start: it goes on from there, with
        the steps of :data:`CARRIED_STEP_UPDATES` updates. Learned afresh, the map's last change
        (at the start of the final tenth of warm-up) left some chains with a step size ten
        times too small (the mapped banana).
        """
        if self.step_scale.updates == 0:
            self._learn_step_afresh()
        else:
            self.step_scale.restart(updates=CARRIED_STEP_UPDATES)

    def _learns_at(self, t: int, rng: np.random.Generator) -> bool:
        p = self.settings.schedule.probability(t, True)
        return not (p <= 0.0 or (p < 1.0 and rng.random() >= p))

    def observe(self, states: np.ndarray, iteration: int, rng: np.random.Generator) -> None:
        """Learn from other chains' states (a pooled warm-up).

        Parameters
        ----------
        states : numpy.ndarray, shape (k, d)
        iteration : int
        rng : numpy.random.Generator
        """
        self.explore.observe(states, iteration, rng)
        if self.settings.warmup == "whitened" and self.explore.stage == "start":
            return  # each chain learns from its own moves until its map exists
        for x in states:
            if self.learner.learn(self.coordinates.to_kernel(x), iteration, rng, tuning=True):
                self._carry_step_size()

    def _learn_step_afresh(self) -> None:
        self.step_scale.reset()
        self.divergent_steps = []

    def end_warmup(self) -> None:
        """Fix the step-size scale; freeze the exploration.

        The scale settles at its weighted warm-up average. In the whitened warm-up, whose step
        size carries over refits to the tuning's equilibrium, it is then lowered if needed so
        that the largest step of the range stays below the steps that diverged in warm-up,
        counted at the final length scale (:data:`STABLE_STEP_FRACTION`, by at most a factor
        :data:`MAX_STABILITY_SHRINK`).
        """
        self.step_scale.settle()
        if self.settings.warmup == "whitened":
            # the classic warm-up learns the step afresh at every refit, below the equilibrium
            self._stay_below_divergent_steps()
            self.explore.end_warmup()
        self.tuning = False

    def _stay_below_divergent_steps(self) -> None:
        if not self.divergent_steps:
            return
        now = self.learner.lengthscale
        smallest = min(
            step * min(1.0, now / lengthscale) if lengthscale > 0.0 else step
            for step, lengthscale in self.divergent_steps
        )
        largest = self.settings.lengths.step_size_range[1] * self.step_scale.current
        stable = STABLE_STEP_FRACTION * smallest
        if largest <= stable:
            return
        shrink = min(largest / stable, MAX_STABILITY_SHRINK)
        self.step_scale.restart(log_scale=self.step_scale.log_scale - math.log(shrink))

    # ----------------------------------------------------------------------------------------
    # the surrogate's coordinates
    def kernel_affine(self) -> AffineMap | None:
        """The map the surrogate should live in now (the whitening map, or it made local).

        Returns
        -------
        AffineMap or None
        """
        affine = self.explore.affine
        return affine if self.local_scores is None else self.local_scores.kernel_map(affine)

    def _record_score(self, transition: Transition) -> None:
        """Take the iteration's local score if due (a whitening map in place, no pilot)."""
        scores, affine = self.local_scores, self.explore.affine
        if scores is None or affine is None or self.explore.stage == "start":
            return
        if self.settings.initial_history is not None:  # a pilot's map never changes
            return
        scores.record(
            transition.evaluate, transition.state, transition.log_density, affine,
            transition.iteration,
        )  # fmt: skip

    def _score_pilot(self, evaluate) -> None:
        """With ``initial_history``: scores at pilot states, once (as many as a warm-up takes)."""
        scores, pilot = self.local_scores, self.settings.initial_history
        if scores is None or pilot is None or scores.scores or self.explore.affine is None:
            return
        length = self.warmup_length or 0
        count = min(pilot.shape[0], max(2 * self.dim, length // scores.every))
        # evenly spread over the pilot, which may be in time order
        rows = pilot[np.linspace(0, pilot.shape[0] - 1, count).astype(int)]
        scores.record_states(evaluate, rows, self.explore.affine)
        self.coordinates.follow(self.kernel_affine(), self.learner)

    def stats(self) -> dict[str, Any]:
        """The surrogate's stats (and the whitened warm-up's stage).

        Returns
        -------
        dict
            ``lengthscale``, ``n_basis``, ``surrogate_scale``, and with ``warmup="whitened"``
            ``warmup_stage`` and ``n_windows``.
        """
        stats = {
            "lengthscale": float(self.learner.lengthscale),
            "n_basis": self.learner.n_basis,
            "surrogate_scale": self.learner.surrogate_scale,
        }
        if self.settings.warmup == "whitened":
            warmup = self.explore.stats()
            stats.update(warmup_stage=warmup["warmup_stage"], n_windows=warmup["n_windows"])
            stats.update(self._independence_stats())
        return stats

    def _independence_stats(self) -> dict[str, Any]:
        """After warm-up the kept independence moves are this object's choice; in warm-up they
        are mixed into the exploration moves."""
        kept = self._kept_independence()
        if kept is not None:
            return independence_stats(kept, self.chosen == "independence")
        mixing = self.explore.mixing
        made = self.chosen == "explore" and mixing is not None and mixing.chosen
        return independence_stats(mixing, made)


def _chain_rng(rng: np.random.Generator | None) -> np.random.Generator:
    if rng is None:
        raise ValueError("KMCMoves.plan_warmup needs the chain's rng to enter initial_history.")
    return rng
