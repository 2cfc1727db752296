"""Argument checks with one calling convention: ``check_x(name, value, ...)``.

Every check returns the value converted to its canonical type (``bool``, ``int``, ``float``, a
tuple or a float64 array) or raises an error whose message names the argument, shows the value
the caller passed (its ``repr``) and says what is accepted. A value of the wrong *type* (a
string or a bool where a number is expected, a number where a bool is expected, ...) raises
:class:`ArgumentTypeError`, which is both a :class:`TypeError` and a :class:`ValueError`; a
value of the right type outside the accepted range raises :class:`ValueError`.

Numbers are Python or NumPy reals (``int``, ``float``, ``numpy.float32``, ``fractions.Fraction``,
0-d real arrays, ...), never ``bool`` or ``numpy.bool_``, and never strings such as ``"0.5"``.
Integers are Python or NumPy integers: ``2.0`` is not an integer. Booleans are ``bool`` or
``numpy.bool_`` only: ``"False"``, ``0`` and ``1`` are not booleans.

Pure Python and NumPy; no PyMC import.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "ArgumentTypeError",
    "check_bool",
    "check_choice",
    "check_int",
    "check_int_range",
    "check_mapping",
    "check_nonnegative",
    "check_number",
    "check_number_range",
    "check_positive",
    "check_rng",
    "check_samples",
    "check_vector",
    "show",
]

#: longest ``repr`` of a passed value quoted in a message (longer ones are cut in the middle)
_MAX_REPR = 120


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (both a ``TypeError`` and a ``ValueError``).

    Catching either base class catches it, so code that caught ``ValueError`` for every bad
    argument keeps working.
    """


def show(value: Any) -> str:
    """Return ``repr(value)`` for an error message, on one line and shortened if very long.

    Parameters
    ----------
    value : object
        The value the caller passed.

    Returns
    -------
    str
    """
    text = re.sub(r"\n\s*", " ", repr(value))  # NumPy arrays print on several lines
    if len(text) > _MAX_REPR:
        half = (_MAX_REPR - 5) // 2
        text = f"{text[:half]} ... {text[-half:]}"
    return text


def _fail(
    name: str, value: Any, accepted: str, hint: str, error: type[Exception] = ValueError
) -> Exception:
    message = f"`{name}` must be {accepted}, got {show(value)}."
    if hint:
        message = f"{message} {hint}"
    return error(message)


def _accepted(what: str, also: str) -> str:
    return f"{also} or {what}" if also else what


def _unquote_hint(value: Any, hint: str) -> str:
    """Prepend "pass the number, not a string" when a string holds a number."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return hint
        if math.isfinite(number):
            return f"Pass the number {value.strip()} without quotes. {hint}".strip()
    return hint


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool | np.bool_)


def _as_real(value: Any) -> float | None:
    """``value`` as a float if it is a real number (not a bool or a string), else None."""
    if _is_bool(value):
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    if (
        isinstance(value, np.ndarray)
        and value.ndim == 0
        and (np.issubdtype(value.dtype, np.floating) or np.issubdtype(value.dtype, np.integer))
    ):
        return float(value)
    return None


def _as_int(value: Any) -> int | None:
    """``value`` as an int if it is an integer (not a bool, a float or a string), else None."""
    if _is_bool(value):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and np.issubdtype(value.dtype, np.integer):
        return int(value)
    return None


def _bounds_text(
    minimum: float | None, maximum: float | None, open_minimum: bool, open_maximum: bool
) -> str:
    def fmt(bound: float) -> str:
        return f"{bound:g}"

    if minimum is not None and maximum is not None:
        left, right = "(" if open_minimum else "[", ")" if open_maximum else "]"
        if open_minimum and open_maximum:
            return f"strictly between {fmt(minimum)} and {fmt(maximum)}"
        return f"in {left}{fmt(minimum)}, {fmt(maximum)}{right}"
    if minimum is not None:
        return f"{'>' if open_minimum else '>='} {fmt(minimum)}"
    if maximum is not None:
        return f"{'<' if open_maximum else '<='} {fmt(maximum)}"
    return ""


def check_bool(name: str, value: Any, *, hint: str = "") -> bool:
    """Return ``value`` as a ``bool`` if it is a ``bool`` or ``numpy.bool_``.

    Strings (``"False"`` is truthy), numbers (``0``, ``1``, NaN) and containers are refused, so a
    flag is never set by accident.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : object
        The value passed.
    hint : str, optional
        Sentence appended to the message (e.g. what the flag does).

    Returns
    -------
    bool

    Raises
    ------
    ArgumentTypeError
        If ``value`` is not a ``bool`` or ``numpy.bool_``.
    """
    if not _is_bool(value):
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            hint = f"Pass {value.strip().capitalize()} without quotes. {hint}".strip()
        raise _fail(name, value, "True or False (a bool)", hint, ArgumentTypeError)
    return bool(value)


def check_number(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    open_minimum: bool = False,
    open_maximum: bool = False,
    also: str = "",
    hint: str = "",
) -> float:
    """Return ``value`` as a finite ``float`` within the given bounds.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : object
        The value passed: a real number (not a bool, not a string).
    minimum, maximum : float, optional
        Bounds; None for no bound. The value must be finite in any case.
    open_minimum, open_maximum : bool, default False
        Whether the bound itself is excluded.
    also : str, optional
        Other accepted values the caller handles itself, named first in the message (e.g.
        ``"'median'"`` gives "must be 'median' or a finite number > 0").
    hint : str, optional
        Sentence appended to the message (e.g. a typical value).

    Returns
    -------
    float

    Raises
    ------
    ArgumentTypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, infinite or out of bounds.
    """
    bounds = _bounds_text(minimum, maximum, open_minimum, open_maximum)
    what = "a finite number" + (f" {bounds}" if bounds else "")
    if minimum is not None and maximum is not None:
        what = f"a number {bounds}"
    accepted = _accepted(what, also)
    number = _as_real(value)
    if number is None:
        raise _fail(name, value, accepted, _unquote_hint(value, hint), ArgumentTypeError)
    ok = math.isfinite(number)
    if ok and minimum is not None:
        ok = number > minimum if open_minimum else number >= minimum
    if ok and maximum is not None:
        ok = number < maximum if open_maximum else number <= maximum
    if not ok:
        raise _fail(name, value, accepted, hint)
    return number


def check_positive(name: str, value: Any, *, also: str = "", hint: str = "") -> float:
    """Return ``value`` as a finite ``float > 0``.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : object
        The value passed.
    also : str, optional
        Other accepted values, named first in the message (see :func:`check_number`).
    hint : str, optional
        Sentence appended to the message.

    Returns
    -------
    float

    Raises
    ------
    ArgumentTypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, infinite or ``<= 0``.
    """
    return check_number(name, value, minimum=0.0, open_minimum=True, also=also, hint=hint)


def check_nonnegative(name: str, value: Any, *, also: str = "", hint: str = "") -> float:
    """Return ``value`` as a finite ``float >= 0``.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : object
        The value passed.
    also : str, optional
        Other accepted values, named first in the message (see :func:`check_number`).
    hint : str, optional
        Sentence appended to the message.

    Returns
    -------
    float

    Raises
    ------
    ArgumentTypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, infinite or negative.
    """
    return check_number(name, value, minimum=0.0, also=also, hint=hint)


def check_int(
    name: str,
    value: Any,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    also: str = "",
    hint: str = "",
) -> int:
    """Return ``value`` as an ``int`` within the given bounds.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : object
        The value passed: a Python or NumPy integer (not a bool, a float or a string).
    minimum, maximum : int, optional
        Inclusive bounds; None for no bound.
    also : str, optional
        Other accepted values, named first in the message (see :func:`check_number`).
    hint : str, optional
        Sentence appended to the message.

    Returns
    -------
    int

    Raises
    ------
    ArgumentTypeError
        If ``value`` is not an integer.
    ValueError
        If it is out of bounds.
    """
    bounds = _bounds_text(minimum, maximum, False, False)
    accepted = _accepted("an integer" + (f" {bounds}" if bounds else ""), also)
    number = _as_int(value)
    if number is None:
        raise _fail(name, value, accepted, _unquote_hint(value, hint), ArgumentTypeError)
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise _fail(name, value, accepted, hint)
    return number


def check_choice(
    name: str, value: Any, choices: Sequence[str], *, also: str = "", hint: str = ""
) -> str:
    """Return ``value`` if it is one of the strings ``choices``.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : object
        The value passed.
    choices : sequence of str
        The accepted strings (compared exactly, case included).
    also : str, optional
        Other accepted values the caller handles itself, named first in the message (e.g.
        ``"a Kernel instance"``).
    hint : str, optional
        Sentence appended to the message.

    Returns
    -------
    str

    Raises
    ------
    ArgumentTypeError
        If ``value`` is not a string.
    ValueError
        If it is a string not in ``choices``.
    """
    listed = repr(choices[0]) if len(choices) == 1 else "one of " + ", ".join(map(repr, choices))
    accepted = _accepted(listed, also)
    if not isinstance(value, str):
        raise _fail(name, value, accepted, hint, ArgumentTypeError)
    if value not in choices:
        raise _fail(name, value, accepted, hint)
    return value


def _pair(name: str, value: Any, accepted: str, hint: str) -> tuple[Any, Any]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise _fail(name, value, accepted, hint, ArgumentTypeError)
    if len(value) != 2:
        raise _fail(name, value, accepted, hint)
    return value[0], value[1]


def check_int_range(
    name: str,
    value: Any,
    *,
    minimum: int = 1,
    labels: tuple[str, str] = ("low", "high"),
    hint: str = "",
) -> tuple[int, int]:
    """Return ``value`` as a pair of integers ``(low, high)`` with ``minimum <= low <= high``.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : object
        The value passed: a tuple, list or array of two integers.
    minimum : int, default 1
        Smallest accepted ``low``.
    labels : tuple of str, default ("low", "high")
        Names of the two ends, for the message.
    hint : str, optional
        Sentence appended to the message.

    Returns
    -------
    tuple of int

    Raises
    ------
    ArgumentTypeError
        If ``value`` is not a pair of integers.
    ValueError
        If the pair is out of order or below ``minimum``.
    """
    low_name, high_name = labels
    accepted = (
        f"a pair of integers ({low_name}, {high_name}) with {minimum} <= {low_name} <= {high_name}"
    )
    ends = _pair(name, value, accepted, hint)
    low, high = (_as_int(v) for v in ends)
    if low is None or high is None:
        raise _fail(name, value, accepted, hint, ArgumentTypeError)
    if not minimum <= low <= high:
        raise _fail(name, value, accepted, hint)
    return low, high


def check_number_range(
    name: str,
    value: Any,
    *,
    minimum: float = 0.0,
    open_minimum: bool = True,
    labels: tuple[str, str] = ("low", "high"),
    hint: str = "",
) -> tuple[float, float]:
    """Return ``value`` as a pair of finite floats ``(low, high)`` with ``minimum < low <= high``.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : object
        The value passed: a tuple, list or array of two real numbers.
    minimum : float, default 0.0
        Bound on ``low``.
    open_minimum : bool, default True
        Whether ``low`` must exceed ``minimum`` strictly.
    labels : tuple of str, default ("low", "high")
        Names of the two ends, for the message.
    hint : str, optional
        Sentence appended to the message.

    Returns
    -------
    tuple of float

    Raises
    ------
    ArgumentTypeError
        If ``value`` is not a pair of real numbers.
    ValueError
        If an end is not finite, or the pair is out of order or below ``minimum``.
    """
    low_name, high_name = labels
    sign = "<" if open_minimum else "<="
    accepted = (
        f"a pair of finite numbers ({low_name}, {high_name}) with "
        f"{minimum:g} {sign} {low_name} <= {high_name}"
    )
    ends = _pair(name, value, accepted, hint)
    low, high = (_as_real(v) for v in ends)
    if low is None or high is None:
        raise _fail(name, value, accepted, hint, ArgumentTypeError)
    above = low > minimum if open_minimum else low >= minimum
    if not (math.isfinite(low) and math.isfinite(high) and above and low <= high):
        raise _fail(name, value, accepted, hint)
    return low, high


def check_mapping(name: str, value: Any, *, hint: str = "") -> dict:
    """Return ``value`` as a ``dict`` if it is a mapping (``None`` gives an empty dict).

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : mapping or None
        The value passed.
    hint : str, optional
        Sentence appended to the message.

    Returns
    -------
    dict

    Raises
    ------
    ArgumentTypeError
        If ``value`` is neither None nor a mapping.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(name, value, "None or a dict", hint, ArgumentTypeError)
    return dict(value)


def check_rng(name: str, value: Any) -> np.random.Generator:
    """Return ``value`` if it is a ``numpy.random.Generator``.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : object
        The value passed.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    ArgumentTypeError
        If ``value`` is not a ``numpy.random.Generator``.
    """
    if not isinstance(value, np.random.Generator):
        raise _fail(
            name,
            value,
            "a numpy.random.Generator",
            "Create one with np.random.default_rng(seed).",
            ArgumentTypeError,
        )
    return value


def check_samples(name: str, value: Any, *, min_rows: int = 2) -> np.ndarray:
    """Return ``value`` as a finite float64 matrix of shape ``(n, d)`` with ``n >= min_rows``.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : array_like
        The value passed.
    min_rows : int, default 2
        Fewest rows accepted.

    Returns
    -------
    numpy.ndarray, shape (n, d)
        ``value`` as a float64 array (not copied if it already is one).

    Raises
    ------
    ValueError
        If ``value`` is not numeric, not 2-D, has too few rows or no column, or holds NaN or
        infinite values.
    """
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"`{name}` must be a numeric 2-D array of shape (n, d), got {type(value).__name__}."
        ) from None
    if array.ndim != 2:
        raise ValueError(f"`{name}` must be a 2-D array of shape (n, d), got shape {array.shape}.")
    if array.shape[0] < min_rows:
        raise ValueError(
            f"`{name}` must have at least {min_rows} rows, got {array.shape[0]} (shape "
            f"{array.shape})."
        )
    if array.shape[1] < 1:
        raise ValueError(f"`{name}` must have at least one column, got shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"`{name}` must contain only finite values; found NaN or inf.")
    return array


def check_vector(name: str, value: Any, length: int) -> np.ndarray:
    """Return ``value`` as a float64 vector of shape ``(length,)``.

    Parameters
    ----------
    name : str
        Argument name, for the message.
    value : array_like
        The value passed.
    length : int
        Required length.

    Returns
    -------
    numpy.ndarray, shape (length,)
        ``value`` as a float64 array (not copied if it already is one).

    Raises
    ------
    ValueError
        If ``value`` is not numeric or has another shape.
    """
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"`{name}` must be a numeric vector of shape ({length},), got {type(value).__name__}."
        ) from None
    if array.shape != (length,):
        raise ValueError(f"`{name}` must have shape ({length},), got shape {array.shape}.")
    return array
