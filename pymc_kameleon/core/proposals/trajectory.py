"""KMC's Hamiltonian move as a proposal: a leapfrog trajectory on a learned surrogate.

A momentum ``p0 ~ N(0, M)`` and a trajectory length are drawn, and the leapfrog integrator
follows the surrogate's gradient (no model evaluation along the way) to ``(x', p')``. The map
``(x, p0) -> (x', -p')`` is volume-preserving and its own inverse for any gradient field, so
the density of proposing ``x'`` from ``x`` is the density of the momentum that produced it, and
the density of the way back is that of ``-p'``: the log Hastings factor is
``K(p0) - K(p')`` (kinetic energies), what :meth:`SurrogateTrajectory.propose` and
:meth:`SurrogateTrajectory.log_density` return as ``-K(p0)`` and ``-K(p')``. Accepted with the
true target, the chain is exact however poor the surrogate.

**The screen.** Before the model is asked about the end point, the trajectory's energy error on
the surrogate itself, ``dH_f = H_f(x', p') - H_f(x, p0)`` with ``H_f = -beta f + K``, is known
at no cost. Where ``|dH_f|`` exceeds :data:`MAX_SURROGATE_ENERGY_ERROR` the leapfrog has gone
unstable on the surrogate (a step size above its stability limit, a flank steeper than the
target's) and typically coasts far past the region the history covers, where an expensive model
can take minutes per evaluation. Such a trajectory is rejected without evaluating its end: the
chain stays where it is, and the step records a screened divergence. The rule keeps the chain
exact. The reversed trajectory, from ``(x', -p')``, retraces the same positions to ``(x, -p0)``
(leapfrog is time-reversible and ``K`` is even), so its energy error is ``-dH_f``: the screen's
indicator ``1[|dH_f| <= c]`` takes the same value for a move and its reverse. Multiplying the
Metropolis–Hastings acceptance of an involutive proposal by a function that is symmetric under
the involution keeps detailed balance, so the screened kernel still leaves the target
invariant; it only gives up the moves it screens (and their reverses, whose probability is the
same).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, NamedTuple

import numpy as np

from pymc_kameleon.core.adaptation import ScaleAdapter
from pymc_kameleon.core.hamiltonian import LeapfrogResult, UniformTrajectoryLength
from pymc_kameleon.core.proposals.protocol import Outcome, Proposal, Transition
from pymc_kameleon.core.surrogates.coordinates import LearnerCoordinates
from pymc_kameleon.core.surrogates.learner import SurrogateLearner

__all__ = [
    "MAX_ENERGY_ERROR",
    "MAX_SURROGATE_ENERGY_ERROR",
    "TRAJECTORY_STATS",
    "SurrogateTrajectory",
    "TrajectoryRun",
]

#: PyMC's HMC threshold: an energy error above this marks a divergent trajectory
MAX_ENERGY_ERROR = 1000.0
#: a trajectory whose energy error on the surrogate itself exceeds this (in either direction) is
#: rejected before the model is asked (on a logistic-growth ODE every trajectory that
#: ended beyond 20 whitened units had ``|dH_f| > 10``, every accepted one ``|dH_f| <= 5.7``; an
#: acceptance of exp(-10) is nothing lost)
MAX_SURROGATE_ENERGY_ERROR = 10.0
#: the stats of every move of a KMC step (a move that is not a trajectory reports zeros)
TRAJECTORY_STATS = {
    "step_size": (np.float64, []),
    "n_steps": (np.int64, []),
    "energy": (np.float64, []),
    "energy_error": (np.float64, []),
    "diverging": (bool, []),
    "screened": (bool, []),
    "surrogate_grad_evals": (np.int64, []),
}


class TrajectoryRun(NamedTuple):
    """One trajectory: where it started and ended (surrogate coordinates) and how."""

    start: np.ndarray
    result: LeapfrogResult
    momentum: np.ndarray
    step_size: float
    n_steps: int
    kinetic_start: float
    kinetic_end: float
    #: the energy error on the surrogate (NaN where the path left the finite numbers)
    surrogate_energy_error: float = math.nan
    #: whether the screen rejected it unevaluated (see the module docstring)
    screened: bool = False


class SurrogateTrajectory(Proposal):
    """A leapfrog trajectory on a :class:`~pymc_kameleon.core.surrogates.learner.SurrogateLearner`.

    Parameters
    ----------
    learner : SurrogateLearner
        The surrogate, its metric and history (the move reads it; a KMC step's moves teach it).
    coordinates : LearnerCoordinates
        The map between the chain's states and the surrogate's coordinates.
    lengths : UniformTrajectoryLength
        Draws the number of steps and the step size of each trajectory.
    step_scale : ScaleAdapter
        The learned factor on the step-size range.

    Notes
    -----
    :meth:`log_density` is the density of the way back from the candidate just proposed (the
    end momentum is known only for it); :meth:`review` reports the trajectory's stats and
    whether it diverged (energy error above :data:`MAX_ENERGY_ERROR`, not finite, or screened:
    its energy error on the surrogate above :data:`MAX_SURROGATE_ENERGY_ERROR`, decided before
    the model is asked).
    """

    symmetric: ClassVar[bool] = False
    hastings_as_energies: ClassVar[bool] = True
    ephemeral: ClassVar[tuple[str, ...]] = ("last", "diverged")
    stats_dtypes: ClassVar[dict[str, tuple[Any, list]]] = {}

    def __init__(
        self,
        learner: SurrogateLearner,
        coordinates: LearnerCoordinates,
        lengths: UniformTrajectoryLength,
        step_scale: ScaleAdapter,
    ) -> None:
        self.learner, self.coordinates = learner, coordinates
        self.lengths, self.step_scale = lengths, step_scale
        #: the screen's threshold on ``|dH_f|`` (see the module docstring)
        self.max_surrogate_energy_error = MAX_SURROGATE_ENERGY_ERROR
        self.last: TrajectoryRun | None = None
        self.diverged = False

    def propose(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Run a trajectory from ``x`` with a fresh momentum and trajectory length.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
            The end point, of the dtype of ``x``; NaN if the trajectory left the finite numbers
            or the screen rejects it (there is no candidate, and the step rejects it without
            evaluating it).
        log_q_forward : float
            ``-K(p0)``, minus the kinetic energy of the momentum drawn (NaN with no end point).
        """
        n_steps, step_size = self.lengths.draw(rng, self.step_scale.current)
        metric = self.learner.metric
        p0 = metric.draw_momentum(rng, x.shape[0])
        z = self.coordinates.to_kernel(x)
        result = self.learner.trajectory(z, p0, step_size, n_steps)
        kinetic_start = metric.kinetic_energy(p0)
        kinetic_end = metric.kinetic_energy(result.p) if result.finite else math.inf
        energy_error = math.nan
        if result.finite:
            energy_error = self.learner.potential_change(z, result.q) + kinetic_end - kinetic_start
        screened = self.screens(result.finite, energy_error)
        self.last = TrajectoryRun(
            z, result, p0, step_size, n_steps, kinetic_start, kinetic_end, energy_error, screened
        )
        if not result.finite or self.last.screened:  # NaN: no end point, nothing evaluated
            return np.full_like(x, np.nan), math.nan
        # keep the model's dtype (float32 under floatX=float32): the compiled logp trusts it
        return self.coordinates.to_states(result.q).astype(x.dtype, copy=False), -kinetic_start

    def screens(self, finite: bool, energy_error: float) -> bool:
        """Whether a trajectory is rejected unevaluated: finite, with ``|dH_f|`` above the
        threshold (a rule that a trajectory and its reverse meet alike).

        Parameters
        ----------
        finite : bool
            Whether the path stayed in the finite numbers.
        energy_error : float
            Its energy error on the surrogate, ``dH_f``.

        Returns
        -------
        bool
        """
        return finite and not abs(energy_error) <= self.max_surrogate_energy_error

    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """``-K(p')``: the density of the momentum that brings the last candidate back.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (d,)
            The current state and the last candidate (from :meth:`propose`).

        Returns
        -------
        float
            ``-inf`` where the end momentum's kinetic energy is not finite.
        """
        if self.last is None:
            raise RuntimeError("SurrogateTrajectory.log_density needs a trajectory first.")
        return -self.last.kinetic_end

    def review(self, outcome: Outcome) -> dict[str, Any]:
        """The trajectory's stats, and whether it diverged.

        A trajectory is divergent when it left the finite numbers, was screened (not evaluated:
        its energy error on the surrogate exceeds :data:`MAX_SURROGATE_ENERGY_ERROR`), its end
        point has no finite log-density, or its energy error exceeds :data:`MAX_ENERGY_ERROR`.

        Parameters
        ----------
        outcome : Outcome
            The test of the trajectory just proposed.

        Returns
        -------
        dict
            ``step_size``, ``n_steps``, ``energy``, ``energy_error``, ``diverging``,
            ``screened`` and ``surrogate_grad_evals``.
        """
        run = self.last
        log_ratio = outcome.log_ratio
        energy_error = -log_ratio if not math.isnan(log_ratio) else math.inf
        self.diverged = not (
            run.result.finite
            and math.isfinite(outcome.logp_new)
            and energy_error < MAX_ENERGY_ERROR
        )
        energy_start = -outcome.logp_current + run.kinetic_start
        return {
            "step_size": run.step_size,
            "n_steps": run.n_steps,
            "energy": energy_start + energy_error if outcome.accepted else energy_start,
            "energy_error": energy_error,
            "diverging": self.diverged,
            "screened": run.screened,
            "surrogate_grad_evals": run.result.n_grad_evals,
        }

    def calibrate(self, outcome: Outcome) -> None:
        """Teach the surrogate scale the true log-density change of the last trajectory.

        Parameters
        ----------
        outcome : Outcome
            The test of the last trajectory (nothing is learned from a divergent one).
        """
        if self.diverged or self.learner.surrogate is None:
            return
        change = outcome.logp_new - outcome.logp_current
        self.learner.calibrate(self.last.start, self.last.result.q, change)

    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Nothing: :class:`~pymc_kameleon.core.proposals.kmc_moves.KMCMoves` teaches it.

        Parameters
        ----------
        transition : Transition
        rng : numpy.random.Generator
        """

    def reset(self) -> None:
        """Forget the last trajectory (the learner is reset by its owner)."""
        self.last, self.diverged = None, False

    def stats(self) -> dict[str, Any]:
        """None of its own: :meth:`review` reports each trajectory.

        Returns
        -------
        dict
            Empty.
        """
        return {}


def quiet_move_stats(energy: float) -> dict[str, Any]:
    """The trajectory stats of a KMC iteration that made another move (no leapfrog steps).

    Parameters
    ----------
    energy : float
        Minus the log-density of the state kept.

    Returns
    -------
    dict
    """
    return {
        "step_size": 0.0,
        "n_steps": 0,
        "energy": energy,
        "energy_error": 0.0,
        "diverging": False,
        "screened": False,
        "surrogate_grad_evals": 0,
    }
