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
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring as _encode_string  # json's own (C) spelling
from pathlib import Path

from vpl_core.atomic_write import write_atomically
from vpl_core.backends.glsl.artifact import InterfaceBinding, ProgramArtifact, UniformBinding
from vpl_core.ir import paths
from vpl_core.ir.types import ArrayType, MatrixType, RecordType, SamplerType, ScalarType, Type, VectorType, VoidType

# typing.TYPE_CHECKING without importing typing at run time (about 3 ms of every `vpl compile`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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
        "source_map": _Spelled(_source_map_spelling(artifact), artifact.source_map.to_json),
    }
    document["types"] = dict(types.bodies)
    for key, value in (extra or {}).items():
        if key in document:
            raise ValueError(f"an extra section may not replace the reflection's {key!r}")
        document[key] = value
    return indented_json(document) + "\n"


class _Spelled:
    """A part of a document `indented_json` takes already spelled: `spell(newline)` gives its text.

    `plain()` gives the same part as plain JSON values, for `json.dumps`
    when the document as a whole goes there.
    """

    __slots__ = ("plain", "spell")

    def __init__(self, spell: Callable[[str], str], plain: Callable[[], object]) -> None:
        self.spell = spell
        self.plain = plain


def _source_map_spelling(artifact: ProgramArtifact) -> Callable[[str], str]:
    """The reflection's `source_map` ({"fragment": [...], "vertex": [...]}) as `indented_json` spells it.

    A map has one entry per range of lines (about one per instruction), each
    a dict of two integers and one or two strings: spelled here directly,
    without making the dicts, in the layout and key order (`first`, `kind`,
    `last`, `path`) `json.dumps(sort_keys=True, indent=2)` gives them.
    """

    def spell(newline: str) -> str:
        stages = newline + "  "
        entries = stages + "  "
        keys = entries + "  "
        opening = "{" + keys + '"first": '
        closing = entries + "}"
        parts: list[str] = []
        # A path's spelling up to its last step, per parent (a block's statements share it):
        # `to_text` of (..., parent, position) is `to_text` of the parent, "/", the position.
        parents: dict[tuple[object, ...], str] = {}
        # Each kind's encoded spelling by the member's identity (an enum's `value` and `hash` run Python code;
        # a map has a range per instruction, of a dozen kinds).
        kinds: dict[int, str] = {}
        last_parent: tuple[object, ...] | None = None
        opening_of_path = ""
        for separator, name, stage_map in (("{", "fragment", artifact.source_map.fragment),
                                           (",", "vertex", artifact.source_map.vertex)):
            parts.append(separator + stages + f'"{name}": ')
            if not stage_map.ranges:
                parts.append("[]")
                continue
            spelled = []
            for source_range in stage_map.ranges:
                origin = source_range.origin
                structural = origin.path
                if structural is None:
                    path = ""
                elif len(structural) > 1 and type(structural[-1]) is int:
                    parent = structural[:-1]
                    # Consecutive ranges mostly share their parent: comparing with the last one is a check of
                    # identical items, where a lookup would hash the path (enum members hash in Python).
                    if parent != last_parent:
                        known = parents.get(parent)
                        if known is None:
                            # The encoded parent with its closing quote dropped; a position needs no escape.
                            known = parents[parent] = f',{keys}"path": ' + _encode_string(paths.to_text(parent) + "/")[:-1]
                        opening_of_path, last_parent = known, parent
                    path = f'{opening_of_path}{structural[-1]}"'
                else:
                    path = f',{keys}"path": {_encode_string(paths.to_text(structural))}'
                kind = kinds.get(id(origin.kind))
                if kind is None:
                    kind = kinds[id(origin.kind)] = _encode_string(origin.kind.value)
                spelled.append(
                    f'{opening}{source_range.first},{keys}"kind": {kind},'
                    f'{keys}"last": {source_range.last}{path}{closing}'
                )
            parts.append("[" + entries + ("," + entries).join(spelled) + stages + "]")
        parts.append(newline + "}")
        return "".join(parts)

    return spell


class _NotPlainJsonError(Exception):
    """A value `indented_json`'s fast path does not spell; the document goes to `json.dumps`."""


def indented_json(document: object) -> str:
    """`json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False)`, byte for byte, faster.

    With `indent`, the standard library encodes in pure Python, one generator
    per container: at 10k instructions the reflection's source map (about
    200,000 values) took about 45 ms of `vpl compile`'s 500. This spells the plain
    JSON values the reflection is made of (dicts with string keys, lists,
    tuples, strings, integers, floats, booleans, None; exact types only) with
    the standard library's own string and float spelling, and leaves any
    other document (subclasses, other key types, cycles) to `json.dumps`, so
    the result is always what `json.dumps` gives (`tests/vpl_core/backends/
    test_glsl_export.py` compares both).
    """
    parts: list[str] = []
    try:
        _spell(document, "\n", parts, 0)
    except (_NotPlainJsonError, RecursionError):
        return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False, default=_plain)
    return "".join(parts)


_MAX_DEPTH = 200  # deeper documents go to json.dumps (which reports cycles as json does)


_SCALARS = frozenset({str, int, float, bool, type(None)})
_STRINGS = frozenset({str})
_flat_encoders: dict[str, Callable[[object], str]] = {}


def _flat_encoder(inner: str) -> Callable[[object], str]:
    """json's C encoder with the indented layout's item separator `,<inner>`, for a container of scalars.

    It gives "{" + '"key": value' + ",<inner>" ... + "}" (json uses its C
    encoder only without `indent`); `_spell` opens the brackets up. The
    encoder object is made once per indentation (`JSONEncoder.encode` makes
    one per call, most of its cost for a small dict); where the interpreter
    has no C encoder, or its signature differs, the public encoder serves.
    """
    encoder = _flat_encoders.get(inner)
    if encoder is None:
        separator = "," + inner
        c_encoder = getattr(json.encoder, "c_make_encoder", None)
        try:
            # (markers, default, encoder, indent, key_separator, item_separator, sort_keys, skipkeys, allow_nan);
            # no markers: a container of scalars cannot hold itself.
            made = c_encoder(None, None, _encode_string, None, ": ", separator, True, False, True)  # type: ignore[misc]  # None without the C accelerator: the TypeError below
            if "".join(made({"b": [1.5, None], "a": "\u00e9"}, 0)) != '{"a": "\u00e9"' + separator + '"b": [1.5' + separator + "null]}":
                raise TypeError("unexpected output")
        except TypeError:  # None (no C accelerator) or another signature
            encoder = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(separator, ": ")).encode
        else:
            def encoder(value: object, _made: Callable[[object, int], list[str]] = made) -> str:
                return "".join(_made(value, 0))
        _flat_encoders[inner] = encoder
    return encoder


def _plain(value: object) -> object:
    if isinstance(value, _Spelled):
        return value.plain()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _spell(value: object, newline: str, parts: list[str], depth: int) -> None:
    kind = type(value)
    if kind is _Spelled:
        parts.append(value.spell(newline))  # type: ignore[attr-defined]  # `kind is _Spelled` (mypy does not narrow on it)
    elif kind is str:
        parts.append(_encode_string(value))  # type: ignore[arg-type]  # `kind is str`
    elif kind is dict:
        mapping: dict[str, object] = value  # type: ignore[assignment]  # `kind is dict`
        if depth > _MAX_DEPTH or not _STRINGS.issuperset(map(type, mapping)):
            raise _NotPlainJsonError
        if not mapping:
            parts.append("{}")
            return
        inner = newline + "  "
        if _SCALARS.issuperset(map(type, mapping.values())):
            parts.append("{" + inner + _flat_encoder(inner)(mapping)[1:-1] + newline + "}")
            return
        separator = "{" + inner
        for key, item in sorted(mapping.items()):
            parts.append(separator)
            parts.append(_encode_string(key))
            parts.append(": ")
            _spell(item, inner, parts, depth + 1)
            separator = "," + inner
        parts.append(newline + "}")
    elif kind is list or kind is tuple:
        items: list[object] | tuple[object, ...] = value  # type: ignore[assignment]  # `kind is list or kind is tuple`
        if depth > _MAX_DEPTH:
            raise _NotPlainJsonError
        if not items:
            parts.append("[]")
            return
        inner = newline + "  "
        if _SCALARS.issuperset(map(type, items)):
            parts.append("[" + inner + _flat_encoder(inner)(list(items))[1:-1] + newline + "]")
            return
        separator = "[" + inner
        for item in items:
            parts.append(separator)
            _spell(item, inner, parts, depth + 1)
            separator = "," + inner
        parts.append(newline + "]")
    elif kind in _SCALARS:
        parts.append(_flat_encoder("")(value))
    else:
        raise _NotPlainJsonError


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

