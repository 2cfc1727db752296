"""Validation of the arguments all steps share: ``vars``, ``rng`` and ``initial_history``.

The messages name the step and the fix.
"""

from __future__ import annotations

import inspect
import os
import warnings
from typing import Any

import numpy as np
from pymc.model import Model, modelcontext
from pymc.util import get_random_generator

from pymc_kameleon._compat import continuous_types, get_value_vars_from_user_vars
from pymc_kameleon.core.checks import (
    ArgumentTypeError,
    check_choice,
    check_mapping,
    check_number,
    show,
)

__all__ = [
    "CLASSIC_TARGET_ACCEPT",
    "DEFAULT_EXPLORE_AFTER_WARMUP",
    "INDEPENDENCE_CHOICES",
    "WARMUPS",
    "caller_stacklevel",
    "check_independence",
    "check_initial_history",
    "check_rng",
    "check_target_accept",
    "check_warmup",
    "model_and_point",
    "parse_explore_shares",
    "resolve_vars",
]

#: KMCStep's share of exploration moves after warm-up while its surrogate keeps adapting
DEFAULT_EXPLORE_AFTER_WARMUP = 0.1

#: the ``warmup`` choices of the steps
WARMUPS = ("whitened", "classic")
_WARMUP_HINT = (
    "'whitened' learns per-coordinate scales, then works in coordinates whitened by windowed "
    "covariance estimates (no units); 'classic' is the published algorithm in the model's units."
)


def check_target_accept(
    target_accept: float,
    hint: str = "0.234 is optimal for random-walk proposals in moderate dimension.",
) -> float:
    """Validate a step's ``target_accept`` (a probability strictly inside (0, 1))."""
    return check_number(
        "target_accept", target_accept, minimum=0.0, maximum=1.0, open_minimum=True,
        open_maximum=True, hint=hint,
    )  # fmt: skip


#: the papers' target acceptance rate (the ``warmup="classic"`` default)
CLASSIC_TARGET_ACCEPT = 0.234


#: the ``independence`` choices of the steps
INDEPENDENCE_CHOICES = ("always", "warmup", "off")
_INDEPENDENCE_HINT = (
    "'always' mixes Student-t independence moves about the start-up's mode into warm-up and "
    "keeps them, with the share warm-up learned, afterwards; 'warmup' uses them in warm-up only; "
    "'off' never."
)


def check_independence(independence: str) -> str:
    """Validate a step's ``independence`` (one of :data:`INDEPENDENCE_CHOICES`)."""
    return check_choice("independence", independence, INDEPENDENCE_CHOICES, hint=_INDEPENDENCE_HINT)


def check_warmup(warmup: str) -> str:
    """Validate a step's ``warmup`` (one of :data:`WARMUPS`)."""
    return check_choice("warmup", warmup, WARMUPS, hint=_WARMUP_HINT)


#: warn when fewer than this fraction of the rows of ``initial_history`` are distinct
_MIN_DISTINCT_FRACTION = 0.1
#: most coordinates quoted in a message
_MAX_SHOWN = 10
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def caller_stacklevel() -> int:
    """``stacklevel`` that points a warning at the first frame outside this package."""
    frame = inspect.currentframe()
    frame = frame.f_back if frame is not None else None
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def check_rng(rng: Any) -> None:
    """Refuse what PyMC cannot turn into a generator, naming ``rng`` (without drawing from it)."""
    error = None
    if isinstance(rng, bool | np.bool_):
        error = "a bool is not a seed"
    else:
        try:
            get_random_generator(rng)  # copies a Generator or BitGenerator: no state is consumed
        except (TypeError, ValueError) as exc:
            error = str(exc)
    if error is not None:
        raise ArgumentTypeError(
            "`rng` must be None, a non-negative int seed (or a sequence of them), a "
            f"numpy.random.SeedSequence, BitGenerator or Generator, got {show(rng)} ({error})."
        )


def resolve_vars(vars, model, step_name: str) -> list:
    """Map user variables to value variables and refuse discrete ones."""
    if vars is None:
        value_vars = list(model.continuous_value_vars)
        if not value_vars:
            raise ValueError(
                f"{step_name}: the model has no continuous variables to sample. Use "
                "pm.Metropolis, pm.BinaryGibbsMetropolis or pm.CategoricalGibbsMetropolis for "
                "discrete variables."
            )
        return value_vars
    value_vars = get_value_vars_from_user_vars(vars, model)
    _check_no_duplicates(vars, value_vars, model, step_name)
    discrete = [v.name for v in value_vars if v.dtype not in continuous_types]
    if discrete:
        raise ValueError(
            f"{step_name} samples continuous variables only, but was given the discrete "
            f"variable(s) {discrete}. Assign those to pm.Metropolis, pm.BinaryGibbsMetropolis "
            "or pm.CategoricalGibbsMetropolis, e.g. step=[KameleonStep([continuous vars]), "
            "pm.Metropolis([discrete vars])], or leave them out and let PyMC assign them."
        )
    return value_vars


def _check_no_duplicates(user_vars, value_vars: list, model, step_name: str) -> None:
    """Refuse a variable listed twice (also as a random variable and its value variable)."""
    seen: set = set()
    repeated = []
    for value_var in value_vars:
        if value_var in seen and value_var not in repeated:
            repeated.append(value_var)
        seen.add(value_var)
    if not repeated:
        return
    names = ", ".join(repr(model.values_to_rvs[v].name) for v in repeated)
    given = [getattr(v, "name", None) or repr(v) for v in user_vars]
    unique = ", ".join(dict.fromkeys(model.values_to_rvs[v].name for v in value_vars))
    raise ValueError(
        f"{step_name}: `vars` lists the variable(s) {names} more than once (a random variable "
        f"and its value variable count as the same variable), got vars={given}. List each "
        f"variable once, e.g. {step_name}([{unique}])."
    )


def check_initial_history(
    values: Any, dim: int, min_rows: int, owner: str, reason: str = "the step needs"
) -> np.ndarray:
    """Validate an ``initial_history`` argument; return it as a read-only float64 copy.

    Shared by every step of this package, so the messages name the owner and the fix.

    Parameters
    ----------
    values : array_like
        Candidate states, one per row, in the sampled (raveled, transformed) space.
    dim : int
        Dimension of the step (number of raveled, transformed values it samples).
    min_rows : int
        Fewest rows accepted.
    owner : str
        Name of the step, for the error messages.
    reason : str, default "the step needs"
        Who needs ``min_rows`` rows, for the error message.

    Returns
    -------
    numpy.ndarray, shape (n, dim)

    Raises
    ------
    ValueError
        If ``values`` is not numeric, not of shape ``(n, dim)``, has fewer than ``min_rows`` rows,
        contains NaN or infinite values, has all rows identical, has a coordinate that is the
        same in every row (a pilot chain stuck in that coordinate), or holds values so large that
        their squared distances overflow.

    Warns
    -----
    UserWarning
        If fewer than 10 % of the rows are distinct (repeated rows from rejections are normal,
        but this few suggests a badly mixing pilot chain).
    """
    try:
        if np.asarray(values).dtype.kind in "bSU":  # bools and strings are not states
            raise TypeError
        array = np.array(values, dtype=np.float64, copy=True)
    except (TypeError, ValueError):
        raise ValueError(
            f"{owner}: `initial_history` must be a numeric array of shape (n, {dim}), got "
            f"{type(values).__name__} {show(values)}."
        ) from None
    if array.ndim != 2 or array.shape[1] != dim:
        columns = (
            f" ({array.shape[1]} columns but the step samples {dim})"
            if array.ndim == 2
            else f" ({show(values)})"
        )
        raise ValueError(
            f"{owner}: `initial_history` must have shape (n, d) with d = {dim}, i.e. shape "
            f"(n, {dim}), one state of the sampled (raveled, transformed) variables per row; got "
            f"shape {array.shape}{columns}. Stack draws in the order of the step's variables, on "
            "the transformed scale (e.g. log(sigma) for a positive variable), e.g. with "
            "`np.column_stack`, or `.reshape(-1, 1)` for a single scalar variable."
        )
    if array.shape[0] < min_rows:
        raise ValueError(
            f"{owner}: `initial_history` has {array.shape[0]} rows, fewer than the {min_rows} "
            f"{reason} (it needs at least {min_rows} rows); supply more states (a few hundred "
            "are typical), or leave it out to learn from the chain alone."
        )
    if not np.all(np.isfinite(array)):
        bad = int(np.count_nonzero(~np.all(np.isfinite(array), axis=1)))
        raise ValueError(
            f"{owner}: `initial_history` contains non-finite values (NaN or infinite) in {bad} "
            "row(s); drop those rows (states must be finite points of the sampled space)."
        )
    _check_history_spread(array, owner)
    array.setflags(write=False)
    return array


def _check_history_spread(array: np.ndarray, owner: str) -> None:
    """Refuse a history without spread or too large to square; warn if it barely moves."""
    n = array.shape[0]
    fix = (
        "Supply states that spread over the posterior (e.g. the draws of a pilot run that "
        "mixed), or leave `initial_history` out to learn from the chain alone."
    )
    constant = np.all(array == array[0], axis=0)
    if np.all(constant):
        raise ValueError(
            f"{owner}: all {n} rows of `initial_history` are identical (every row is "
            f"{_row_text(array[0])}), so they say nothing about the posterior's shape. {fix}"
        )
    if np.any(constant):
        columns = np.flatnonzero(constant)
        shown = ", ".join(str(int(c)) for c in columns[:_MAX_SHOWN])
        shown += ", ..." if columns.size > _MAX_SHOWN else ""
        raise ValueError(
            f"{owner}: coordinate(s) [{shown}] of `initial_history` (column indices in the "
            f"step's raveled variables) have the same value in all {n} rows "
            f"({_row_text(array[0, columns[:_MAX_SHOWN]])}): the chain that produced them never "
            f"moved in those coordinates (a stuck pilot chain, or a variable it held fixed). {fix}"
        )
    with np.errstate(over="ignore", invalid="ignore"):
        spread_ok = np.all(np.isfinite(np.var(array, axis=0)))
        norms_ok = np.all(np.isfinite(np.einsum("ij,ij->i", array, array)))
    if not (spread_ok and norms_ok):
        raise ValueError(
            f"{owner}: `initial_history` holds values so large (largest magnitude "
            f"{float(np.max(np.abs(array))):.3g}) that their squared distances and variances "
            "overflow float64. Rescale the model's variables (e.g. standardise them, or change "
            "units) so that the sampled values are of moderate size."
        )
    distinct = np.unique(array, axis=0).shape[0]
    if distinct < _MIN_DISTINCT_FRACTION * n:
        warnings.warn(
            f"{owner}: only {distinct} of the {n} rows of `initial_history` are distinct "
            f"({distinct / n:.1%}). Repeated rows from rejected proposals are normal, but this "
            "few suggests a badly mixing pilot chain whose states may not cover the posterior; "
            "check its acceptance rate and trace plots, or run it longer.",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )


def _row_text(row: np.ndarray) -> str:
    return np.array2string(row, precision=4, threshold=_MAX_SHOWN, separator=", ")


def model_and_point(model, initial_point) -> tuple[Model, dict]:
    """The model (from the context if None) and the initial point (the model's if None)."""
    model = modelcontext(model)
    if not isinstance(model, Model):
        raise ArgumentTypeError(
            f"`model` must be a pymc.Model, or None inside a `with model:` block, got "
            f"{show(model)}."
        )
    if initial_point is None:
        return model, model.initial_point()
    return model, check_mapping(
        "initial_point", initial_point, hint="Use a point such as model.initial_point()."
    )


def parse_explore_shares(
    warmup_explore: Any,
    explore_after_warmup: Any,
    adapts_after_warmup: bool,
    initial_history: Any,
) -> tuple[float, float]:
    """KMCStep's ``warmup_explore`` and ``explore_after_warmup``.

    ``warmup_explore=None``: 0.5, or 0 with ``initial_history``. ``explore_after_warmup=None``:
    :data:`DEFAULT_EXPLORE_AFTER_WARMUP` while the surrogate keeps adapting after warm-up
    without ``initial_history``, else 0.

    Parameters
    ----------
    warmup_explore, explore_after_warmup : float or None
    adapts_after_warmup : bool
        Whether the adaptation schedule goes on after warm-up.
    initial_history : array or None

    Returns
    -------
    tuple of float
    """
    given = initial_history is not None
    shares = []
    for name, value, default in (
        ("warmup_explore", warmup_explore, 0.0 if given else 0.5),
        ("explore_after_warmup", explore_after_warmup,
         DEFAULT_EXPLORE_AFTER_WARMUP if adapts_after_warmup and not given else 0.0),
    ):  # fmt: skip
        if value is None:
            shares.append(default)
        else:
            shares.append(float(check_number(name, value, minimum=0.0, maximum=1.0, also="None")))
    return shares[0], shares[1]
