"""Test support: pytest-xdist's `load` scheduling that deals the longest tests out one at a time.

pytest-xdist's `load` scheduling hands each worker long runs of consecutive
tests. A test of several minutes that lands near the end of one worker's run
then caps the whole run's wall time while the other workers are idle. So
tests/conftest.py moves the tests it names in `LONGEST` to the front of the
collection (longest first), and `LongestFirstScheduling` hands those out one
at a time, each to the next free worker; the cheap tests then follow in
xdist's usual chunks and fill in around the long ones. Tests that share an
expensive module-scoped fixture form one unit (`group_of`): the unit goes to
one worker whole, so the fixture is built once, early, on that worker only.

Imported by tests/conftest.py in the xdist controller only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdist.scheduler import LoadScheduling  # type: ignore[import-untyped]  # xdist ships no type information


class LongestFirstScheduling(LoadScheduling):  # type: ignore[misc]  # xdist ships no type information
    """`load`, except that while the tests `is_long` says are long lead the queue, each free worker gets one unit:
    one test, or the consecutive tests `group_of` gives the same group.

    `config` is pytest's, `log` xdist's Producer."""

    # The attributes of xdist's LoadScheduling this class reads and sets.
    collection: list[str] | None
    pending: list[int]
    maxschedchunk: int | None

    def __init__(self, config: Any, log: Any, is_long: Callable[[str], bool],
                 group_of: Callable[[str], str | None] = lambda nodeid: None) -> None:
        super().__init__(config, log)
        self.is_long = is_long
        self.group_of = group_of
        self.configured_chunk = self.maxschedchunk  # --maxschedchunk, None by default

    def _long_at_head(self) -> bool:
        return self.collection is not None and bool(self.pending) and self.is_long(self.collection[self.pending[0]])

    def _unit_length(self) -> int:
        """How many tests at the head of the queue go together: the head's group, or the head alone."""
        assert self.collection is not None
        group = self.group_of(self.collection[self.pending[0]])
        if group is None:
            return 1
        length = 1
        while length < len(self.pending) and self.group_of(self.collection[self.pending[length]]) == group:
            length += 1
        return length

    def _send_units(self, node: Any) -> None:
        """Long units to `node` until it holds two tests (an xdist worker waits for a second test, or for the
        end, before it runs the first)."""
        while self._long_at_head() and len(self.node2pending[node]) < 2:
            self._send_tests(node, self._unit_length())

    def schedule(self) -> None:
        if self.collection is not None or not self.collection_is_completed:
            super().schedule()
            return
        collection = next(iter(self.node2collection.values()))
        if not collection or not self.is_long(collection[0]) or not self._check_nodes_have_same_collection():
            super().schedule()
            return
        self.collection = collection
        self.pending[:] = range(len(collection))
        self.maxschedchunk = self.configured_chunk or len(collection)  # for xdist's chunks after the long tests
        # Two rounds of one unit each: every worker starts a long test and already holds its next one.
        for _ in range(2):
            for node in self.nodes:
                if self.pending:
                    self._send_tests(node, self._unit_length() if self._long_at_head() else 1)
        if not self.pending:
            for node in self.nodes:
                node.shutdown()

    def check_schedule(self, node: Any, duration: float = 0) -> None:
        if self.collection is not None and not node.shutting_down:
            # One unit at a time to a worker about to run out while long tests lead the queue; then xdist's usual
            # chunks (to top up a worker whose last unit was the last long one, too).
            self._send_units(node)
            if self._long_at_head():
                return
        super().check_schedule(node, duration)
