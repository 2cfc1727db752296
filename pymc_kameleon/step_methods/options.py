"""The options every step of this package takes, declared and documented once.

Each step's constructor takes its own arguments by name and these as ``**options``
(:class:`StepOptions`, so that type checkers and editors know them); :func:`parse_options`
fills in the defaults and refuses a misspelt name as Python would, and
:func:`document_options` writes their parameter paragraphs into each step's docstring where it
says ``<shared options>``.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches
from typing import Any, TypedDict

from pymc_kameleon.core.checks import ArgumentTypeError

__all__ = ["OPTION_DEFAULTS", "StepOptions", "document_options", "parse_options"]


class StepOptions(TypedDict, total=False):
    """The keyword arguments every step takes besides its own (see :data:`OPTIONS_DOC`)."""

    model: Any
    initial_point: dict | None
    compile_kwargs: dict | None
    blocked: bool
    rng: Any
    noise_free_other_steps: bool
    noise_check_interval: int
    start_up: bool | int


#: the defaults of :class:`StepOptions`
OPTION_DEFAULTS: dict[str, Any] = {
    "model": None,
    "initial_point": None,
    "compile_kwargs": None,
    "blocked": True,
    "rng": None,
    "noise_free_other_steps": False,
    "noise_check_interval": 100,
    "start_up": True,
}

#: the numpydoc paragraphs of :class:`StepOptions`, indented for a class docstring
OPTIONS_DOC = """\
    model, initial_point, compile_kwargs, blocked, rng
        As for PyMC's own step methods. ``compile_kwargs`` (e.g. ``{"mode": "NUMBA"}``) is passed
        to the log-density compilation.
    noise_free_other_steps : bool, default False
        Only for models with a stochastic likelihood estimate (see
        :mod:`pymc_kameleon.pseudo_marginal`). Such a model must by default be sampled by this
        step alone, because PyMC's other samplers would re-draw the noise at every evaluation;
        set True only if every other step updates its variables without evaluating the noisy
        terms (e.g. a hand-written conjugate Gibbs step).
    noise_check_interval : int, default 100
        Only for stochastic likelihood estimates: at the first iteration and then every this many
        warm-up iterations, the current state is re-estimated 4 extra times (counted in
        ``logp_evals``; the chain keeps its stored estimate) to measure the ``noise_sd`` stat.
        0 turns the checks off.
    start_up : bool or int, default True
        With ``warmup="whitened"``, each chain first climbs from its initial point to a mode (Newton
        steps on finite differences, no gradients; a stochastic likelihood estimate with its noise
        held fixed) and takes the curvature there. Where that Gaussian fits the posterior (checked
        at 3 sds along each principal axis), the chain starts at an overdispersed draw of it and the
        warm-up's first whitening map is its covariance; elsewhere (a banana's or a funnel's mode, a
        saddle, a climb that did not finish) the chain starts at its initial point with the ordinary
        warm-up, and the ``start_up`` stat names the reason (a warning for the reasons a user can
        act on). True spends at most half of ``tune`` evaluations (all counted in ``logp_evals``);
        an int is the budget; False turns it off. Skipped with ``initial_history`` and ``tune=0``.
        See :doc:`/concepts/warmup`.
"""

_MARKER = "    <shared options>\n"


def parse_options(
    step_name: str, options: dict[str, Any], own: Iterable[str] = ()
) -> dict[str, Any]:
    """``options`` with the defaults filled in; a name that is not an option is refused.

    ``pool_warmup=True`` names the pooled class to use instead (``pool_warmup=False`` is the
    default and is accepted).

    Parameters
    ----------
    step_name : str
        The step's class name, for the messages.
    options : dict
        The keyword arguments the step's own signature did not take.
    own : iterable of str
        The step's own argument names (a misspelt one is suggested, as Python 3.13 does).

    Returns
    -------
    dict

    Raises
    ------
    TypeError
        For an unknown keyword, with Python's own message.
    ArgumentTypeError
        For ``pool_warmup=True``.
    """
    options = dict(options)
    pool = options.pop("pool_warmup", False)
    if pool is not False:
        pooled = step_name if step_name.startswith("Pooled") else f"Pooled{step_name}"
        raise ArgumentTypeError(
            f"{step_name}(pool_warmup=...): the warm-up pooled across chains is a class of its "
            f"own: use {pooled}(...) (from pymc_kameleon) with the other arguments unchanged. "
            "pm.sample runs PyMC's population sampler, which pooling needs, only for steps of "
            "such a class."
        )
    for name in options:
        if name not in OPTION_DEFAULTS:
            close = get_close_matches(name, [*own, *OPTION_DEFAULTS], n=1)
            hint = f". Did you mean '{close[0]}'?" if close else ""
            raise TypeError(
                f"{step_name}.__init__() got an unexpected keyword argument '{name}'{hint}"
            )
    return {**OPTION_DEFAULTS, **options}


def document_options(cls: type) -> type:
    """Write :data:`OPTIONS_DOC` into ``cls.__doc__`` where it says ``<shared options>``.

    Parameters
    ----------
    cls : type

    Returns
    -------
    type
        ``cls`` itself.
    """
    if cls.__doc__ and _MARKER in cls.__doc__:
        cls.__doc__ = cls.__doc__.replace(_MARKER, OPTIONS_DOC)
    return cls
