"""The `vpl` command: `vpl check`, `vpl fmt`, `vpl compile`, `vpl run` (ARCHITECTURE.md, "The `vpl` command").

Every failure is printed to stderr as one line, `FILE:LINE:COLUMN: CATEGORY
error: MESSAGE` (`Diagnostic.format`), and makes the exit status 1; a file
that cannot be read is reported as `FILE: error: cannot read: REASON`.
Successful runs print nothing on stderr.

Subcommands are registered in `COMMANDS`: each entry pairs a function that
adds the subcommand's arguments with the handler that runs it and returns
the exit status.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from vpl_core.diagnostics import VplError
from vpl_core.ir.module import Module
from vpl_core.text import read_file, write
from vpl_core.version import VersionAction

EXIT_OK = 0
EXIT_FAILURE = 1


def _report(error: VplError, stream: TextIO) -> None:
    print(error.diagnostic.format(), file=stream)


def load_module(path: str, stderr: TextIO, *, strict_v1: bool = False) -> Module | None:
    """Read and verify one file, reporting any failure on `stderr`; None if it failed."""
    try:
        return read_file(path, strict_v1=strict_v1)
    except VplError as error:
        _report(error, stderr)
    except OSError as error:
        print(f"{path}: error: cannot read: {error.strerror or error}", file=stderr)
    return None


def _configure_check(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict-v1", action="store_true", help="reject extensions (plain VPL version 1 only)")
    parser.add_argument("files", nargs="+", metavar="FILE", help="VPL text files to read and verify")


def run_check(arguments: argparse.Namespace) -> int:
    """Read and verify every file; exit status 0 only if all are valid."""
    status = EXIT_OK
    for path in arguments.files:
        if load_module(path, sys.stderr, strict_v1=arguments.strict_v1) is None:
            status = EXIT_FAILURE
    return status


def _configure_fmt(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict-v1", action="store_true", help="reject extensions (plain VPL version 1 only)")
    parser.add_argument("file", metavar="FILE", help="VPL text file to format")


def run_fmt(arguments: argparse.Namespace) -> int:
    """Print the canonical text (spec 11 writer) of one file to stdout."""
    module = load_module(arguments.file, sys.stderr, strict_v1=arguments.strict_v1)
    if module is None:
        return EXIT_FAILURE
    try:
        text = write(module)
    except VplError as error:
        _report(error, sys.stderr)
        return EXIT_FAILURE
    sys.stdout.write(text)
    return EXIT_OK


TARGETS = ("glsl420", "es300", "es320")


def _configure_compile(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="VPL text file to compile")
    parser.add_argument("--target", choices=TARGETS, default="glsl420", help="GLSL target (default: glsl420)")
    parser.add_argument("--out", required=True, metavar="DIR", help="directory for <stem>.vert.glsl, .frag.glsl, .json")
    parser.add_argument("--strict-v1", action="store_true", help="reject extensions (plain VPL version 1 only)")


def run_compile(arguments: argparse.Namespace) -> int:
    """Read, verify, publish and compile one file; write the artifact's three files."""
    from vpl_core.backends.glsl import compile_source
    from vpl_core.backends.glsl.export import export_artifact, file_stem

    try:
        with open(arguments.file, "rb") as stream:
            source = stream.read()
    except OSError as error:
        print(f"{arguments.file}: error: cannot read: {error.strerror or error}", file=sys.stderr)
        return EXIT_FAILURE
    try:
        artifact = compile_source(source, arguments.file, arguments.target, strict_v1=arguments.strict_v1)
    except VplError as error:
        _report(error, sys.stderr)
        return EXIT_FAILURE
    try:
        export_artifact(artifact, arguments.out, file_stem(arguments.file))
    except OSError as error:
        print(f"{arguments.out}: error: cannot write: {error.strerror or error}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


def _configure_run(parser: argparse.ArgumentParser) -> None:
    from vpl_core.interp.run import configure

    configure(parser)


def run_render(arguments: argparse.Namespace) -> int:
    """Render the module on the CPU (the interpreter) into a PNG; see `vpl_core.interp.run`."""
    from vpl_core.interp.run import run

    return run(arguments)


Configure = Callable[[argparse.ArgumentParser], None]
Handler = Callable[[argparse.Namespace], int]

COMMANDS: dict[str, tuple[str, Configure, Handler]] = {
    "check": ("read and verify VPL files", _configure_check, run_check),
    "fmt": ("print the canonical text of a VPL file", _configure_fmt, run_fmt),
    "compile": ("compile a VPL file to GLSL (vertex, fragment, reflection JSON)", _configure_compile, run_compile),
    "run": ("render a VPL file on the CPU (the reference interpreter) into a PNG", _configure_run, run_render),
}
"""Subcommand name -> (help, add its arguments, handler returning the exit status)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vpl", description="Tools for VPL, the typed three-address shader language.")
    parser.add_argument("--version", action=VersionAction)
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, configure, handler) in COMMANDS.items():
        subparser = subcommands.add_parser(name, help=help_text, description=help_text)
        configure(subparser)
        subparser.set_defaults(handler=handler)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `vpl` console script; returns the exit status."""
    arguments = build_parser().parse_args(argv)
    return arguments.handler(arguments)


if __name__ == "__main__":
    sys.exit(main())
