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
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The longest a build may take (CI's budget for the whole suite is 90 minutes).
BUILD_TIMEOUT_S = 1800


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

    def start(self) -> None:
        if self.started:
            return
        self._folder = Path(tempfile.mkdtemp(prefix="vpl-bundle-build-"))
        dist = self._folder / "dist"
        dist.mkdir()
        with open(self._folder / "stdout", "wb") as stdout, open(self._folder / "stderr", "wb") as stderr:
            # The build environment is reused between local runs (build/ is ignored by git); CI starts clean.
            self._process = subprocess.Popen(
                [str(ROOT / "installers" / "build-linux.sh"), "--dist", str(dist), "--python", base_python()],
                stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, cwd=ROOT,
            )

    def result(self) -> BuildResult:
        """Wait for the build (starting it if nobody did) and return how it went."""
        if self._result is not None:
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
