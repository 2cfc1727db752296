"""The options every step of this package takes, declared and documented once.

Each step's constructor takes its own arguments by name and these as ``**options``
(:class:`StepOptions`, so that type checkers and editors know them); :func:`parse_options`
fills in the defaults and refuses a misspelt name as Python would, and
:func:`document_options` writes their parameter paragraphs into each step's docstring where it
says ``<shared options>`` (and the paragraphs the steps share about independence moves and
the ``warning`` stat at their own markers).
"""

from __future__ import annotations

import inspect
import re
import textwrap
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

#: the first part of the ``independence`` paragraph of KameleonStep and KMCStep (each goes on
#: with what ``"always"`` does for it)
INDEPENDENCE_DOC = """\
    independence : {"always", "warmup", "off"}, default "always"
        Independence moves: candidates from Student t's with 4 degrees of freedom, drawn
        whatever the current state. They come with the start-up (``warmup="whitened"``; none
        with ``start_up=False``, ``initial_history`` or ``tune=0``): they begin at once with a t
        at each mode it found (shaped by the curvature there), joined by the t of the latest
        covariance window once one has closed; without a mode they begin when the warm-up's
        first covariance window closes, with that window's t. During warm-up their share of the
        moves (for ``KMCStep``, of its exploration moves) follows their acceptance rate: at
        least 0.02, at most 0.8 for ``KameleonStep`` and ``AdaptiveMetropolis`` (above 0.5 only
        where the t is accepted 40 % of the time or more) and at most 0.5 for ``KMCStep``. A
        move whose candidate or current state lies more than 20 whitened units (in some
        coordinate) from every t's centre is rejected unevaluated. Kept after warm-up
        (``"always"``), each t is mixed with a copy 3 times as wide (a defensive mixture), at
        weight 0.1 for ``KameleonStep`` and ``AdaptiveMetropolis``; ``KMCStep`` sets the weight
        per chain at the end of warm-up, from 0.2 up to 0.5 where its t covers the warm-up's
        states poorly (the ``defensive_weight`` stat).
"""

#: what a step's ``warning`` stat holds, for the Notes of its docstring
WARNING_STAT_DOC = """\
    ``warning`` is None except where it holds a :class:`~pymc.stats.convergence.SamplerWarning`,
    which PyMC logs (with any ``cores``) and leaves out of the InferenceData unless
    ``pm.sample(keep_warning_stat=True)``: near a chain's first iteration when its warm-up is
    too short to learn the proposal (``tune=0``, or below the minimum the message names); for
    :class:`~pymc_kameleon.KMCStep`, at a chain's first trajectory that diverges after warm-up
    (naming ``KMCStep(target_accept=...)``, which PyMC's "Increase `target_accept`" means
    there); and at the first iteration after warm-up of a chain that never moved during warm-up
    (or ended it with a non-finite log-density), naming the counts and the likely cause. A model
    without a stochastic likelihood whose log-density is not finite at the starting point
    raises :class:`~pymc.exceptions.SamplingError` at the first iteration instead.
"""

#: the markers :func:`document_options` replaces, and what with
_MARKERS = {
    "<shared options>": OPTIONS_DOC,
    "<independence moves>": INDEPENDENCE_DOC,
    "<warning stat>": WARNING_STAT_DOC,
}


def parse_options(
    step_name: str, options: dict[str, Any], own: Iterable[str] = ()
) -> dict[str, Any]:
    """``options`` with the defaults filled in; a name that is not an option is refused.

    ``pool_warmup=True`` names the pooled class to use instead (``pool_warmup=False`` is accepted
    on an unpooled step); a pooled class refuses ``pool_warmup`` altogether.

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
        For ``pool_warmup=True``, or any ``pool_warmup`` on a pooled class.
    """
    options = dict(options)
    if "pool_warmup" in options:
        _refuse_pool_warmup(step_name, options.pop("pool_warmup"))
    for name in options:
        if name not in OPTION_DEFAULTS:
            close = get_close_matches(name, [*own, *OPTION_DEFAULTS], n=1)
            hint = f". Did you mean '{close[0]}'?" if close else ""
            raise TypeError(
                f"{step_name}.__init__() got an unexpected keyword argument '{name}'{hint}"
            )
    return {**OPTION_DEFAULTS, **options}


def _refuse_pool_warmup(step_name: str, pool: Any) -> None:
    """``pool_warmup`` is gone: pooling is a class of its own. ``False`` on an unpooled step is
    what it always was, and is accepted; anything that would contradict the class is refused."""
    pooled_class = step_name.startswith("Pooled")
    if pool is False and not pooled_class:
        return
    if pooled_class:
        unpooled = step_name.removeprefix("Pooled")
        raise ArgumentTypeError(
            f"{step_name}(pool_warmup=...): {step_name} always pools its warm-up across chains; "
            f"drop the argument, or use {unpooled}(...) for a warm-up of each chain's own."
        )
    raise ArgumentTypeError(
        f"{step_name}(pool_warmup=...): the warm-up pooled across chains is a class of its "
        f"own: use Pooled{step_name}(...) (from pymc_kameleon) with the other arguments "
        "unchanged. pm.sample runs PyMC's population sampler, which pooling needs, only for "
        "steps of such a class."
    )


def _expanded_signature(init) -> inspect.Signature:
    """``init``'s signature with ``**options`` spelt out as keyword-only parameters."""
    signature = inspect.signature(init)
    own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    names = {p.name for p in own}
    shared = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
        for name, default in OPTION_DEFAULTS.items()
        if name not in names
    ]
    return signature.replace(parameters=[*own, *shared])


def document_options(cls: type) -> type:
    """Write the shared paragraphs into ``cls.__doc__`` at their markers; show the options in
    the constructor's signature.

    :data:`OPTIONS_DOC` where it says ``<shared options>``, :data:`INDEPENDENCE_DOC` at
    ``<independence moves>`` and :data:`WARNING_STAT_DOC` at ``<warning stat>``.

    Parameters
    ----------
    cls : type

    Returns
    -------
    type
        ``cls`` itself.
    """
    init = cls.__dict__.get("__init__")
    if init is not None:  # help(), IDEs and the API docs show every option by name
        init.__signature__ = _expanded_signature(init)
    doc = cls.__doc__ or ""
    for marker, text in _MARKERS.items():
        # at the marker's own indentation: Python 3.13 strips a docstring's common indentation
        pattern = re.compile(rf"^([ \t]*){re.escape(marker)}\n", flags=re.MULTILINE)
        fragment = textwrap.dedent(text)
        doc = pattern.sub(lambda m: textwrap.indent(fragment, m.group(1)), doc)
    cls.__doc__ = doc
    return cls
