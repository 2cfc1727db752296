"""The Metropolis–Hastings accept/reject step, for symmetric and asymmetric proposals."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = [
    "MHDecision",
    "accept_probability",
    "mh_decide",
    "mh_decide_many",
    "mh_log_ratio",
    "mh_log_ratios",
]


class MHDecision(NamedTuple):
    """Outcome of one Metropolis–Hastings test.

    Attributes
    ----------
    accepted : bool
        Whether the proposal is accepted.
    accept_prob : float
        ``min(1, alpha)``; 0 when the proposal has an invalid (NaN or -inf) log-density.
    log_ratio : float
        ``log alpha`` (``-inf`` for invalid proposals).
    """

    accepted: bool
    accept_prob: float
    log_ratio: float


def mh_log_ratio(
    logp_proposed: float,
    logp_current: float,
    log_q_reverse: float = 0.0,
    log_q_forward: float = 0.0,
    *,
    as_energies: bool = False,
) -> float:
    """Log Metropolis–Hastings ratio ``log pi(x*) - log pi(x) + log q(x|x*) - log q(x*|x)``.

    A proposal whose log-density, or reverse proposal density, is NaN or ``-inf`` gets ``-inf``,
    so that it can never be accepted. A current state with a ``-inf`` or NaN log-density (possible
    only if the chain was started there) gives ``+inf`` for any valid proposal, so the chain
    leaves it at once.

    Parameters
    ----------
    logp_proposed, logp_current : float
        Target log-densities at the proposal ``x*`` and at the current state ``x``.
    log_q_reverse : float, default 0
        ``log q(x | x*)``: density of proposing the current state from the proposal.
    log_q_forward : float, default 0
        ``log q(x* | x)``. Leave both at 0 for a symmetric proposal.
    as_energies : bool, default False
        Sum it as the difference of two energies, ``(log pi(x*) + log q(x|x*)) - (log pi(x) +
        log q(x*|x))``: for a Hamiltonian move, whose Hastings terms are minus the kinetic
        energies, that is ``H(start) - H(end)``, each Hamiltonian summed first as an HMC step
        computes it (the same number up to rounding).

    Returns
    -------
    float
    """
    if math.isnan(logp_proposed) or logp_proposed == -math.inf:
        return -math.inf
    if math.isnan(log_q_reverse) or log_q_reverse == -math.inf:
        return -math.inf
    if math.isnan(logp_current) or logp_current == -math.inf:
        return math.inf
    if as_energies:
        ratio = (logp_proposed + log_q_reverse) - (logp_current + log_q_forward)
    else:
        ratio = logp_proposed - logp_current + log_q_reverse - log_q_forward
    return -math.inf if math.isnan(ratio) else ratio


def accept_probability(log_ratio: float) -> float:
    """``min(1, exp(log_ratio))``, with 0 for NaN.

    Parameters
    ----------
    log_ratio : float
        Log Metropolis–Hastings ratio.

    Returns
    -------
    float
    """
    if math.isnan(log_ratio):
        return 0.0
    return 1.0 if log_ratio >= 0.0 else math.exp(log_ratio)


def mh_decide(log_ratio: float, rng: np.random.Generator) -> MHDecision:
    """Accept or reject given a log Metropolis–Hastings ratio.

    One uniform number is drawn whatever the ratio, so the random stream does not depend on
    whether the proposal was valid.

    Parameters
    ----------
    log_ratio : float
        Output of :func:`mh_log_ratio`.
    rng : numpy.random.Generator
        Source of the uniform draw.

    Returns
    -------
    MHDecision
    """
    u = rng.random()
    prob = accept_probability(log_ratio)
    accepted = bool(u < prob) if prob < 1.0 else True
    if log_ratio == -math.inf or math.isnan(log_ratio):
        accepted = False
    return MHDecision(accepted, prob, log_ratio)


def mh_log_ratios(
    logp_proposed: np.ndarray,
    logp_current: np.ndarray,
    log_q_reverse: np.ndarray | float = 0.0,
    log_q_forward: np.ndarray | float = 0.0,
) -> np.ndarray:
    """:func:`mh_log_ratio` element by element, with the same rules for NaN and ``-inf``.

    Parameters
    ----------
    logp_proposed, logp_current : numpy.ndarray, shape (n,)
    log_q_reverse, log_q_forward : numpy.ndarray of shape (n,), or float

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    proposed = np.asarray(logp_proposed, dtype=float)
    current = np.asarray(logp_current, dtype=float)
    reverse = np.broadcast_to(np.asarray(log_q_reverse, dtype=float), proposed.shape)
    with np.errstate(invalid="ignore"):
        ratio = proposed - current + reverse - log_q_forward
    ratio = np.where(np.isnan(ratio), -np.inf, ratio)
    ratio = np.where(np.isnan(current) | (current == -np.inf), np.inf, ratio)
    invalid = np.isnan(proposed) | (proposed == -np.inf) | np.isnan(reverse) | (reverse == -np.inf)
    return np.where(invalid, -np.inf, ratio)


def mh_decide_many(
    log_ratios: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mh_decide` for many independent tests: one uniform each.

    Parameters
    ----------
    log_ratios : numpy.ndarray, shape (n,)
        From :func:`mh_log_ratios`.
    rng : numpy.random.Generator

    Returns
    -------
    accepted : numpy.ndarray of bool, shape (n,)
    accept_prob : numpy.ndarray of float, shape (n,)
        ``min(1, exp(log_ratio))``, 0 for NaN or ``-inf``.
    """
    log_ratios = np.asarray(log_ratios, dtype=float)
    u = rng.random(log_ratios.shape)
    with np.errstate(over="ignore"):
        prob = np.where(log_ratios >= 0.0, 1.0, np.exp(np.minimum(log_ratios, 0.0)))
    prob = np.where(np.isnan(log_ratios), 0.0, prob)
    accepted = (u < prob) | (prob >= 1.0)
    accepted &= ~(np.isnan(log_ratios) | (log_ratios == -np.inf))
    return accepted, prob
