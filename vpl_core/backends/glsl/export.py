"""Writing a ProgramArtifact to disk: `<stem>.vert.glsl`, `<stem>.frag.glsl`, `<stem>.json`.

The JSON file is the artifact's reflection: target, version, the primary
fragment colour output and its location, and the uniform and interface
bindings in source-slot order. Types are canonical VPL type text (spec 10.2
shapes): every type a binding uses gets an ID t0, t1, ... in first-discovery
order over the bindings, `"types"` maps each ID to its declaration body as
the canonical writer spells it (`vector float 4`, `matrix 4 4`,
`array t1 3`, `record "Light" (field "color" t0)`), and each binding names
its type by ID. That keeps record identity nominal (two declarations with
the same display name are two IDs) and the output deterministic. Keys are
sorted; files end with a newline and use LF. `source_map` maps line ranges
of both stages' code to the structural paths of the VPL objects they were
written for (`source_map.py`).

`vpl_core.backends.glsl.compile_file` is the one-call form for `vpl compile
FILE --target T --out DIR` (read, compile, export); this module only writes,
so it depends on the artifact and nothing of the compiler.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vpl_core.atomic_write import write_atomically
from vpl_core.backends.glsl.artifact import InterfaceBinding, ProgramArtifact, UniformBinding
from vpl_core.ir.types import ArrayType, MatrixType, RecordType, SamplerType, ScalarType, Type, VectorType, VoidType


class TypeTable:
    """Canonical type IDs and declaration bodies, in first-discovery order."""

    def __init__(self) -> None:
        self.bodies: dict[str, str] = {}
        self._ids: dict[Any, str] = {}

    @staticmethod
    def _key(value_type: Type) -> Any:
        # Records are nominal (identity); every other type is a value.
        return ("record", id(value_type)) if isinstance(value_type, RecordType) else value_type

    def id_of(self, value_type: Type) -> str:
        key = self._key(value_type)
        if key in self._ids:
            return self._ids[key]
        type_id = f"t{len(self._ids)}"
        self._ids[key] = type_id
        # Reserve the ID before spelling the body, so that discovery order is
        # "this type, then the types it mentions", as in the canonical writer.
        self.bodies[type_id] = ""
        self.bodies[type_id] = self._body(value_type)
        return type_id

    def _body(self, value_type: Type) -> str:
        if isinstance(value_type, (ScalarType, SamplerType, VoidType)):
            return str(value_type)
        if isinstance(value_type, VectorType):
            return f"vector {value_type.kind.value} {value_type.size}"
        if isinstance(value_type, MatrixType):
            return f"matrix {value_type.rows} {value_type.columns}"
        if isinstance(value_type, ArrayType):
            return f"array {self.id_of(value_type.element)} {value_type.count}"
        if isinstance(value_type, RecordType):
            fields = "".join(f" (field {quote(field.name)} {self.id_of(field.type)})" for field in value_type.fields)
            return f"record {quote(value_type.name)}{fields}"
        raise ValueError(f"no canonical spelling for {value_type!r}")


def quote(text: str) -> str:
    """A double-quoted VPL string: escapes for the quote, reverse solidus and C0 controls."""
    escapes = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    parts = []
    for character in text:
        if character in escapes:
            parts.append(escapes[character])
        elif ord(character) < 0x20 or ord(character) == 0x7F:
            parts.append(f"\\u{ord(character):04X}")
        else:
            parts.append(character)
    return '"' + "".join(parts) + '"'


def _uniform(binding: UniformBinding, types: TypeTable) -> dict[str, Any]:
    return {
        "name": binding.name,
        "gl_name": binding.gl_name,
        "type": types.id_of(binding.type),
        "slot": binding.slot,
        "location": binding.location,
        "kind": binding.kind.value,
        "block_binding": binding.block_binding,
        "block_name": binding.block_name,
        "block_size": binding.block_size,
    }


def _interface(binding: InterfaceBinding, types: TypeTable) -> dict[str, Any]:
    return {
        "name": binding.name,
        "gl_name": binding.gl_name,
        "type": types.id_of(binding.type),
        "slot": binding.slot,
        "location": binding.location,
        "direction": binding.direction.value,
        "semantic": binding.semantic.value,
    }


def artifact_json(artifact: ProgramArtifact, extra: Mapping[str, Any] | None = None) -> str:
    """The reflection document (sorted keys, two-space indent, trailing newline).

    `extra` adds top-level sections a host wants beside the reflection (the
    material editor's `material`: parameter values, ranges, textures); it
    may not replace a reflection key.
    """
    types = TypeTable()
    document = {
        "target": artifact.target,
        "version": artifact.version,
        "fragment_color_output": artifact.fragment_color_output,
        "fragment_color_location": artifact.fragment_color_location,
        "uniforms": [_uniform(binding, types) for binding in artifact.uniforms],
        "vertex_interface": [_interface(binding, types) for binding in artifact.vertex_interface],
        "fragment_interface": [_interface(binding, types) for binding in artifact.fragment_interface],
        "source_map": artifact.source_map.to_json(),
    }
    document["types"] = dict(types.bodies)
    for key, value in (extra or {}).items():
        if key in document:
            raise ValueError(f"an extra section may not replace the reflection's {key!r}")
        document[key] = value
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _write_atomically(path: Path, text: str) -> None:
    # Atomic, with the umask's permissions for a new file and the old mode for an existing one.
    write_atomically(path, text.encode("utf-8"))


def export_artifact(artifact: ProgramArtifact, out_dir: str | Path, stem: str,
                    extra: Mapping[str, Any] | None = None) -> list[Path]:
    """Write the artifact's three files into `out_dir` (created if missing); return their paths.

    `extra`: additional top-level JSON sections (`artifact_json`).
    """
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    outputs = [
        (directory / f"{stem}.vert.glsl", artifact.vertex_code),
        (directory / f"{stem}.frag.glsl", artifact.fragment_code),
        (directory / f"{stem}.json", artifact_json(artifact, extra)),
    ]
    for path, text in outputs:
        _write_atomically(path, text)
    return [path for path, _ in outputs]


def file_stem(path: str | Path) -> str:
    """`dir/name.vpl` -> `name`."""
    name = Path(path).name
    return name[: -len(".vpl")] if name.endswith(".vpl") and len(name) > len(".vpl") else Path(path).stem

