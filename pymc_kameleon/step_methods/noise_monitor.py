"""How noisy a chain's likelihood estimate is, measured during warm-up (pseudo-marginal models).

At a chain's first iteration and then every ``noise_check_interval`` warm-up iterations, the
current state is re-estimated a few times. The spread of those estimates is the ``noise_sd``
stat; how often a move that stays put would be accepted against the stored estimate is the
ceiling the noise puts on any acceptance rate, by which the steps lower their acceptance
targets. The chain keeps its stored estimate: the fresh ones only measure.
"""

from __future__ import annotations

import math

import numpy as np

from pymc_kameleon.core.proposals.protocol import ComparedByState

__all__ = ["NOISE_CHECK_REPEATS", "NoiseMonitor"]

#: fresh estimates at the current state per noise check
NOISE_CHECK_REPEATS = 4
#: lower clip of the measured noise ceiling on the acceptance rate
MIN_NOISE_CEILING = 0.05


class NoiseMonitor(ComparedByState):
    """Per-chain measurement of a stochastic log-density estimate's noise."""

    def __init__(self) -> None:
        self.sum_squares = 0.0
        self.dof = 0
        self.null_accept_sum = 0.0
        self.null_accept_count = 0

    @property
    def noise_sd(self) -> float:
        """Pooled standard deviation of ``log p_hat`` at the current states (NaN if unmeasured)."""
        if self.dof == 0:
            return math.nan
        return math.sqrt(self.sum_squares / self.dof)

    def measure(self, estimates: np.ndarray, logp_current: float) -> None:
        """Pool fresh estimates at the current state, whose stored estimate is ``logp_current``.

        Parameters
        ----------
        estimates : numpy.ndarray, shape (k,)
        logp_current : float
        """
        finite = estimates[np.isfinite(estimates)]
        if finite.size >= 2:
            self.sum_squares += float(np.sum((finite - finite.mean()) ** 2))
            self.dof += finite.size - 1
        if math.isfinite(logp_current):
            # acceptance probability of a move that stays put: the ceiling the noise imposes
            stay = np.nan_to_num(estimates - logp_current, nan=-np.inf)
            self.null_accept_sum += float(np.sum(np.exp(np.minimum(0.0, stay))))
            self.null_accept_count += estimates.size

    def acceptance_ceiling(self) -> float:
        """The factor every acceptance target is multiplied by (1 before any check).

        With a stochastic estimate even a proposal at the current point is accepted only with
        probability ``E[min(1, p_hat' / p_hat)] < 1``; the acceptance of a move is roughly that
        ceiling times its acceptance without noise, so a target above the ceiling would shrink
        a proposal without end.
        """
        if self.null_accept_count == 0:
            return 1.0
        ceiling = self.null_accept_sum / self.null_accept_count
        return min(1.0, max(MIN_NOISE_CEILING, ceiling))
