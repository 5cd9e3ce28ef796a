"""Shared fixtures: a real OpenGL context, glslangValidator, the no-skip rule for CI, a private cache.

GL tests run on a real driver: Mesa's llvmpipe under Xvfb where there is no
GPU (pytest-xvfb starts Xvfb; Qt's `offscreen` platform cannot create GL
contexts, so the xcb platform is used). When `VPL_FORBID_SKIPS=1` (set by
`.ci/run`), any skipped test is reported as a failure, so a machine that
silently lost its GL stack or glslang cannot pass CI.

Tiers: a test that requests a fixture of `TIER_FIXTURES` (directly or
through another fixture) gets that fixture's mark, as does one marked by
hand (`pytest.mark.gl`, for a test that starts the editor in-process;
`pytest.mark.heavy`, for a GL-free test that costs many seconds: a limit
checked at full scale, a benchmark run).
`--fast` (`./run-tests --fast`) deselects every test marked `FAST_EXCLUDES`:
what is left needs no OpenGL, glslangValidator, browser or bundle build, and
runs with OpenGL made unavailable (`NO_GL_ENVIRONMENT`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
# A still preview refines a Surface Output by itself (frames of the refined environment light, in the
# background): tests that read the shown frame want the live one; tests/app/preview/test_preview_refine.py
# turns it on.
os.environ.setdefault("VPL_PREVIEW_REFINE", "0")

# Property tests are reproducible by default: every run (CI included) draws the
# same examples, so a red run is a finding, not a dice roll, and `main` does not
# flicker. `VPL_HYPOTHESIS=explore` searches new examples (and keeps what it
# finds in .hypothesis/), for the nightly-style runs the docs describe.
settings.register_profile("reproducible", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("VPL_HYPOTHESIS", "reproducible"))

ROOT = Path(__file__).resolve().parent.parent
SPEC_EXAMPLES = ROOT / "tests" / "data" / "spec"

#: fixture -> the mark of every test that uses it (its closure: through other fixtures too).
TIER_FIXTURES: dict[str, str] = {
    "gl_context": "gl",
    "gles_context": "gl",
    "gl_fixture": "gl",  # the parameter naming `current_gl`/`current_gles`, fetched with request.getfixturevalue
    "make_window": "gl",  # the main window shows the OpenGL preview (tests/app/ui/conftest.py)
    "wayland_session": "gl",  # weston, and the editor started under it
    "glslang_validator": "glslang",
}
#: marks `--fast` leaves out (pyproject.toml declares them).
FAST_EXCLUDES = ("gl", "glslang", "webgl", "slow", "heavy")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true", default=False,
                     help=f"only the tests without the marks {', '.join(FAST_EXCLUDES)} (no OpenGL, glslang, "
                          "browser or bundle build)")


#: Under --fast the run has no OpenGL, as on a machine without a driver: Mesa finds none, so a GL test that
#: lacks its mark fails (or meets the editor's no-GL fallback) instead of passing on llvmpipe unseen.
NO_GL_ENVIRONMENT = {"LIBGL_DRIVERS_PATH": "/nonexistent", "MESA_LOADER_DRIVER_OVERRIDE": "none",
                     "GALLIUM_DRIVER": "none", "LIBGL_DEBUG": "quiet"}


#: Node id prefixes of the tests that take far longer than the rest, longest first (measured with
#: `--durations`, docs/testing.md, "Where the whole suite's time goes"). They run first, dealt out one per
#: free worker (tests/longest_first.py), so none starts late on one worker while the others fall idle. Not
#: the bundle's tests: they wait for the controller's build (tests/bundle_build.py), best started well before.
#: An entry naming a whole module (ending in ".py") is one unit: its tests share an expensive module-scoped
#: fixture, so they go to one worker together and the fixture is built once.
LONGEST: tuple[str, ...] = (
    # The Sample Viewer's module: every case baked and exported once (`viewer_glbs`), and one live browser page.
    "tests/app/export/test_gltf_sample_viewer.py",
    "tests/app/preview/test_rough_metals.py::test_metal_roughness_sweep_matches_monte_carlo",
    "tests/test_benchmarks.py::test_the_benchmark_runs_on_its_smallest_setting[bench_editor]",
    "tests/test_benchmarks.py::test_the_benchmark_runs_on_its_smallest_setting[bench_pipeline]",
    "tests/test_benchmarks.py::test_the_benchmark_runs_on_its_smallest_setting[bench_interp]",
    "tests/test_benchmarks.py::test_the_benchmark_runs_on_its_smallest_setting[bench_launch]",
)


#: Test modules whose set-ups collect the whole process's heap (`gc.collect()`, for the counts their tests read).
#: A full collection walks every object alive, so it costs more the more caches the earlier tests filled: late in a
#: run these tests took several times their cost at its start. They run right after `LONGEST`, at the start of
#: whichever worker takes them (docs/testing.md, "What was cut").
HEAP_WALKING: tuple[str, ...] = (
    "tests/app/ui/test_opening_collection.py::",
    "tests/app/preview/test_gui_collection.py::",
)


def _run_order(nodeid: str) -> tuple[int, bool]:
    """Sort key of the run: `LONGEST` first, in its order, then `HEAP_WALKING`'s tests, then the rest as collected."""
    return _longest_rank(nodeid), not nodeid.startswith(HEAP_WALKING)


def _longest_rank(nodeid: str) -> int:
    """Position of the test in `LONGEST`; len(LONGEST) for every other test (a stable sort keeps their order)."""
    return next((index for index, prefix in enumerate(LONGEST) if nodeid.startswith(prefix)), len(LONGEST))


def _longest_group(nodeid: str) -> str | None:
    """The `LONGEST` module entry the test belongs to (its tests are dealt out together), or None."""
    rank = _longest_rank(nodeid)
    return LONGEST[rank] if rank < len(LONGEST) and LONGEST[rank].endswith(".py") else None


def _xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _xdist_controller(config: pytest.Config) -> bool:
    """True in the process that hands tests to pytest-xdist's workers (it runs none itself)."""
    return config.getoption("dist", "no") != "no" and not _xdist_worker(config)


def pytest_configure(config: pytest.Config) -> None:
    if _xdist_controller(config):
        # The workers inherit the environment: where the controller's bundle build goes (tests/bundle_build.py).
        from bundle_build import SHARED_FOLDER_VARIABLE

        os.environ[SHARED_FOLDER_VARIABLE] = tempfile.mkdtemp(prefix="vpl-bundle-build-")
        os.environ[SHARED_CACHE_VARIABLE] = tempfile.mkdtemp(prefix="vpl-test-cache-")
    if config.getoption("--fast"):
        os.environ["VPL_TEST_TIER"] = "fast"  # tests/tiers.py: the property tests' budgets for this tier
        os.environ.update(NO_GL_ENVIRONMENT)


#: A module-level `pytestmark = pytest.mark.NAME` or `pytestmark = [pytest.mark.NAME, ...]` at the start of a line.
_MODULE_MARKS = re.compile(r"^pytestmark\s*=\s*(\[[^\]\n]*\]|pytest\.mark\.\w+)", re.MULTILINE)


def module_marked_out_of_fast(source: str) -> bool:
    """True if a test module's text gives all its tests a mark of FAST_EXCLUDES (one module-level `pytestmark`
    naming it, on one line): `--fast` would deselect every test of it, so it need not be imported at all."""
    found = _MODULE_MARKS.findall(source)
    return len(found) == 1 and not set(re.findall(r"pytest\.mark\.(\w+)", found[0])).isdisjoint(FAST_EXCLUDES)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under `--fast`, a test module all of whose tests are marked out of the tier (`module_marked_out_of_fast`) is
    not collected: each worker would import it and build its tests only to deselect them all. The full run
    collects it, and `pytest_collection_modifyitems` checks there that the text scan agreed with pytest's marks."""
    if (config.getoption("--fast") and collection_path.suffix == ".py" and collection_path.name.startswith("test_")
            and module_marked_out_of_fast(collection_path.read_text(encoding="utf-8"))):
        return True
    return None


def _out_of_fast(item: pytest.Item) -> bool:
    return any(mark.name in FAST_EXCLUDES for mark in item.iter_markers())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The longest tests first (LONGEST), then the heap-walking ones (HEAP_WALKING): every worker sorts its
    # collection the same way.
    items.sort(key=lambda item: _run_order(item.nodeid))
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            mark = TIER_FIXTURES.get(fixture)
            if mark is not None and item.get_closest_marker(mark) is None:
                item.add_marker(mark)
    if not config.getoption("--fast"):
        _check_modules_left_out_of_fast(items)
        return
    kept, left_out = [], []
    for item in items:
        (left_out if _out_of_fast(item) else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


#: Why a test fails before it runs: `--fast` would lose it (`_check_modules_left_out_of_fast`).
LOST_TO_FAST = pytest.StashKey[str]()


def _check_modules_left_out_of_fast(items: list[pytest.Item]) -> None:
    """In a run that collects every module: no test of a module `--fast` leaves uncollected would run in that tier.

    The scan reads the module's text; pytest's own marks are the truth (a `pytestmark` line inside a string would fool
    the scan). A test the scan would lose fails, named, at its set-up (`pytest_runtest_setup`): an
    error raised here, at collection, reaches an xdist run only as the controller's internal error, without it."""
    verdicts: dict[Path, bool] = {}
    for item in items:
        path = item.path
        if path not in verdicts:
            verdicts[path] = module_marked_out_of_fast(path.read_text(encoding="utf-8"))
        if verdicts[path] and not _out_of_fast(item):
            item.stash[LOST_TO_FAST] = (f"{item.nodeid} has none of the marks {', '.join(FAST_EXCLUDES)}, yet --fast "
                                        "would not collect its module (tests/conftest.py, module_marked_out_of_fast)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    lost = item.stash.get(LOST_TO_FAST, None)
    if lost is not None:
        pytest.fail(lost, pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("VPL_FORBID_SKIPS") == "1" and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"skipped while VPL_FORBID_SKIPS=1 (CI must run every test): {reason}"


#: The cache directory the xdist controller makes for its workers (they inherit the environment), so that what
#: one worker prefilters the other reads instead of prefiltering it again.
SHARED_CACHE_VARIABLE = "VPL_TEST_SHARED_CACHE"


@pytest.fixture(scope="session", autouse=True)
def private_cache_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Prefiltered environments go to a directory of this test run, never to the user's cache
    (`VPL_CACHE_DIR`, read by app.preview.ibl_assets; subprocesses inherit it). The workers of one xdist run
    share it (the cache writes each entry to a temporary file renamed into place, so they may race); a
    test that needs an empty cache points `VPL_CACHE_DIR` at its own directory."""
    shared = os.environ.get(SHARED_CACHE_VARIABLE)
    directory = Path(shared) if shared else tmp_path_factory.mktemp("cache")
    previous = os.environ.get("VPL_CACHE_DIR")
    os.environ["VPL_CACHE_DIR"] = str(directory)
    yield directory
    if previous is None:
        os.environ.pop("VPL_CACHE_DIR", None)
    else:
        os.environ["VPL_CACHE_DIR"] = previous


@pytest.fixture(scope="session")
def built_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package built once per session as a wheel would build it (tests/packaging_support.py)."""
    from packaging_support import build_package

    return build_package(tmp_path_factory.mktemp("package"))


@pytest.fixture(scope="session")
def glslang_validator() -> str:
    """Path of glslangValidator; skips (fails on CI) when it is missing."""
    path = shutil.which("glslangValidator")
    if path is None:
        pytest.skip("glslangValidator not found (Debian package glslang-tools)")
    return path


@pytest.fixture(scope="session")
def wayland_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A real Wayland compositor (weston, headless backend) for the session: the variables a
    Wayland desktop gives its programs (WAYLAND_DISPLAY, XDG_RUNTIME_DIR, XDG_SESSION_TYPE).
    Skips (fails on CI) when weston is missing (Debian package weston)."""
    weston = shutil.which("weston")
    if weston is None:
        pytest.skip("weston not found (Debian package weston)")
    runtime = tmp_path_factory.mktemp("xdg-runtime")
    runtime.chmod(0o700)
    socket = "wayland-vpl-test"
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime))
    log = open(runtime / "weston.log", "w", encoding="utf-8")  # noqa: SIM115 - closed at teardown
    process = subprocess.Popen([weston, "--backend=headless-backend.so", f"--socket={socket}", "--idle-time=0"],
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while not (runtime / socket).exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            log.close()
            pytest.fail(f"weston did not start: {(runtime / 'weston.log').read_text(encoding='utf-8')[-2000:]}")
        time.sleep(0.05)
    try:
        yield {"WAYLAND_DISPLAY": socket, "XDG_RUNTIME_DIR": str(runtime), "XDG_SESSION_TYPE": "wayland"}
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


class GLContext:
    """A current OpenGL context with an offscreen surface, owned by the session."""

    def __init__(self, context, surface) -> None:
        self.context = context
        self.surface = surface

    def make_current(self) -> None:
        self.context.makeCurrent(self.surface)

    @property
    def is_es(self) -> bool:
        return bool(self.context.isOpenGLES())


def _create_context(qapp, es: bool):
    from PySide6.QtGui import QOffscreenSurface, QOpenGLContext, QSurfaceFormat

    surface_format = QSurfaceFormat()
    if es:
        surface_format.setRenderableType(QSurfaceFormat.RenderableType.OpenGLES)
        surface_format.setVersion(3, 2)
    else:
        surface_format.setRenderableType(QSurfaceFormat.RenderableType.OpenGL)
        surface_format.setVersion(4, 2)
        surface_format.setProfile(QSurfaceFormat.OpenGLContextProfile.CoreProfile)
    context = QOpenGLContext()
    context.setFormat(surface_format)
    if not context.create():
        return None, "could not create the OpenGL context"
    made = context.format()
    if es:
        if not context.isOpenGLES() or (made.majorVersion(), made.minorVersion()) < (3, 2):
            return None, f"got {made.majorVersion()}.{made.minorVersion()}, not OpenGL ES 3.2"
    elif (made.majorVersion(), made.minorVersion()) < (4, 2) or made.profile() != QSurfaceFormat.OpenGLContextProfile.CoreProfile:
        return None, f"got {made.majorVersion()}.{made.minorVersion()} {made.profile()}, not a 4.2 core profile"
    surface = QOffscreenSurface()
    surface.setFormat(made)
    surface.create()
    if not context.makeCurrent(surface):
        return None, "could not make the context current"
    return GLContext(context, surface), ""


#: Frames of the refined environment light in the screenshots of tests that use `few_refined_frames`.
FEW_REFINED_FRAMES = 4


@pytest.fixture
def few_refined_frames(monkeypatch: pytest.MonkeyPatch) -> int:
    """Screenshots (`--preview-screenshot`, in-process) average FEW_REFINED_FRAMES frames of the refined
    environment light, not the application's 64 (`app.preview.preview_state.REFINE_FRAMES`): for tests that
    compare frames drawn alike (other stage options, other examples), which the refinement does not touch.
    The refined path still runs; its 64 frames were most of such a test's time. Returns the count."""
    from app.preview import preview_state

    monkeypatch.setattr(preview_state, "REFINE_FRAMES", FEW_REFINED_FRAMES)
    return FEW_REFINED_FRAMES


@pytest.fixture(scope="session")
def gl_context(qapp) -> GLContext:
    """A current OpenGL 4.2+ core context (skips, failing on CI, when there is none)."""
    context, reason = _create_context(qapp, es=False)
    if context is None:
        pytest.skip(f"no OpenGL 4.2 core context: {reason}")
    yield context
    context.context.doneCurrent()


@pytest.fixture(scope="session")
def gles_context(qapp) -> GLContext:
    """A current OpenGL ES 3.2 context (skips, failing on CI, when there is none)."""
    context, reason = _create_context(qapp, es=True)
    if context is None:
        pytest.skip(f"no OpenGL ES 3.2 context: {reason}")
    yield context
    context.context.doneCurrent()


@pytest.fixture
def current_gl(gl_context: GLContext) -> GLContext:
    """The session's 4.2 core context, made current for this test."""
    gl_context.make_current()
    return gl_context


@pytest.fixture
def current_gles(gles_context: GLContext) -> GLContext:
    gles_context.make_current()
    return gles_context


sys.path.insert(0, str(ROOT / "tests"))


#: Tests that use the run's bundle build.
BUNDLE_TESTS = ("tests/installers/test_bundle.py::", "tests/test_benchmarks.py::test_the_benchmark_runs_on_its_smallest_setting[bench_bundle]")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the desktop bundle's build now when the run includes its tests (tests/bundle_build.py).

    Not in an xdist worker: each collects every test, and the controller starts the one build."""
    if session.config.option.collectonly or _xdist_worker(session.config):
        return
    if any(item.nodeid.startswith(BUNDLE_TESTS) for item in session.items):
        from bundle_build import BUILD

        BUILD.start()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist load` (xdist's default) that deals the tests of `LONGEST` out first, one per free worker (a
    module entry's tests together; tests/longest_first.py). `log` is xdist's Producer (xdist ships no type information)."""
    if config.getvalue("dist") != "load":
        return None
    from longest_first import LongestFirstScheduling

    return LongestFirstScheduling(config, log, is_long=lambda nodeid: _longest_rank(nodeid) < len(LONGEST),
                                  group_of=_longest_group)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """In the xdist controller: start the bundle build for the workers once one of them collected its tests.

    `node` is xdist's WorkerController (xdist ships no type information)."""
    if node.config.option.collectonly or not any(nodeid.startswith(BUNDLE_TESTS) for nodeid in ids):
        return
    from bundle_build import BUILD, SHARED_FOLDER_VARIABLE

    BUILD.start_for_workers(Path(os.environ[SHARED_FOLDER_VARIABLE]))


def pytest_sessionfinish(session: pytest.Session) -> None:
    if "bundle_build" in sys.modules:
        sys.modules["bundle_build"].BUILD.discard()
    if _xdist_controller(session.config):
        from bundle_build import SHARED_FOLDER_VARIABLE

        for variable in (SHARED_FOLDER_VARIABLE, SHARED_CACHE_VARIABLE):
            folder = os.environ.pop(variable, None)
            if folder:
                shutil.rmtree(folder, ignore_errors=True)


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """Once a test has taken the collector over for the GUI thread (`vpl_core.collector`), tests without an event
    loop still have their cycles collected: what is due, between tests, on the main thread."""
    from vpl_core import collector

    collector.collect_due()
