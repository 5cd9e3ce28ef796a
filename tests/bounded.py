"""Running a call that must not block (reading a FIFO, say) with a bound, so a regression fails instead of hanging."""

from __future__ import annotations

import subprocess
import sys
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


#: The address space a child started by `python_child` may take (a reader gone wrong fails instead of swapping).
CHILD_MEMORY = 4 << 30


def python_child(code: str, seconds: float = 60.0, memory: int = CHILD_MEMORY) -> subprocess.CompletedProcess[str]:
    """Run `code` in a new Python process with a time and (where the platform has it) a memory bound.

    For calls that may block while holding the interpreter (a library
    opening a FIFO) or allocate without end (reading /dev/zero): the child
    is killed when it overruns, and `subprocess.TimeoutExpired` fails the test.
    """

    def limit_memory() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=seconds,
                          preexec_fn=limit_memory if sys.platform.startswith("linux") else None)
