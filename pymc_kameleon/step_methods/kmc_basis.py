"""KMCStep's warnings about an ``n_history`` its run cannot use or cannot pay for.

The lite surrogate's basis is a subsample of the chain's history, of ``n_history`` points but,
above 500, never more than the states stored by the end of warm-up
(:meth:`~pymc_kameleon.core.surrogates.learner.SurrogateLearner.basis_size`). At the first
iteration of each chain, once PyMC has said how long warm-up is, :func:`basis_size_warning`
words a warning when ``n_history`` is more than that warm-up can store, and when the basis it
allows makes each refit after warm-up expensive (its cost is cubic in the basis size, and
vanishing adaptation refits about :math:`2\\sqrt{T}` times in :math:`T` iterations).
"""

from __future__ import annotations

from pymc_kameleon.core.surrogates.learner import LearnerSettings
from pymc_kameleon.core.surrogates.lite import REPEATED_BASIS_LIMIT

__all__ = ["LARGE_BASIS", "basis_size_warning", "warmup_state_bound"]

#: a basis above this is warned about when refits follow warm-up: one refit took 0.9 s (d = 2)
#: to 2.1 s (d = 10) of CPU time at 2000 points, 27-39 times one at the default's 500, and 9 s
#: and 1.1 GB at 5000 (d = 2); benchmarks/notes/lab-notes.md
LARGE_BASIS = 2000


def warmup_state_bound(warmup_length: int | None, n_chains: int, n_initial: int) -> int | None:
    """Most states a chain's history can hold when its warm-up ends (None: warm-up unknown).

    Every warm-up iteration stores at most one state of each chain that the step learns from
    (its own, or with a pooled warm-up every chain's), after the ``initial_history``.

    Parameters
    ----------
    warmup_length : int or None
    n_chains : int
        Chains whose warm-up states a chain learns from (all of them when pooled).
    n_initial : int
        States of ``initial_history``.

    Returns
    -------
    int or None
    """
    if warmup_length is None:
        return None
    return warmup_length * n_chains + n_initial


def basis_size_warning(
    settings: LearnerSettings,
    warmup_length: int | None,
    n_chains: int,
    n_initial: int,
    adapts_after_warmup: bool,
) -> str | None:
    """The warning of an ``n_history`` that cannot pay off in this run, or None.

    Parameters
    ----------
    settings : LearnerSettings
    warmup_length : int or None
    n_chains : int
        Chains whose warm-up states a chain learns from.
    n_initial : int
        States of ``initial_history``.
    adapts_after_warmup : bool
        Whether the surrogate is refitted after warm-up.

    Returns
    -------
    str or None
    """
    bound = warmup_state_bound(warmup_length, n_chains, n_initial)
    if settings.estimator != "lite" or bound is None:
        return None
    n = settings.n_history
    basis = min(n, max(REPEATED_BASIS_LIMIT, bound))
    if basis < n:
        needed = -(-(n - n_initial) // n_chains)  # (the ceiling)
        sources = (f" per chain × {n_chains} pooled chains" if n_chains > 1 else "") + (
            f" + {n_initial} states of initial_history" if n_initial else ""
        )
        return (
            f"KMCStep(n_history={n}): warm-up stores at most {bound} states here "
            f"(tune={warmup_length}{sources}), so the lite surrogate is fitted on at "
            f"most {basis} basis points, during warm-up and after it: more would only repeat "
            "states, at a refit cost cubic in their number, and the refits after warm-up keep "
            f"the size warm-up reached. To fit on {n} states, raise tune to at least {needed} "
            f"(or pass initial_history with about {n} states); otherwise leave n_history at its "
            "default (500)."
        )
    if basis > LARGE_BASIS and adapts_after_warmup:
        return (
            f"KMCStep(n_history={n}): every refit of the lite surrogate after warm-up fits "
            f"{basis} basis points, at O(d n^3) time and O(d n^2) memory (at n = 5000 and d = 2 "
            "about 9 s and 1.1 GB), and adaptation='vanishing' refits about 2 * sqrt(T) times "
            "in T iterations. Lower n_history (the default is 500), use estimator='finite' "
            "(its cost does not grow with the history), or adaptation='tune' (no refits after "
            "warm-up)."
        )
    return None
