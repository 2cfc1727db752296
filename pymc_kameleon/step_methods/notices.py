"""What a step tells the user through its ``warning`` sampler stat, and when.

PyMC logs every :class:`~pymc.stats.convergence.SamplerWarning` it finds in a step's ``warning``
stat as the chain passes that iteration (on the ``pymc`` logger, also from worker processes),
and drops the stat from the result unless ``pm.sample(keep_warning_stat=True)``. A step delivers
at most one per iteration, in this order:

1. the start-up's fallback (:mod:`pymc_kameleon.step_methods.start_up`), at the first iteration;
2. the notices of the chain, each once, in the order they arose: a warm-up too short to learn
   the proposal (known when the chain starts) and, for :class:`~pymc_kameleon.KMCStep`, the
   first trajectory that diverged after warm-up;
3. the end-of-warm-up warning of a chain that never moved
   (:mod:`pymc_kameleon.step_methods.stuck`), after warm-up.
"""

from __future__ import annotations

from pymc_kameleon._compat import SamplerWarning, WarningType
from pymc_kameleon.core.proposals.whitened import (
    default_first_window,
    settle_length,
    shortest_warmup,
)

__all__ = [
    "PYMC_DEFAULT_TUNE",
    "chain_notices",
    "divergence_message",
    "minimum_warmup_length",
    "note_divergence",
    "short_warmup_message",
    "warning_stat",
]

#: pm.sample's default number of warm-up iterations
PYMC_DEFAULT_TUNE = 1000
#: the ``target_accept`` a divergence message suggests first (KMCStep's default is 0.6)
_SUGGESTED_TARGET_ACCEPT = 0.8
_HIGHEST_SUGGESTION = 0.95


def warning_stat(step) -> SamplerWarning | None:
    """The ``warning`` stat of this iteration (see the module docstring for the order).

    Parameters
    ----------
    step : GradientFreeStep

    Returns
    -------
    SamplerWarning or None
    """
    if step.start_up_warning is not None:
        message, step.start_up_warning = step.start_up_warning, None
        return SamplerWarning(WarningType.CONVERGENCE, message, "warning", step=step.iteration)
    for key, message in step.notices.items():
        if message is not None:
            step.notices[key] = None  # (the key stays: each notice is given once per chain)
            return SamplerWarning(WarningType.BAD_PARAMS, message, "warning", step=step.iteration)
    if step.stuck_warning is None or step.tune:
        return None
    message, step.stuck_warning = step.stuck_warning, None
    return SamplerWarning(WarningType.CONVERGENCE, message, "error", step=step.iteration)


def chain_notices(step) -> dict[str, str | None]:
    """The notices a chain starts with: its warm-up's, if too short (see :func:`warning_stat`).

    Parameters
    ----------
    step : GradientFreeStep
        At the start of a chain, its ``warmup_length`` set.

    Returns
    -------
    dict of str to str or None
    """
    message = short_warmup_message(step)
    return {} if message is None else {"short_warmup": message}


def minimum_warmup_length(step) -> int | None:
    """Fewest warm-up iterations in which ``step``'s warm-up learns its proposal, or None.

    With ``warmup="whitened"`` (:func:`~pymc_kameleon.core.proposals.whitened.shortest_warmup`):
    one first covariance window, ``max(50, 10 d)`` iterations, between the per-coordinate start
    (at most a quarter of warm-up) and the settling stretch (the last ``max(50, tune // 10)``);
    for KMCStep also the ``adapt_start`` states its surrogate's first fit needs there. With
    ``warmup="classic"``: ``adapt_start`` iterations before the proposal uses the chain's
    history, then one first window's worth.

    Parameters
    ----------
    step : GradientFreeStep

    Returns
    -------
    int or None
        None for a step without a known warm-up (a generic ``AdaptiveMHStep``).
    """
    dim, warmup = step.dim, getattr(step, "warmup", None)
    first_fit = _surrogate_first_fit(step)
    if warmup == "whitened":
        return shortest_warmup(dim, max(default_first_window(dim), first_fit or 0))
    if warmup == "classic":
        before = first_fit if first_fit is not None else step.adapt_start
        return before + default_first_window(dim)
    return None


def _surrogate_first_fit(step) -> int | None:
    """KMCStep's ``adapt_start`` (learned states before the surrogate's first fit), or None."""
    settings = getattr(step, "learner_settings", None)
    return None if settings is None else int(settings.adapt_start)


def short_warmup_message(step) -> str | None:
    """The warning of a chain whose warm-up is too short to learn the proposal, or None.

    None when the warm-up length is unknown (a step driven by hand, outside ``pm.sample``),
    with ``initial_history`` (the proposal is learned from it), and from
    :func:`minimum_warmup_length` iterations on.

    Parameters
    ----------
    step : GradientFreeStep
        At the start of a chain.

    Returns
    -------
    str or None
    """
    tune = step.warmup_length
    if tune is None or getattr(step, "initial_history", None) is not None:
        return None
    minimum = minimum_warmup_length(step)
    if minimum is None or tune >= minimum:
        return None
    name, dim = type(step).__name__, step.dim
    if tune == 0:
        problem = (
            "pm.sample(tune=0) runs no warm-up, so the proposal is never learned from the "
            "chain: the draws come from the untuned starting kernel"
        )
    else:
        problem = (
            f"pm.sample(tune={tune}) is too short for its warm-up to learn the proposal: in "
            f"{dim} dimension{'s' if dim != 1 else ''} it needs at least {minimum} warm-up "
            f"iterations ({_what_warmup_needs(step)}), so the draws come from a barely adapted "
            "kernel"
        )
    return (
        f"{name}: {problem}, which can mix badly (R-hat above 1.01, a small ESS). Use "
        f"pm.sample(tune={max(PYMC_DEFAULT_TUNE, minimum)}) (PyMC's default is "
        f"{PYMC_DEFAULT_TUNE}; at least {minimum} here), or pass the draws of an earlier run "
        f"as {name}(initial_history=...) to start from a learned proposal."
    )


def _what_warmup_needs(step) -> str:
    dim, first_fit = step.dim, _surrogate_first_fit(step)
    window = default_first_window(dim)
    if step.warmup == "classic":
        before = first_fit if first_fit is not None else step.adapt_start
        what = "the surrogate's first fit" if first_fit is not None else "the history is used"
        return f"adapt_start={before} iterations before {what}, then {window} to learn"
    if first_fit is not None and first_fit > window:
        learn = f"{first_fit} learned states for the surrogate's first fit (adapt_start)"
    else:
        learn = f"one covariance window of {window} iterations"
    return (
        f"its per-coordinate start, {learn}, and the settling stretch of the last "
        f"{settle_length(step.warmup_length)}"
    )


def note_divergence(step) -> None:
    """Record a trajectory that diverged after warm-up; the chain's first gets a notice.

    Parameters
    ----------
    step : KMCStep
    """
    if "divergence" not in step.notices:
        step.notices["divergence"] = divergence_message(step)


def divergence_message(step) -> str:
    """KMCStep's message at a chain's first divergent trajectory after warm-up.

    PyMC's end-of-run summary counts the ``diverging`` stat and advises to "Increase
    `target_accept`", which ``pm.sample`` does not take for this step: the message names the
    step's own argument.

    Parameters
    ----------
    step : KMCStep

    Returns
    -------
    str
    """
    name, current = type(step).__name__, step.target_accept
    if current < _SUGGESTED_TARGET_ACCEPT:
        suggested = _SUGGESTED_TARGET_ACCEPT
    else:
        suggested = min(_HIGHEST_SUGGESTION, round(current + 0.1, 2))
    raise_it = (
        f"that is {name}'s own argument, not pm.sample's: "
        f"pm.sample(step={name}(target_accept={suggested:g})) (this step has {current:g}) "
        "learns a smaller step size during warm-up, which makes divergences rarer; "
        if suggested > current
        else f"that is {name}'s own argument (this step has {current:g}); "
    )
    return (
        f"{name}: a Hamiltonian trajectory diverged after warm-up (its energy error exceeded "
        "1000, or it left the finite numbers or the support). Divergent trajectories are "
        "rejected, so the draws stay exact, but the chain explores the region where they "
        "happen poorly (a heavy tail, a funnel's neck). If PyMC reports divergences and "
        f"advises to increase `target_accept`, {raise_it}reparameterising the model (e.g. a "
        "non-centred form, or lighter-tailed priors) also helps. Said once per chain."
    )
