"""Running a call that must not block (reading a FIFO, say) with a bound, so a regression fails instead of hanging."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

_Result = TypeVar("_Result")


def finishes(action: Callable[[], _Result], seconds: float = 60.0) -> _Result:
    """`action()`'s result (or its exception); fails the test when it has not returned after `seconds`.

    It runs in a daemon thread: a call blocked for good is left behind
    (it cannot be interrupted) and does not keep the test process alive.
    """
    outcome: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            outcome.append((True, action()))
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread below
            outcome.append((False, error))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if not outcome:
        raise AssertionError(f"the call did not return within {seconds:.0f} s (blocked?)")
    succeeded, value = outcome[0]
    if not succeeded:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]  # action()'s result
