"""How far an independence proposal falls short of where the chain has been, and the defensive
weight that follows from it.

An independence sampler sticks where the importance ratio ``pi / q`` is large: a region the
target holds that the proposal rarely draws. The warm-up's late states are (nearly) draws of the
target, so the spread of ``r = log pi(x) - log q(x)`` over them says how unevenly ``q`` covers
the region the chain has been in. For a Gaussian posterior and the t of its moments ``r`` falls
with the distance from the centre and its 99th percentile lies 0.07-0.21 above its median
(dimensions 2-50); on the real-model suite's ordinary posteriors KMCStep's warm-ups gave
0.4-2.0. A banana's arms, a funnel's neck or a ridge give 2.2-7.4: there the t draws the
chain's outer states several times less often than they are held, and those states are reached
too rarely for the MCSEs to notice. :func:`defensive_weight_for` then raises the weight of the
t's wide copies (:mod:`~pymc_kameleon.core.proposals.independence`) from the step's base weight
towards an even mixture, and where the t covers the states as evenly as a Gaussian's t does
(a shortfall up to :data:`SHORTFALL_LOW`) lowers it to the step's low weight, since there the
wide copies' draws are mostly moves taken from the t. KMCStep uses it (its trajectories rarely
leave the warm-up's history, so beyond it mostly the wide copies propose: base 0.2, low 0.1);
the random walks keep their base weight (raised
this way, AdaptiveMetropolis lost a heavy-tailed model at one of two seeds;
benchmarks/notes/lab-notes.md, "KMCStep's wide copies on a curved posterior").

The shortfall is measured once, at the end of warm-up, from warm-up states only; the weight is
then fixed for the rest of the run and depends on neither the current state nor the kept
draws, so the kept moves are one fixed Metropolis-Hastings kernel (exact), as with a constant
weight.
"""

from __future__ import annotations

import math

import numpy as np

from pymc_kameleon.core.proposals.protocol import ComparedByState

__all__ = [
    "FULL_DEFENSIVE_WEIGHT",
    "MIN_SHORTFALL_STATES",
    "RECENT_STATES",
    "SHORTFALL_FULL",
    "SHORTFALL_LOW",
    "SHORTFALL_QUANTILE",
    "SHORTFALL_START",
    "RecentStates",
    "defensive_weight_for",
    "tail_shortfall",
]

#: how many of the latest warm-up states the shortfall is measured on
RECENT_STATES = 500
#: fewer states than this measure nothing (the base weight stays)
MIN_SHORTFALL_STATES = 50
#: the upper quantile of ``r`` compared with its median
SHORTFALL_QUANTILE = 0.99
#: shortfall (log units) up to which a step's low weight holds (where it has one): the t covers
#: the chain's states about as evenly as the t of a Gaussian's estimated moments does (0.1-0.9
#: from 2000 draws in 2-20 dimensions); the weight rises from it to the base at
#: :data:`SHORTFALL_START`
SHORTFALL_LOW = 1.0
#: shortfall from which the base weight holds, up to where the rise to the full weight starts:
#: the suite's ordinary posteriors gave at most 2.0, most below 1
SHORTFALL_START = 1.5
#: shortfall from which the wide copies get :data:`FULL_DEFENSIVE_WEIGHT`: the mapped banana
#: gave 2.2-4.1 per chain, the non-centred eight schools 2.4-7.4
SHORTFALL_FULL = 2.5
#: the wide copies' weight where the shortfall is full: an even mixture
FULL_DEFENSIVE_WEIGHT = 0.5


class RecentStates(ComparedByState):
    """The latest ``capacity`` states and their target log-densities (a ring buffer).

    Parameters
    ----------
    dim : int
    capacity : int, default RECENT_STATES
    """

    def __init__(self, dim: int, capacity: int = RECENT_STATES) -> None:
        self.states = np.zeros((capacity, dim))
        self.log_densities = np.zeros(capacity)
        self.count = 0

    def add(self, x: np.ndarray, log_density: float) -> None:
        """Keep ``x`` and its log-density (a non-finite one is skipped).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
        log_density : float
        """
        if not math.isfinite(log_density):
            return
        slot = self.count % len(self.log_densities)
        self.states[slot] = x
        self.log_densities[slot] = log_density
        self.count += 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The kept states ``(n, d)`` and log-densities ``(n,)`` (in no particular order)."""
        n = min(self.count, len(self.log_densities))
        return self.states[:n], self.log_densities[:n]


def tail_shortfall(log_target: np.ndarray, log_proposal: np.ndarray) -> float:
    """The :data:`SHORTFALL_QUANTILE` quantile of ``r = log_target - log_proposal`` minus its
    median (NaN with fewer than :data:`MIN_SHORTFALL_STATES` finite values).

    Parameters
    ----------
    log_target, log_proposal : numpy.ndarray, shape (n,)
        The target's (unnormalised) and the proposal's log-densities at the same states; the
        target's normalising constant cancels.

    Returns
    -------
    float
    """
    r = np.asarray(log_target, dtype=float) - np.asarray(log_proposal, dtype=float)
    r = r[np.isfinite(r)]
    if r.size < MIN_SHORTFALL_STATES:
        return math.nan
    return float(np.quantile(r, SHORTFALL_QUANTILE) - np.median(r))


def defensive_weight_for(
    shortfall: float,
    base: float,
    top: float = FULL_DEFENSIVE_WEIGHT,
    low: float | None = None,
) -> float:
    """The wide copies' weight for a measured ``shortfall``, piecewise linear and rising: ``low``
    up to :data:`SHORTFALL_LOW`, then linearly to ``base`` at :data:`SHORTFALL_START`, then
    linearly to ``top`` at :data:`SHORTFALL_FULL` and ``top`` beyond (``base`` when nothing
    was measured).

    Parameters
    ----------
    shortfall : float
        From :func:`tail_shortfall`.
    base : float
        The step's weight where the proposal covers the chain's states about as evenly as the
        suite's ordinary posteriors' t's do.
    top : float, default FULL_DEFENSIVE_WEIGHT
        The weight where it falls short by :data:`SHORTFALL_FULL` or more (``base`` or less:
        ``base`` everywhere).
    low : float, optional
        The weight where it covers them as evenly as a Gaussian's t does (default ``base``: no
        dip below it; at most ``base``).

    Returns
    -------
    float
    """
    if not math.isfinite(shortfall) or top <= base:
        return base
    if shortfall < SHORTFALL_START:
        low = base if low is None else min(low, base)
        dip = (SHORTFALL_START - shortfall) / (SHORTFALL_START - SHORTFALL_LOW)
        return base - (base - low) * min(1.0, dip)
    rise = (shortfall - SHORTFALL_START) / (SHORTFALL_FULL - SHORTFALL_START)
    return base + (top - base) * min(1.0, rise)
