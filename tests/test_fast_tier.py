"""`--fast` leaves a module out of collection only when every test of it is marked out of the tier (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _conftest(config: pytest.Config) -> ModuleType:
    """tests/conftest.py as pytest loaded it (a plug-in of this run)."""
    path = ROOT / "tests" / "conftest.py"
    found = [plugin for plugin in config.pluginmanager.get_plugins()
             if isinstance(plugin, ModuleType) and getattr(plugin, "__file__", None) == str(path)]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(("source", "left_out"), [
    ("import pytest\n\npytestmark = pytest.mark.gl\n", True),
    ("pytestmark = [pytest.mark.gl, pytest.mark.usefixtures('few_refined_frames')]\n", True),
    ("pytestmark = [pytest.mark.slow, pytest.mark.gl]\n", True),
    ("pytestmark = pytest.mark.heavy\n", True),
    # Marks that keep the tests in the tier, or apply to some tests only.
    ("pytestmark = pytest.mark.skipif(True, reason='x')\n", False),
    ("pytestmark = pytest.mark.usefixtures('gl_context')\n", False),
    ("@pytest.mark.gl\ndef test_one(): ...\n\ndef test_two(): ...\n", False),
    ("class TestSome:\n    pytestmark = pytest.mark.gl\n", False),
    ("pytestmark = []\n", False),
    # Assigned twice: the scan cannot tell which one stands, so the module is collected.
    ("pytestmark = pytest.mark.gl\npytestmark = pytest.mark.usefixtures('x')\n", False),
], ids=["gl", "gl-in-a-list", "slow-in-a-list", "heavy", "skipif", "usefixtures", "one-test-marked", "in-a-class", "empty-list",
        "assigned-twice"])
def test_the_scan_finds_a_module_level_mark_that_leaves_the_tier(request: pytest.FixtureRequest, source: str,
                                                                 left_out: bool) -> None:
    assert _conftest(request.config).module_marked_out_of_fast(source) is left_out


def test_fast_does_not_collect_a_module_of_gl_tests_and_the_full_run_does(request: pytest.FixtureRequest) -> None:
    conftest = _conftest(request.config)
    gl_module = ROOT / "tests" / "app" / "preview" / "test_preview_pbr.py"
    this_module = Path(__file__)
    fast = SimpleNamespace(getoption=lambda name: name == "--fast")
    full = SimpleNamespace(getoption=lambda name: False)
    assert conftest.pytest_ignore_collect(gl_module, fast) is True
    assert conftest.pytest_ignore_collect(gl_module, full) is None
    assert conftest.pytest_ignore_collect(this_module, fast) is None


def test_the_full_run_fails_a_test_the_scan_would_lose(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """A `pytestmark` inside a string fools the scan; the full run fails the test that `--fast` would lose, named."""
    conftest = _conftest(request.config)
    module = tmp_path / "test_fooled.py"
    module.write_text('DOC = """\npytestmark = pytest.mark.gl\n"""\n\ndef test_plain(): ...\n', encoding="utf-8")
    plain = SimpleNamespace(path=module, nodeid="test_fooled.py::test_plain", iter_markers=lambda: iter(()),
                            stash=pytest.Stash())
    marked = SimpleNamespace(path=module, nodeid="test_fooled.py::test_marked",
                             iter_markers=lambda: iter([pytest.mark.gl.mark]), stash=pytest.Stash())
    conftest._check_modules_left_out_of_fast([plain, marked])
    with pytest.raises(pytest.fail.Exception, match=r"test_fooled\.py::test_plain has none of the marks"):
        conftest.pytest_runtest_setup(plain)
    conftest.pytest_runtest_setup(marked)


def test_the_heap_walking_modules_exist_and_run_right_after_the_longest_tests(request: pytest.FixtureRequest) -> None:
    conftest = _conftest(request.config)
    for entry in conftest.HEAP_WALKING:
        module = ROOT / entry.removesuffix("::")
        assert module.is_file(), entry
        assert "gc.collect()" in module.read_text(encoding="utf-8"), f"{entry} no longer collects the heap"
    heap_test = conftest.HEAP_WALKING[0] + "test_any"
    longest_test = conftest.LONGEST[0] + ("::test_any" if conftest.LONGEST[0].endswith(".py") else "")
    other = "tests/app/material/test_material_lowering.py::test_any"
    assert sorted([other, heap_test, longest_test], key=conftest._run_order) == [longest_test, heap_test, other]
