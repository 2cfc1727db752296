"""core.checks: one calling convention, messages that name the argument and show the value."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from pymc_kameleon.core import checks
from pymc_kameleon.core.checks import (
    ArgumentTypeError,
    check_bool,
    check_choice,
    check_int,
    check_int_range,
    check_mapping,
    check_nonnegative,
    check_number,
    check_number_range,
    check_positive,
    check_rng,
    check_samples,
    check_vector,
    show,
)


def test_argument_type_error_is_both_type_and_value_error():
    assert issubclass(ArgumentTypeError, TypeError)
    assert issubclass(ArgumentTypeError, ValueError)


def test_every_public_check_takes_name_first():
    for name in checks.__all__:
        if name.startswith("check_"):
            function = getattr(checks, name)
            first = next(iter(function.__code__.co_varnames))
            assert first == "name", name


@pytest.mark.parametrize("value", [True, False, np.True_, np.bool_(False)])
def test_check_bool_accepts_bools(value):
    result = check_bool("flag", value)
    assert type(result) is bool and result == bool(value)


@pytest.mark.parametrize("value", ["False", "no", "", math.nan, [0], 0, 1, None, 1.0])
def test_check_bool_refuses_everything_else(value):
    with pytest.raises(ArgumentTypeError) as info:
        check_bool("flag", value)
    message = str(info.value)
    assert "`flag`" in message and repr(value) in message and "True or False" in message


@pytest.mark.parametrize(
    "value", [0.5, 1, np.float32(0.25), np.int64(3), Fraction(1, 3), np.array(0.5)]
)
def test_check_positive_accepts_real_numbers(value):
    result = check_positive("x", value)
    assert type(result) is float and result == pytest.approx(float(value))


@pytest.mark.parametrize("value", [True, np.False_, "0.5", None, [0.5], 1 + 0j, np.ones(2)])
def test_check_positive_refuses_non_numbers_with_a_type_error(value):
    with pytest.raises(ArgumentTypeError, match=r"`x` must be a finite number > 0, got "):
        check_positive("x", value)


@pytest.mark.parametrize("value", [0, 0.0, -1e-300, math.nan, math.inf, -math.inf])
def test_check_positive_refuses_out_of_range(value):
    with pytest.raises(ValueError, match="`x` must be a finite number > 0") as info:
        check_positive("x", value)
    assert not isinstance(info.value, TypeError)
    assert repr(value) in str(info.value)


def test_check_nonnegative():
    assert check_nonnegative("lam", 0) == 0.0
    with pytest.raises(ValueError, match=r"`lam` must be a finite number >= 0, got -1"):
        check_nonnegative("lam", -1)


def test_check_number_bounds_and_messages():
    assert check_number("p", 0.5, minimum=0, maximum=1, open_minimum=True, open_maximum=True)
    with pytest.raises(ValueError, match=r"`p` must be a number strictly between 0 and 1, got 1"):
        check_number("p", 1, minimum=0, maximum=1, open_minimum=True, open_maximum=True)
    with pytest.raises(ValueError, match=r"`f` must be a number in \[0, 1\), got 1\.0"):
        check_number("f", 1.0, minimum=0, maximum=1, open_maximum=True)
    with pytest.raises(ValueError, match=r"must be 'median' or a finite number > 0, got -1\. Hi"):
        check_positive("bw", -1, also="'median'", hint="Hi.")


def test_check_int():
    assert check_int("n", np.int32(4), minimum=2) == 4
    for bad in (2.0, True, "3", None, np.array(2.0)):
        with pytest.raises(ArgumentTypeError, match=r"`n` must be an integer >= 2, got "):
            check_int("n", bad, minimum=2)
    with pytest.raises(ValueError, match=r"`n` must be an integer >= 2, got 1\."):
        check_int("n", 1, minimum=2)


def test_check_choice():
    assert check_choice("mode", "a", ("a", "b")) == "a"
    with pytest.raises(ValueError, match=r"`mode` must be one of 'a', 'b', got 'A'\."):
        check_choice("mode", "A", ("a", "b"))
    with pytest.raises(ArgumentTypeError, match=r"got None"):
        check_choice("mode", None, ("a", "b"))


def test_check_ranges():
    assert check_int_range("r", (1, 3)) == (1, 3)
    assert check_int_range("r", np.array([2, 2])) == (2, 2)
    assert check_number_range("e", [0.1, 0.2]) == (0.1, 0.2)
    for bad in ((3, 1), (0, 2), (1, 2, 3)):
        with pytest.raises(ValueError, match=r"`r` must be a pair of integers \(low, high\)"):
            check_int_range("r", bad)
    for bad in ("12", 5, (1.0, 2), (True, 2)):
        with pytest.raises(ArgumentTypeError, match=r"`r` must be a pair of integers"):
            check_int_range("r", bad)
    for bad in ((0.0, 1.0), (0.2, 0.1), (0.1, math.inf), (math.nan, 1.0)):
        with pytest.raises(ValueError, match=r"`e` must be a pair of finite numbers"):
            check_number_range("e", bad)
    with pytest.raises(ArgumentTypeError, match=r"got \('0\.1', 0\.2\)"):
        check_number_range("e", ("0.1", 0.2))


def test_check_mapping_and_rng():
    assert check_mapping("kw", None) == {}
    assert check_mapping("kw", {"a": 1}) == {"a": 1}
    with pytest.raises(ArgumentTypeError, match=r"`kw` must be None or a dict, got \['a'\]"):
        check_mapping("kw", ["a"])
    rng = np.random.default_rng(0)
    assert check_rng("rng", rng) is rng
    with pytest.raises(ArgumentTypeError, match=r"`rng` must be a numpy.random.Generator, got 5"):
        check_rng("rng", 5)


def test_check_samples_and_vector():
    z = np.ones((3, 2))
    assert check_samples("Z", z) is z
    with pytest.raises(ValueError, match="`Z` must have at least 4 rows, got 3"):
        check_samples("Z", z, min_rows=4)
    with pytest.raises(ValueError, match=r"`Z` must be a 2-D array"):
        check_samples("Z", np.ones(3))
    with pytest.raises(ValueError, match=r"`Z` must contain only finite values"):
        check_samples("Z", [[0.0, math.nan], [1.0, 1.0]])
    with pytest.raises(ValueError, match=r"`Z` must be a numeric 2-D array"):
        check_samples("Z", [["a", "b"], ["c", "d"]])
    np.testing.assert_array_equal(check_vector("x", [1, 2], 2), [1.0, 2.0])
    with pytest.raises(ValueError, match=r"`x` must have shape \(3,\), got shape \(2,\)"):
        check_vector("x", [1, 2], 3)


def test_show_shortens_long_values():
    text = show(list(range(1000)))
    assert len(text) <= 125 and text.startswith("[0, 1") and text.endswith("998, 999]")
    assert show(0.5) == "0.5"
    assert show(np.eye(2)) == "array([[1., 0.], [0., 1.]])"
    assert show("a\nb") == "'a\\nb'"


def test_quoted_values_get_a_how_to_fix_hint():
    with pytest.raises(ArgumentTypeError, match=r"'0\.8'\. Pass the number 0\.8 without"):
        check_number("p", "0.8", minimum=0, maximum=1)
    with pytest.raises(ArgumentTypeError, match=r"got '10'\. Pass the number 10 without quotes"):
        check_int("n", "10")
    with pytest.raises(ArgumentTypeError, match=r"got 'False'\. Pass False without quotes"):
        check_bool("flag", "False")
    with pytest.raises(ArgumentTypeError) as info:
        check_positive("x", "abc")
    assert "without quotes" not in str(info.value)
    with pytest.raises(ValueError, match=r"`w` must be a finite number > 0 or 'cv', got 'x'\.$"):
        check_choice("w", "x", ("cv",), also="a finite number > 0")
