"""The canonical VPL text format (spec 10, 11): reading and writing.

`read` and `read_file` turn text into a verified mutable `Module` (lexer,
generic forms, binding, then always the verifier); `write` turns a module
into deterministic canonical text. `read_located` also returns a
`SourceLocator` that places later diagnostics (for example target errors)
about the module's objects in the source. For bad input `read` raises only
`LexicalError`, `SyntacticError` or `SemanticError`, each with one
positioned `Diagnostic`; `write` raises `SemanticError` (from the verifier,
or for a module the text format cannot express).
"""

from __future__ import annotations

from vpl_core.text.reader import STRICT_V1_EXTENSIONS_MESSAGE, SourceLocator, read, read_file, read_located

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vpl_core.text.writer import write

__all__ = ["STRICT_V1_EXTENSIONS_MESSAGE", "SourceLocator", "read", "read_file", "read_located", "write"]


def __getattr__(name: str) -> Any:
    # `write` is imported on first use (PEP 562): `vpl check` and the other
    # readers never write, and the writer's import is part of their start-up.
    if name == "write":
        from vpl_core.text.writer import write

        return write
    raise AttributeError(f"module 'vpl_core.text' has no attribute {name!r}")
