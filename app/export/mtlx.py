"""MaterialX 1.39 export and import (the `MaterialX` Python package; docs/interchange.md has the tables).

**Export.** A material becomes one document: a `nodegraph` (`NG_<name>`)
with the material's nodes, a shader node and a `surfacematerial`
(`M_<name>`). The **Surface Output maps to `gltf_pbr`**: MaterialX's node for
glTF's metallic-roughness model, which the Surface Output is (same inputs,
same BRDF, KHR_materials_specular's factor, alpha mode and cutoff); the
Unlit Output maps to `surface_unlit` (emission colour = base + emissive).

Nodes are exported by the table `EXPORTS`: a node with a standard-library
counterpart becomes that node (or a short fixed chain: Tiling Offset is a
`multiply` and an `add`), typed by the port types the editor resolved;
inputs whose type differs from their source's get a `convert` node.
Material parameters become the node graph's interface inputs (`constant`
nodes read them; a Texture Parameter is a `filename` input the `image`
reads, with `colorspace="srgb_texture"` when the material decodes it). A
node *without* a counterpart (noise, colour ramp, lighting nodes, ...) is
**baked**: each of its outputs that a mapped node reads is rendered into an
OpenEXR image on the bake mesh's UVs (`app.export.bake`), and an `image`
node reads it; every such node gets a note (`MtlxExport.notes`). Nodes are
named after the editor's node ids (`n5`; a chain's extra nodes `n5_<role>`)
and the node graph's children and every node's inputs are sorted by name,
so export → import → export gives the same document. Without a baker
(`bake=None`) a material that needs baking raises `NeedsBaking` (callers
then open a GL context and try again).

**Import.** `import_mtlx(path)` reads a document, takes its first
`surfacematerial` whose shader is `gltf_pbr` or `surface_unlit`, and walks
the inputs upstream through the inverse table `IMPORTS`: each node with a
counterpart becomes an editor node (keeping its name as the node id when it
is free); `convert` nodes are dropped (the editor converts between port
types by itself). Anything else is **not imported**: the input it fed keeps
its default, and `MtlxImport.skipped` lists it with the reason.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.export.surface import SURFACE, UNLIT, ExportError, output_node_id
from app.material.catalog import NODE_TYPES
from app.material.graph import MaterialGraph, Node
from app.material.node_types import as_numbers, input_default
from app.material.port_types import LUMINANCE_WEIGHTS, PortType
from app.material.propagation import propagate
from app.material.traversal import node_id_key

MTLX_VERSION = "1.39"
#: Our port types as MaterialX types.
MX_TYPES: dict[PortType, str] = {
    PortType.FLOAT: "float",
    PortType.VEC2: "vector2",
    PortType.VEC3: "vector3",
    PortType.VEC4: "vector4",
    PortType.COLOR: "color4",
    PortType.BOOL: "boolean",
}
_WIDTHS = {"float": 1, "vector2": 2, "vector3": 3, "vector4": 4, "color3": 3, "color4": 4, "boolean": 1, "integer": 1}

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


def _format(values: Sequence[float]) -> str:
    return ", ".join(_number(value) for value in values)


def _number(value: float) -> str:
    text = f"{float(value):.6g}"
    return "0" if text == "-0" else text


def _name_key(name: str) -> tuple[Any, ...]:
    """Sort key of element names: numbers inside compare as numbers (n2 before n10)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name))


def _name(text: str) -> str:
    """A valid MaterialX element name (letters, digits, underscore; not starting with a digit)."""
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", text) or "material"
    return cleaned if not cleaned[0].isdigit() else f"_{cleaned}"


# Export ----------------------------------------------------------------------------------------


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
#: If node operator -> (category, swap the compared values, swap the branches).
IF_OPERATORS: dict[str, tuple[str, bool, bool]] = {
    ">": ("ifgreater", False, False),
    ">=": ("ifgreatereq", False, False),
    "==": ("ifequal", False, False),
    "<": ("ifgreater", True, False),
    "<=": ("ifgreatereq", True, False),
    "!=": ("ifequal", False, True),
}
PARAMETER_TYPES = ("float_parameter", "vector_parameter", "color_parameter")
CONSTANT_TYPES = ("constant_float", "constant_vec2", "constant_vec3", "constant_vec4", "constant_color")
#: Node types handled by dedicated code in `_Exporter` (besides SIMPLE and GEOMETRY).
SPECIAL = ("sample_texture", "split", "compose", "tiling_offset", "normal_map", "orm_unpack", "remap", "if", "reroute",
           *PARAMETER_TYPES, *CONSTANT_TYPES)


def exportable(node: Node) -> bool:
    """Whether `node` has a MaterialX counterpart (else it is baked)."""
    name = node.type_name
    if name == "remap":
        return not bool(node.properties.get("clamp", False))
    if name == "normal_map":
        return bool(node.properties.get("convention", "opengl") == "opengl")
    if name == "if":
        return node.properties.get("operator", ">") in IF_OPERATORS
    if name == "swizzle":
        from app.material.nodes.vectors import swizzle_pattern

        pattern = swizzle_pattern(node.properties.get("pattern", "xyz"))
        return pattern is not None and len(pattern) == 1
    return name in SIMPLE or name in GEOMETRY or name in SPECIAL


class NeedsBaking(ExportError):  # noqa: N818 - says what is needed, raised as an ExportError
    """The material has nodes without a MaterialX counterpart and no baker was given (they need OpenGL)."""


@dataclass
class MtlxExport:
    """What `export_mtlx` wrote: the document's text, notes per baked node, and the image files it baked."""

    text: str
    notes: list[str] = field(default_factory=list)
    baked_files: list[Path] = field(default_factory=list)


#: bake(outputs) -> {(node id, port): BakedImage}: bakes node outputs (app.export.bake.Baker.bake_node_outputs).
BakeOutputs = Callable[[Sequence[tuple[str, str]]], dict[tuple[str, str], Any]]


@dataclass(frozen=True)
class _Value:
    """What feeds a MaterialX input: a node's output (`node`, `output`) or inline numbers (`numbers`)."""

    mx_type: str
    node: Any = None
    output: str = ""
    numbers: tuple[float, ...] = ()


def _coerce_numbers(numbers: Sequence[float], from_type: str, to_type: str) -> tuple[float, ...]:
    """Inline values converted as the editor converts port types (float splats, colours drop or add alpha, a colour
    into a float gives its luminance)."""
    width = _WIDTHS[to_type]
    if len(numbers) == 1:
        return (float(numbers[0]),) * width
    if width == 1 and from_type in ("color3", "color4"):
        return (sum(weight * float(number) for weight, number in zip(LUMINANCE_WEIGHTS, numbers)),)
    values = list(numbers[:width])
    while len(values) < width:
        values.append(1.0 if (to_type == "color4" and len(values) == 3) else 0.0)
    return tuple(values)


class _Exporter:
    def __init__(self, graph: MaterialGraph, name: str, document_dir: Path | None, target_dir: Path) -> None:
        import MaterialX as mx  # noqa: N813 - the package's name

        self.mx = mx
        self.graph = graph
        self.name = _name(name)
        self.document_dir = document_dir
        self.target_dir = target_dir
        self.types = propagate(graph).port_types
        self.output_id = output_node_id(graph)
        self.output = graph.nodes[self.output_id]
        self.kind = self.output.type_name
        self.incoming = {(c.target_node, c.target_port): c for c in graph.connections}
        self.doc = mx.createDocument()
        self.doc.setColorSpace("lin_rec709")
        self.nodegraph = self.doc.addNodeGraph(f"NG_{self.name}")
        self.emitted: dict[tuple[str, str], _Value] = {}
        self.to_bake: list[tuple[str, str]] = []
        self.notes: list[str] = []
        self.interface: dict[str, Any] = {}

    # Values.

    def port_type(self, node_id: str, port: str) -> str:
        port_type = self.types.get((node_id, port))
        if port_type is None or port_type not in MX_TYPES:
            raise ExportError(f"{node_id}.{port} has no MaterialX type ({port_type})")
        return MX_TYPES[port_type]

    def input_value(self, node: Node, port: str, mx_type: str) -> _Value:
        """Our input `port` of `node` as a MaterialX value of `mx_type` (connected output or inline numbers)."""
        connection = self.incoming.get((node.id, port))
        if connection is None:
            default = input_default(node, NODE_TYPES[node.type_name], port)
            if isinstance(default, str):  # a built-in source (texcoord, world normal): MaterialX's own default
                return self.source_default(default, mx_type)
            if mx_type == "boolean":
                return _Value(mx_type, numbers=(1.0 if bool(default) else 0.0,))
            return _Value(mx_type, numbers=tuple(as_numbers(default, _WIDTHS[mx_type], pad_alpha=mx_type == "color4")))
        return self.value(connection.source_node, connection.source_port)

    def source_default(self, source: str, mx_type: str) -> _Value:
        """The node for a built-in default (one per document, named `default_<source>`; the importer drops it)."""
        categories = {"texcoord": ("texcoord", None, "vector2"), "world_position": ("position", "world", "vector3"),
                      "world_normal": ("normal", "world", "vector3"), "time": ("time", None, "float")}
        if source not in categories:
            raise ExportError(f"the default {source!r} has no MaterialX counterpart")
        category, space, node_type = categories[source]
        name = f"default_{source}"
        node = self.nodegraph.getNode(name)
        if node is None:
            node = self.nodegraph.addNode(category, name, node_type)
            if space is not None:
                node.setInputValue("space", space, "string")
        return _Value(node_type, node)

    def connect(self, element: Any, value: _Value, mx_type: str, convert_name: str) -> None:
        """Give `element` (an input or output, of `mx_type`) the value: inline numbers, or a connection (converted)."""
        if value.node is None:
            numbers = _coerce_numbers(value.numbers, value.mx_type, mx_type)
            element.setValueString("true" if mx_type == "boolean" and numbers[0] else "false" if mx_type == "boolean" else _format(numbers))
            return
        source, output = value.node, value.output
        if value.mx_type != mx_type:
            source, output = self.convert(value, mx_type, convert_name), ""
        element.setConnectedNode(source)
        if output:
            element.setOutputString(output)

    def set_input(self, mx_node: Any, mx_input: str, node: Node, port: str, mx_type: str) -> None:
        """Connect (or give the value of) our input `port` of `node` as `mx_input` of `mx_node`, typed `mx_type`."""
        element = mx_node.addInput(mx_input, mx_type)
        self.connect(element, self.input_value(node, port, mx_type), mx_type, f"{mx_node.getName()}_{mx_input}_convert")

    def convert(self, value: _Value, to_type: str, name: str) -> Any:
        existing = self.nodegraph.getNode(name)
        if existing is not None:
            return existing
        if to_type == "float" and value.mx_type in ("color3", "color4"):
            # The editor's colour-to-float conversion is the luminance with Rec. 709 weights (MaterialX's own default
            # weights are ACEScg's): `luminance` with the editor's weights, then its first channel.
            luminance = self.nodegraph.addNode("luminance", f"{name}_luminance", value.mx_type)
            element = luminance.addInput("in", value.mx_type)
            element.setConnectedNode(value.node)
            if value.output:
                element.setOutputString(value.output)
            luminance.setInputValue("lumacoeffs", self.mx.Color3(*LUMINANCE_WEIGHTS), "color3")
            node = self.nodegraph.addNode("extract", name, "float")
            node.addInput("in", value.mx_type).setConnectedNode(luminance)
            node.setInputValue("index", 0, "integer")
            return node
        node = self.nodegraph.addNode("convert", name, to_type)
        element = node.addInput("in", value.mx_type)
        element.setConnectedNode(value.node)
        if value.output:
            element.setOutputString(value.output)
        return node

    def value(self, node_id: str, port: str) -> _Value:
        """Our output (node_id, port) in MaterialX: emitted on first use (only the ports used), or baked."""
        key = (node_id, port)
        if key not in self.emitted:
            node = self.graph.nodes[node_id]
            if node.type_name == "reroute":
                self.emitted[key] = self.input_value(node, "in", self.port_type(node_id, "out"))
            elif exportable(node):
                self.emit(node, port)
            else:
                self.bake_placeholder(node, port)
        return self.emitted[key]

    # Nodes.

    def add(self, category: str, name: str, mx_type: str, node: Node, offset: float = 0.0) -> Any:
        """A MaterialX node with our node's position (xpos/ypos, in hundreds of the editor's units)."""
        mx_node = self.nodegraph.addNode(category, name, mx_type)
        mx_node.setAttribute("xpos", _number(node.position[0] / 100.0 - offset))
        mx_node.setAttribute("ypos", _number(node.position[1] / 100.0 + offset))
        return mx_node

    def extract(self, source: _Value, index: int, name: str, node: Node) -> _Value:
        extract = self.add("extract", name, "float", node, 0.5)
        self.connect(extract.addInput("in", source.mx_type), source, source.mx_type, "")
        extract.addInput("index", "integer").setValueString(str(index))
        return _Value("float", extract)

    def emit(self, node: Node, port: str) -> None:
        name = node.type_name
        out_type = self.port_type(node.id, "out") if NODE_TYPES[name].output("out") is not None else ""
        if name in SIMPLE:
            spec = SIMPLE[name]
            mx_node = self.add(spec.category, node.id, spec.output_type or out_type, node)
            for fixed, number in spec.fixed.items():
                mx_node.addInput(fixed, "float").setValueString(_number(number))
            for ours, theirs in spec.inputs.items():
                self.set_input(mx_node, theirs, node, ours, self.port_type(node.id, ours))
            self.emitted[(node.id, "out")] = _Value(out_type, mx_node)
        elif name in GEOMETRY:
            category, space = GEOMETRY[name]
            mx_node = self.add(category, node.id, out_type, node)
            if space is not None:
                mx_node.setInputValue("space", space, "string")
            self.emitted[(node.id, "out")] = _Value(out_type, mx_node)
        elif name in CONSTANT_TYPES:  # inlined where it is used
            self.emitted[(node.id, "out")] = _Value(out_type, numbers=self.property_numbers(node, "value", out_type))
        elif name in PARAMETER_TYPES:
            parameter = str(node.properties.get("name", node.id))
            mx_node = self.add("constant", node.id, out_type, node)
            interface = self.interface.get(parameter)
            if interface is None:
                interface = self.interface[parameter] = self.nodegraph.addInput(_name(parameter), out_type)
                interface.setValueString(_format(self.property_numbers(node, "default", out_type)))
                if name != "color_parameter":
                    interface.setAttribute("uimin", _number(float(node.properties.get("minimum", 0.0))))
                    interface.setAttribute("uimax", _number(float(node.properties.get("maximum", 1.0))))
            mx_node.addInput("value", out_type).setInterfaceName(interface.getName())
            self.emitted[(node.id, "out")] = _Value(out_type, mx_node)
        else:
            getattr(self, f"emit_{name}")(node, port, out_type)

    def property_numbers(self, node: Node, prop: str, mx_type: str) -> tuple[float, ...]:
        spec = NODE_TYPES[node.type_name].property(prop)
        stored = node.properties.get(prop, spec.default if spec is not None else 0.0)
        return tuple(as_numbers(stored, _WIDTHS[mx_type], pad_alpha=mx_type == "color4"))

    def emit_sample_texture(self, node: Node, port: str, out_type: str) -> None:
        image = self.nodegraph.getNode(node.id)
        if image is None:
            connection = self.incoming.get((node.id, "texture"))
            source = self.graph.nodes.get(connection.source_node) if connection is not None else None
            if source is None or source.type_name != "texture_parameter":
                raise ExportError(f"{node.id}: Sample Texture needs a Texture Parameter")
            parameter = str(source.properties.get("name", source.id))
            interface = self.interface.get(parameter)
            if interface is None:
                interface = self.interface[parameter] = self.nodegraph.addInput(_name(parameter), "filename")
                interface.setValueString(self.file_path(str(source.properties.get("image", ""))))
                if self.kind == SURFACE and source.properties.get("color_space", "srgb") != "linear":
                    interface.setColorSpace("srgb_texture")  # the editor decodes it in a Surface Output material
            image = self.add("image", node.id, "color4", node)
            image.addInput("file", "filename").setInterfaceName(interface.getName())
            self.set_input(image, "texcoord", node, "uv", "vector2")
            rgba = _Value("color4", image)
            self.emitted[(node.id, "rgba")] = rgba
            self.emitted[(node.id, "rgb")] = rgba  # the consumer converts color4 -> vector3 (drops alpha, as the editor)
        if port in ("r", "g", "b", "a"):
            self.emitted[(node.id, port)] = self.extract(self.emitted[(node.id, "rgba")], "rgba".index(port), f"{node.id}_{port}", node)

    def file_path(self, stored: str) -> str:
        from app.session.textures import resolve_texture_path

        if not stored:
            return ""
        path = resolve_texture_path(stored, self.document_dir)
        try:
            return Path(os.path.relpath(path, self.target_dir)).as_posix()
        except ValueError:  # another drive (Windows)
            return path.as_posix()

    def emit_split(self, node: Node, port: str, out_type: str) -> None:
        in_type = self.port_type(node.id, "vector")
        source = self.input_value(node, "vector", in_type)
        index = "xyzw".index(port)
        if index >= _WIDTHS[in_type]:
            self.emitted[(node.id, port)] = _Value("float", numbers=(0.0,))
        elif source.node is None:
            self.emitted[(node.id, port)] = _Value("float", numbers=(source.numbers[index],))
        else:
            self.emitted[(node.id, port)] = self.extract(source, index, f"{node.id}_{port}", node)

    def emit_swizzle(self, node: Node, port: str, out_type: str) -> None:
        from app.material.nodes.vectors import swizzle_pattern

        pattern = swizzle_pattern(node.properties.get("pattern", "xyz")) or "x"
        in_type = self.port_type(node.id, "vector")
        extract = self.add("extract", node.id, "float", node)
        self.set_input(extract, "in", node, "vector", in_type)
        extract.addInput("index", "integer").setValueString(str("xyzw".index(pattern)))
        self.emitted[(node.id, "out")] = _Value("float", extract)

    def emit_compose(self, node: Node, port: str, out_type: str) -> None:
        width = _WIDTHS[out_type]
        combine = self.add(f"combine{width}", node.id, out_type, node)
        for index, component in enumerate("xyzw"[:width]):
            self.set_input(combine, f"in{index + 1}", node, component, "float")
        self.emitted[(node.id, "out")] = _Value(out_type, combine)

    def emit_tiling_offset(self, node: Node, port: str, out_type: str) -> None:
        scale = self.add("multiply", f"{node.id}_tiling", "vector2", node, 1.0)
        self.set_input(scale, "in1", node, "uv", "vector2")
        self.set_input(scale, "in2", node, "tiling", "vector2")
        shift = self.add("add", node.id, "vector2", node)
        shift.addInput("in1", "vector2").setConnectedNode(scale)
        self.set_input(shift, "in2", node, "offset", "vector2")
        self.emitted[(node.id, "out")] = _Value("vector2", shift)

    def emit_normal_map(self, node: Node, port: str, out_type: str) -> None:
        normal_map = self.add("normalmap", node.id, "vector3", node)
        self.set_input(normal_map, "in", node, "tangent_normal", "vector3")
        self.set_input(normal_map, "scale", node, "strength", "float")
        if (node.id, "normal") in self.incoming:
            self.set_input(normal_map, "normal", node, "normal", "vector3")
        self.emitted[(node.id, "normal_out")] = _Value("vector3", normal_map)

    def emit_orm_unpack(self, node: Node, port: str, out_type: str) -> None:
        index = ("occlusion", "roughness", "metallic").index(port)
        source = self.input_value(node, "orm", "color4")
        if source.node is None:
            self.emitted[(node.id, port)] = _Value("float", numbers=(source.numbers[index],))
        else:
            self.emitted[(node.id, port)] = self.extract(source, index, f"{node.id}_{port}", node)

    def emit_remap(self, node: Node, port: str, out_type: str) -> None:
        remap = self.add("remap", node.id, out_type, node)
        for ours, theirs in (("x", "in"), ("in_min", "inlow"), ("in_max", "inhigh"), ("out_min", "outlow"), ("out_max", "outhigh")):
            self.set_input(remap, theirs, node, ours, self.port_type(node.id, ours))
        self.emitted[(node.id, "out")] = _Value(out_type, remap)

    def emit_if(self, node: Node, port: str, out_type: str) -> None:
        category, swap_values, swap_branches = IF_OPERATORS[node.properties.get("operator", ">")]
        mx_node = self.add(category, node.id, out_type, node)
        value1, value2 = ("b", "a") if swap_values else ("a", "b")
        in1, in2 = ("if_false", "if_true") if swap_branches else ("if_true", "if_false")
        self.set_input(mx_node, "value1", node, value1, "float")
        self.set_input(mx_node, "value2", node, value2, "float")
        self.set_input(mx_node, "in1", node, in1, out_type)
        self.set_input(mx_node, "in2", node, in2, out_type)
        self.emitted[(node.id, "out")] = _Value(out_type, mx_node)

    def bake_placeholder(self, node: Node, port: str) -> None:
        """An `image` node for a baked output; the file is written by `bake_pending`."""
        out_type = self.port_type(node.id, port)
        file_name = f"{self.name}_{node.id}_{port}.exr"
        image = self.add("image", f"{node.id}_{port}_baked", out_type, node)
        image.addInput("file", "filename").setValueString(file_name)
        self.emitted[(node.id, port)] = _Value(out_type, image)
        self.to_bake.append((node.id, port))
        node_type = NODE_TYPES.get(node.type_name)
        label = node_type.display_name if node_type is not None else node.type_name
        self.notes.append(f"{node.id} ({label}) output '{port}': no MaterialX counterpart; baked to {file_name}")

    # The shader and the material.

    def build(self) -> None:
        mx = self.mx
        if self.kind == SURFACE:
            shader = self.doc.addNode("gltf_pbr", f"SR_{self.name}", "surfaceshader")
            from app.export.surface import describe_output

            description = describe_output(self.graph)
            for ours, (theirs, mx_type) in GLTF_PBR_INPUTS.items():
                if ours == "normal" and (self.output_id, ours) not in self.incoming:
                    continue  # the default: the interpolated normal
                if ours == "alpha_clip" and description.alpha_mode != "MASK":
                    continue
                self.shader_input(shader, theirs, ours, mx_type)
            shader.setInputValue("alpha_mode", ALPHA_MODES[description.alpha_mode], "integer")
        elif self.kind == UNLIT:
            shader = self.doc.addNode("surface_unlit", f"SR_{self.name}", "surfaceshader")
            shader.setInputValue("emission", 1.0, "float")
            self.shader_connect(shader.addInput("emission_color", "color3"), self.unlit_color(), "color3", "emission_color")
            self.shader_input(shader, "opacity", "opacity", "float")
            if (self.output_id, "alpha_clip") in self.incoming or float(self.output.properties.get("alpha_clip", 0.0)) > 0.0:
                self.notes.append(f"{self.output_id} (Unlit Output): alpha clip has no surface_unlit counterpart; not exported")
        else:
            raise ExportError(f"output node {self.kind!r} cannot be exported")
        mx.Document.addMaterialNode(self.doc, f"M_{self.name}", shader)

    def sort_children(self) -> None:
        """A canonical order of the node graph's children (interface inputs, nodes by name, outputs).

        The walk's order depends on the graph's connection order, which an
        import does not keep; sorting makes export -> import -> export stable.
        """
        rank = {"input": 0, "output": 2}
        children = sorted(self.nodegraph.getChildren(),
                          key=lambda child: (rank.get(child.getCategory(), 1), _name_key(child.getName())))
        for index, child in enumerate(children):
            self.nodegraph.setChildIndex(child.getName(), index)
            inputs = sorted(child.getChildren(), key=lambda element: element.getName()) if rank.get(child.getCategory()) is None else []
            for position, element in enumerate(inputs):
                child.setChildIndex(element.getName(), position)

    def unlit_color(self) -> _Value:
        """base.rgb + emissive (the Unlit Output's colour); the base alone when the emissive is unconnected black."""
        base = self.input_value(self.output, "base_color", "color3")
        emissive = self.input_value(self.output, "emissive", "color3")
        if emissive.node is None and not any(emissive.numbers):
            return base
        if base.node is None and emissive.node is None:
            return _Value("color3", numbers=tuple(a + b for a, b in zip(base.numbers, emissive.numbers)))
        add = self.nodegraph.addNode("add", f"{self.output_id}_color", "color3")
        self.connect(add.addInput("in1", "color3"), base, "color3", f"{self.output_id}_base_convert")
        self.connect(add.addInput("in2", "color3"), emissive, "color3", f"{self.output_id}_emissive_convert")
        return _Value("color3", add)

    def shader_connect(self, element: Any, value: _Value, mx_type: str, name: str) -> None:
        """A shader input from a value: inline numbers, or a node graph output `<name>_out`."""
        if value.node is None:
            self.connect(element, value, mx_type, "")
            return
        output = self.nodegraph.addOutput(f"{name}_out", mx_type)
        self.connect(output, value, mx_type, f"{name}_convert")
        element.setNodeGraphString(self.nodegraph.getName())
        element.setOutputString(output.getName())

    def shader_input(self, shader: Any, theirs: str, ours: str, mx_type: str) -> None:
        self.shader_connect(shader.addInput(theirs, mx_type), self.input_value(self.output, ours, mx_type), mx_type, theirs)

    def bake_pending(self, bake: BakeOutputs | None) -> list[Path]:
        """Bake the outputs of nodes without a counterpart into the images their `image` nodes read."""
        if not self.to_bake:
            return []
        if bake is None:
            listed = ", ".join(f"{node}.{port}" for node, port in self.to_bake)
            raise NeedsBaking(f"these node outputs have no MaterialX counterpart and need baking (OpenGL): {listed}")
        from app.export.images import write_image

        baked = bake(self.to_bake)
        written = []
        for node_id, port in self.to_bake:
            image = baked[(node_id, port)]
            width = _WIDTHS[self.port_type(node_id, port)]
            values = image.values[:, :, : max(width, 1)] if width != 1 else image.values[:, :, :1]
            path = self.target_dir / f"{self.name}_{node_id}_{port}.exr"
            written.append(write_image(path, values.astype("float32"), "linear"))
        return written


def export_document(graph: MaterialGraph, path: str | os.PathLike[str], name: str = "", *, document_dir: Path | None = None,
                    bake: BakeOutputs | None = None) -> MtlxExport:
    """Build (and bake what must be baked for) the MaterialX document of `graph`; writes nothing but baked images."""
    target = Path(path)
    exporter = _Exporter(graph, name or target.stem, document_dir, target.parent)
    exporter.build()  # walks upstream from the shader's inputs: exactly the nodes the output needs
    exporter.sort_children()
    files = exporter.bake_pending(bake)
    text = exporter.mx.writeToXmlString(exporter.doc)
    return MtlxExport(text, exporter.notes, files)


def export_mtlx(graph: MaterialGraph, path: str | os.PathLike[str], name: str = "", *, document_dir: Path | None = None,
                bake: BakeOutputs | None = None) -> MtlxExport:
    """Write the MaterialX document of `graph` to `path` (and its baked images beside it)."""
    from vpl_core.atomic_write import write_atomically

    result = export_document(graph, path, name, document_dir=document_dir, bake=bake)
    write_atomically(Path(path), result.text.encode("utf-8"))
    return result


# Checking with MaterialX itself ----------------------------------------------------------------


def validate(text: str) -> tuple[bool, str]:
    """MaterialX's own validation of a document (with the standard libraries)."""
    import MaterialX as mx  # noqa: N813 - the package's name

    doc = mx.createDocument()
    mx.readFromXmlString(doc, text)
    doc.setDataLibrary(_library())
    valid, message = doc.validate()
    return bool(valid), str(message)


def generate_glsl(text: str) -> tuple[str, str]:
    """(vertex, pixel) GLSL that MaterialX's GLSL generator makes for the document's first material.

    Raises ExportError with the generator's message when it fails.
    """
    import MaterialX as mx  # noqa: N813 - the package's name
    import MaterialX.PyMaterialXGenGlsl as mx_gen_glsl  # noqa: N813 - the package's name
    import MaterialX.PyMaterialXGenShader as mx_gen_shader  # noqa: N813 - the package's name

    doc = mx.createDocument()
    mx.readFromXmlString(doc, text)
    doc.setDataLibrary(_library())
    materials = list(doc.getMaterialNodes())
    if not materials:
        raise ExportError("the document has no material")
    generator = mx_gen_glsl.GlslShaderGenerator.create()
    context = mx_gen_shader.GenContext(generator)
    context.registerSourceCodeSearchPath(mx.getDefaultDataSearchPath())
    generator.registerTypeDefs(doc)
    try:
        shader = generator.generate(materials[0].getName(), materials[0], context)
    except _mx_errors(mx) as error:
        raise ExportError(f"MaterialX's GLSL generator failed: {error}") from None
    return shader.getSourceCode(mx_gen_shader.VERTEX_STAGE), shader.getSourceCode(mx_gen_shader.PIXEL_STAGE)


# Import ----------------------------------------------------------------------------------------


@dataclass
class MtlxImport:
    """The imported graph and what was not imported (one line each, for the artist)."""

    graph: MaterialGraph
    skipped: list[str] = field(default_factory=list)


INVERSE_SIMPLE: dict[str, tuple[str, dict[str, str]]] = {}
for _ours, _spec in SIMPLE.items():
    if not _spec.fixed and _spec.category not in INVERSE_SIMPLE:
        INVERSE_SIMPLE[_spec.category] = (_ours, {theirs: ours for ours, theirs in _spec.inputs.items()})
INVERSE_GEOMETRY = {value: key for key, value in GEOMETRY.items()}
_MX_TO_PORT = {"float": PortType.FLOAT, "vector2": PortType.VEC2, "vector3": PortType.VEC3, "vector4": PortType.VEC4,
               "color4": PortType.COLOR, "color3": PortType.VEC3}
_CONSTANT_NODE = {"float": "constant_float", "vector2": "constant_vec2", "vector3": "constant_vec3", "vector4": "constant_vec4",
                  "color4": "constant_color", "color3": "constant_color"}


class _Importer:
    def __init__(self, doc: Any, folder: Path) -> None:
        self.doc = doc
        self.folder = folder
        self.graph = MaterialGraph()
        self.skipped: list[str] = []
        self.made: dict[tuple[str, str], tuple[str, str] | None] = {}  # (graph path, node name, output) -> (our node, port)
        self.parameters: dict[str, str] = {}

    def new_id(self, name: str) -> str:
        if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) and name not in self.graph.nodes and not name.startswith("default_"):
            return name
        return self.graph.new_node_id()

    def position(self, element: Any) -> tuple[float, float]:
        try:
            return float(element.getAttribute("xpos") or 0.0) * 100.0, float(element.getAttribute("ypos") or 0.0) * 100.0
        except ValueError:
            return 0.0, 0.0

    def numbers(self, element: Any) -> tuple[float, ...] | None:
        text = element.getValueString()
        try:
            return tuple(float(part) for part in text.split(",")) if text.strip() else None
        except ValueError:
            return None

    def interface_value(self, element: Any) -> Any:
        """The interface input a node input reads (through `interfacename`), or None."""
        name = element.getInterfaceName()
        if not name:
            return None
        parent = element.getParent().getParent()
        return parent.getInput(name) if parent is not None else None

    def connect(self, element: Any, target: str, port: str, what: str) -> None:
        """Feed our input `port` of node `target` from the MaterialX input `element` (value or connection)."""
        upstream = element.getConnectedNode()
        if upstream is None and element.getNodeGraphString():
            graph = self.doc.getNodeGraph(element.getNodeGraphString())
            output = graph.getOutput(element.getOutputString()) if graph is not None else None
            if output is None:
                self.skipped.append(f"{what}: reads a missing node graph output; left at its default")
                return
            upstream = output.getConnectedNode()
            source_output = output.getOutputString()
        else:
            source_output = element.getOutputString()
        if upstream is None:
            interface = self.interface_value(element)
            values = self.numbers(interface if interface is not None else element)
            if values is not None:
                self.set_value(target, port, values, element.getType())
            return
        if upstream.getName().startswith("default_") and upstream.getCategory() in ("texcoord", "position", "normal", "time"):
            node = self.graph.nodes[target]
            if isinstance(input_default(node, NODE_TYPES[node.type_name], port), str):
                return  # the exporter's stand-in for the input's built-in default: leave the input unconnected
        made = self.node(upstream, source_output, what)
        if made is not None:
            self.graph.connect(made[0], made[1], target, port)

    def set_value(self, target: str, port: str, values: tuple[float, ...], mx_type: str) -> None:
        """An inline value for our input: the node's property when it can hold it, else a constant node."""
        node = self.graph.nodes[target]
        node_type = NODE_TYPES[node.type_name]
        spec = node_type.property(port)
        uniform = all(value == values[0] for value in values)
        if spec is not None and spec.kind == "float" and uniform:
            node.properties[port] = values[0]
            return
        if spec is not None and spec.kind in ("color", "vector"):
            node.properties[port] = _fit(values, "color4") if spec.kind == "color" else tuple(values)
            return
        if spec is not None and spec.kind == "bool":
            node.properties[port] = bool(values[0])
            return
        if spec is None:
            input_spec = node_type.input(port)
            default = input_spec.default if input_spec is not None else 0.0
            if not isinstance(default, str) and tuple(as_numbers(default, len(values), pad_alpha=mx_type == "color4")) == tuple(values):
                return  # the port's own default: nothing to set
        constant = self.graph.add_node(_CONSTANT_NODE.get(mx_type, "constant_vec3"), (node.position[0] - 150.0, node.position[1]),
                                       {"value": _fit(values, mx_type)}, node_id=self.new_id(f"{target}_{port}"))
        self.graph.connect(constant.id, "out", target, port)

    def node(self, element: Any, output: str, what: str) -> tuple[str, str] | None:
        """Our (node id, port) for the MaterialX node `element`'s output `output`, made on first use."""
        key = (element.getNamePath(), output)
        if key in self.made:
            return self.made[key]
        self.made[key] = None  # cycles end here
        made = self._make(element, output, what)
        self.made[key] = made
        return made

    def _make(self, element: Any, output: str, what: str) -> tuple[str, str] | None:
        category = element.getCategory()
        mx_type = element.getType()
        name = element.getName()
        position = self.position(element)
        label = f"node '{name}' ({category}, {mx_type})"

        def inputs(node_id: str, mapping: dict[str, str]) -> None:
            for theirs, ours in mapping.items():
                source = element.getInput(theirs)
                if source is not None:
                    self.connect(source, node_id, ours, f"{label} input '{theirs}'")

        if category == "convert":
            source = element.getInput("in")
            if source is None:
                return None
            upstream = source.getConnectedNode()
            if upstream is None:
                node = self.graph.add_node(_CONSTANT_NODE.get(mx_type, "constant_vec3"), position, node_id=self.new_id(name))
                values = self.numbers(source)
                if values is not None:
                    node.properties["value"] = _fit(values, mx_type)
                return node.id, "out"
            return self.node(upstream, source.getOutputString(), what)
        if category == "add" and mx_type == "vector2":
            tiling = self.tiling_offset(element, position, name, inputs)
            if tiling is not None:
                return tiling
        if category in ("clamp", "subtract", "invert", "atan2") or category.startswith("if"):
            return self._make_special(element, category, position, name, inputs)
        if category in INVERSE_SIMPLE:
            ours, mapping = INVERSE_SIMPLE[category]
            node = self.graph.add_node(ours, position, node_id=self.new_id(name))
            inputs(node.id, mapping)
            return node.id, "out"
        geometry = INVERSE_GEOMETRY.get((category, element.getInputValue("space") if category in ("position", "normal", "tangent", "bitangent") else None))
        if category in ("position", "normal", "tangent", "bitangent") and geometry is None:
            space = element.getInputValue("space") or "object"
            geometry = INVERSE_GEOMETRY.get((category, str(space)))
        if category in ("texcoord", "time"):
            geometry = INVERSE_GEOMETRY.get((category, None))
        if geometry is not None:
            node = self.graph.add_node(geometry, position, node_id=self.new_id(name))
            return node.id, "out"
        if category == "constant":
            value = element.getInput("value")
            interface = self.interface_value(value) if value is not None else None
            if interface is not None:
                return self.parameter(interface, mx_type, position, name)
            node = self.graph.add_node(_CONSTANT_NODE.get(mx_type, "constant_float"), position, node_id=self.new_id(name))
            values = self.numbers(value) if value is not None else None
            if values is not None:
                node.properties["value"] = _fit(values, mx_type)
            return node.id, "out"
        if category == "image":
            return self.image(element, output, position, name, label)
        if category == "extract":
            index_input = element.getInput("index")
            index = int(float(index_input.getValueString() or 0)) if index_input is not None else 0
            swizzle = self.graph.add_node("swizzle", position, {"pattern": "xyzw"[min(max(index, 0), 3)]}, node_id=self.new_id(name))
            inputs(swizzle.id, {"in": "vector"})
            return swizzle.id, "out"
        if category.startswith("separate"):
            split = self.graph.add_node("split", position, node_id=self.new_id(name))
            inputs(split.id, {"in": "vector"})
            port = output.removeprefix("out") if output else "x"
            return split.id, {"r": "x", "g": "y", "b": "z", "a": "w"}.get(port, port if port in "xyzw" else "x")
        if category.startswith("combine") and category[-1] in "234" and not category.endswith("CF"):
            width = int(category[-1])
            compose = self.graph.add_node("compose", position, {"size": width}, node_id=self.new_id(name))
            inputs(compose.id, {f"in{index + 1}": "xyzw"[index] for index in range(width)})
            return compose.id, "out"
        if category == "remap":
            node = self.graph.add_node("remap", position, {"clamp": False}, node_id=self.new_id(name))
            inputs(node.id, {"in": "x", "inlow": "in_min", "inhigh": "in_max", "outlow": "out_min", "outhigh": "out_max"})
            return node.id, "out"
        if category == "normalmap":
            node = self.graph.add_node("normal_map", position, node_id=self.new_id(name))
            inputs(node.id, {"in": "tangent_normal", "scale": "strength", "normal": "normal"})
            return node.id, "normal_out"
        self.skipped.append(f"{label}: no counterpart in the editor; {what} left at its default")
        return None

    def tiling_offset(self, element: Any, position: tuple[float, float], name: str, inputs: Any) -> tuple[str, str] | None:
        """The exporter's Tiling Offset chain (`add` N of `multiply` N_tiling) back as one Tiling Offset node."""
        first = element.getInput("in1")
        scale = first.getConnectedNode() if first is not None else None
        if scale is None or scale.getCategory() != "multiply" or scale.getName() != f"{name}_tiling":
            return None
        node = self.graph.add_node("tiling_offset", position, node_id=self.new_id(name))
        inputs(node.id, {"in2": "offset"})
        for theirs, ours in (("in1", "uv"), ("in2", "tiling")):
            source = scale.getInput(theirs)
            if source is not None:
                self.connect(source, node.id, ours, f"node '{scale.getName()}' input '{theirs}'")
        return node.id, "out"

    def _make_special(self, element: Any, category: str, position: tuple[float, float], name: str, inputs: Any) -> tuple[str, str] | None:
        def fixed(input_name: str) -> float | None:
            source = element.getInput(input_name)
            if source is None or source.getConnectedNode() is not None or source.getNodeGraphString():
                return None
            values = self.numbers(source)
            return values[0] if values else None

        if category == "clamp":
            if fixed("low") == 0.0 and fixed("high") == 1.0:
                node = self.graph.add_node("saturate", position, node_id=self.new_id(name))
                inputs(node.id, {"in": "x"})
            else:
                node = self.graph.add_node("clamp", position, node_id=self.new_id(name))
                inputs(node.id, {"in": "x", "low": "minimum", "high": "maximum"})
            return node.id, "out"
        if category == "subtract":
            if fixed("in1") == 0.0 and element.getType() == "float":
                node = self.graph.add_node("negate", position, node_id=self.new_id(name))
                inputs(node.id, {"in2": "x"})
            else:
                node = self.graph.add_node("subtract", position, node_id=self.new_id(name))
                inputs(node.id, {"in1": "a", "in2": "b"})
            return node.id, "out"
        if category == "invert":
            amount = element.getInput("amount")
            if amount is None or fixed("amount") == 1.0:
                node = self.graph.add_node("one_minus", position, node_id=self.new_id(name))
                inputs(node.id, {"in": "x"})
            else:
                node = self.graph.add_node("subtract", position, node_id=self.new_id(name))
                inputs(node.id, {"amount": "a", "in": "b"})
            return node.id, "out"
        if category == "atan2":
            if fixed("inx") == 1.0:
                node = self.graph.add_node("atan", position, node_id=self.new_id(name))
                inputs(node.id, {"iny": "x"})
            else:
                node = self.graph.add_node("atan2", position, node_id=self.new_id(name))
                inputs(node.id, {"iny": "y", "inx": "x"})
            return node.id, "out"
        operators = {"ifgreater": ">", "ifgreatereq": ">=", "ifequal": "=="}
        if category in operators:
            if category == "ifgreatereq" and fixed("in1") == 1.0 and fixed("in2") == 0.0 and element.getType() == "float":
                node = self.graph.add_node("step", position, node_id=self.new_id(name))
                inputs(node.id, {"value1": "x", "value2": "edge"})
                return node.id, "out"
            node = self.graph.add_node("if", position, {"operator": operators[category]}, node_id=self.new_id(name))
            inputs(node.id, {"value1": "a", "value2": "b", "in1": "if_true", "in2": "if_false"})
            return node.id, "out"
        self.skipped.append(f"node '{name}' ({category}): no counterpart in the editor; left at its default")
        return None

    def parameter(self, interface: Any, mx_type: str, position: tuple[float, float], name: str) -> tuple[str, str]:
        parameter = interface.getName()
        if parameter in self.parameters:
            return self.parameters[parameter], "out"
        values = self.numbers(interface) or (0.0,)
        if mx_type == "float":
            properties: dict[str, Any] = {"name": parameter, "default": values[0]}
            for key, attribute in (("minimum", "uimin"), ("maximum", "uimax")):
                text = interface.getAttribute(attribute)
                if text:
                    properties[key] = float(text)
            node = self.graph.add_node("float_parameter", position, properties, node_id=self.new_id(name))
        elif mx_type in ("color4", "color3"):
            node = self.graph.add_node("color_parameter", position, {"name": parameter, "default": _fit(values, "color4")}, node_id=self.new_id(name))
        else:
            width = _WIDTHS.get(mx_type, 3)
            properties = {"name": parameter, "size": width, "default": _fit(values, mx_type)}
            for key, attribute in (("minimum", "uimin"), ("maximum", "uimax")):
                text = interface.getAttribute(attribute)
                if text:
                    properties[key] = float(text)
            node = self.graph.add_node("vector_parameter", position, properties, node_id=self.new_id(name))
        self.parameters[parameter] = node.id
        return node.id, "out"

    def image(self, element: Any, output: str, position: tuple[float, float], name: str, label: str) -> tuple[str, str] | None:
        file_input = element.getInput("file")
        if file_input is None:
            self.skipped.append(f"{label}: an image without a file; left at its default")
            return None
        interface = self.interface_value(file_input)
        source = interface if interface is not None else file_input
        stored = source.getValueString()
        parameter_name = interface.getName() if interface is not None else f"{name}_texture"
        color_space = "srgb" if (source.getActiveColorSpace() or "") in ("srgb_texture", "srgb") else "linear"
        path = (self.folder / stored).resolve() if stored and not os.path.isabs(stored) else Path(stored)
        key = ("texture", parameter_name)
        if key not in self.made:
            texture = self.graph.add_node("texture_parameter", (position[0] - 200.0, position[1]),
                                          {"name": self.graph.unique_parameter_name(_name(parameter_name)), "image": str(path), "color_space": color_space},
                                          node_id=self.new_id(f"{name}_texture" if interface is None else parameter_name))
            self.made[key] = (texture.id, "out")
        texture_id = self.made[key][0]  # type: ignore[index]  # set to a (node, port) pair just above; only other keys map to None
        sample = self.graph.add_node("sample_texture", position, node_id=self.new_id(name))
        self.graph.connect(texture_id, "out", sample.id, "texture")
        uv = element.getInput("texcoord")
        if uv is not None:
            self.connect(uv, sample.id, "uv", f"{label} input 'texcoord'")
        mx_type = element.getType()
        port = {"float": "r", "color3": "rgb", "vector3": "rgb", "color4": "rgba", "vector4": "rgba", "vector2": "rgba"}.get(mx_type, "rgba")
        return sample.id, port

    def shader(self, shader: Any) -> None:
        category = shader.getCategory()
        if category == "gltf_pbr":
            output = self.graph.add_node("surface_output", (600.0, 0.0), node_id=self.new_id("surface"))
            for ours, (theirs, _mx_type) in GLTF_PBR_INPUTS.items():
                element = shader.getInput(theirs)
                if element is not None:
                    self.connect(element, output.id, ours, f"gltf_pbr input '{theirs}'")
            mode = shader.getInput("alpha_mode")
            if mode is not None and (mode.getValueString() or "0").strip() != "1":
                output.properties["alpha_clip"] = 0.0
            elif shader.getInput("alpha_cutoff") is None:
                output.properties["alpha_clip"] = 0.5  # gltf_pbr's default cutoff
            handled = {theirs for theirs, _ in GLTF_PBR_INPUTS.values()} | {"alpha_mode"}
            for element in shader.getInputs():
                if element.getName() not in handled:
                    self.skipped.append(f"gltf_pbr input '{element.getName()}': no counterpart on the Surface Output")
        elif category == "surface_unlit":
            output = self.graph.add_node("material_output", (600.0, 0.0), node_id=self.new_id("surface"))
            output.properties["emissive"] = (0.0, 0.0, 0.0, 1.0)
            for theirs, ours in (("emission_color", "base_color"), ("opacity", "opacity")):
                element = shader.getInput(theirs)
                if element is not None:
                    self.connect(element, output.id, ours, f"surface_unlit input '{theirs}'")
            for element in shader.getInputs():
                if element.getName() not in ("emission_color", "opacity", "emission"):
                    self.skipped.append(f"surface_unlit input '{element.getName()}': not imported")
        else:
            raise ExportError(f"shader '{shader.getName()}' is a {category}; only gltf_pbr and surface_unlit materials can be imported")


def _fit(values: Sequence[float], mx_type: str) -> Any:
    width = _WIDTHS.get(mx_type, 1)
    if mx_type in ("color4", "color3"):
        padded = list(values[:4]) + [0.0, 0.0, 0.0][: max(0, 3 - len(values))]
        return tuple(padded[:3]) + ((padded[3],) if len(padded) > 3 else (1.0,))
    if width == 1:
        return float(values[0])
    return tuple(list(values[:width]) + [0.0] * max(0, width - len(values)))


def import_mtlx(path: str | os.PathLike[str]) -> MtlxImport:
    """Read a MaterialX document into an editor graph (module docstring); ExportError when it cannot be used."""
    import MaterialX as mx  # noqa: N813 - the package's name

    source = Path(path)
    doc = mx.createDocument()
    try:
        mx.readFromXmlFile(doc, str(source))
    except _mx_errors(mx) as error:
        raise ExportError(f"{source}: cannot read the MaterialX document ({error})") from None
    importer = _Importer(doc, source.parent)
    materials = doc.getMaterialNodes()
    if not materials:
        raise ExportError(f"{source}: the document has no surfacematerial")
    shader_input = materials[0].getInput("surfaceshader")
    shader = shader_input.getConnectedNode() if shader_input is not None else None
    if shader is None:
        raise ExportError(f"{source}: the material '{materials[0].getName()}' has no surface shader")
    importer.shader(shader)
    for extra in materials[1:]:
        importer.skipped.append(f"material '{extra.getName()}': only the first material is imported")
    return MtlxImport(importer.graph, importer.skipped)


def _finite(values: Sequence[float]) -> bool:
    return all(math.isfinite(value) for value in values)


def sorted_ids(graph: MaterialGraph) -> list[str]:
    return sorted(graph.nodes, key=node_id_key)
