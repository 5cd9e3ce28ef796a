"""scripts/bootstrap.sh decides from its stamp whether anything needs doing.

The script runs for real on a copy of the project's pyproject.toml and of
itself, with a stand-in `.venv/bin/python` that records how it was called
(so "installing Python packages" is observed, not performed) and a PATH
without dpkg-query (so the system-package step, which needs root, is left
out). The glTF validator step finds the real worktree's copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("bash", "dirname", "sha256sum", "grep", "cat")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "bootstrap.sh", tmp_path / "scripts" / "bootstrap.sh")
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    python = venv_bin / "python"
    python.write_text('#!/bin/sh\necho "$*" >> "$(dirname "$0")/../calls.log"\n', encoding="utf-8")
    python.chmod(0o755)
    validator = ROOT / ".venv" / "node"
    if not (validator / "node_modules" / "gltf-validator" / "package.json").is_file():
        pytest.skip("the worktree has no gltf-validator (run scripts/bootstrap.sh)")
    (tmp_path / ".venv" / "node").symlink_to(validator)
    tools = tmp_path / "tools-bin"
    tools.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found is not None, f"{tool} is not installed"
        (tools / tool).symlink_to(found)
    return tmp_path


def bootstrap(project: Path, *arguments: str, python: str = "python3") -> subprocess.CompletedProcess[str]:
    environment = {"PATH": str(project / "tools-bin"), "HOME": str(project), "PYTHON": python}
    return subprocess.run(["bash", str(project / "scripts" / "bootstrap.sh"), *arguments], env=environment,
                          capture_output=True, text=True, timeout=60, check=False)


def installs(project: Path) -> int:
    log = project / ".venv" / "calls.log"
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return sum("-m pip install -q -e .[dev]" in call for call in calls)


def test_a_changed_requirement_installs_again_and_an_unchanged_one_does_nothing(project: Path) -> None:
    assert bootstrap(project, "--check").returncode == 1  # no stamp yet
    first = bootstrap(project)
    assert first.returncode == 0, first.stderr
    assert installs(project) == 1 and "installing Python packages" in first.stderr
    assert bootstrap(project, "--check").returncode == 0

    again = bootstrap(project)
    assert again.returncode == 0 and again.stderr == "" and installs(project) == 1  # the stamp matches

    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        'dependencies = [', 'dependencies = [\n  "a-new-requirement>=1",', 1), encoding="utf-8")
    assert bootstrap(project, "--check").returncode == 1
    changed = bootstrap(project)
    assert changed.returncode == 0, changed.stderr
    assert installs(project) == 2
    assert bootstrap(project, "--check").returncode == 0


def test_a_changed_script_or_python_runs_the_set_up_but_installs_only_for_new_requirements(project: Path) -> None:
    assert bootstrap(project).returncode == 0 and installs(project) == 1
    script = project / "scripts" / "bootstrap.sh"
    script.write_text(script.read_text(encoding="utf-8") + "\n# a new step\n", encoding="utf-8")
    assert bootstrap(project, "--check").returncode == 1
    assert bootstrap(project).returncode == 0 and installs(project) == 1  # pyproject.toml did not change
    assert bootstrap(project, "--check").returncode == 0
    assert bootstrap(project, "--check", python="python3.99").returncode == 1


def test_a_lost_virtual_environment_is_not_taken_for_a_current_one(project: Path) -> None:
    assert bootstrap(project).returncode == 0
    os.chmod(project / ".venv" / "bin" / "python", 0o644)  # as if .venv/bin/python were gone or broken
    assert bootstrap(project, "--check").returncode == 1


def test_the_worktree_is_set_up_as_its_requirements_say() -> None:
    """./run-tests ran the bootstrap before this test: its stamp matches the checked-out requirements."""
    completed = subprocess.run([str(ROOT / "scripts" / "bootstrap.sh"), "--check"], capture_output=True, text=True,
                               timeout=60, check=False)
    assert completed.returncode == 0, completed.stderr
