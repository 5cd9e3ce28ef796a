"""The longest tests lead the run (tests/conftest.py, LONGEST; tests/longest_first.py deals them out under xdist)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _conftest(config: pytest.Config) -> ModuleType:
    """tests/conftest.py as pytest loaded it (a plug-in of this run)."""
    path = ROOT / "tests" / "conftest.py"
    found = [plugin for plugin in config.pluginmanager.get_plugins()
             if isinstance(plugin, ModuleType) and getattr(plugin, "__file__", None) == str(path)]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.heavy  # collects the longest modules in a child (2 s of CPU); the order only matters to the full run
def test_every_longest_test_exists(request: pytest.FixtureRequest) -> None:
    """A renamed or removed test would otherwise drop out of the order without a word."""
    longest = _conftest(request.config).LONGEST
    files = sorted({prefix.split("::")[0] for prefix in longest})
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
                               cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    nodeids = [line for line in collected.stdout.splitlines() if "::" in line]
    for prefix in longest:
        assert any(nodeid.startswith(prefix) for nodeid in nodeids), f"{prefix} names no test:\n{collected.stdout[-3000:]}"


def test_the_longest_tests_come_first_in_their_order_and_the_rest_keep_theirs(request: pytest.FixtureRequest) -> None:
    conftest = _conftest(request.config)
    longest = conftest.LONGEST
    others = ["tests/a.py::test_one", "tests/b.py::test_two[x]", "tests/a.py::test_three"]
    nodeids = [others[0], longest[1], others[1], longest[0], others[2]]
    ordered = sorted(nodeids, key=conftest._longest_rank)
    assert ordered == [longest[0], longest[1], *others]


class _Config:
    """The two options xdist's LoadScheduling reads: two workers, no --maxschedchunk."""

    def getvalue(self, name: str) -> list[str]:
        assert name == "tx"
        return ["2*popen"]

    def getoption(self, name: str) -> None:
        assert name == "maxschedchunk"


class _Worker:
    """What the scheduler calls on an xdist worker: it records the tests it is sent."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)  # named in xdist's report of differing collections
        self.shutting_down = False
        self.sent: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def _run(collection: list[str], is_long: Any, group_of: Any) -> tuple[list[list[str]], list[list[str]]]:
    """Schedules `collection` on two workers and completes every test, the first worker's first each round.

    Returns what each worker was sent right after the start, and in all."""
    from longest_first import LongestFirstScheduling

    scheduler = LongestFirstScheduling(_Config(), None, is_long=is_long, group_of=group_of)
    workers = [_Worker("gw0"), _Worker("gw1")]
    for worker in workers:
        scheduler.add_node(worker)
    for worker in workers:
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    first = [[collection[index] for index in worker.sent] for worker in workers]
    while any(scheduler.node2pending[worker] for worker in workers):
        for worker in workers:
            if scheduler.node2pending[worker]:
                scheduler.mark_test_complete(worker, scheduler.node2pending[worker][0], duration=1.0)
    assert not scheduler.pending and all(worker.shutting_down for worker in workers)
    return first, [[collection[index] for index in worker.sent] for worker in workers]


def test_long_tests_go_one_per_worker_and_a_module_unit_to_one_worker_whole() -> None:
    module = [f"tests/shared.py::test_{index}" for index in range(5)]
    collection = ["tests/a.py::test_longest", *module, "tests/b.py::test_long", "tests/c.py::test_long",
                  *[f"tests/d.py::test_{index}" for index in range(40)]]
    long_tests = set(collection[:8])
    first, sent = _run(collection, long_tests.__contains__,
                       lambda nodeid: "tests/shared.py" if nodeid.startswith("tests/shared.py") else None)
    # The start: the longest test and the whole module (one unit), then one long test each.
    assert first == [["tests/a.py::test_longest", "tests/b.py::test_long"], [*module, "tests/c.py::test_long"]]
    assert sorted(sent[0] + sent[1]) == sorted(collection)  # every test once
    assert not set(module) & set(sent[0])  # the module's fixture is built on one worker only


def test_without_groups_every_long_test_is_its_own_unit() -> None:
    collection = [f"tests/long.py::test_{index}" for index in range(4)] + [f"tests/d.py::test_{index}" for index in range(9)]
    first, sent = _run(collection, lambda nodeid: nodeid.startswith("tests/long.py"), lambda nodeid: None)
    assert first == [[collection[0], collection[2]], [collection[1], collection[3]]]
    assert sorted(sent[0] + sent[1]) == sorted(collection)
