"""The `vpl` command: check and fmt exit codes and output (docs/architecture.md, "The `vpl` command")."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vpl_core import cli
from vpl_core.text import read_file, write

SPEC_EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "spec"
EXAMPLES = sorted(str(path) for path in SPEC_EXAMPLES.glob("*.vpl"))
DIAGNOSTIC_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<column>\d+): (?P<category>lexical|syntactic|semantic|target) error: (?P<message>.+)$")

MATH_MODULE = """(module 1 (extensions "math")
 (types (type V void) (type C vector float 4) (type F float))
 (uniforms)
 (vertex main (interface (out p "p" C -1 position))
  (functions (function main "main" V (parameters) (registers (register r0 C) (register r1 F))
   (block b (construct r1 (float 0.5)) (sin r1 r1) (construct r0 r1) (store (stage p) r0) (return)))))
 (fragment main (interface (out c "c" C 0 fragment_color))
  (functions (function main "main" V (parameters) (registers (register r0 C))
   (block b (construct r0 (float 1.0)) (store (stage c) r0) (return))))))
"""


@pytest.fixture
def broken_files(tmp_path: Path) -> list[str]:
    lexical = tmp_path / "lexical.vpl"
    lexical.write_bytes(b"(module 1\n  #)")
    syntactic = tmp_path / "syntactic.vpl"
    syntactic.write_text("(module 2 (types) (uniforms) (vertex) (fragment))", encoding="utf-8")
    semantic = tmp_path / "semantic.vpl"
    semantic.write_text("(module 1 (types (type A array A 2)) (uniforms) (vertex) (fragment))", encoding="utf-8")
    return [str(lexical), str(syntactic), str(semantic)]


def test_check_accepts_valid_files_silently(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", *EXAMPLES]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_check_reports_every_invalid_file_in_the_diagnostic_format(
    broken_files: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["check", EXAMPLES[0], *broken_files]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    matches = [DIAGNOSTIC_LINE.match(line) for line in lines]
    assert all(matches), lines
    assert [(match["file"], match["line"], match["column"], match["category"]) for match in matches] == [
        (broken_files[0], "2", "3", "lexical"),
        (broken_files[1], "1", "9", "syntactic"),
        (broken_files[2], "1", "32", "semantic"),
    ]
    assert "unexpected character '#'" in matches[0]["message"]


def test_check_reports_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "missing.vpl")
    assert cli.main(["check", missing, EXAMPLES[0]]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"{missing}: error: cannot read: ") and error.count("\n") == 1
    assert cli.main(["check", str(tmp_path)]) == 1  # a directory
    assert "cannot read" in capsys.readouterr().err


def test_strict_mode_rejects_extensions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "math.vpl"
    path.write_text(MATH_MODULE, encoding="utf-8")
    assert cli.main(["check", str(path)]) == 0
    assert cli.main(["check", "--strict-v1", str(path)]) == 1
    assert "extensions are not part of VPL version 1 (strict mode)" in capsys.readouterr().err


def test_fmt_prints_the_canonical_text(capsys: pytest.CaptureFixture[str]) -> None:
    for path in EXAMPLES:
        assert cli.main(["fmt", path]) == 0
        captured = capsys.readouterr()
        assert captured.out == write(read_file(path)) and captured.err == ""


def test_fmt_of_an_invalid_file_fails(broken_files: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["fmt", broken_files[1]]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and DIAGNOSTIC_LINE.match(captured.err.strip())


def test_usage_errors_exit_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([], ["check"], ["frobnicate"], ["fmt", "a.vpl", "b.vpl"], ["check", "-", "-"], ["compile", "x.vpl"]):
        with pytest.raises(SystemExit) as raised:
            cli.main(argv)
        assert raised.value.code == cli.EXIT_USAGE == 2, argv
        assert "usage: vpl" in capsys.readouterr().err
    assert "standard input ('-') can be read only once" in _usage_error(["check", "-", "-"], capsys)


def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        cli.main(argv)
    return capsys.readouterr().err


def test_exit_codes_are_documented() -> None:
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert "exits with status 0 on success, 1 when a file has diagnostics" in readme and "2 for usage errors" in readme
    assert "0 success, 1 diagnostics or unreadable files, 2 usage errors" in cli.build_parser().format_help()


def test_dash_reads_standard_input(tmp_path: Path) -> None:
    """`vpl check -`, `vpl fmt -` and `vpl compile -` read stdin; diagnostics are labelled <stdin>."""
    valid = Path(EXAMPLES[0]).read_bytes()
    checked = subprocess.run([*console_script(), "check", "-"], input=valid, capture_output=True, timeout=120)
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, b"", b"")
    broken = b"(module 1 (types (type A array A 2)) (uniforms) (vertex) (fragment))"
    rejected = subprocess.run([*console_script(), "check", EXAMPLES[0], "-"], input=broken, capture_output=True, timeout=120)
    assert rejected.returncode == 1
    assert rejected.stderr.decode() == "<stdin>:1:32: semantic error: type cycle: 'A' depends on 'A', which depends on it\n"
    formatted = subprocess.run([*console_script(), "fmt", "-"], input=valid, capture_output=True, timeout=120)
    assert formatted.returncode == 0 and formatted.stdout.decode() == write(read_file(EXAMPLES[0]))
    compiled = subprocess.run(
        [*console_script(), "compile", "-", "--out", str(tmp_path)], input=valid, capture_output=True, timeout=120
    )
    assert compiled.returncode == 0, compiled.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["stdin.frag.glsl", "stdin.json", "stdin.vert.glsl"]


def test_subcommands_come_from_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def configure(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("file")

    def handler(arguments: argparse.Namespace) -> int:
        seen.append(arguments.file)
        return 7

    monkeypatch.setitem(cli.COMMANDS, "example", ("an example subcommand", configure, handler))
    assert cli.main(["example", "x.vpl"]) == 7 and seen == ["x.vpl"]


def console_script() -> list[str]:
    script = Path(sys.executable).parent / "vpl"
    return [str(script)] if script.exists() else [sys.executable, "-m", "vpl_core.cli"]


def test_the_installed_console_script(broken_files: list[str]) -> None:
    valid = subprocess.run([*console_script(), "check", *EXAMPLES], capture_output=True, text=True, timeout=120)
    assert (valid.returncode, valid.stdout, valid.stderr) == (0, "", "")
    invalid = subprocess.run([*console_script(), "check", broken_files[2]], capture_output=True, text=True, timeout=120)
    assert invalid.returncode == 1
    assert invalid.stderr == f"{broken_files[2]}:1:32: semantic error: type cycle: 'A' depends on 'A', which depends on it\n"
    formatted = subprocess.run([*console_script(), "fmt", EXAMPLES[0]], capture_output=True, text=True, timeout=120)
    assert formatted.returncode == 0 and formatted.stdout == write(read_file(EXAMPLES[0]))


def test_the_fast_version_lookup_agrees_with_the_package_metadata() -> None:
    """`vpl --version` reads the installed METADATA itself (importlib.metadata costs a third of the start-up)."""
    from importlib import metadata

    from vpl_core import version

    assert version._version_from_dist_info() == metadata.version(version.DISTRIBUTION)


#: The spec's example the start-up tests run `vpl` on.
SPEC_EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "spec" / "loop-and-helper.vpl"

#: A `vpl` run in a new process that prints, when the command ends the process (`os._exit`), which of the
#: modules named in argv[1] (comma-separated) were really imported, and the exit status; argv[2:] is the
#: command line. An `atexit` handler prints "teardown ran" if the interpreter's teardown ran instead.
_IMPORT_PROBE = (
    "import atexit, os, sys\n"
    "atexit.register(lambda: print('teardown ran'))\n"
    "names = sys.argv[1].split(',')\n"
    "sys.argv = ['vpl', *sys.argv[2:]]\n"
    "from vpl_core import cli\n"
    "real_exit = os._exit\n"
    "def report(status):\n"
    "    loaded = [m for m in names if type(sys.modules.get(m)).__name__ == 'module']\n"
    "    print(loaded, status, flush=True)\n"
    "    real_exit(status)\n"
    "os._exit = report\n"
    "cli.main()\n"
)


def _modules_loaded_by(names: tuple[str, ...], *arguments: str) -> str:
    """The probe's output for `vpl ARGUMENTS`: "[] 0" when none of `names` was imported and the command succeeded."""
    completed = subprocess.run([sys.executable, "-c", _IMPORT_PROBE, ",".join(names), *arguments],
                               capture_output=True, text=True, timeout=60)
    return completed.stdout.strip() + completed.stderr


def test_a_check_run_loads_no_typing_or_shutil() -> None:
    """Start-up: `vpl check` imports neither typing nor shutil (argparse's terminal width is found without it),
    and ends the process itself (os._exit: the atexit handler never runs). (`inspect` is loaded: `dataclasses`
    imports it, and nothing in `sys.modules` stands in for it.)"""
    assert _modules_loaded_by(("typing", "shutil"), "check", str(SPEC_EXAMPLE)) == "[] 0"


def test_a_plain_check_builds_no_parser() -> None:
    """Start-up (issue 20 item 4): `vpl check FILE...` is run without argparse (and its gettext and locale
    set-up, about 4 ms); with an option the parser is built as before."""
    assert _modules_loaded_by(("argparse", "gettext", "locale"), "check", str(SPEC_EXAMPLE)) == "[] 0"
    assert _modules_loaded_by(("argparse",), "check", "--strict-v1", str(SPEC_EXAMPLE)) == "['argparse'] 0"


@pytest.mark.parametrize("files", [
    ["GOOD"], ["BROKEN"], ["MISSING"], ["GOOD", "BROKEN", "MISSING"], ["-"], ["GOOD", "-"], ["-", "-"],
])
def test_a_plain_check_does_what_the_parser_would(files: list[str], broken_files: list[str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    """The same status and output as with `--` (which always goes through argparse): valid, invalid and
    unreadable files, standard input, and `-` twice (a usage error either way)."""
    import io

    names = {"GOOD": str(SPEC_EXAMPLE), "BROKEN": broken_files[0], "MISSING": str(tmp_path / "missing.vpl")}
    arguments = [names.get(name, name) for name in files]
    results = []
    for command in (["check", *arguments], ["check", "--", *arguments]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(SPEC_EXAMPLE).read_bytes())))
        try:
            status = cli.main(command)
        except SystemExit as exit:
            status = exit.code
        captured = capsys.readouterr()
        results.append((status, captured.out, captured.err.replace("check --", "check")))
    assert results[0] == results[1]


def test_a_plain_compile_builds_no_parser(tmp_path: Path) -> None:
    """Start-up: `vpl compile FILE --out DIR` is run without argparse; with another option the parser is built."""
    assert _modules_loaded_by(("argparse", "gettext", "locale"), "compile", str(SPEC_EXAMPLE), "--out",
                              str(tmp_path)) == "[] 0"
    assert _modules_loaded_by(("argparse",), "compile", "--out", str(tmp_path), str(SPEC_EXAMPLE)) == "[] 0"
    assert _modules_loaded_by(("argparse",), "compile", "--strict-v1", str(SPEC_EXAMPLE), "--out",
                              str(tmp_path)) == "['argparse'] 0"


@pytest.mark.parametrize("file", ["GOOD", "BROKEN", "MISSING", "-"])
@pytest.mark.parametrize("option_first", [False, True])
def test_a_plain_compile_does_what_the_parser_would(file: str, option_first: bool, broken_files: list[str],
                                                    tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The same status, messages and files as with `--target glsl420` (which goes through argparse)."""
    import io

    path = {"GOOD": str(SPEC_EXAMPLE), "BROKEN": broken_files[0], "MISSING": str(tmp_path / "missing.vpl")}.get(file, file)
    results = []
    for name, extra in (("plain", []), ("parsed", ["--target", "glsl420"])):
        out = tmp_path / name
        arguments = ["--out", str(out), path] if option_first else [path, "--out", str(out)]
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(SPEC_EXAMPLE).read_bytes())))
        status = cli.main(["compile", *extra, *arguments])
        captured = capsys.readouterr()
        written = sorted((item.name, item.read_bytes()) for item in out.iterdir()) if out.exists() else []
        results.append((status, captured.out, captured.err, written))
    assert results[0] == results[1]
    assert results[0][0] == (cli.EXIT_OK if file in ("GOOD", "-") else cli.EXIT_FAILURE)


def test_a_compile_run_loads_no_typing_tempfile_or_fractions(tmp_path: Path) -> None:
    """Start-up: `vpl compile` (which writes files and spells floats) imports neither typing,
    tempfile (the atomic write makes its own temporary name), shutil nor fractions/decimal (the
    float spelling's exact arithmetic is on integers)."""
    names = ("typing", "tempfile", "shutil", "fractions", "decimal")
    assert _modules_loaded_by(names, "compile", str(SPEC_EXAMPLE), "--out", str(tmp_path)) == "[] 0"
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "loop-and-helper.frag.glsl",
        "loop-and-helper.json",
        "loop-and-helper.vert.glsl",
    ]


def test_the_cli_imports_nothing_heavy_before_a_command_runs() -> None:
    """Start-up (issue 20): `vpl --version` needs neither the reader, the verifier, the builder nor the backend."""
    code = (
        "import sys; from vpl_core import cli; "
        "heavy = [m for m in ('vpl_core.text.reader', 'vpl_core.verify', 'vpl_core.ir.builder', "
        "'vpl_core.backends.glsl', 'importlib.metadata', 'fractions') if m in sys.modules]; print(heavy)"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert completed.stdout.strip() == "[]", completed.stdout + completed.stderr
    code = (
        "import sys; from vpl_core.text import read; "
        "print([m for m in ('vpl_core.ir.builder', 'vpl_core.backends.glsl', 'fractions') if m in sys.modules])"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert completed.stdout.strip() == "[]", completed.stdout + completed.stderr
