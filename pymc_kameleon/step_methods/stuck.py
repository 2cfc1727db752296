"""The end-of-warm-up warning of a chain that never moved, with its likely cause and fix."""

from __future__ import annotations

import math

__all__ = ["NOISE_SD_WARNING", "stuck_chain_message"]

#: warn at the end of warm-up when the standard deviation of log p_hat exceeds this
NOISE_SD_WARNING = 3.0


def stuck_chain_message(step) -> str | None:
    """The end-of-warm-up warning of a chain that never moved (None if it moved).

    Parameters
    ----------
    step : GradientFreeStep
        At the end of its warm-up.

    Returns
    -------
    str or None
    """
    n = step.iteration
    logp_finite = math.isfinite(step.logp_current)
    if step.n_moved > 0 and logp_finite:
        return None
    facts = [f"{step.n_moved} of {n} warm-up proposals moved the chain"]
    if step.n_invalid:
        facts.append(f"{step.n_invalid} {step.invalid_description}")
    if step.n_accepted_unmoved:
        facts.append(
            f"{step.n_accepted_unmoved} were accepted but too small to change the values in "
            "floating point"
        )
    if not logp_finite:
        facts.append(f"the log-density at the current state is {step.logp_current}")
    cause = _stuck_chain_cause(step, logp_finite)
    variables = ", ".join(v.name for v in step.vars)
    what = (
        "this chain never left its starting point during warm-up"
        if step.n_moved == 0
        else "this chain ended warm-up at a point with a non-finite log-density"
    )
    return (
        f"{type(step).__name__} ({variables}): {what}: {'; '.join(facts)}. Its draws are "
        f"not posterior draws. {cause}"
    )


def _stuck_chain_cause(step, logp_finite: bool) -> str:
    """The likely cause of a stuck chain and its fix."""
    if not logp_finite and step.is_pseudo_marginal:
        return (
            "The likelihood estimator returned NaN or -inf at the current state: check that "
            "it returns a finite log-likelihood for plausible parameters (a NaN estimate is "
            "never accepted), or start where it is finite with pm.sample(initvals={...})."
        )
    if not logp_finite:
        return (
            "The chain is outside the support: start it inside with pm.sample(initvals={...}); "
            "model.point_logps(point) or model.debug() shows which term is not finite."
        )
    if step.n_invalid == step.iteration:
        return (
            "Every proposal landed where the log-density is NaN or -inf: the support around "
            "the start is much narrower than the proposal, or the likelihood "
            "(estimator) returns NaN there; check it at points near the start, or start "
            "elsewhere with pm.sample(initvals={...})."
        )
    if step.is_pseudo_marginal and step.noise_sd > NOISE_SD_WARNING:
        return (
            "The likelihood estimate is very noisy (noise_sd about "
            f"{step.noise_sd:.2g}): an unusually high estimate at the current state makes "
            "every proposal look worse. Reduce the estimator's variance (more importance "
            "samples, particles or simulations)."
        )
    return (
        "Every proposal was rejected or changed nothing: the posterior is on a scale far "
        "from 1 (e.g. a standard deviation of 1e-6 or 1e6, or a location far larger than "
        "the spread): rescale the parameters, e.g. sample z ~ N(0, 1) and set "
        "x = loc + scale * z with loc and scale roughly the posterior's."
    )
