"""MaterialX 1.39 export and import (the `MaterialX` Python package; docs/interchange.md has the tables).

**Export.** A material becomes one document: a `nodegraph` (`NG_<name>`)
with the material's nodes, a shader node and a `surfacematerial`
(`M_<name>`). The OpenPBR Surface maps to `open_pbr_surface` input for
input. The **Surface Output maps to `gltf_pbr`**: MaterialX's node for
glTF's metallic-roughness model, which the Surface Output is (same inputs,
same BRDF, KHR_materials_specular's factor, alpha mode and cutoff); the
Unlit Output maps to `surface_unlit` (emission colour = base + emissive).

Nodes are exported by the table `EXPORTS`: a node with a standard-library
counterpart becomes that node (or a short fixed chain: Tiling Offset is a
`multiply` and an `add`), typed by the port types the editor resolved;
inputs whose type differs from their source's get a `convert` node.
Material parameters become the node graph's interface inputs (`constant`
nodes read them; a Texture Parameter is a `filename` input the `image`
reads, whose `file` input has `colorspace="srgb_texture"` when the material
decodes it; the file is copied beside the document). A
node *without* a counterpart (noise, colour ramp, lighting nodes, ...) is
**baked**: each of its outputs that a mapped node reads is rendered into an
OpenEXR image on the bake mesh's UVs (`app.export.bake`), and an `image`
node reads it; every such node gets a note (`MtlxExport.notes`). Nodes are
named after the editor's node ids (`n5`; a chain's extra nodes `n5_<role>`)
and the node graph's children and every node's inputs are sorted by name,
so export → import → export gives the same document. Without a baker
(`bake=None`) a material that needs baking raises `NeedsBaking` (callers
then open a GL context and try again).

**Import** is `app.export.mtlx_import` (`import_mtlx` here calls it).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.export.mtlx_tables import ALPHA_MODES as ALPHA_MODES
from app.export.mtlx_tables import GEOMETRY as GEOMETRY
from app.export.mtlx_tables import GLTF_PBR_EXTENSION_INPUTS, _library, _mx_errors, read_external, srgb_to_linear
from app.export.mtlx_tables import GLTF_PBR_INPUTS as GLTF_PBR_INPUTS
from app.export.mtlx_tables import SIMPLE as SIMPLE
from app.export.mtlx_tables import UNARY as UNARY
from app.export.mtlx_tables import Simple as Simple
from app.export.surface import OPENPBR, SURFACE, UNLIT, ExportError, output_node_id
from app.material.catalog import NODE_TYPES
from app.material.graph import MaterialGraph, Node
from app.material.node_types import as_integer, as_numbers, input_default
from app.material.port_types import LUMINANCE_WEIGHTS, PortType
from app.material.propagation import propagate
from app.material.texture_passes import is_pass_node_type
from app.material.traversal import node_id_key

MTLX_VERSION = "1.39"
#: The OpenPBR Surface's port types (by spelling) as open_pbr_surface's input types.
OPENPBR_MX_TYPES = {"float": "float", "color": "color3", "vec3": "vector3", "bool": "boolean"}
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
SPECIAL = ("sample_texture", "hextiled_image", "split", "compose", "tiling_offset", "normal_map", "orm_unpack", "remap", "if", "reroute",
           "rgb_to_hsv", "hsv_to_rgb", "mtlx_fractal_3d", *PARAMETER_TYPES, *CONSTANT_TYPES)
#: Nodes that read a texture input: a MaterialX image node whose `file` is the Texture Parameter's filename.
TEXTURE_READERS = ("sample_texture", "hextiled_image")
#: The Hex Tiled Image's inputs -> hextiledimage's, with their MaterialX types.
HEXTILED_INPUTS = {"uv": ("texcoord", "vector2"), "tiling": ("tiling", "vector2"), "rotation": ("rotation", "float"),
                   "rotation_range": ("rotationrange", "vector2"), "scale": ("scale", "float"),
                   "scale_range": ("scalerange", "vector2"), "offset": ("offset", "float"),
                   "offset_range": ("offsetrange", "vector2"), "falloff": ("falloff", "float"),
                   "falloff_contrast": ("falloffcontrast", "float"), "lumacoeffs": ("lumacoeffs", "color3")}


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
        return pattern is not None and (len(pattern) == 1 or "xyzw".startswith(pattern))  # one component, or the first ones
    return name in SIMPLE or name in GEOMETRY or name in SPECIAL


class NeedsBaking(ExportError):  # noqa: N818 - says what is needed, raised as an ExportError
    """The material has nodes without a MaterialX counterpart and no baker was given (they need OpenGL)."""


@dataclass
class MtlxExport:
    """What `export_mtlx` wrote: the document's text, notes per baked node, and the image files it baked."""

    text: str
    notes: list[str] = field(default_factory=list)
    baked_files: list[Path] = field(default_factory=list)
    #: Texture files to copy beside the document -> their names there (`export_mtlx` copies them).
    copies: dict[Path, str] = field(default_factory=dict)


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
        self.copies: dict[Path, str] = {}  # texture file -> its name in the export folder

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
                      "world_normal": ("normal", "world", "vector3"), "world_tangent": ("tangent", "world", "vector3"),
                      "time": ("time", None, "float")}
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
        base, number = name, 2
        while existing is not None:
            source = existing.getInput("in")
            if (existing.getCategory() == "convert" and existing.getType() == to_type and source is not None
                    and source.getConnectedNode() == value.node and source.getOutputString() == value.output):
                return existing
            name, number = f"{base}_{number}", number + 1  # a node of the material already has the name
            existing = self.nodegraph.getNode(name)
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
            elif self.emits(node):
                self.emit(node, port)
            else:
                self.bake_placeholder(node, port)
        return self.emitted[key]

    def emits(self, node: Node) -> bool:
        """Whether the node becomes MaterialX nodes (else it is baked). MaterialX compares floats only, so a
        component-wise Step is baked."""
        if node.type_name == "step" and self.port_type(node.id, "out") != "float":
            return False
        if node.type_name in TEXTURE_READERS:
            # A texture a Texture Buffer or filter renders exists only after its passes ran: the read is baked
            # (the baker runs the passes first, as the preview does).
            connection = self.incoming.get((node.id, "texture"))
            source = self.graph.nodes.get(connection.source_node) if connection is not None else None
            if source is not None and is_pass_node_type(source.type_name):
                return False
        return exportable(node)

    def prewalk(self, ports: Sequence[str]) -> None:
        """Emit every node output the output node's `ports` read, sources first, with an explicit stack: the
        emitting code then finds its inputs emitted and never recurses deeper than a node (graphs of any depth)."""
        sources: dict[str, list[tuple[str, str, str]]] = {}  # node -> (its input, source node, source port)
        for connection in self.graph.connections:
            sources.setdefault(connection.target_node, []).append((connection.target_port, connection.source_node, connection.source_port))

        def upstream(node_id: str) -> list[tuple[str, str, str]]:
            node = self.graph.nodes[node_id]
            if node_id != self.output_id and node.type_name != "reroute" and not self.emits(node):
                return []  # baked: what feeds it is the baker's
            edges = sorted(sources.get(node_id, ()))
            if node_id == self.output_id:
                return [edge for edge in edges if edge[0] in ports]
            return [edge for edge in edges if not (node.type_name in TEXTURE_READERS and edge[0] == "texture")]

        state: dict[str, int] = {self.output_id: 1}
        order: list[str] = []
        stack = [(self.output_id, iter(upstream(self.output_id)))]
        while stack:
            node_id, edges = stack[-1]
            for _port, source, _source_port in edges:
                if state.get(source) == 1:
                    names = [entry[0] for entry in stack]
                    cycle = " -> ".join([*names[names.index(source):], source])
                    raise ExportError(f"the graph has a cycle (each node reads the next): {cycle}")
                if source not in state:
                    state[source] = 1
                    stack.append((source, iter(upstream(source))))
                    break
            else:
                stack.pop()
                state[node_id] = 2
                order.append(node_id)
        used: dict[str, set[str]] = {}
        for consumer in order:
            for _port, source, source_port in upstream(consumer):
                used.setdefault(source, set()).add(source_port)
        for node_id in order[:-1]:  # the output itself is the shader's
            for port in sorted(used.get(node_id, ())):
                self.value(node_id, port)

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

    def texture_image(self, category: str, node: Node, mx_type: str = "color4") -> Any:
        """The MaterialX image node (`category`, of `mx_type`) for our texture reader `node`, its `file` input reading
        the Texture Parameter's filename interface input."""
        connection = self.incoming.get((node.id, "texture"))
        source = self.graph.nodes.get(connection.source_node) if connection is not None else None
        if source is None or source.type_name != "texture_parameter":
            raise ExportError(f"{node.id}: {NODE_TYPES[node.type_name].display_name} needs a Texture Parameter")
        parameter = str(source.properties.get("name", source.id))
        interface = self.interface.get(parameter)
        if interface is None:
            interface = self.interface[parameter] = self.nodegraph.addInput(_name(parameter), "filename")
            file_name = self.file_path(str(source.properties.get("image", "")))
            if file_name:  # an empty name is left without a value (MaterialX reads `value=""` as the folder)
                interface.setValueString(file_name)
        image = self.add(category, node.id, mx_type, node)
        file_input = image.addInput("file", "filename")
        file_input.setInterfaceName(interface.getName())
        if self.kind == SURFACE and source.properties.get("color_space", "srgb") != "linear":
            # The editor decodes it in a Surface Output material. On the image's own input: MaterialX's
            # generators read the colour space there, not on the node graph's interface input.
            file_input.setColorSpace("srgb_texture")
        return image

    def emit_sample_texture(self, node: Node, port: str, out_type: str) -> None:
        image = self.nodegraph.getNode(node.id)
        if image is None:
            image = self.texture_image("image", node)
            self.set_input(image, "texcoord", node, "uv", "vector2")
            rgba = _Value("color4", image)
            self.emitted[(node.id, "rgba")] = rgba
            self.emitted[(node.id, "rgb")] = rgba  # the consumer converts color4 -> vector3 (drops alpha, as the editor)
        if port in ("r", "g", "b", "a"):
            self.emitted[(node.id, port)] = self.extract(self.emitted[(node.id, "rgba")], "rgba".index(port), f"{node.id}_{port}", node)

    def emit_hextiled_image(self, node: Node, port: str, out_type: str) -> None:
        """A `hextiledimage`: color3, or color4 when the alpha is read (its rgb is the color3 one's, its alpha
        blended by the tile weights alone, as the Hex Tiled Image does)."""
        image = self.nodegraph.getNode(node.id)
        if image is None:
            alpha = any(connection.source_node == node.id and connection.source_port in ("rgba", "a")
                        for connection in self.graph.connections)
            image_type = "color4" if alpha else "color3"
            image = self.texture_image("hextiledimage", node, image_type)
            for ours, (theirs, mx_type) in HEXTILED_INPUTS.items():
                self.set_input(image, theirs, node, ours, mx_type)
            color = _Value(image_type, image)
            self.emitted[(node.id, "rgba")] = color
            self.emitted[(node.id, "rgb")] = color  # a color4 is converted by the consumer (alpha dropped, as the editor)
        if port in ("r", "g", "b", "a"):
            self.emitted[(node.id, port)] = self.extract(self.emitted[(node.id, "rgba")], "rgba".index(port), f"{node.id}_{port}", node)

    def file_path(self, stored: str) -> str:
        """The document's name for a texture: the file copied beside the document (`copies`), so the export
        folder is self-contained; a file already inside the export folder keeps its relative path."""
        from app.session.textures import resolve_texture_path

        if not stored:
            return ""
        path = resolve_texture_path(stored, self.document_dir)
        if path in self.copies:
            return self.copies[path]
        try:
            relative = Path(os.path.relpath(path, self.target_dir))
        except ValueError:  # another drive (Windows)
            relative = Path("..") / path.name
        if relative.parts and relative.parts[0] != ".." and not relative.is_absolute():
            name = relative.as_posix()
        else:
            # A file already named after the material (an earlier export's copy) keeps its name, so exporting
            # an import of an export to another folder writes the same document.
            stem, suffix = _name(path.stem), path.suffix
            stem = stem.removeprefix(f"{self.name}_") or stem
            name, number = f"{self.name}_{stem}{suffix}", 2
            while name in self.copies.values():
                name, number = f"{self.name}_{stem}_{number}{suffix}", number + 1
        self.copies[path] = name
        return name

    def emit_split(self, node: Node, port: str, out_type: str) -> None:
        in_type = self.port_type(node.id, "vector")
        source = self.input_value(node, "vector", in_type)
        index = "xyzw".index(port)
        if index >= _WIDTHS[in_type]:
            self.emitted[(node.id, port)] = _Value("float", numbers=(0.0,))
        elif source.node is None:
            self.emitted[(node.id, port)] = _Value("float", numbers=(source.numbers[index],))
        elif in_type == "float":
            self.emitted[(node.id, port)] = source
        else:
            self.emitted[(node.id, port)] = self.extract(source, index, f"{node.id}_{port}", node)

    def emit_swizzle(self, node: Node, port: str, out_type: str) -> None:
        from app.material.nodes.vectors import swizzle_pattern

        pattern = swizzle_pattern(node.properties.get("pattern", "xyz")) or "x"
        in_type = self.port_type(node.id, "vector")
        if in_type == "float":  # a float's only component (MaterialX has no extract of a float)
            self.emitted[(node.id, "out")] = self.input_value(node, "vector", "float")
            return
        if len(pattern) > 1:  # the first components: MaterialX's convert to the narrower type keeps them
            source = self.input_value(node, "vector", in_type)
            if source.node is None:
                self.emitted[(node.id, "out")] = _Value(out_type, numbers=source.numbers[:len(pattern)])
                return
            if _WIDTHS[source.mx_type] == len(pattern):  # e.g. a color3 the editor holds with alpha: already that wide
                self.emitted[(node.id, "out")] = source
                return
            convert = self.add("convert", node.id, out_type, node)
            self.connect(convert.addInput("in", in_type), source, in_type, "")
            self.emitted[(node.id, "out")] = _Value(out_type, convert)
            return
        extract = self.add("extract", node.id, "float", node)
        self.set_input(extract, "in", node, "vector", in_type)
        extract.addInput("index", "integer").setValueString(str("xyzw".index(pattern)))
        self.emitted[(node.id, "out")] = _Value("float", extract)

    def emit_rgb_to_hsv(self, node: Node, port: str, out_type: str) -> None:
        hsv = self.add("rgbtohsv", node.id, "color3", node)
        self.set_input(hsv, "in", node, "color", "color3")
        self.emitted[(node.id, "out")] = _Value("color3", hsv)

    def emit_hsv_to_rgb(self, node: Node, port: str, out_type: str) -> None:
        rgb = self.add("hsvtorgb", node.id, "color3", node)  # alpha 1 when a colour with alpha reads it (convert)
        self.set_input(rgb, "in", node, "hsv", "color3")
        self.emitted[(node.id, "out")] = _Value("color3", rgb)

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

    def emit_mtlx_fractal_3d(self, node: Node, port: str, out_type: str) -> None:
        """MaterialX Fractal 3D as `fractal3d`: float for `out`, vector3 for `vector` (one node per output used)."""
        mx_type = "float" if port == "out" else "vector3"
        fractal = self.add("fractal3d", node.id if port == "out" else f"{node.id}_{port}", mx_type, node)
        self.set_input(fractal, "amplitude", node, "amplitude", mx_type)
        octaves = NODE_TYPES[node.type_name].property("octaves")
        assert octaves is not None
        count = as_integer(node.properties.get("octaves", octaves.default), int(octaves.default), octaves.minimum, octaves.maximum)
        fractal.addInput("octaves", "integer").setValueString(str(count))
        for name in ("lacunarity", "diminish"):
            self.set_input(fractal, name, node, name, "float")
        self.set_input(fractal, "position", node, "position", "vector3")
        self.emitted[(node.id, port)] = _Value(mx_type, fractal)

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
        displacement: Any = None
        if self.kind == SURFACE:
            from app.export.surface import describe_output

            description = describe_output(self.graph)
            has_height = "height" in description.connected
            heights = ["height", "height_scale", "height_mid_level"] if has_height else []
            extensions = self.extension_inputs()
            self.prewalk([ours for ours in GLTF_PBR_INPUTS if ours != "alpha_clip" or description.alpha_mode == "MASK"]
                         + heights + extensions)
            shader = self.doc.addNode("gltf_pbr", f"SR_{self.name}", "surfaceshader")
            for ours, (theirs, mx_type) in GLTF_PBR_INPUTS.items():
                if ours == "normal" and (self.output_id, ours) not in self.incoming:
                    continue  # the default: the interpolated normal
                if ours == "alpha_clip" and description.alpha_mode != "MASK":
                    continue
                self.shader_input(shader, theirs, ours, mx_type)
            for name in extensions:
                self.shader_input(shader, name, name, GLTF_PBR_EXTENSION_INPUTS[name])
            shader.setInputValue("alpha_mode", ALPHA_MODES[description.alpha_mode], "integer")
            displacement = self.displacement() if has_height else None
        elif self.kind == OPENPBR:
            # The OpenPBR Surface is open_pbr_surface input for input (same names, same defaults).
            from app.material.nodes.openpbr import INPUTS as OPENPBR_INPUTS

            names = [name for name, *_ in OPENPBR_INPUTS
                     if not name.startswith("geometry_") or (self.output_id, name) in self.incoming
                     or name in ("geometry_opacity", "geometry_thin_walled")]
            self.prewalk(names)
            shader = self.doc.addNode("open_pbr_surface", f"SR_{self.name}", "surfaceshader")
            for name, port_type, _default, _bounds in OPENPBR_INPUTS:
                if name in names:
                    self.shader_input(shader, name, name, OPENPBR_MX_TYPES[port_type.value])
        elif self.kind == UNLIT:
            self.prewalk(["base_color", "emissive", "opacity"])
            shader = self.doc.addNode("surface_unlit", f"SR_{self.name}", "surfaceshader")
            shader.setInputValue("emission", 1.0, "float")
            self.shader_connect(shader.addInput("emission_color", "color3"), self.unlit_linear(), "color3", "emission_color")
            self.shader_input(shader, "opacity", "opacity", "float")
            if (self.output_id, "alpha_clip") in self.incoming or float(self.output.properties.get("alpha_clip", 0.0)) > 0.0:
                self.notes.append(f"{self.output_id} (Unlit Output): alpha clip has no surface_unlit counterpart; not exported")
        else:
            raise ExportError(f"output node {self.kind!r} cannot be exported")
        material = mx.Document.addMaterialNode(self.doc, f"M_{self.name}", shader)
        if displacement is not None:
            material.addInput("displacementshader", "displacementshader").setNodeName(displacement.getName())

    def displacement(self) -> Any:
        """The Surface Output's height as a `displacement` shader: displacement = clamp(height, 0, 1) − mid level
        along the normal, times `scale` (world units), as the preview reads it (app.material.nodes.height)."""
        clamp = self.nodegraph.addNode("clamp", f"{self.output_id}_height", "float")
        self.connect(clamp.addInput("in", "float"), self.input_value(self.output, "height", "float"), "float",
                     f"{self.output_id}_height_convert")
        centred = self.nodegraph.addNode("subtract", f"{self.output_id}_height_centred", "float")
        self.connect(centred.addInput("in1", "float"), _Value("float", clamp), "float", "")
        self.connect(centred.addInput("in2", "float"), self.input_value(self.output, "height_mid_level", "float"), "float",
                     f"{self.output_id}_height_mid_level_convert")
        shader = self.doc.addNode("displacement", f"DS_{self.name}", "displacementshader")
        self.shader_connect(shader.addInput("displacement", "float"), _Value("float", centred), "float", "displacement")
        self.shader_input(shader, "scale", "height_scale", "float")
        return shader

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

    def unlit_linear(self) -> _Value:
        """The Unlit Output's colour is display-referred (shown as is); surface_unlit's is linear (the renderer
        encodes it for the display): numbers are decoded here, a graph through cmlib's `srgb_texture_to_lin_rec709`."""

        color = self.unlit_color()
        if color.node is None:
            return _Value("color3", numbers=tuple(srgb_to_linear(value) for value in _coerce_numbers(color.numbers, color.mx_type, "color3")))
        decode = self.nodegraph.addNode("srgb_texture_to_lin_rec709", f"{self.output_id}_linear", "color3")
        self.connect(decode.addInput("in", "color3"), color, "color3", f"{self.output_id}_display_convert")
        return _Value("color3", decode)

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

    def extension_inputs(self) -> list[str]:
        """The Surface Output's glTF extension inputs to write: connected, or not their neutral value; the
        iridescence thickness with the iridescence (gltf_pbr's default is 100 nm, the Surface Output's 400)."""
        node_type = NODE_TYPES[self.output.type_name]
        used = []
        for name in GLTF_PBR_EXTENSION_INPUTS:
            if (self.output_id, name) in self.incoming:
                used.append(name)
                continue
            if name == "clearcoat_normal":
                continue  # unconnected: the interpolated normal, gltf_pbr's default too
            spec = node_type.property(name)
            value = self.output.properties.get(name, spec.default if spec is not None else None)
            if spec is not None and as_numbers(value, 3) != as_numbers(spec.default, 3):
                used.append(name)
        if "iridescence" in used and "iridescence_thickness" not in used:
            used.append("iridescence_thickness")
        return used

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
    return MtlxExport(text, exporter.notes, files, dict(exporter.copies))


def export_mtlx(graph: MaterialGraph, path: str | os.PathLike[str], name: str = "", *, document_dir: Path | None = None,
                bake: BakeOutputs | None = None) -> MtlxExport:
    """Write the MaterialX document of `graph` to `path` (and its baked images beside it)."""
    from vpl_core.atomic_write import write_atomically

    result = export_document(graph, path, name, document_dir=document_dir, bake=bake)
    target = Path(path).parent
    for source, copy_name in result.copies.items():
        try:
            write_atomically(target / copy_name, read_external(source, "image"))
        except OSError as error:
            result.notes.append(f"texture {source}: not copied beside the document ({error.strerror or error}); "
                                f"the document names {copy_name}")
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
    # Colour management as MaterialX's viewer sets it up: file colour spaces are decoded to lin_rec709.
    color_management = mx_gen_shader.DefaultColorManagementSystem.create(generator.getTarget())
    color_management.loadLibrary(_library())
    generator.setColorManagementSystem(color_management)
    context.getOptions().targetColorSpaceOverride = "lin_rec709"
    generator.registerTypeDefs(doc)
    try:
        shader = generator.generate(materials[0].getName(), materials[0], context)
    except _mx_errors(mx) as error:
        raise ExportError(f"MaterialX's GLSL generator failed: {error}") from None
    return shader.getSourceCode(mx_gen_shader.VERTEX_STAGE), shader.getSourceCode(mx_gen_shader.PIXEL_STAGE)


# Import ----------------------------------------------------------------------------------------
# The importer lives in app.export.mtlx_import; these names keep the module's interface.


def import_mtlx(path: str | os.PathLike[str], material: str | None = None) -> Any:
    """Read a MaterialX document's material (the first unless named) into an editor graph
    (`app.export.mtlx_import.import_mtlx`)."""
    from app.export.mtlx_import import import_mtlx as run_import

    return run_import(path, material)


def mtlx_material_names(path: str | os.PathLike[str]) -> list[str]:
    """The document's material names (`app.export.mtlx_import.mtlx_material_names`)."""
    from app.export.mtlx_import import mtlx_material_names as names

    return names(path)


def _finite(values: Sequence[float]) -> bool:
    return all(math.isfinite(value) for value in values)


def sorted_ids(graph: MaterialGraph) -> list[str]:
    return sorted(graph.nodes, key=node_id_key)
