"""The longest tests lead the run (tests/conftest.py, LONGEST; tests/longest_first.py deals them out under xdist)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _conftest(config: pytest.Config) -> ModuleType:
    """tests/conftest.py as pytest loaded it (a plug-in of this run)."""
    path = ROOT / "tests" / "conftest.py"
    found = [plugin for plugin in config.pluginmanager.get_plugins()
             if isinstance(plugin, ModuleType) and getattr(plugin, "__file__", None) == str(path)]
    assert len(found) == 1, found
    return found[0]


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
