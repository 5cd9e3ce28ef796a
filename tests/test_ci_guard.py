"""The CI guard: with VPL_FORBID_SKIPS=1 (set by .ci/run) a skipped test fails the run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parent / "conftest.py"


def _run_skipping_suite(tmp_path: Path, forbid: bool) -> subprocess.CompletedProcess[str]:
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n\ndef test_needs_gl():\n    pytest.skip('no OpenGL 4.2 core context')\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "VPL_FORBID_SKIPS"}
    if forbid:
        environment["VPL_FORBID_SKIPS"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xvfb", str(tmp_path)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tmp_path,
        timeout=120,
    )


def test_a_skip_fails_when_skips_are_forbidden(tmp_path: Path) -> None:
    result = _run_skipping_suite(tmp_path, forbid=True)
    assert result.returncode == 1, result.stdout
    assert "1 failed" in result.stdout
    assert "VPL_FORBID_SKIPS=1" in result.stdout


def test_a_skip_is_a_skip_on_a_developer_machine(tmp_path: Path) -> None:
    result = _run_skipping_suite(tmp_path, forbid=False)
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout


def test_ci_forbids_skips() -> None:
    script = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    assert "VPL_FORBID_SKIPS=1" in script and "./run-tests" in script
