"""`vpl_core.numbers`: numbers from files and command lines are finite, in range and of the right arity."""

from __future__ import annotations

import pytest

from vpl_core.numbers import MAX_VALUE_DEPTH, NumberError, nesting_depth, parse_value, read_number, read_numbers, read_time


@pytest.mark.parametrize("value", [10 ** 400, "1e999", "nan", "-inf", float("nan"), True, None, [1], "x"])
def test_read_number_refuses_what_is_not_a_finite_number(value: object) -> None:
    with pytest.raises(NumberError, match="the exposure"):
        read_number(value, "the exposure")


def test_read_number_checks_the_range_and_names_the_field() -> None:
    assert read_number("2.5", "x", 0, 3) == 2.5
    with pytest.raises(NumberError, match=r"the gain must be between 0 and 1e\+06, not 1e\+39"):
        read_number(1e39, "the gain", 0, 1e6)


def test_read_numbers_checks_the_arity() -> None:
    assert read_numbers("1, 0 0.5", "c", (3,)) == (1.0, 0.0, 0.5)
    assert read_numbers([1, 2, 3, 4], "c", (3, 4)) == (1.0, 2.0, 3.0, 4.0)
    with pytest.raises(NumberError, match="c must be 3 numbers, not 2"):
        read_numbers([1, 2], "c", (3,))
    with pytest.raises(NumberError, match="must be 3 numbers"):
        read_numbers({"r": 1}, "c", (3,))


def test_read_time_is_bounded() -> None:
    assert read_time("86400") == 86400.0
    for text in ("1e308", "-1", "nan"):
        with pytest.raises(NumberError, match="--time"):
            read_time(text)


def test_parse_value_forms() -> None:
    assert parse_value("3", "v") == 3
    assert parse_value("0.5", "v") == 0.5
    assert parse_value("1,2,3", "v") == [1, 2, 3]
    assert parse_value("true", "v") is True
    assert parse_value('{"x": [1, 2]}', "v") == {"x": [1, 2]}


@pytest.mark.parametrize("text", ["nan", "inf", "1e39", "[1, NaN]", "[1e999]", '{"x": Infinity}', "9" * 30, "[" + "9" * 5000 + "]"])
def test_parse_value_refuses_numbers_out_of_range(text: str) -> None:
    with pytest.raises(NumberError, match="--set v"):
        parse_value(text, "--set v")


def test_parse_value_refuses_deep_nesting_without_recursing() -> None:
    with pytest.raises(NumberError, match=f"deeper than {MAX_VALUE_DEPTH}"):
        parse_value("[" * 100_000, "--set v")
    deepest = "[" * MAX_VALUE_DEPTH + "]" * MAX_VALUE_DEPTH
    assert nesting_depth(deepest) == MAX_VALUE_DEPTH and parse_value(deepest, "v") is not None
    assert nesting_depth('["[[[", {"a": "}"}]') == 2
