"""KMCStep's Metropolis–Hastings moves: the warm-up's exploration and the independence moves.

Besides its trajectories, :class:`~pymc_kameleon.KMCStep` makes plain Metropolis–Hastings moves:
during warm-up the exploration moves of its
:class:`~pymc_kameleon.core.proposals.WhitenedProposal` (a random walk, with independence moves
mixed in, see :mod:`pymc_kameleon.core.proposals.independence`); with
``independence="always"`` a share of independence moves after warm-up; and, while the surrogate
keeps adapting after warm-up, a share of the exploration random walk's moves, frozen at the end
of warm-up (``explore_after_warmup``).
"""

from __future__ import annotations

import math
from typing import Any

from pymc_kameleon.core.mh import mh_decide, mh_log_ratio
from pymc_kameleon.core.proposals import Proposal

__all__ = [
    "exploration_after_warmup",
    "follow_kept_states",
    "independence_after_warmup",
    "metropolis_move",
    "move_after_warmup",
]


def independence_after_warmup(step: Any) -> Proposal | None:
    """The independence proposal when this iteration after warm-up is one of its moves.

    Parameters
    ----------
    step : KMCStep

    Returns
    -------
    Proposal or None
        None unless ``independence="always"`` and the warm-up fixed a share of independence
        moves, and the step's generator chose one (with that share's probability).
    """
    mixing = getattr(step.explore, "independence", None)
    if mixing is None or mixing.frozen_weight is None or step.independence != "always":
        return None
    return mixing.proposal if step.rng.random() < mixing.frozen_weight else None


def exploration_after_warmup(step: Any) -> Proposal | None:
    """The exploration random walk when this iteration after warm-up is one of its moves.

    A surrogate that keeps adapting after warm-up learns from the kept states, and its
    trajectories only go where its history has been: beyond the history the surrogate is flat
    and a trajectory runs straight. Refitted on the states those trajectories keep, the
    surrogate and the chain can settle together on the part of the posterior the warm-up
    reached, and every chain then agrees on a posterior without the far tail (issue 46: sd 0.75
    of the reference at R-hat 1.004 on a heavy-tailed PK posterior). A fixed share of moves of
    a kernel that does not adapt (the warm-up's exploration random walk, frozen with the rest)
    keeps every adapted kernel mixed with one ergodic kernel, the safeguard of Roberts and
    Rosenthal's adaptive Metropolis (2009), and brings the refits states from beyond the
    history.

    Parameters
    ----------
    step : KMCStep

    Returns
    -------
    Proposal or None
        None unless ``explore_after_warmup > 0`` and the step's generator chose a move of the
        exploration random walk (with that probability).
    """
    share = step.explore_after_warmup
    if share <= 0.0:
        return None
    return step.explore if step.rng.random() < share else None


def move_after_warmup(step: Any) -> Proposal | None:
    """The proposal of this iteration after warm-up, if it is not a trajectory.

    An independence move with the share fixed at the end of warm-up, else an exploration move
    with the share ``explore_after_warmup``, else None (a trajectory).

    Parameters
    ----------
    step : KMCStep

    Returns
    -------
    Proposal or None
    """
    chosen = independence_after_warmup(step)
    return chosen if chosen is not None else exploration_after_warmup(step)


def follow_kept_states(step: Any, refresh: bool) -> None:
    """After warm-up, let the independence moves' t follow the states kept so far.

    Only when the independence moves continue after warm-up (``independence="always"``) and
    the surrogate keeps adapting; ``refresh`` is the vanishing-adaptation draw of the iteration.

    Parameters
    ----------
    step : KMCStep
    refresh : bool
    """
    mixing = getattr(step.explore, "independence", None)
    if mixing is not None and mixing.frozen_weight is not None and step.independence == "always":
        mixing.follow_kept(step.x_current, refresh)


def metropolis_move(step: Any, proposal: Proposal) -> tuple[float, dict[str, Any]]:
    """One Metropolis–Hastings move of ``proposal`` from the step's current state.

    Parameters
    ----------
    step : KMCStep
    proposal : Proposal

    Returns
    -------
    accept_prob : float
    stats : dict
        The iteration's trajectory stats, as a move of no leapfrog steps.
    """
    x = step.x_current
    x_new, log_q_forward = proposal.propose(x, step.rng)
    logp_new, noise_new = step.estimate_logp(x_new)
    valid = math.isfinite(logp_new)
    # a symmetric proposal has no Hastings term (not even a rounded zero)
    hastings = (0.0, 0.0) if proposal.symmetric else (proposal.log_density(x, x_new), log_q_forward)
    log_ratio = mh_log_ratio(logp_new if valid else -math.inf, step.logp_current, *hastings)
    decision = mh_decide(log_ratio, step.rng)
    if decision.accepted:
        step.accept_state(x_new, logp_new, noise_new)
    if not valid:
        step.n_invalid += 1
    return decision.accept_prob, {
        "accepted": float(decision.accepted),
        "step_size": 0.0,
        "n_steps": 0,
        "energy": -step.logp_current,
        "energy_error": 0.0,
        "diverging": False,
        "logp_evals": 1,
        "surrogate_grad_evals": 0,
    }
