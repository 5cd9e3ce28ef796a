"""The `vpl` command: `vpl check`, `vpl fmt`, `vpl compile`, `vpl run` (docs/architecture.md, "The `vpl` command").

Every failure is printed to stderr as one line, `FILE:LINE:COLUMN: CATEGORY
error: MESSAGE` (`Diagnostic.format`); a file that cannot be read is reported
as `FILE: error: cannot read: REASON`. Successful runs print nothing on
stderr. A FILE of `-` is standard input (read once; its diagnostics are
labelled `<stdin>`, and `vpl compile -` names its outputs `stdin.*`).

Exit status (documented in the README):

* `EXIT_OK` (0): every file was read, verified (and formatted or compiled);
* `EXIT_FAILURE` (1): at least one diagnostic or unreadable/unwritable file;
* `EXIT_USAGE` (2): the command line itself is wrong (unknown subcommand or
  option, missing FILE, `-` given twice); argparse's usage message on stderr.

Start-up is part of the interface: `vpl --version` and `vpl check` of a small
file should cost little more than the interpreter's own start. So this
module imports nothing of its own at load time: each handler imports the
reader, verifier or backend it needs when it runs, and argparse (with the
gettext and locale set-up it does: about 4 ms) is imported to build the
parser. The commonest command lines, `vpl check FILE...` (files only, no
option) and `vpl compile FILE --out DIR`, need no parser at all: `main`
runs them directly, as argparse would have parsed them.

Subcommands are registered in `COMMANDS`: each entry pairs a function that
adds the subcommand's arguments with the handler that runs it and returns
the exit status.

**Plug-in point.** Other packages add subcommands through the entry-point
group `vpl.commands` (`PLUGIN_GROUP`): each entry point names a `Command`
tuple like those of `COMMANDS`. This is how the editor's package adds
`vpl bake`, `vpl export-gltf`, `vpl export-mtlx` and `vpl import-mtlx` (pyproject.toml) without
`vpl_core` importing it (the layer rules of docs/architecture.md). Plug-ins
are looked up only when the command line does not name a built-in command
(importlib.metadata alone costs a third of the start-up); a built-in name
always wins. A plug-in that cannot be loaded still appears, and running it
prints why and exits 1.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Iterable, Sequence

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from importlib.metadata import EntryPoint
    from typing import TextIO

    from vpl_core.diagnostics import VplError
    from vpl_core.ir.module import Module

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2  # what argparse uses for usage errors; one code for every usage error

STDIN = "-"
STDIN_LABEL = "<stdin>"
STDIN_STEM = "stdin"


def _report(error: VplError, stream: TextIO) -> None:
    print(error.diagnostic.format(), file=stream)


def _read_source(path: str, stderr: TextIO) -> tuple[bytes, str] | None:
    """The bytes of `path` (standard input for `-`) and their diagnostic label; None if unreadable."""
    if path == STDIN:
        return sys.stdin.buffer.read(), STDIN_LABEL
    from vpl_core.external_files import read_external

    try:
        return read_external(path, "document"), path
    except OSError as error:
        print(f"{path}: error: cannot read: {error.strerror or error}", file=stderr)
    return None


def load_module(path: str, stderr: TextIO, *, strict_v1: bool = False) -> Module | None:
    """Read and verify one file (`-`: standard input), reporting any failure on `stderr`; None if it failed."""
    from vpl_core.diagnostics import VplError
    from vpl_core.text import read

    source = _read_source(path, stderr)
    if source is None:
        return None
    data, label = source
    try:
        return read(data, label, strict_v1=strict_v1)
    except VplError as error:
        _report(error, stderr)
    return None


def _configure_check(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict-v1", action="store_true", help="reject extensions (plain VPL version 1 only)")
    parser.add_argument("files", nargs="+", metavar="FILE", help="VPL text files to read and verify ('-': stdin)")


def run_check(arguments: argparse.Namespace) -> int:
    """Read and verify every file; exit status 0 only if all are valid."""
    status = EXIT_OK
    for path in arguments.files:
        if load_module(path, sys.stderr, strict_v1=arguments.strict_v1) is None:
            status = EXIT_FAILURE
    return status


def _configure_fmt(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict-v1", action="store_true", help="reject extensions (plain VPL version 1 only)")
    parser.add_argument("file", metavar="FILE", help="VPL text file to format ('-': stdin)")


def run_fmt(arguments: argparse.Namespace) -> int:
    """Print the canonical text (spec 11 writer) of one file to stdout."""
    from vpl_core.diagnostics import VplError
    from vpl_core.text.writer import write_read

    module = load_module(arguments.file, sys.stderr, strict_v1=arguments.strict_v1)
    if module is None:
        return EXIT_FAILURE
    try:
        # The module was verified by the read just now and nothing else holds it.
        text = write_read(module, verified=True)[0]
    except VplError as error:
        _report(error, sys.stderr)
        return EXIT_FAILURE
    sys.stdout.write(text)
    return EXIT_OK


TARGETS = ("glsl420", "es300", "es320")


def _configure_compile(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="VPL text file to compile ('-': stdin, outputs named stdin.*)")
    parser.add_argument("--target", choices=TARGETS, default="glsl420", help="GLSL target (default: glsl420)")
    parser.add_argument("--out", required=True, metavar="DIR", help="directory for <stem>.vert.glsl, .frag.glsl, .json")
    parser.add_argument("--strict-v1", action="store_true", help="reject extensions (plain VPL version 1 only)")


def run_compile(arguments: argparse.Namespace) -> int:
    """Read, verify, publish and compile one file; write the artifact's three files."""
    from vpl_core.backends.glsl import compile_source
    from vpl_core.backends.glsl.export import export_artifact, file_stem
    from vpl_core.diagnostics import VplError

    source = _read_source(arguments.file, sys.stderr)
    if source is None:
        return EXIT_FAILURE
    data, label = source
    try:
        artifact = compile_source(data, label, arguments.target, strict_v1=arguments.strict_v1)
    except VplError as error:
        _report(error, sys.stderr)
        return EXIT_FAILURE
    stem = STDIN_STEM if arguments.file == STDIN else file_stem(arguments.file)
    try:
        export_artifact(artifact, arguments.out, stem)
    except OSError as error:
        print(f"{arguments.out}: error: cannot write: {error.strerror or error}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


def _configure_run(parser: argparse.ArgumentParser) -> None:
    # Here rather than in `vpl_core.interp.run`: building the parser must not
    # import the renderer's module (and with it the IR, json...) for every
    # `vpl` command; `run` imports it when it runs.
    parser.add_argument("file", metavar="FILE", help="VPL text file to render")
    parser.add_argument("--size", required=True, metavar="WxH", help="frame size in pixels, e.g. 256x256")
    parser.add_argument("--mesh", metavar="NAME", help="draw the editor's preview scene with this mesh (sphere, cube, plane); "
                        "default: the sphere for a module that reads the scene, else a full-screen pass")
    parser.add_argument("--set", dest="values", action="append", default=[], metavar="NAME=VALUE",
                        help="set a uniform: a number, true/false, comma-separated numbers, JSON, or @image.png for a sampler")
    parser.add_argument("--out", required=True, metavar="PNG", help="the PNG file to write")
    parser.add_argument("--strict-v1", action="store_true", help="reject extensions (plain VPL version 1 only)")


def run_render(arguments: argparse.Namespace) -> int:
    """Render the module on the CPU (the interpreter) into a PNG; see `vpl_core.interp.run`."""
    from vpl_core.interp.run import run

    return run(arguments)


Configure = Callable[["argparse.ArgumentParser"], None]
Handler = Callable[["argparse.Namespace"], int]
Command = tuple[str, Configure, Handler]
"""(help, add its arguments, handler returning the exit status)."""

COMMANDS: dict[str, Command] = {
    "check": ("read and verify VPL files", _configure_check, run_check),
    "fmt": ("print the canonical text of a VPL file", _configure_fmt, run_fmt),
    "compile": ("compile a VPL file to GLSL (vertex, fragment, reflection JSON)", _configure_compile, run_compile),
    "run": ("render a VPL file on the CPU (the reference interpreter) into a PNG", _configure_run, run_render),
}
"""Subcommand name -> (help, add its arguments, handler returning the exit status)."""

PLUGIN_GROUP = "vpl.commands"


def _is_command(candidate: object) -> bool:
    return (
        isinstance(candidate, tuple)
        and len(candidate) == 3
        and isinstance(candidate[0], str)
        and callable(candidate[1])
        and callable(candidate[2])
    )


def _unavailable(name: str, reason: str) -> Command:
    """A stand-in for a plug-in that cannot be loaded: it takes any arguments and says why it cannot run."""

    def configure(parser: argparse.ArgumentParser) -> None:
        import argparse

        parser.add_argument("arguments", nargs=argparse.REMAINDER)

    def handler(arguments: argparse.Namespace) -> int:
        print(f"vpl {name}: error: not available in this installation: {reason}", file=sys.stderr)
        return EXIT_FAILURE

    return (f"(unavailable: {reason})", configure, handler)


def plugin_commands(entries: Iterable[EntryPoint] | None = None) -> dict[str, Command]:
    """Subcommands registered by other packages in the `vpl.commands` entry-point group, by name.

    `entries` replaces the installed entry points (tests). Built-in names
    are skipped; an entry that fails to import, or names something that is
    not a `Command`, becomes a command that reports the problem.
    """
    if entries is None:
        from importlib.metadata import entry_points

        entries = entry_points(group=PLUGIN_GROUP)
    commands: dict[str, Command] = {}
    for entry in sorted(entries, key=lambda item: item.name):
        if entry.name in COMMANDS or entry.name in commands:
            continue
        try:
            loaded = entry.load()
        except (ImportError, AttributeError) as error:
            commands[entry.name] = _unavailable(entry.name, str(error) or type(error).__name__)
            continue
        if not _is_command(loaded):
            commands[entry.name] = _unavailable(entry.name, f"{entry.value} is not a (help, configure, handler) command")
            continue
        commands[entry.name] = loaded
    return commands


def _plain_check(argv: Sequence[str]) -> list[str] | None:
    """The files of `check FILE...` when the command line is only that (no option; `-` at most once), else None."""
    if len(argv) < 2 or argv[0] != "check":
        return None
    files = list(argv[1:])
    if any(argument.startswith("-") and argument != STDIN for argument in files) or files.count(STDIN) > 1:
        return None  # options, `--`, or a usage error: argparse's to parse and report
    return files


def _plain_compile(argv: Sequence[str]) -> types.SimpleNamespace | None:
    """`compile FILE --out DIR` (either order of FILE and the option) as argparse would parse it, else None.

    Only that form: the file and the directory are not options (`-` alone, standard input, is a file), so
    argparse would take them as they are; any other command line goes to argparse to parse and report.
    """
    if len(argv) != 4 or argv[0] != "compile":
        return None
    if argv[1] == "--out":
        directory, file = argv[2], argv[3]
    elif argv[2] == "--out":
        file, directory = argv[1], argv[3]
    else:
        return None
    if directory.startswith("-") or (file.startswith("-") and file != STDIN):
        return None
    return types.SimpleNamespace(command="compile", file=file, target="glsl420", out=directory, strict_v1=False)


def _first_positional(argv: Sequence[str]) -> str | None:
    for argument in argv:
        if not argument.startswith("-"):
            return argument
    return None


def _terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`, without importing shutil (with zlib, bz2, lzma: ~1.5 ms of start-up)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]  # None without a stdout: AttributeError below
        except (AttributeError, ValueError, OSError):  # no stdout, closed, detached or not a terminal
            columns = 0
    return columns or 80


def _help_formatter() -> type[argparse.HelpFormatter]:
    """argparse's formatter with the same default width, found without shutil.

    argparse makes a formatter for every `add_argument` (to check the
    metavar), and the default one imports shutil for the terminal's width.
    A class made when a parser is built: argparse is not imported before.
    """
    import argparse

    class HelpFormatter(argparse.HelpFormatter):
        def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                     width: int | None = None) -> None:
            super().__init__(prog, indent_increment, max_help_position, _terminal_columns() - 2 if width is None else width)

    return HelpFormatter


def build_parser(plugins: bool = True) -> argparse.ArgumentParser:
    import argparse

    from vpl_core.version import VersionAction

    formatter = _help_formatter()
    parser = argparse.ArgumentParser(
        prog="vpl",
        formatter_class=formatter,
        description="Tools for VPL, the typed three-address shader language.",
        epilog="exit status: 0 success, 1 diagnostics or unreadable files, 2 usage errors",
    )
    parser.add_argument("--version", action=VersionAction)
    # `prog` given: otherwise argparse builds a help formatter and a usage line to derive it.
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, prog=parser.prog)
    commands = {**COMMANDS, **(plugin_commands() if plugins else {})}
    for name, (help_text, configure, handler) in commands.items():
        subparser = subcommands.add_parser(name, help=help_text, description=help_text, formatter_class=formatter)
        configure(subparser)
        subparser.set_defaults(handler=handler)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `vpl` console script; returns the exit status (usage errors exit `EXIT_USAGE`)."""
    if argv is None:
        # A command-line run is short-lived: reference counting frees what it
        # drops, and the cyclic collector would only traverse the module graphs
        # to find nothing. Library calls keep the collector.
        from vpl_core import collector

        collector.off_for_short_process()
    arguments_list = sys.argv[1:] if argv is None else list(argv)
    files = _plain_check(arguments_list)
    if files is not None:  # `vpl check FILE...`: what argparse would make of it, without building a parser
        checked = run_check(types.SimpleNamespace(command="check", files=files, strict_v1=False))  # type: ignore[arg-type]  # run_check reads only these
        if argv is None:
            _exit_now(checked)
        return checked
    plain = _plain_compile(arguments_list)
    if plain is not None:  # `vpl compile FILE --out DIR`: the same, without building a parser
        compiled = run_compile(plain)  # type: ignore[arg-type]  # run_compile reads only these
        if argv is None:
            _exit_now(compiled)
        return compiled
    # Plug-ins are looked up only for a command that is not built in, or for the help (start-up time).
    first = _first_positional(arguments_list)
    wants_help = first is None and any(argument in ("-h", "--help") for argument in arguments_list)
    built_in = first is not None and first in COMMANDS
    parser = build_parser(plugins=wants_help or (first is not None and not built_in))
    arguments = parser.parse_args(arguments_list)
    files = getattr(arguments, "files", None) or [getattr(arguments, "file", None)]
    if files.count(STDIN) > 1:
        parser.error("standard input ('-') can be read only once")  # exits with EXIT_USAGE
    status: int = arguments.handler(arguments)
    if argv is None and arguments.command in COMMANDS:
        _exit_now(status)
    return status


def _exit_now(status: int) -> None:
    """End a command-line run of a built-in command at once: flush the output, skip the interpreter's teardown.

    The teardown would be pure cost: with the cyclic collector off, the
    module graphs of the run (and the memo tables) are still alive, and the
    interpreter's final collection and module teardown traverse and free
    them one by one (60-80 ms after `vpl compile` of 10k instructions, a
    sixth of its time). The built-in commands hold no resources that need a
    finaliser (every file is written and closed, atomically, by then) and
    register no `atexit` handlers. Plug-in commands exit normally (they may
    rely on clean-up). If the output cannot be flushed (a closed pipe), the
    ordinary exit reports it as before.
    """
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: the normal exit path reports it
        return
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
