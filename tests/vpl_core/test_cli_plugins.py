"""The `vpl` plug-in point: subcommands from the entry-point group `vpl.commands` (vpl_core/cli.py)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from vpl_core import cli

seen: list[str] = []


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")


def _handler(arguments: argparse.Namespace) -> int:
    seen.append(arguments.file)
    return 5


#: What an entry point names: a (help, configure, handler) tuple.
EXAMPLE = ("an example plug-in", _configure, _handler)
NOT_A_COMMAND = "just a string"


def entry(name: str, target: str) -> EntryPoint:
    return EntryPoint(name=name, value=f"{__name__}:{target}", group=cli.PLUGIN_GROUP)


def test_plugins_are_loaded_from_entry_points() -> None:
    commands = cli.plugin_commands([entry("example", "EXAMPLE"), entry("check", "EXAMPLE")])
    assert commands == {"example": EXAMPLE}  # a built-in name always wins


def test_a_broken_plugin_says_why_when_run(capsys: pytest.CaptureFixture[str]) -> None:
    broken = EntryPoint(name="broken", value="no_such_module_here:COMMAND", group=cli.PLUGIN_GROUP)
    commands = cli.plugin_commands([broken, entry("odd", "NOT_A_COMMAND")])
    assert sorted(commands) == ["broken", "odd"]
    help_text, configure, handler = commands["broken"]
    assert "unavailable" in help_text
    parser = argparse.ArgumentParser()
    configure(parser)
    assert handler(parser.parse_args(["anything", "--at-all"])) == cli.EXIT_FAILURE
    assert "vpl broken: error: not available in this installation: No module named 'no_such_module_here'" in capsys.readouterr().err
    assert "is not a (help, configure, handler) command" in commands["odd"][0]


def test_main_runs_a_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "plugin_commands", lambda entries=None: {"example": EXAMPLE})
    seen.clear()
    assert cli.main(["example", "x.vpl"]) == 5 and seen == ["x.vpl"]


def test_built_in_commands_do_not_look_plugins_up(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(entries=None):
        raise AssertionError("plug-ins looked up for a built-in command")

    monkeypatch.setattr(cli, "plugin_commands", fail)
    source = str(Path(cli.__file__).parent / "builtin_programs" / "mesh-ambient-color.vpl")
    assert cli.main(["check", source]) == 0
    with pytest.raises(SystemExit):
        cli.main(["--version"])


def test_the_installed_vpl_has_the_export_commands() -> None:
    """The project's own plug-ins (pyproject.toml) reach the console script; `vpl check` still never imports them."""
    for command in ("bake", "export-glsl", "export-gltf", "export-mtlx", "import-mtlx"):
        completed = subprocess.run([sys.executable, "-m", "vpl_core.cli", command, "--help"], capture_output=True, text=True, timeout=120)
        assert completed.returncode == 0 and f"usage: vpl {command}" in completed.stdout, completed.stderr
    listing = subprocess.run([sys.executable, "-m", "vpl_core.cli", "--help"], capture_output=True, text=True, timeout=120)
    assert "bake" in listing.stdout and "export-gltf" in listing.stdout
    code = "import sys; from vpl_core import cli; cli.main(['fmt', sys.argv[1]]); print('app' in sys.modules, 'importlib.metadata' in sys.modules, file=sys.stderr)"
    program = subprocess.run([sys.executable, "-c", code, str(cli.__file__).replace("cli.py", "builtin_programs/mesh-ambient-color.vpl")],
                             capture_output=True, text=True, timeout=120)
    assert program.stderr.strip() == "False False", program.stderr
