"""One way to read a number from a file or a command line: finite, in range, of the right arity.

`read_number` and `read_numbers` take what a JSON document or a command
line holds (a number, a list of numbers, or text such as "0.1, 0.2") and
give floats or raise `NumberError` (a `ValueError`) whose message names the
field. A document falls back to the field's default with that message as a
note; a command line prints it and exits 2. `parse_value` reads a JSON-like
command-line value with its nesting checked first, without recursion, so a
value cannot exhaust the stack.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

#: The largest finite 32-bit float: GPU uniforms and the interpreter's float lanes hold nothing larger.
FLOAT32_MAX = 3.4028234663852886e38
#: The scene time a command line may ask for (one day in seconds), from 0: the time the Time node reads counts
#: seconds since the preview started (its clock starts at 0 and only advances), so `vpl bake --time` and
#: `vpl-editor --time` take the same range (`read_time`).
MAX_TIME = 86400.0
#: How deeply `parse_value` lets brackets nest (no VPL value nests deeper than arrays of records of matrices).
MAX_VALUE_DEPTH = 32
#: The longest command-line value `parse_value` reads, in characters.
MAX_VALUE_LENGTH = 1 << 20


class NumberError(ValueError):
    """A value that is not a usable number here; the message names the field and says why."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_number(value: Any, field: str, minimum: float | None = None, maximum: float | None = None,
                *, text: bool = True) -> float:
    """`value` (an int or float, or with `text` a string holding one) as a finite float in [minimum, maximum].

    Booleans are not numbers here. An integer too large for a float, "nan",
    "inf" and "1e999" are refused, as is anything outside the range.
    """
    if isinstance(value, bool) or not (isinstance(value, (int, float)) or (text and isinstance(value, str))):
        raise NumberError(f"{field} must be a number, not {_shown(value)}")
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except OverflowError:
        raise NumberError(f"{field} must be a finite number, not {_shown(value)}") from None
    except ValueError:
        raise NumberError(f"{field} must be a number, not {_shown(value)}") from None
    if not math.isfinite(number):
        raise NumberError(f"{field} must be a finite number, not {_shown(value)}")
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        low = "" if minimum is None else f"{minimum:g}"
        high = "" if maximum is None else f"{maximum:g}"
        raise NumberError(f"{field} must be between {low} and {high}, not {number:g}")
    return number


def read_numbers(value: Any, field: str, counts: Sequence[int], minimum: float | None = None,
                 maximum: float | None = None) -> tuple[float, ...]:
    """A list of numbers (or text "1, 2, 3": commas and/or spaces) with one of `counts` entries, each as `read_number`."""
    if isinstance(value, str):
        items: list[Any] = [part for part in value.replace(",", " ").split() if part]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise NumberError(f"{field} must be {_arity(counts)}, not {_shown(value)}")
    if len(items) not in counts:
        raise NumberError(f"{field} must be {_arity(counts)}, not {len(items)}")
    return tuple(read_number(item, field, minimum, maximum) for item in items)


def _arity(counts: Sequence[int]) -> str:
    if len(counts) == 1:
        return "one number" if counts[0] == 1 else f"{counts[0]} numbers"
    return " or ".join(str(count) for count in counts) + " numbers"


def read_time(value: Any, field: str = "--time") -> float:
    """A scene time in seconds: finite, 0 to MAX_TIME."""
    return read_number(value, f"{field} (seconds)", 0.0, MAX_TIME)


def nesting_depth(text: str) -> int:
    """How deeply `[` and `{` nest in JSON text (brackets inside strings do not count); one pass, no recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for character in text:
        if in_string:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                in_string = False
        elif character == '"':
            in_string = True
        elif character in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif character in "]}":
            depth -= 1
    return deepest


def _refuse_constant(name: str) -> Any:
    raise NumberError(f"{name} is not a finite number")


def parse_value(text: str, field: str) -> Any:
    """A command-line value: true/false, a number, numbers separated by commas (a list), or JSON.

    Numbers are finite and within 32-bit float range (integers within 64
    bits); JSON nests at most MAX_VALUE_DEPTH deep and is checked before it
    is parsed. NumberError naming `field` otherwise.
    """
    text = text.strip()
    if len(text) > MAX_VALUE_LENGTH:
        raise NumberError(f"{field}: the value is longer than {MAX_VALUE_LENGTH} characters")
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text.startswith(("[", "{")):
        if nesting_depth(text) > MAX_VALUE_DEPTH:
            raise NumberError(f"{field}: the value nests deeper than {MAX_VALUE_DEPTH} levels")
        try:
            value = json.loads(text, parse_constant=_refuse_constant)
        except NumberError as error:
            raise NumberError(f"{field}: {error}") from None
        except (json.JSONDecodeError, ValueError) as error:
            raise NumberError(f"{field}: {_shown(text)} is not valid JSON: {getattr(error, 'msg', error)}") from None
        _check_numbers(value, field)
        return value
    parts = [part.strip() for part in text.split(",")]
    numbers: list[Any] = []
    for part in parts:
        if part and all(c in "+-0123456789" for c in part) and any(c.isdigit() for c in part):
            try:
                numbers.append(_integer(int(part), field))
            except ValueError:  # more digits than Python converts
                raise NumberError(f"{field}: {_shown(part)} is too large") from None
        else:
            try:
                numbers.append(read_number(part, field, -FLOAT32_MAX, FLOAT32_MAX))
            except NumberError:
                if any(c.isdigit() for c in part) or part.lower().lstrip("+-") in ("nan", "inf", "infinity"):
                    raise
                raise NumberError(f"{field}: {_shown(text)} is not a number, a list of numbers or JSON") from None
    return numbers[0] if len(numbers) == 1 else numbers


def _integer(value: int, field: str) -> int:
    if not -(1 << 63) <= value < (1 << 64):
        raise NumberError(f"{field}: the integer {_shown(value)} is out of range")
    return value


def _check_numbers(value: Any, field: str) -> None:
    """Every number in a parsed JSON value is finite and in range (an explicit stack: depth is already bounded)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        if isinstance(item, int):
            _integer(item, field)
        elif isinstance(item, float):
            read_number(item, field, -FLOAT32_MAX, FLOAT32_MAX)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
