"""Every read of a step's internal state that the plots make, one function per read.

The plots need more than the steps' documented surface: the current state, the Kameleon history
subsample, the adaptive-Metropolis running moments and learned covariance, the compiled
log-density, the KMC surrogate and its scale, the stored history, the mass and the trajectory
length range. Reading them here, and only here, keeps the plots' dependence on the steps'
internals in one place, to be switched to public seams (``step.proposal``, ``step.surrogate``,
``step.history``, ``step.log_density(x)``) in one edit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "compiled_log_density",
    "current_state",
    "history_subsample",
    "inverse_mass",
    "learned_covariance",
    "running_moments",
    "stored_history",
    "surrogate",
    "surrogate_scale",
    "target_stand_in",
    "trajectory_length_range",
]


def current_state(step: Any) -> np.ndarray | None:
    """The chain's current state (``step.x_current``); None before the step has run."""
    return step.x_current


def history_subsample(step: Any) -> np.ndarray | None:
    """A KameleonStep's history subsample ``z`` (``step.z``); None for other steps or unset."""
    return getattr(step, "z", None)


def running_moments(step: Any) -> Any | None:
    """An AdaptiveMetropolis's running mean and covariance (``step.moments``), else None."""
    return getattr(step, "moments", None)


def learned_covariance(step: Any, x: np.ndarray) -> np.ndarray:
    """The unscaled learned covariance ``S(x)`` of an adaptive MH step's proposal."""
    return step.proposal.learned_covariance(np.asarray(x, dtype=float))


def target_stand_in(step: Any) -> tuple[np.ndarray, np.ndarray]:
    """A state-independent step's estimate of the target's mean and covariance.

    Haario's running moments (``step.moments``) when it has recorded states; the warm-up
    covariance its whitened proposal works with (``step.proposal.affine``: shift, and
    ``A A^T``) otherwise; the current state and the learned covariance as a last resort.
    """
    moments, current = running_moments(step), current_state(step)
    if moments is not None and moments.count > 0:
        return moments.mean, learned_covariance(step, current)
    affine = getattr(step.proposal, "affine", None)
    if affine is not None:
        return affine.shift, affine.matrix @ affine.matrix.T
    return current, step.proposal_covariance(current)


def compiled_log_density(step: Any) -> Any | None:
    """The step's compiled log-density function (``step.compiled_logp``); None if
    pseudo-marginal."""
    return getattr(step, "compiled_logp", None)


def surrogate(step: Any) -> Any | None:
    """A KMCStep's fitted surrogate (``step.surrogate``); None before the first fit."""
    return step.surrogate


def surrogate_scale(step: Any) -> float:
    """A KMCStep's calibrated surrogate scale beta (``step.surrogate_scale``)."""
    return step.surrogate_scale


def stored_history(step: Any) -> np.ndarray | None:
    """A copy of the states a KMCStep stored (``step.history``), or None if it stored none."""
    history = getattr(step, "history", None)
    if history is not None and history.size > 0:
        states = np.array(history.values[: history.size], dtype=float)
        affine = kernel_map(step)
        return states if affine is None else affine.to_states(states)
    return None


def kernel_map(step: Any) -> Any | None:
    """A whitened KMCStep's map ``x = shift + matrix @ z`` to its kernel coordinates (else None)."""
    return getattr(step, "kernel_map", None)


def inverse_mass(step: Any) -> np.ndarray:
    """A KMCStep's diagonal inverse mass (``step.inv_mass_diag``)."""
    return step.inv_mass_diag


def trajectory_length_range(step: Any) -> tuple[int, int]:
    """A KMCStep's range of leapfrog steps per trajectory (``step.n_steps_range``)."""
    return step.n_steps_range
