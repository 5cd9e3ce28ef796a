"""The desktop bundle's build, started as soon as the test run knows it needs it.

The PyInstaller build (`installers/build-linux.sh`) takes one to three
minutes and mostly waits on one core, while the rest of the suite keeps the
other busy. So `tests/conftest.py` starts it when collection has finished and
the run includes `tests/installers/test_bundle.py`; the bundle tests, which
come late in the run, then wait for a build that has mostly finished. Started
on demand by the first bundle test otherwise (for example under
`--collect-only`, or when the hook did not run). Output goes to files, not
pipes, so a chatty build can never block on a full pipe. A run that ends
before the bundle tests (`-x`, Ctrl-C) stops the build and removes its folder.

Under pytest-xdist every worker collects every test, so none of them starts
the build: the controller does, in a folder it names to the workers
(`SHARED_FOLDER_VARIABLE`), as soon as a worker's collection includes the
bundle tests, and writes the build's return code there when it ends. The
bundle tests, on whichever workers run them, wait for that file. A worker
that finds no build started there builds on its own, as a serial run does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The longest a build may take (CI's budget for the whole suite is 90 minutes).
BUILD_TIMEOUT_S = 1800
#: Environment variable naming the folder of a build the xdist controller runs for its workers.
SHARED_FOLDER_VARIABLE = "VPL_TEST_BUNDLE_BUILD_FOLDER"
#: Inside the build folder: the return code, written (atomically) once the build has ended.
RETURNCODE_FILE = "returncode"


def base_python() -> str:
    """The interpreter the test venv was made from (the build makes its own venv from it)."""
    base = getattr(sys, "_base_executable", "") or sys.executable
    return base if os.path.exists(base) else shutil.which("python3") or sys.executable


@dataclass
class BuildResult:
    returncode: int
    stdout: str
    stderr: str
    dist: Path


class BundleBuild:
    """One build of the bundle into a temporary `dist` folder, run in the background."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._folder: Path | None = None
        self._result: BuildResult | None = None

    @property
    def started(self) -> bool:
        return self._process is not None or self._result is not None

    def start(self, folder: Path | None = None) -> None:
        """Start the build in `folder` (a new temporary folder when None)."""
        if self.started:
            return
        self._folder = folder if folder is not None else Path(tempfile.mkdtemp(prefix="vpl-bundle-build-"))
        dist = self._folder / "dist"
        dist.mkdir()
        with open(self._folder / "stdout", "wb") as stdout, open(self._folder / "stderr", "wb") as stderr:
            # The build environment is reused between local runs (build/ is ignored by git); CI starts clean.
            self._process = subprocess.Popen(
                [str(ROOT / "installers" / "build-linux.sh"), "--dist", str(dist), "--python", base_python()],
                stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, cwd=ROOT,
            )

    def start_for_workers(self, folder: Path) -> None:
        """Start the build in `folder` (the controller's), and record its return code there when it ends."""
        self.start(folder)
        process = self._process
        assert process is not None

        def record() -> None:
            returncode = process.wait()
            partial = folder / f"{RETURNCODE_FILE}.partial"
            partial.write_text(str(returncode))
            partial.replace(folder / RETURNCODE_FILE)

        threading.Thread(target=record, name="bundle-build", daemon=True).start()

    def result(self) -> BuildResult:
        """Wait for the build (the controller's, or this process's own, started if nobody did) and return how it went."""
        if self._result is not None:
            return self._result
        shared = os.environ.get(SHARED_FOLDER_VARIABLE)
        if shared and (Path(shared) / "stdout").exists():
            self._result = self._wait_for_shared(Path(shared))
            return self._result
        self.start()
        assert self._process is not None and self._folder is not None
        try:
            returncode = self._process.wait(timeout=BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            returncode = self._process.wait()
        self._result = BuildResult(
            returncode,
            (self._folder / "stdout").read_text(errors="replace"),
            (self._folder / "stderr").read_text(errors="replace"),
            self._folder / "dist",
        )
        self._process = None
        return self._result

    @staticmethod
    def _wait_for_shared(folder: Path) -> BuildResult:
        deadline = time.monotonic() + BUILD_TIMEOUT_S
        while not (folder / RETURNCODE_FILE).exists():
            assert time.monotonic() < deadline, f"the controller's bundle build in {folder} did not end in {BUILD_TIMEOUT_S} s"
            time.sleep(0.5)
        return BuildResult(
            int((folder / RETURNCODE_FILE).read_text()),
            (folder / "stdout").read_text(errors="replace"),
            (folder / "stderr").read_text(errors="replace"),
            folder / "dist",
        )

    def discard(self) -> None:
        """Stop a build still running and remove its folder (the end of the test run)."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


#: The run's build, shared by `tests/conftest.py` (which starts it) and the bundle tests (which wait for it).
BUILD = BundleBuild()
