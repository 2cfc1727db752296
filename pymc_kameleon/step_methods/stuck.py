"""The end-of-warm-up warning of a chain that never moved, with its likely cause and fix."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pymc_kameleon.step_methods.chain_health import ChainHealth
from pymc_kameleon.step_methods.once_per_call import Notice, see_page

__all__ = ["NOISE_SD_WARNING", "ChainFacts", "stuck_chain_message"]

#: warn at the end of warm-up when the standard deviation of log p_hat exceeds this
NOISE_SD_WARNING = 3.0


@dataclass(frozen=True)
class ChainFacts:
    """What the stuck-chain message says about the step and its chain at the end of warm-up.

    Parameters
    ----------
    name : str
        The step's class name.
    variables : str
        Its variables' names, comma-separated.
    n_iterations : int
        Warm-up iterations run.
    logp_current : float
        The log-density at the chain's state.
    invalid_description : str
        What counts as an invalid proposal for this step.
    pseudo_marginal : bool
        Whether the log-density is a stochastic estimate.
    noise_sd : float
        The measured sd of that estimate (NaN if unmeasured).
    """

    name: str
    variables: str
    n_iterations: int
    logp_current: float
    invalid_description: str
    pseudo_marginal: bool
    noise_sd: float


def stuck_chain_message(
    health: ChainHealth,
    chain: ChainFacts,
) -> Notice | None:
    """The end-of-warm-up warning of a chain that never moved (None if it moved).

    Parameters
    ----------
    health : ChainHealth
        The chain's counts at the end of its warm-up.
    chain : ChainFacts
        What else the message names.

    Returns
    -------
    Notice or None
    """
    n = chain.n_iterations
    logp_finite = math.isfinite(chain.logp_current)
    if health.n_moved > 0 and logp_finite:
        return None
    facts = [f"{health.n_moved} of {n} warm-up proposals moved the chain"]
    if health.n_invalid:
        facts.append(f"{health.n_invalid} {chain.invalid_description}")
    if health.n_accepted_unmoved:
        facts.append(
            f"{health.n_accepted_unmoved} were accepted but too small to change the values in "
            "floating point"
        )
    if not logp_finite:
        facts.append(f"the log-density at the current state is {chain.logp_current}")
    cause = _stuck_chain_cause(health, chain, logp_finite)
    what = (
        "a chain never left its starting point during warm-up"
        if health.n_moved == 0
        else "a chain ended warm-up at a point with a non-finite log-density"
    )
    text = (
        f"{chain.name} ({chain.variables}): {what}: {'; '.join(facts)}. Its draws are "
        f"not posterior draws. {cause} " + see_page("stuck_chain")
    )
    return Notice(text, "stuck_chain", chain.name)


def _stuck_chain_cause(health: ChainHealth, chain: ChainFacts, logp_finite: bool) -> str:
    """The likely cause of a stuck chain and its fix."""
    if not logp_finite and chain.pseudo_marginal:
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
    if health.n_invalid == chain.n_iterations:
        return (
            "Every proposal landed where the log-density is NaN or -inf: the support around "
            "the start is much narrower than the proposal, or the likelihood "
            "(estimator) returns NaN there; check it at points near the start, or start "
            "elsewhere with pm.sample(initvals={...})."
        )
    if chain.pseudo_marginal and chain.noise_sd > NOISE_SD_WARNING:
        return (
            "The likelihood estimate is very noisy (noise_sd about "
            f"{chain.noise_sd:.2g}): an unusually high estimate at the current state makes "
            "every proposal look worse. Reduce the estimator's variance (more importance "
            "samples, particles or simulations)."
        )
    return (
        "Every proposal was rejected or changed nothing: the posterior is on a scale far "
        "from 1 (e.g. a standard deviation of 1e-6 or 1e6, or a location far larger than "
        "the spread): rescale the parameters, e.g. sample z ~ N(0, 1) and set "
        "x = loc + scale * z with loc and scale roughly the posterior's."
    )
