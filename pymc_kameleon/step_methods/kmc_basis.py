"""KMCStep's warnings about an ``n_history`` its run cannot use or cannot pay for.

The lite surrogate's basis is a subsample of the chain's history, of ``n_history`` points but,
above 500, never more than the states stored by the end of warm-up
(:meth:`~pymc_kameleon.core.surrogates.learner.SurrogateLearner.basis_size`). At the first
iteration of each chain, once PyMC has said how long warm-up is, :func:`warn_basis_size` warns
when ``n_history`` is more than that warm-up can store, and when the basis it allows makes each
refit after warm-up expensive (its cost is cubic in the basis size, and vanishing adaptation
refits about :math:`2\\sqrt{T}` times in :math:`T` iterations).
"""

from __future__ import annotations

import warnings
from typing import Any

from pymc_kameleon.core.surrogates.lite import REPEATED_BASIS_LIMIT
from pymc_kameleon.step_methods.arguments import caller_stacklevel

__all__ = ["LARGE_BASIS", "warmup_state_bound", "warn_basis_size"]

#: a basis above this is warned about when refits follow warm-up: one refit took 0.9 s (d = 2)
#: to 2.1 s (d = 10) of CPU time at 2000 points, 27-39 times one at the default's 500, and 9 s
#: and 1.1 GB at 5000 (d = 2); BENCHMARKS.md, issue 46
LARGE_BASIS = 2000


def warmup_state_bound(step: Any) -> int | None:
    """Most states a chain's history can hold when its warm-up ends (None: warm-up unknown).

    Every warm-up iteration stores at most one state of each chain that the step learns from
    (its own, or with ``pool_warmup=True`` every chain's), after the ``initial_history``.

    Parameters
    ----------
    step : KMCStep

    Returns
    -------
    int or None
    """
    tune = step.warmup_length
    if tune is None:
        return None
    return tune * _chains(step) + _initial_states(step)


def warn_basis_size(step: Any) -> None:
    """Warn when ``n_history`` cannot pay off in this run (call at a chain's first iteration).

    Parameters
    ----------
    step : KMCStep
    """
    settings = step.learner_settings
    bound = warmup_state_bound(step)
    if settings.estimator != "lite" or bound is None:
        return
    n = settings.n_history
    basis = min(n, max(REPEATED_BASIS_LIMIT, bound))
    if basis < n:
        needed = -(-(n - _initial_states(step)) // _chains(step))  # (the ceiling)
        message = (
            f"KMCStep(n_history={n}): warm-up stores at most {bound} states here "
            f"(tune={step.warmup_length}{_sources(step)}), so the lite surrogate is fitted on at "
            f"most {basis} basis points, during warm-up and after it: more would only repeat "
            "states, at a refit cost cubic in their number, and the refits after warm-up keep "
            f"the size warm-up reached. To fit on {n} states, raise tune to at least {needed} "
            f"(or pass initial_history with about {n} states); otherwise leave n_history at its "
            "default (500)."
        )
    elif basis > LARGE_BASIS and step.schedule.adapts_after_tuning:
        message = (
            f"KMCStep(n_history={n}): every refit of the lite surrogate after warm-up fits "
            f"{basis} basis points, at O(d n^3) time and O(d n^2) memory (at n = 5000 and d = 2 "
            "about 9 s and 1.1 GB), and adaptation='vanishing' refits about 2 * sqrt(T) times "
            "in T iterations. Lower n_history (the default is 500), use estimator='finite' "
            "(its cost does not grow with the history), or adaptation='tune' (no refits after "
            "warm-up)."
        )
    else:
        return
    warnings.warn(message, UserWarning, stacklevel=caller_stacklevel())


def _chains(step: Any) -> int:
    """Chains whose warm-up states a chain learns from (all of them with ``pool_warmup``)."""
    return len(getattr(step, "population", None) or [None])


def _initial_states(step: Any) -> int:
    return 0 if step.initial_history is None else step.initial_history.shape[0]


def _sources(step: Any) -> str:
    """What the bound counts besides this chain's warm-up, for the message."""
    parts = []
    if getattr(step, "population", None):
        parts.append(f" per chain × {_chains(step)} pooled chains")
    if step.initial_history is not None:
        parts.append(f" + {_initial_states(step)} states of initial_history")
    return "".join(parts)
