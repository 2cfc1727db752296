"""The steps' side of a chain's start-up (see :mod:`pymc_kameleon.core.start_up`).

At the first warm-up iteration of a chain, a step climbs from the chain's initial point to a
mode (a stochastic likelihood estimate with its noise held fixed). Where the posterior is
Gaussian there, the chain starts at an overdispersed draw of that Gaussian and the warm-up's
first whitening map is its covariance; elsewhere the chain stays at its initial point and the
warm-up is the ordinary one. This module parses the ``start_up`` argument, runs the start-up for
a step, and words what it did: a fallback or minor modes are facts for the ``warning`` stat (level
``"debug"``), several modes that each hold a share a notice for the user.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pymc_kameleon.core.checks import ArgumentTypeError, check_int, show
from pymc_kameleon.core.start_up import (
    StartUp,
    default_start_up_budget,
    gaussian_start_up,
    minimum_start_up_budget,
)
from pymc_kameleon.step_methods.once_per_call import Notice, see_page
from pymc_kameleon.step_methods.prior_starts import PriorDraws, chain_starts, side_entropy

__all__ = [
    "ASSUMED_WARMUP_LENGTH",
    "parse_start_up",
    "run_start_up",
    "several_modes_notice",
    "start_up_budget",
    "start_up_messages",
    "start_up_noise_rng",
]

#: warm-up length assumed when the sampler does not say (pm.sample's default ``tune``): by the
#: start-up's default budget and by KMCStep's whitened warm-up
ASSUMED_WARMUP_LENGTH = 1000
#: fallbacks recorded as a fact (a banana's or a flower's mode, "not_gaussian", is expected)
_WARNED = ("indefinite", "no_curvature", "not_converged", "out_of_budget")
#: a climb that ran out of evaluations this far (log-density units) above the highest mode
#: found is in another basin: a converged climb stops within about 0.5 of its mode's top
UNFINISHED_CLIMB_MARGIN = 3.0


def parse_start_up(value: Any) -> bool | int:
    """``start_up``: True (default budget), False (off) or an evaluation budget (int >= 0).

    Parameters
    ----------
    value : bool or int

    Returns
    -------
    bool or int

    Raises
    ------
    ArgumentTypeError
        For anything else.
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return check_int("start_up", value, minimum=0)
    raise ArgumentTypeError(
        "`start_up` must be True (climb to a mode first, with half of the warm-up's "
        "evaluations), False (start where PyMC starts the chain) or a number of log-density "
        f"evaluations (an int), got {show(value)}."
    )


def start_up_budget(start_up: bool | int, warmup_length: int | None) -> int:
    """The evaluations a chain's start-up may spend (``start_up``, or the default budget).

    Parameters
    ----------
    start_up : bool or int
        The step's ``start_up`` (parsed by :func:`parse_start_up`).
    warmup_length : int or None
        The chain's warm-up iterations (None: unknown, :data:`ASSUMED_WARMUP_LENGTH` assumed).

    Returns
    -------
    int
    """
    if start_up is not True:
        return int(start_up)
    length = ASSUMED_WARMUP_LENGTH if warmup_length is None else warmup_length
    return default_start_up_budget(length)


def run_start_up(
    log_density: Callable[[np.ndarray], float],
    start: np.ndarray,
    budget: int,
    rng: np.random.Generator,
    prior_draws: PriorDraws | None,
    economical: bool,
) -> StartUp | None:
    """A chain's start-up from ``start`` (None where the budget cannot pay for a curvature).

    Parameters
    ----------
    log_density : callable
        ``x -> log-density`` (a stochastic estimate with its noise held fixed).
    start : numpy.ndarray, shape (d,)
        The chain's initial point, of the step's dtype.
    budget : int
        Log-density evaluations it may spend.
    rng : numpy.random.Generator
        The chain's generator (the further starts are seeded from a copy of it).
    prior_draws : PriorDraws or None
        Where further climbs may start.
    economical : bool
        Stop at the first mode (the default budget); otherwise spend the budget on climbs from
        further starts.

    Returns
    -------
    StartUp or None
    """
    if budget < minimum_start_up_budget(start.shape[0]):
        return None
    more_starts = chain_starts(prior_draws, rng, start.dtype)
    return gaussian_start_up(
        log_density, start, budget, rng, more_starts, stop_at_one_mode=economical
    )


def start_up_noise_rng(rng: np.random.Generator) -> np.random.Generator:
    """The generator of a stochastic estimate's frozen noise, seeded from a copy of ``rng``."""
    return np.random.default_rng([side_entropy(rng), 0xF20])


def start_up_messages(
    result: StartUp, initial_value: float, name: str, variables: str, budget: int
) -> tuple[Notice | None, Notice | None]:
    """What a chain's start-up tells: a fact for the stats, and a notice for the user.

    The fact (level ``"debug"``: kept in the ``warning`` stat, not shown by default) is a
    fallback to the ordinary warm-up, a climb that ran out of evaluations above the highest mode
    found, or modes below the main one: the chain still converges in the common case, and where
    it does not, PyMC's R-hat warning says so. The notice is given only where the chain's draws
    weigh several modes that each hold a share of the posterior (the user needs to know).

    Parameters
    ----------
    result : StartUp
    initial_value : float
        The log-density at the chain's initial point.
    name : str
        The step's class name.
    variables : str
        Its variables' names, comma-separated.
    budget : int
        The evaluations the start-up could spend.

    Returns
    -------
    fact, notice : Notice or None
    """
    facts = []
    if result.status in _WARNED:
        facts.append(_fallback_fact(result, initial_value, name, variables, budget))
    minor = _minor_modes_fact(result, name)
    if minor is not None:
        facts.append(minor)
    fact = (
        Notice(" ".join(facts), "start_up_fallback" if result.status in _WARNED else "minor_modes",
               name)
        if facts
        else None
    )  # fmt: skip
    notice = several_modes_notice(result, name)
    return fact, notice


def several_modes_notice(result: StartUp, name: str) -> Notice | None:
    """The notice of a start-up whose climbs found modes that each hold a share, or None.

    Parameters
    ----------
    result : StartUp
    name : str
        The step's class name.

    Returns
    -------
    Notice or None
    """
    comparable = result.comparable_modes
    if len(result.mode_log_densities) < 2 or len(comparable) < 2:
        return None
    listed = ", ".join(
        f"{result.modes[i].log_density:.4g} ({100 * result.shares[i]:.2g} %)" for i in comparable
    )
    text = (
        f"{name}: the start-up found {len(comparable)} separate modes that each hold a share of "
        f"the posterior (log-density and Laplace share: {listed}); the chain's independence "
        "moves jump between them, but a mode no climb found is never visited. "
        + see_page("several_modes")
    )
    return Notice(text, "several_modes", name, details=_comparable_modes_details(name, result))


def _minor_modes_fact(result: StartUp, name: str) -> str | None:
    modes = result.mode_log_densities
    searched = (
        f"the start-up's {result.n_climbs} climbs (from the chain's initial point and from the "
        f"best of {result.n_screened} prior draws)"
    )
    if modes and result.highest_log_density > modes[0] + UNFINISHED_CLIMB_MARGIN:
        return (
            f"{name}: one of {searched} ran out of evaluations at log-density "
            f"{result.highest_log_density:.6g}, above the highest mode the climbs reached "
            f"({modes[0]:.6g}), which the chain starts from. That mode is probably a local one: "
            "the chain may stay in it, and then the chains disagree (R-hat above 1.01). "
            + _more_climbs(name)
        )
    if len(modes) < 2 or len(result.comparable_modes) > 1:
        return None
    values = ", ".join(f"{value:.6g}" for value in modes)
    return (
        f"{name}: {searched} found {len(modes)} separate modes, with log-densities {values}; "
        f"by their Laplace approximations all but the one at "
        f"{modes[result.comparable_modes[0]]:.6g}, which the chain starts from, hold less than "
        "1 % of the posterior. They are probably local modes: chains whose climbs missed the "
        "main one may stay in a lower one, and then the chains disagree (R-hat above 1.01). "
        + _more_climbs(name)
    )


def _comparable_modes_details(name: str, result: StartUp) -> str:
    listed = "; ".join(
        f"log-density {result.modes[i].log_density:.6g} (share {100 * result.shares[i]:.3g} %)"
        for i in result.comparable_modes
    )
    start = result.modes[result.chosen].log_density
    return (
        f"{name}: the start-up's {result.n_climbs} climbs (from the chain's initial point and "
        f"from the best of {result.n_screened} prior draws) found "
        f"{len(result.comparable_modes)} separate modes that each hold a share of the posterior "
        f"by their Laplace approximations: {listed}. The chain starts in one drawn in "
        f"proportion to those shares (log-density {start:.6g}), and its independence moves "
        "propose jumps between them, so its draws can weigh the modes; a mode that no climb "
        "found is not visited. Check that the chains agree (R-hat below 1.01) and that every "
        "chain's warning lists the same modes; where they do not, use more chains, "
        f"{name}(start_up=N) with more evaluations, or pm.sample_smc(kernel=KameleonSMC), whose "
        "particles cover every mode."
    )


def _more_climbs(name: str) -> str:
    return (
        f"More climbs ({name}(start_up=N) with more evaluations), more chains, or initial "
        "values near the highest mode make that less likely."
    )


def _fallback_fact(
    result: StartUp, initial_value: float, name: str, variables: str, budget: int
) -> str:
    climbed = (
        f"the chain starts at its initial point (log-density {initial_value:.6g}; the best "
        f"point found has {result.log_density:.6g}) with the ordinary warm-up"
    )
    reasons = {
        "out_of_budget": f"the climb to a mode used all {budget} log-density evaluations it "
        "may spend (by default half of the warm-up's) before reaching one",
        "not_converged": "the climb to a mode stopped making progress before reaching one",
        "indefinite": "the climb stopped where the log-density curves up along some direction "
        "(a saddle, or a ridge between modes)",
        "no_curvature": "near the point found the log-density does not change along some "
        "variable (a variable the model does not depend on there, or an improper posterior)",
    }
    fixes = {
        "out_of_budget": f"A longer warm-up (pm.sample(tune=...)) or {name}(start_up=N) with "
        f"more than {budget} evaluations lets it finish; ",
        "not_converged": "",
        "indefinite": "If the chains disagree (R-hat above 1.01), the posterior may have several "
        "modes; ",
        "no_curvature": "Check that every variable is identified by the data or has a proper "
        "prior; ",
    }
    return (
        f"{name} ({variables}): start-up fell back ({result.status}): {reasons[result.status]}; "
        f"{climbed}. {fixes[result.status]}{name}(start_up=False) starts at PyMC's initial "
        "point without the climb."
    )
