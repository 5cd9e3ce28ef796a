"""Structural paths: the same object in two copies of one module.

Publication (spec 11) keeps canonical text, and every consumer materializes
its own module instance, so a diagnostic raised on one instance (the GLSL
backend's snapshot) names objects the caller's instance (the module it read
from a file, with source positions) does not hold. Writing preserves the
order of uniforms, interface variables, functions, parameters, blocks,
instructions and operands, so an object's path through the module — list
positions and field names — names the corresponding object in any other
instance of the same canonical module.

`walk` enumerates every object reachable from the module in one fixed order
with its path; record types get the path of their first use, which is the
same in every instance because the walk order is. Structural types and
value descriptors are not deduplicated: one instance may share a descriptor
object between uses where another has one per use, and paths must not
depend on that.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

from vpl_core.diagnostics import StructuralPath
from vpl_core.ir.module import Module
from vpl_core.ir.types import ArrayType, RecordType
from vpl_core.records import fields_of

# typing.TYPE_CHECKING without importing typing at run time (about 3 ms of every `vpl compile`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Path = StructuralPath

_SCALAR_LEAVES = (str, int, float, bool, type(None), enum.Enum)


def walk(module: Module) -> Iterator[tuple[Path, Any]]:
    """Every object of `module` (uniforms, interfaces, functions, blocks,
    instructions, terminators, operands, references, types) with its path.

    A record type is reported only at its first use; links to functions and
    blocks (entries, branch targets, callees) are not followed, since the
    stage and function lists enumerate them.
    """
    seen_records: set[int] = set()
    # An explicit stack keeps deep reference paths and type nests off the Python stack.
    stack: list[tuple[Path, Any]] = [((), module)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _SCALAR_LEAVES):
            continue
        if isinstance(value, RecordType):
            if id(value) in seen_records:
                continue
            seen_records.add(id(value))
        if path:
            yield path, value
        children: list[tuple[Path, Any]] = []
        if isinstance(value, (list, tuple)):
            children = [(path + (position,), item) for position, item in enumerate(value)]
        elif isinstance(value, RecordType):
            children = [(path + ("fields", position), field) for position, field in enumerate(value.fields)]
        elif isinstance(value, ArrayType):
            children = [(path + ("element",), value.element)]
        else:
            for name in fields_of(value):
                child = getattr(value, name, None)
                if name == "entry" or name.endswith("target") or name == "callee":
                    # Links to functions and blocks that the lists already enumerate.
                    continue
                children.append((path + (name,), child))
        stack.extend(reversed(children))


def path_of(module: Module, target: Any) -> Path | None:
    for path, value in walk(module):
        if value is target:
            return path
    return None


def object_at(module: Module, path: Path) -> Any | None:
    for candidate, value in walk(module):
        if candidate == path:
            return value
    return None


def corresponding(source_module: Module, target_module: Module, value: Any) -> Any | None:
    """The object of `target_module` at the path `value` has in `source_module`, if any."""
    path = path_of(source_module, value)
    return None if path is None else object_at(target_module, path)


def follow(module: Module, path: Path) -> Any | None:
    """The object at `path`, found by following it field by field and position by position.

    Answers like `object_at` for the paths `walk` gives to functions, blocks,
    instructions, terminators, operands, uniforms and interface variables,
    in time proportional to the path's length instead of the module's size
    (record types, which `walk` reports at their first use only, are the
    exception: ask `object_at` for those). None when the path leads nowhere.
    """
    current: Any = module
    for step in path:
        if isinstance(step, int) and not isinstance(step, bool):
            if not isinstance(current, (list, tuple)) or not 0 <= step < len(current):
                return None
            current = current[step]
        elif isinstance(step, str):
            if step not in fields_of(current):
                return None
            current = getattr(current, step)
        else:
            return None
    return current


PATH_SEPARATOR = "/"


def to_text(path: Path) -> str:
    """`("fragment", "functions", 0, "blocks", 1)` as `"fragment/functions/0/blocks/1"` (for files)."""
    return PATH_SEPARATOR.join(map(str, path))


def from_text(text: str) -> Path:
    """The path `to_text` spelled; digit runs are positions, everything else field names."""
    if not text:
        return ()
    return tuple(int(step) if step.isascii() and step.isdigit() else step for step in text.split(PATH_SEPARATOR))
