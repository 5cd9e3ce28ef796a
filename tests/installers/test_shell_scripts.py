"""Every shell script of the project parses (`bash -n`), and those run directly are executable.

The bundle test runs build-linux.sh and install.sh for real; this catches a
syntax error in the scripts no test runs here (macOS build, the release
check on another distribution) and a lost executable bit.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCED = {"installers/bundle/build-environment.sh"}  # a library of functions, never run directly
SCRIPTS = sorted(
    [path.relative_to(ROOT).as_posix() for path in (ROOT / "installers").rglob("*.sh")]
    + ["scripts/bootstrap.sh", "run-tests", "run-lint", "run-editor", ".ci/run"]
)


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_parses_and_is_executable_when_run_directly(script: str) -> None:
    path = ROOT / script
    result = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    if script in SOURCED:
        assert not path.read_text(encoding="utf-8").startswith("#!"), "a sourced library has no shebang"
    else:
        assert path.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash"), script
        assert os.access(path, os.X_OK), f"{script} lost its executable bit"

