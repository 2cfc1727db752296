"""The notices a chain gives once: a warm-up too short to learn, a divergence after it.

They wait in the chain's :class:`~pymc_kameleon.step_methods.chain_health.ChainHealth`, which
delivers them through the ``warning`` stat (see there for the order of a chain's warnings). Each
is a :class:`~pymc_kameleon.step_methods.once_per_call.Notice`: two sentences and the docs page
that says more, logged once per ``pm.sample`` call; the full text is its ``details``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pymc_kameleon.core.proposals.whitened import (
    default_first_window,
    settle_length,
    shortest_warmup,
)
from pymc_kameleon.step_methods.once_per_call import Notice, see_page

__all__ = [
    "PYMC_DEFAULT_TUNE",
    "WarmupPlan",
    "divergence_message",
    "minimum_warmup_length",
    "short_warmup_message",
]

#: pm.sample's default number of warm-up iterations
PYMC_DEFAULT_TUNE = 1000
#: the ``target_accept`` a divergence message suggests first (KMCStep's default is 0.6)
_SUGGESTED_TARGET_ACCEPT = 0.8
_HIGHEST_SUGGESTION = 0.95


@dataclass(frozen=True)
class WarmupPlan:
    """What a step's warm-up must fit in, for the too-short-warm-up notice.

    Parameters
    ----------
    name : str
        The step's class name.
    dim : int
        Sampled dimensions.
    warmup : {"whitened", "classic"} or None
        The step's warm-up (None: unknown, e.g. a generic ``AdaptiveMHStep``).
    adapt_start : int or None
        States learned before the proposal uses them (KMCStep: before the surrogate's first fit).
    surrogate : bool
        Whether ``adapt_start`` counts states for a surrogate's first fit (KMCStep).
    initial_history : bool
        Whether the step learns from ``initial_history`` (then no notice).
    """

    name: str
    dim: int
    warmup: str | None
    adapt_start: int | None
    surrogate: bool = False
    initial_history: bool = False


def minimum_warmup_length(plan: WarmupPlan) -> int | None:
    """Fewest warm-up iterations in which a step's warm-up learns its proposal, or None.

    With ``warmup="whitened"`` (:func:`~pymc_kameleon.core.proposals.whitened.shortest_warmup`):
    one first covariance window, ``max(50, 10 d)`` iterations, between the per-coordinate start
    (at most a quarter of warm-up) and the settling stretch (the last ``max(50, tune // 10)``);
    for KMCStep also the ``adapt_start`` states its surrogate's first fit needs there. With
    ``warmup="classic"``: ``adapt_start`` iterations before the proposal uses the chain's
    history, then one first window's worth.

    Parameters
    ----------
    plan : WarmupPlan

    Returns
    -------
    int or None
        None for a step without a known warm-up (a generic ``AdaptiveMHStep``).
    """
    first_fit = plan.adapt_start if plan.surrogate else None
    if plan.warmup == "whitened":
        return shortest_warmup(plan.dim, max(default_first_window(plan.dim), first_fit or 0))
    if plan.warmup == "classic":
        return plan.adapt_start + default_first_window(plan.dim)
    return None


def short_warmup_message(plan: WarmupPlan, tune: int | None) -> Notice | None:
    """The warning of a chain whose warm-up is too short to learn the proposal, or None.

    None when the warm-up length is unknown (a step driven by hand, outside ``pm.sample``),
    with ``initial_history`` (the proposal is learned from it), and from
    :func:`minimum_warmup_length` iterations on.

    Parameters
    ----------
    plan : WarmupPlan
    tune : int or None
        The chain's warm-up iterations (None: unknown).

    Returns
    -------
    Notice or None
        Every chain of a call has the same warm-up, so the message speaks of every chain.
    """
    if tune is None or plan.initial_history:
        return None
    minimum = minimum_warmup_length(plan)
    if minimum is None or tune >= minimum:
        return None
    name, dim = plan.name, plan.dim
    suggested = max(PYMC_DEFAULT_TUNE, minimum)
    if tune == 0:
        problem = "pm.sample(tune=0) runs no warm-up, so every chain samples with the untuned "
        problem += "starting kernel"
    else:
        problem = (
            f"pm.sample(tune={tune}) is too short for its warm-up to learn the proposal in "
            f"{dim} dimension{'s' if dim != 1 else ''} (at least {minimum} warm-up iterations), "
            "so every chain samples with a barely adapted kernel"
        )
    text = (
        f"{name}: {problem} and may mix badly. Use pm.sample(tune={suggested}) or "
        f"{name}(initial_history=...). " + see_page("short_warmup")
    )
    return Notice(text, "short_warmup", name, details=_short_warmup_details(plan, tune, minimum))


def _short_warmup_details(plan: WarmupPlan, tune: int, minimum: int) -> str:
    name, dim = plan.name, plan.dim
    if tune == 0:
        problem = (
            "pm.sample(tune=0) runs no warm-up, so the proposal is never learned from the "
            "chain: the draws come from the untuned starting kernel"
        )
    else:
        problem = (
            f"pm.sample(tune={tune}) is too short for its warm-up to learn the proposal: in "
            f"{dim} dimension{'s' if dim != 1 else ''} it needs at least {minimum} warm-up "
            f"iterations ({_what_warmup_needs(plan, tune)}), so the draws come from a barely "
            "adapted kernel"
        )
    return (
        f"{name}: {problem}, which can mix badly (R-hat above 1.01, a small ESS). Use "
        f"pm.sample(tune={max(PYMC_DEFAULT_TUNE, minimum)}) (PyMC's default is "
        f"{PYMC_DEFAULT_TUNE}; at least {minimum} here), or pass the draws of an earlier run "
        f"as {name}(initial_history=...) to start from a learned proposal."
    )


def _what_warmup_needs(plan: WarmupPlan, tune: int) -> str:
    window = default_first_window(plan.dim)
    if plan.warmup == "classic":
        what = "the surrogate's first fit" if plan.surrogate else "the history is used"
        return f"adapt_start={plan.adapt_start} iterations before {what}, then {window} to learn"
    if plan.surrogate and plan.adapt_start > window:
        learn = f"{plan.adapt_start} learned states for the surrogate's first fit (adapt_start)"
    else:
        learn = f"one covariance window of {window} iterations"
    return (
        f"its per-coordinate start, {learn}, and the settling stretch of the last "
        f"{settle_length(tune)}"
    )


def divergence_message(name: str, current: float) -> Notice:
    """KMCStep's message at a chain's first divergent trajectory after warm-up.

    PyMC's end-of-run summary counts the ``diverging`` stat and advises to "Increase
    `target_accept`", which ``pm.sample`` does not take for this step: the message names the
    step's own argument.

    Parameters
    ----------
    name : str
        The step's class name.
    current : float
        Its ``target_accept``.

    Returns
    -------
    Notice
    """
    if current < _SUGGESTED_TARGET_ACCEPT:
        suggested = _SUGGESTED_TARGET_ACCEPT
    else:
        suggested = min(_HIGHEST_SUGGESTION, round(current + 0.1, 2))
    if suggested > current:
        fix = (
            f"pm.sample's `target_accept` does not reach this step: use "
            f"{name}(target_accept={suggested:g}) (it has {current:g}), or reparameterise"
        )
    else:
        fix = f"its target_accept is already {current:g}: reparameterise the model"
    text = (
        f"{name}: a Hamiltonian trajectory diverged after warm-up (rejected, so the draws stay "
        f"exact, but the region around it is explored poorly). If PyMC reports divergences, "
        f"{fix}. " + see_page("divergences")
    )
    return Notice(text, "divergences", name, details=_divergence_details(name, current, suggested))


def _divergence_details(name: str, current: float, suggested: float) -> str:
    raise_it = (
        f"that is {name}'s own argument, not pm.sample's: "
        f"pm.sample(step={name}(target_accept={suggested:g})) (this step has {current:g}) "
        "learns a smaller step size during warm-up, which makes divergences rarer; "
        if suggested > current
        else f"that is {name}'s own argument (this step has {current:g}); "
    )
    return (
        f"{name}: a Hamiltonian trajectory diverged after warm-up (its energy error exceeded "
        "1000, it left the finite numbers or the support, or its energy error on the surrogate "
        "exceeded 10 and it was rejected without evaluating the model). Divergent trajectories are "
        "rejected, so the draws stay exact, but the chain explores the region where they "
        "happen poorly (a heavy tail, a funnel's neck). If PyMC reports divergences and "
        f"advises to increase `target_accept`, {raise_it}reparameterising the model (e.g. a "
        "non-centred form, or lighter-tailed priors) also helps."
    )
