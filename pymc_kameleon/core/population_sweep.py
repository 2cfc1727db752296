"""One Metropolis–Hastings sweep of a particle population with a fixed proposal.

A sweep moves every particle once: :func:`propose_sweep` draws a candidate for each,
:func:`evaluate_points` evaluates them (one after another, or in one call to a pool), and
:func:`decide_sweep` makes the exact Metropolis–Hastings decisions (the proposal is not
symmetric: the reverse density enters the ratio). :func:`mh_sweep` is the three in a row. Kernel
SMC moves the two halves of its population with two proposals; it proposes for both halves
before evaluating, so a pool gets one call per sweep.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pymc_kameleon.core.mh import mh_decide_many, mh_log_ratios
from pymc_kameleon.core.proposals.protocol import Proposal

__all__ = ["SweepCandidates", "decide_sweep", "evaluate_points", "mh_sweep", "propose_sweep"]


@dataclass(frozen=True)
class SweepCandidates:
    """The candidates of one sweep of a population with one fixed proposal.

    Parameters
    ----------
    states : numpy.ndarray, shape (n, d)
        One candidate per particle.
    log_q_forward : numpy.ndarray, shape (n,)
        ``log q(candidate | particle)``.
    chosen : numpy.ndarray of int, shape (n,)
        The component (of a mixture; 0 otherwise) that proposed each candidate.
    """

    states: np.ndarray
    log_q_forward: np.ndarray
    chosen: np.ndarray


def propose_sweep(
    proposal: Proposal, particles: np.ndarray, rng: np.random.Generator
) -> SweepCandidates:
    """A candidate for every particle from the fixed ``proposal`` (nothing is evaluated).

    Parameters
    ----------
    proposal : Proposal
        Fixed during the sweep (from :func:`population_proposal`).
    particles : numpy.ndarray, shape (n, d)
    rng : numpy.random.Generator

    Returns
    -------
    SweepCandidates
    """
    n = particles.shape[0]
    states, log_q_forward = proposal.propose_many(particles, rng)
    chosen = getattr(proposal, "chosen_rows", None)
    chosen = np.zeros(n, dtype=np.int64) if chosen is None else np.array(chosen, np.int64)
    return SweepCandidates(states, log_q_forward, chosen)


def evaluate_points(
    states: np.ndarray,
    evaluate: Callable[[np.ndarray], tuple[float, float]],
    evaluate_many: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """Log prior and log likelihood at every row of ``states``.

    With ``evaluate_many`` (a pool) the rows go out in one call, so a sweep that gathers all
    its candidates first pays one round trip to the workers.

    Parameters
    ----------
    states : numpy.ndarray, shape (n, d)
    evaluate : callable
        ``evaluate(x) -> (log_prior, log_likelihood)`` at one state.
    evaluate_many : callable, optional
        ``evaluate_many(xs) -> array (n, 2)``: ``evaluate`` at every row at once.

    Returns
    -------
    numpy.ndarray, shape (n, 2)
    """
    n = states.shape[0]
    if evaluate_many is None:
        return np.array([evaluate(x) for x in states], dtype=float).reshape(n, 2)
    return np.asarray(evaluate_many(states), dtype=float).reshape(n, 2)


def decide_sweep(
    proposal: Proposal,
    particles: np.ndarray,
    log_parts: np.ndarray,
    beta: float,
    candidates: SweepCandidates,
    parts: np.ndarray,
    rng: np.random.Generator,
    hastings: bool = True,
) -> np.ndarray:
    """The Metropolis–Hastings decisions of a sweep whose candidates have been evaluated.

    Parameters
    ----------
    proposal : Proposal
        The proposal that made ``candidates`` (for the reverse densities).
    particles : numpy.ndarray, shape (n, d)
        Updated in place.
    log_parts : numpy.ndarray, shape (n, 2)
        Log prior and log likelihood of each particle; updated in place (never recomputed, so
        a noisy likelihood estimate stays pseudo-marginal).
    beta : float
        Inverse temperature of the stage.
    candidates : SweepCandidates
        From :func:`propose_sweep` with ``particles``.
    parts : numpy.ndarray, shape (n, 2)
        Log prior and log likelihood at each candidate.
    rng : numpy.random.Generator
    hastings : bool, default True
        Include ``log q(x | x*) - log q(x* | x)``. False is wrong (the proposal is not
        symmetric); it exists for the test suite's negative control.

    Returns
    -------
    numpy.ndarray of float, shape (n,)
        The acceptance probability of each particle's move.
    """
    prior, lik = parts[:, 0], parts[:, 1]
    valid = np.isfinite(prior) & ~np.isnan(lik) & (lik != -np.inf)
    with np.errstate(invalid="ignore"):
        proposed = np.where(valid, prior + beta * lik, -np.inf)
    current = log_parts[:, 0] + beta * log_parts[:, 1]
    if hastings:
        log_q_reverse = proposal.log_density_many(particles, candidates.states)
        log_ratio = mh_log_ratios(proposed, current, log_q_reverse, candidates.log_q_forward)
    else:
        log_ratio = mh_log_ratios(proposed, current)
    accepted, accept = mh_decide_many(log_ratio, rng)
    particles[accepted] = candidates.states[accepted]
    log_parts[accepted] = parts[accepted]
    return accept


def mh_sweep(
    proposal: Proposal,
    particles: np.ndarray,
    log_parts: np.ndarray,
    beta: float,
    evaluate: Callable[[np.ndarray], tuple[float, float]],
    rng: np.random.Generator,
    hastings: bool = True,
    evaluate_many: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One Metropolis–Hastings move of every particle, in place, for ``prior + beta * lik``.

    The particles move independently with the same fixed proposal, so the candidates, their
    proposal densities and the decisions are computed for the whole population at once
    (:func:`propose_sweep`, :func:`decide_sweep`); only the target is evaluated particle by
    particle, or in one call with ``evaluate_many``.

    Parameters
    ----------
    proposal : Proposal
        Fixed during the sweep (from :func:`population_proposal`).
    particles : numpy.ndarray, shape (n, d)
        Updated in place.
    log_parts : numpy.ndarray, shape (n, 2)
        Columns: log prior and log likelihood of each particle; updated in place.
    beta : float
        Inverse temperature of the stage.
    evaluate : callable
        ``evaluate(x) -> (log_prior, log_likelihood)`` at a proposed state.
    rng : numpy.random.Generator
    hastings : bool, default True
        See :func:`decide_sweep`.
    evaluate_many : callable, optional
        ``evaluate_many(xs) -> array (n, 2)``: ``evaluate`` at every row at once (e.g. on a
        pool, :class:`~pymc_kameleon.core.evaluation_pool.PointEvaluator`); it must give the
        values ``evaluate`` gives.

    Returns
    -------
    accept : numpy.ndarray of float, shape (n,)
        The acceptance probability of each particle's move.
    chosen : numpy.ndarray of int, shape (n,)
        The component (of a mixture; 0 otherwise) that proposed each move.
    """
    candidates = propose_sweep(proposal, particles, rng)
    parts = evaluate_points(candidates.states, evaluate, evaluate_many)
    accept = decide_sweep(
        proposal, particles, log_parts, beta, candidates, parts, rng, hastings=hastings
    )
    return accept, candidates.chosen
