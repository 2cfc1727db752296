"""A chain's health: what its moves did during warm-up, and what it tells the user.

PyMC logs every :class:`~pymc.stats.convergence.SamplerWarning` it finds in a step's ``warning``
stat as the chain passes that iteration (on the ``pymc.stats.convergence`` logger, in the main
process also for worker processes), and drops the stat from the result unless
``pm.sample(keep_warning_stat=True)``. A chain delivers at most one per iteration, in this order:

1. the start-up's facts (:mod:`pymc_kameleon.step_methods.start_up`: a fallback, minor modes),
   at the first iteration, at level ``"debug"``: kept in the stat, not shown by default;
2. the notices of the chain, each once, in the order they arose: a warm-up too short to learn
   the proposal (known when the chain starts), modes that each hold a share of the posterior,
   and, for :class:`~pymc_kameleon.KMCStep`, the first trajectory that diverged after warm-up
   (:mod:`pymc_kameleon.step_methods.notices`);
3. the end-of-warm-up warning of a chain that never moved
   (:mod:`pymc_kameleon.step_methods.stuck`), after warm-up.

Each message is a :class:`~pymc_kameleon.step_methods.once_per_call.Notice`: logged once per
``pm.sample`` call however many chains give it, its details in ``SamplerWarning.extra``.
"""

from __future__ import annotations

import numpy as np

from pymc_kameleon._compat import SamplerWarning, WarningType
from pymc_kameleon.core.proposals.protocol import ComparedByState
from pymc_kameleon.step_methods.once_per_call import Notice

__all__ = ["ChainHealth"]


class ChainHealth(ComparedByState):
    """Per-chain counts of the warm-up's moves, and the warnings waiting to be delivered.

    Parameters
    ----------
    notices : dict of str to Notice, optional
        Notices the chain starts with (e.g. a too short warm-up), each delivered once.

    Attributes
    ----------
    n_moved : int
        Warm-up proposals accepted that changed the state.
    n_accepted_unmoved : int
        Warm-up proposals accepted that were too small to change the state in floating point.
    n_invalid : int
        Proposals with a NaN/-inf log-density (or a trajectory that left the finite numbers).
    stuck_warning : Notice or None
        The end-of-warm-up warning, waiting for the first iteration after warm-up.
    start_up_fact : Notice or None
        What the start-up did that the stats keep (level ``"debug"``), waiting for delivery.
    notices : dict of str to (Notice or None)
        Each key once per chain; None once delivered.
    """

    def __init__(self, notices: dict[str, Notice] | None = None) -> None:
        self.n_moved = 0
        self.n_accepted_unmoved = 0
        self.n_invalid = 0
        self.stuck_warning: Notice | None = None
        self.start_up_fact: Notice | None = None
        self.notices: dict[str, Notice | None] = dict(notices or {})

    def count_accepted(self, x_new: np.ndarray, x_old: np.ndarray) -> None:
        """Count an accepted warm-up proposal as a move, or as one that changed nothing."""
        if np.array_equal(x_new, x_old):
            self.n_accepted_unmoved += 1
        else:
            self.n_moved += 1

    def note(self, key: str, message: Notice) -> None:
        """Queue a notice, once per chain (a later one under the same key is dropped)."""
        if key not in self.notices:
            self.notices[key] = message

    def warning_stat(self, iteration: int, tuning: bool) -> SamplerWarning | None:
        """The ``warning`` stat of this iteration (see the module docstring for the order).

        Parameters
        ----------
        iteration : int
        tuning : bool
            Whether the chain is in warm-up (the stuck-chain warning waits for its end).

        Returns
        -------
        SamplerWarning or None
        """
        if self.start_up_fact is not None:
            message, self.start_up_fact = self.start_up_fact, None
            return _sampler_warning(WarningType.CONVERGENCE, message, "debug", iteration)
        for key, message in self.notices.items():
            if message is not None:
                self.notices[key] = None  # (the key stays: each notice is given once per chain)
                return _sampler_warning(WarningType.BAD_PARAMS, message, "warning", iteration)
        if self.stuck_warning is None or tuning:
            return None
        message, self.stuck_warning = self.stuck_warning, None
        return _sampler_warning(WarningType.CONVERGENCE, message, "error", iteration)


def _sampler_warning(kind: WarningType, message: str, level: str, step: int) -> SamplerWarning:
    details = getattr(message, "details", "") or None
    return SamplerWarning(kind, message, level, step=step, extra=details)
