"""What the MaterialX exporter (`mtlx.py`) and importer (`mtlx_import.py`) share: MaterialX's libraries
and error types, the node correspondences both directions read, colour-space conversion and the one
place that reads outside files (through `vpl_core.external_files`, with its size budgets)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from vpl_core.external_files import read_external as _read_bounded


def read_external(path: str | os.PathLike[str], kind: str) -> bytes:
    """The bytes of a file the import or export reads (`kind` "mtlx" for a document, "image" for a texture to
    copy): regular files only, within the kind's size budget; OSError (ExternalFileError) otherwise."""
    return _read_bounded(path, kind)


def srgb_to_linear(value: float) -> float:
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


#: Surface Output input -> (gltf_pbr input, its type).
GLTF_PBR_INPUTS: dict[str, tuple[str, str]] = {
    "base_color": ("base_color", "color3"),
    "metallic": ("metallic", "float"),
    "roughness": ("roughness", "float"),
    "normal": ("normal", "vector3"),
    "ambient_occlusion": ("occlusion", "float"),
    "emissive_color": ("emissive", "color3"),
    "emissive_strength": ("emissive_strength", "float"),
    "opacity": ("alpha", "float"),
    "alpha_clip": ("alpha_cutoff", "float"),
    "specular": ("specular", "float"),
}
#: The Surface Output's glTF extension inputs: gltf_pbr has each under the same name (input -> type). The exporter
#: writes the ones in use (connected, or not their neutral value); a gltf_pbr import lists them (not read yet).
GLTF_PBR_EXTENSION_INPUTS: dict[str, str] = {
    "clearcoat": "float", "clearcoat_roughness": "float", "clearcoat_normal": "vector3", "sheen_color": "color3",
    "sheen_roughness": "float", "transmission": "float", "thickness": "float", "attenuation_color": "color3",
    "attenuation_distance": "float", "ior": "float", "iridescence": "float", "iridescence_ior": "float",
    "iridescence_thickness": "float", "anisotropy_strength": "float", "anisotropy_rotation": "float",
    "dispersion": "float",
}
#: gltf_pbr's alpha_mode values.
ALPHA_MODES = {"OPAQUE": 0, "MASK": 1, "BLEND": 2}


def _library() -> Any:
    """MaterialX's standard libraries (stdlib, pbrlib, ...), loaded once."""
    global _LIBRARY
    if _LIBRARY is None:
        import MaterialX as mx  # noqa: N813 - the package's name

        library = mx.createDocument()
        mx.loadLibraries(mx.getDefaultDataLibraryFolders(), mx.getDefaultDataSearchPath(), library)
        _LIBRARY = library
    return _LIBRARY


_LIBRARY: Any = None


def _mx_errors(mx: Any) -> tuple[type[BaseException], ...]:
    """MaterialX's exception types (its parse errors do not derive from `MaterialX.Exception`); pybind11
    turns other C++ exceptions into RuntimeError."""
    return (mx.Exception, mx.ExceptionParseError, mx.ExceptionFileMissing, mx.ExceptionFoundCycle, RuntimeError)


@dataclass(frozen=True)
class Simple:
    """A node with a one-to-one counterpart: category, our input -> its input, fixed inputs (type of the node)."""

    category: str
    inputs: dict[str, str]
    fixed: dict[str, float] = field(default_factory=dict)
    #: The MaterialX node's type when it is not our output's (e.g. dotproduct: float).
    output_type: str | None = None


def _simple(category: str, **inputs: str) -> Simple:
    return Simple(category, inputs)


UNARY = {name: _simple(name, x="in") for name in ("floor", "ceil", "fract", "sqrt", "sin", "cos", "tan", "asin", "acos", "exp", "sign", "round")}
SIMPLE: dict[str, Simple] = {
    "add": _simple("add", a="in1", b="in2"),
    "subtract": _simple("subtract", a="in1", b="in2"),
    "multiply": _simple("multiply", a="in1", b="in2"),
    "divide": _simple("divide", a="in1", b="in2"),
    "min": _simple("min", a="in1", b="in2"),
    "max": _simple("max", a="in1", b="in2"),
    "power": _simple("power", base="in1", exponent="in2"),
    "mod": _simple("modulo", a="in1", b="in2"),
    "abs": _simple("absval", x="in"),
    "log": _simple("ln", x="in"),
    "atan2": _simple("atan2", y="iny", x="inx"),
    "atan": Simple("atan2", {"x": "iny"}, {"inx": 1.0}),
    "clamp": _simple("clamp", x="in", minimum="low", maximum="high"),
    "saturate": Simple("clamp", {"x": "in"}, {"low": 0.0, "high": 1.0}),
    "negate": Simple("subtract", {"x": "in2"}, {"in1": 0.0}),
    "one_minus": Simple("invert", {"x": "in"}),
    "mix": _simple("mix", a="bg", b="fg", t="mix"),
    "smoothstep": _simple("smoothstep", x="in", edge0="low", edge1="high"),
    "step": Simple("ifgreatereq", {"x": "value1", "edge": "value2"}, {"in1": 1.0, "in2": 0.0}),
    "dot": Simple("dotproduct", {"a": "in1", "b": "in2"}, output_type="float"),
    "cross": _simple("crossproduct", a="in1", b="in2"),
    "length": Simple("magnitude", {"vector": "in"}, output_type="float"),
    "normalize": _simple("normalize", vector="in"),
    "distance": Simple("distance", {"a": "in1", "b": "in2"}, output_type="float"),
    **UNARY,
}
#: Geometric inputs: our node type -> (category, space).
GEOMETRY: dict[str, tuple[str, str | None]] = {
    "texcoord": ("texcoord", None),
    "world_position": ("position", "world"),
    "normal": ("normal", "world"),
    "tangent": ("tangent", "world"),
    "bitangent": ("bitangent", "world"),
    "object_position": ("position", "object"),
    "object_normal": ("normal", "object"),
    "time": ("time", None),
}
