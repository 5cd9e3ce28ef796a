"""MaterialX 1.39 import: a document's first material as an editor graph (docs/interchange.md, "Import").

The shader's inputs are walked upstream without recursion: an explicit stack
orders each node's sources before it (a cycle is an error naming it), and
each node then maps through the inverse of the exporter's tables. Shading
models (`gltf_pbr`, `standard_surface`, `UsdPreviewSurface`,
`surface_unlit`) map onto the Surface or Unlit Output, `open_pbr_surface`
onto the OpenPBR Surface input for input, and a `standard_surface` that
uses more than glTF's model holds onto the OpenPBR Surface through the
Standard Surface to OpenPBR mapping (docs/interchange.md); every input, node or
value that cannot be represented is listed by name in `MtlxImport.skipped`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.export.mtlx_tables import (
    GEOMETRY,
    GLTF_PBR_EXTENSION_INPUTS,
    GLTF_PBR_INPUTS,
    SIMPLE,
    _library,
    _mx_errors,
    read_external,
    srgb_to_linear,
)
from app.export.surface import ExportError
from app.material.catalog import NODE_TYPES
from app.material.graph import MaterialGraph
from app.material.node_extent import NODE_GAP, NODE_PORT_ROW_HEIGHT, drawn_height, drawn_width, input_rows, wired_inputs
from app.material.node_types import Scope, as_numbers, input_default
from app.material.port_types import PortType

_WIDTHS = {"float": 1, "vector2": 2, "vector3": 3, "vector4": 4, "color3": 3, "color4": 4, "boolean": 1, "integer": 1}
INVERSE_SIMPLE: dict[str, tuple[str, dict[str, str]]] = {}
for _ours, _spec in SIMPLE.items():
    if not _spec.fixed and _spec.category not in INVERSE_SIMPLE:
        INVERSE_SIMPLE[_spec.category] = (_ours, {theirs: ours for ours, theirs in _spec.inputs.items()})
INVERSE_GEOMETRY = {value: key for key, value in GEOMETRY.items()}
_CONSTANT_NODE = {"float": "constant_float", "vector2": "constant_vec2", "vector3": "constant_vec3", "vector4": "constant_vec4",
                  "color4": "constant_color", "color3": "constant_vec3"}
#: Image nodes read as a Texture Parameter + Texture Sample.
IMAGE_CATEGORIES = ("image", "tiledimage", "gltf_image", "gltf_colorimage", "gltf_normalmap", "UsdUVTexture")
#: hextiledimage's inputs -> the Hex Tiled Image's (besides `file`; `default`, what a missing file reads, is not
#: imported: the editor shows its own missing-texture colour).
HEXTILED_INPUTS = {"texcoord": "uv", "tiling": "tiling", "rotation": "rotation", "rotationrange": "rotation_range",
                   "scale": "scale", "scalerange": "scale_range", "offset": "offset", "offsetrange": "offset_range",
                   "falloff": "falloff", "falloffcontrast": "falloff_contrast", "lumacoeffs": "lumacoeffs"}
#: Names of the primvar that holds the (only) UV set.
UV_PRIMVARS = ("st", "st0", "uv", "uv0", "UVMap", "UV0", "map1")


# Colour spaces -----------------------------------------------------------------------------------


def linear_to_srgb(value: float) -> float:
    value = max(value, 0.0)
    return value * 12.92 if value <= 0.0031308 else 1.055 * value ** (1.0 / 2.4) - 0.055


_AP1_TO_REC709 = ((1.70505, -0.62179, -0.08326), (-0.13026, 1.14080, -0.01055), (-0.02400, -0.12897, 1.15297))


def _per_channel(function: Callable[[float], float]) -> Callable[[Sequence[float]], tuple[float, ...]]:
    def convert(values: Sequence[float]) -> tuple[float, ...]:
        return tuple(function(value) for value in values[:3]) + tuple(values[3:])
    return convert


def _ap1(values: Sequence[float]) -> tuple[float, ...]:
    rgb = tuple(sum(row[k] * values[k] for k in range(3)) for row in _AP1_TO_REC709)
    return rgb + tuple(values[3:])


#: Colour spaces of values -> conversion to the working space lin_rec709 (MaterialX's cmlib names).
COLOR_SPACES: dict[str, Callable[[Sequence[float]], tuple[float, ...]]] = {
    "lin_rec709": tuple,
    "srgb_texture": _per_channel(srgb_to_linear),
    "g22_rec709": _per_channel(lambda v: max(v, 0.0) ** 2.2),
    "g18_rec709": _per_channel(lambda v: max(v, 0.0) ** 1.8),
    "acescg": _ap1,
    "lin_ap1": _ap1,
}


# The result -------------------------------------------------------------------------------------


@dataclass
class MtlxImport:
    """The imported graph and what was not imported (one line each, for the artist)."""

    graph: MaterialGraph
    skipped: list[str] = field(default_factory=list)


_ON_STACK, _DONE = 1, 2


def _fit(values: Sequence[float], mx_type: str) -> Any:
    width = _WIDTHS.get(mx_type, 1)
    if len(values) == 1 and width > 1:
        values = tuple(values) * width
    if mx_type == "color4":
        padded = list(values[:4]) + [0.0, 0.0, 0.0][: max(0, 3 - len(values))]
        return tuple(padded[:3]) + ((padded[3],) if len(padded) > 3 else (1.0,))
    if width == 1:
        return float(values[0])
    return tuple(list(values[:width]) + [0.0] * max(0, width - len(values)))


class _Importer:
    def __init__(self, doc: Any, folder: Path) -> None:
        import MaterialX as mx  # noqa: N813 - the package's name

        self.mx = mx
        self.doc = doc
        self.folder = folder
        self.graph = MaterialGraph()
        self.skipped: list[str] = []
        self.made: dict[tuple[str, str], tuple[str, str] | None] = {}  # (node path, output) -> (our node, port)
        self.state: dict[str, int] = {}  # node path -> _ON_STACK / _DONE (the walk's colours)
        self.parameters: dict[str, str] = {}
        self.unplaced: set[str] = set()  # our nodes made from MaterialX nodes without xpos/ypos
        self.documented: set[str] = set()  # those made from MaterialX nodes with xpos/ypos
        self.output_id = ""
        self.names: set[str] | None = None  # every element name of the document (made on first need)
        self.counter = 0

    def note(self, line: str) -> None:
        if line not in self.skipped:
            self.skipped.append(line)

    def new_id(self, name: str) -> str:
        """The MaterialX name when it is a valid, free node id; else a fresh `n<k>` no document node is named."""
        if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) and name not in self.graph.nodes and not name.startswith("default_"):
            return name
        if self.names is None:
            self.names = {element.getName() for element in self.doc.traverseTree()}
        while True:
            self.counter += 1
            candidate = f"n{self.counter}"
            if candidate not in self.graph.nodes and candidate not in self.names:
                return candidate

    def add(self, type_name: str, element: Any, name: str, properties: dict[str, Any] | None = None) -> Any:
        """An editor node at the MaterialX node's position (recorded as unplaced when it has none)."""
        position = self.position(element)
        node = self.graph.add_node(type_name, position or (0.0, 0.0), properties, node_id=self.new_id(name))
        (self.unplaced if position is None else self.documented).add(node.id)
        return node

    def position(self, element: Any) -> tuple[float, float] | None:
        x_text, y_text = element.getAttribute("xpos"), element.getAttribute("ypos")
        if not x_text and not y_text:
            return None
        try:
            x, y = float(x_text or 0.0) * 100.0, float(y_text or 0.0) * 100.0
        except ValueError:
            self.note(f"node '{element.getName()}': position ({x_text!r}, {y_text!r}) is not a pair of numbers; placed automatically")
            return None
        if not (math.isfinite(x) and math.isfinite(y) and abs(x) < 1e9 and abs(y) < 1e9):
            self.note(f"node '{element.getName()}': position ({x_text}, {y_text}) is out of range; placed automatically")
            return None
        return x, y

    # Values.

    def numbers(self, element: Any, what: str) -> tuple[float, ...] | None:
        """The element's value as finite numbers of its type's arity, in the working colour space; None (with a
        note naming `what`) when it is not one, None without a note when the element has no value."""
        text = element.getValueString()
        if not text.strip():
            return None
        mx_type = element.getType()
        if mx_type == "boolean":
            lowered = text.strip().lower()
            if lowered in ("true", "false"):
                return (1.0 if lowered == "true" else 0.0,)
            self.note(f"{what}: value {text!r} is not a boolean; left at its default")
            return None
        try:
            values = tuple(float(part) for part in text.split(","))
        except ValueError:
            self.note(f"{what}: value {text[:80]!r} is not a list of numbers; left at its default")
            return None
        if not all(math.isfinite(value) for value in values):
            self.note(f"{what}: value {text[:80]!r} is not finite; left at its default")
            return None
        width = _WIDTHS.get(mx_type)
        if width is not None and len(values) != width:
            self.note(f"{what}: value {text[:80]!r} has {len(values)} components, a {mx_type} has {width}; left at its default")
            return None
        if mx_type in ("color3", "color4"):
            space = element.getActiveColorSpace() or "lin_rec709"
            convert = COLOR_SPACES.get(space)
            if convert is None:
                self.note(f"{what}: colour space '{space}' is not supported; the value is used as lin_rec709")
            else:
                values = convert(values)
        return values

    def number(self, element: Any, what: str) -> float | None:
        values = self.numbers(element, what) if element is not None else None
        return values[0] if values else None

    def geometric_default(self, element: Any) -> bool:
        """Whether the input's node definition gives it a geometric default (`defaultgeomprop`)."""
        declaration = element if element.getParent() is not None and element.getParent().isA(self.mx.NodeDef) else self.definition_input(element)
        return bool(declaration is not None and declaration.getDefaultGeomPropString())

    def definition_input(self, element: Any) -> Any:
        """The node definition's declaration of a node input (with its default value), or None."""
        parent = element.getParent()
        if parent is None or not parent.isA(self.mx.Node) or element.isA(self.mx.NodeDef):
            return None
        definition = parent.getNodeDef()
        found = definition.getActiveInput(element.getName()) if definition is not None else None
        return found if found is not None and found is not element else None

    def constant_of(self, element: Any, name: str, what: str) -> tuple[float, ...] | str | None:
        """The input's inline value (the definition's default when absent), "connected", or None without a value."""
        found = _input_of(element, name)
        if found is None:
            return None
        if found.getConnectedNode() is not None or found.getNodeGraphString():
            return "connected"
        interface = _interface_value(found)
        if interface is not None:
            found = interface
            if found.getConnectedNode() is not None:
                return "connected"
        values = self.numbers(found, what)
        if values is None and interface is None:
            default = self.definition_input(found)
            values = self.numbers(default, what) if default is not None else None
        return values

    # The walk.

    def upstream(self, element: Any) -> list[tuple[Any, Any, str]]:
        """(input, upstream node, its output) for each connected input of a node."""
        edges = []
        for source in element.getInputs():
            found = self.resolve(source)
            if found is not None:
                edges.append((source, found[0], found[1]))
        return edges

    def resolve(self, source: Any) -> tuple[Any, str] | None:
        """The node (and output) an input reads: directly, through a node graph output, or through an interface
        input connected further up."""
        if source.getNodeGraphString():  # (getConnectedNode looks through the output but loses its `output`)
            graph = self.doc.getNodeGraph(source.getNodeGraphString())
            output = graph.getOutput(source.getOutputString()) if graph is not None else None
            if output is None:
                return None
            node = output.getConnectedNode()
            return (node, output.getOutputString()) if node is not None else None
        node = source.getConnectedNode()
        return (node, source.getOutputString()) if node is not None else None

    def prepare(self, start: Any, output: str, what: str) -> None:
        """Make every node upstream of `start` sources first, with an explicit stack (no recursion on the
        document's depth); a cycle raises ExportError naming its nodes."""
        if start.getNamePath() in self.state:
            return
        stack: list[tuple[Any, str, str, Any]] = [(start, output, what, iter(self.upstream(start)))]
        self.state[start.getNamePath()] = _ON_STACK
        while stack:
            element, port, label, edges = stack[-1]
            for source, upstream, upstream_output in edges:
                path = upstream.getNamePath()
                state = self.state.get(path)
                if state == _ON_STACK:
                    names = [entry[0].getName() for entry in stack]
                    cycle = names[next(i for i, entry in enumerate(stack) if entry[0].getNamePath() == path):] + [upstream.getName()]
                    raise ExportError("the node graph has a cycle (each node reads the next): " + " -> ".join(cycle)
                                      + "; MaterialX documents must be acyclic")
                if state is None:
                    self.state[path] = _ON_STACK
                    description = f"node '{element.getName()}' input '{source.getName()}'"
                    stack.append((upstream, upstream_output, description, iter(self.upstream(upstream))))
                    break
            else:
                stack.pop()
                self.state[element.getNamePath()] = _DONE
                self.node(element, port, label)

    def connect(self, element: Any, target: str, port: str, what: str) -> None:
        """Feed our input `port` of node `target` from the MaterialX input `element` (value or connection)."""
        if element.getNodeGraphString():
            graph = self.doc.getNodeGraph(element.getNodeGraphString())
            output = graph.getOutput(element.getOutputString()) if graph is not None else None
            if output is None:
                self.note(f"{what}: reads a missing node graph output; left at its default")
                return
        found = self.resolve(element)
        if found is None and self.geometric_default(element):
            return  # MaterialX reads the geometric default (Nworld, UV0, ...) for an unconnected input, value or not
        if found is None:
            interface = _interface_value(element)
            if interface is not None and self.resolve(interface) is not None:
                found = self.resolve(interface)
            else:
                values = self.numbers(interface if interface is not None else element, what)
                if values is None:
                    default = self.definition_input(element)
                    values = self.numbers(default, what) if default is not None else None
                if values is not None:
                    self.set_value(target, port, values, element.getType())
                return
        assert found is not None
        upstream, source_output = found
        spec = NODE_TYPES[self.graph.nodes[target].type_name].input(port)
        while upstream.getCategory() == "convert" and spec is not None and isinstance(spec.type, PortType):
            inner = upstream.getInput("in")  # a typed port converts by itself: the convert is not needed
            inner_found = self.resolve(inner) if inner is not None else None
            if inner_found is None:
                break
            upstream, source_output = inner_found
        if upstream.getName().startswith("default_") and upstream.getCategory() in ("texcoord", "position", "normal", "time"):
            node = self.graph.nodes[target]
            if isinstance(input_default(node, NODE_TYPES[node.type_name], port), str):
                return  # the exporter's stand-in for the input's built-in default: leave the input unconnected
        self.prepare(upstream, source_output, what)
        made = self.node(upstream, source_output, what)
        if made is not None:
            self.graph.connect(made[0], made[1], target, port)

    def set_value(self, target: str, port: str, values: tuple[float, ...], mx_type: str) -> None:
        """An inline value for our input: the node's property when it can hold it, else a constant node."""
        node = self.graph.nodes[target]
        node_type = NODE_TYPES[node.type_name]
        spec = node_type.property(port)
        uniform = all(value == values[0] for value in values)
        input_spec = node_type.input(port)
        generic = input_spec is not None and not isinstance(input_spec.type, PortType)
        if spec is not None and spec.kind == "float" and uniform and not (generic and len(values) > 1):  # keeps a generic input's width
            node.properties[port] = values[0]
            return
        if spec is not None and spec.kind in ("color", "vector"):
            node.properties[port] = _fit(values, "color4") if spec.kind == "color" else tuple(values)
            return
        if spec is not None and spec.kind == "bool":
            node.properties[port] = bool(values[0])
            return
        if spec is None:
            default = input_spec.default if input_spec is not None else 0.0
            if not isinstance(default, str) and tuple(as_numbers(default, len(values), pad_alpha=mx_type == "color4")) == tuple(values):
                return  # the port's own default: nothing to set
        constant = self.graph.add_node(_CONSTANT_NODE.get(mx_type, "constant_vec3"), (node.position[0] - 150.0, node.position[1]),
                                       {"value": _fit(values, mx_type)}, node_id=self.new_id(f"{target}_{port}"))
        self.graph.connect(constant.id, "out", target, port)

    def node(self, element: Any, output: str, what: str) -> tuple[str, str] | None:
        """Our (node id, port) for the MaterialX node `element`'s output `output`, made on first use.

        Called sources first (`prepare`), so the connections `_make` asks for
        are already made and nothing recurses deeper than one level.
        """
        key = (element.getNamePath(), output)
        if key not in self.made:
            self.made[key] = self._make(element, output, what)
        return self.made[key]

    # Nodes.

    def _make(self, element: Any, output: str, what: str) -> tuple[str, str] | None:
        category = element.getCategory()
        mx_type = element.getType()
        name = element.getName()
        label = f"node '{name}' ({category}, {mx_type})"

        def inputs(node_id: str, mapping: dict[str, str]) -> None:
            for theirs, ours in mapping.items():
                source = _input_of(element, theirs)
                if source is not None:
                    self.connect(source, node_id, ours, f"{label} input '{theirs}'")

        if category == "convert":
            return self.convert(element, label, what)
        if category == "add" and mx_type == "vector2":
            tiling = self.tiling_offset(element, name, inputs)
            if tiling is not None:
                return tiling
        if category in ("clamp", "subtract", "invert", "atan2") or category.startswith("if"):
            return self._make_special(element, category, name, inputs)
        if category in INVERSE_SIMPLE:
            ours, mapping = INVERSE_SIMPLE[category]
            node = self.add(ours, element, name)
            inputs(node.id, mapping)
            return node.id, "out"
        if category in ("position", "normal", "tangent", "bitangent"):
            space = _input_of(element, "space")
            geometry = INVERSE_GEOMETRY.get((category, str(space.getValueString() if space is not None else "object") or "object"))
            if geometry is None:
                self.note(f"{label}: space '{space.getValueString() if space is not None else ''}' has no counterpart; "
                          f"{what} left at its default")
                return None
            return self.add(geometry, element, name).id, "out"
        if category in ("texcoord", "time"):
            return self.add(INVERSE_GEOMETRY[(category, None)], element, name).id, "out"
        if category == "UsdPrimvarReader":
            return self.primvar(element, label, what)
        if category == "UsdTransform2d":
            return self.transform2d(element, label, name, inputs)
        if category == "place2d":
            return self.place2d(element, label, name)
        if category in ("rgbtohsv", "hsvtorgb") and mx_type == "color3":
            if category == "rgbtohsv":
                node = self.add("rgb_to_hsv", element, name)
                inputs(node.id, {"in": "color"})
                return node.id, "out"
            node = self.add("hsv_to_rgb", element, name)
            inputs(node.id, {"in": "hsv"})
            rgb = self.add("swizzle", element, f"{name}_rgb", {"pattern": "xyz"})  # a color3: HSV to RGB's alpha left out
            rgb.position = (rgb.position[0] + 150.0, rgb.position[1])
            self.graph.connect(node.id, "out", rgb.id, "vector")
            return rgb.id, "out"
        if category == "constant":
            value = element.getInput("value")
            found = self.resolve(value) if value is not None else None
            if found is not None:
                return self.node(found[0], found[1], what)
            interface = _interface_value(value) if value is not None else None
            if interface is not None and self.resolve(interface) is None:
                return self.parameter(interface, mx_type, element, name, label)
            node = self.add(_CONSTANT_NODE.get(mx_type, "constant_float"), element, name)
            if value is not None:
                self.connect(value, node.id, "value", f"{label} input 'value'")
            return node.id, "out"
        if category in IMAGE_CATEGORIES:
            return self.image(element, output, name, label)
        if category == "hextiledimage":
            return _hextiled_image(self, element, name, label)
        if category == "extract":
            index_input = _input_of(element, "index")
            index = self.number(index_input, f"{label} input 'index'") if index_input is not None else 0.0
            swizzle = self.add("swizzle", element, name, {"pattern": "xyzw"[min(max(int(index or 0), 0), 3)]})
            inputs(swizzle.id, {"in": "vector"})
            return swizzle.id, "out"
        if category.startswith("separate"):
            split = self.add("split", element, name)
            inputs(split.id, {"in": "vector"})
            port = output.removeprefix("out") if output else "x"
            return split.id, {"r": "x", "g": "y", "b": "z", "a": "w"}.get(port, port if port in "xyzw" else "x")
        if category.startswith("combine") and category[-1] in "234" and not category.endswith("CF"):
            width = int(category[-1])
            compose = self.add("compose", element, name, {"size": width})
            inputs(compose.id, {f"in{index + 1}": "xyzw"[index] for index in range(width)})
            return compose.id, "out"
        if category == "remap":
            node = self.add("remap", element, name, {"clamp": False})
            inputs(node.id, {"in": "x", "inlow": "in_min", "inhigh": "in_max", "outlow": "out_min", "outhigh": "out_max"})
            return node.id, "out"
        if category == "normalmap":
            node = self.add("normal_map", element, name)
            inputs(node.id, {"in": "tangent_normal", "scale": "strength"})
            normal = element.getInput("normal")
            if normal is not None:
                self.connect(normal, node.id, "normal", f"{label} input 'normal'")
            return node.id, "normal_out"
        if category == "fractal3d":
            return self.fractal3d(element, label, what, inputs)
        if category == "srgb_texture_to_lin_rec709" or category in _CM_NODES:
            self.note(f"{label}: colour conversion node not imported (the editor converts texture colour spaces itself); "
                      f"{what} reads its input unconverted")
            source = element.getInput("in")
            found = self.resolve(source) if source is not None else None
            return self.node(found[0], found[1], what) if found is not None else None
        self.note(f"{label}: no counterpart in the editor; {what} left at its default")
        return None

    def fractal3d(self, element: Any, label: str, what: str, inputs: Any) -> tuple[str, str] | None:
        """MaterialX's `fractal3d` as MaterialX Fractal 3D (the same Perlin octaves and hash): the float form
        on its `out`, the vector3 and color3 forms on its `vector` (their amplitude one number for all three)."""
        mx_type = element.getType()
        if mx_type not in ("float", "vector3", "color3"):
            self.note(f"{label}: only the float, vector3 and color3 forms have a counterpart; {what} left at its default")
            return None
        node = self.add("mtlx_fractal_3d", element, element.getName())
        octaves = _input_of(element, "octaves")
        if octaves is not None and self.resolve(octaves) is not None:
            self.note(f"{label}: a connected 'octaves' has no counterpart (the editor's is a number); "
                      f"{node.properties.get('octaves', 3)} octaves")
        elif octaves is not None:
            interface = _interface_value(octaves)
            count = self.number(interface if interface is not None else octaves, f"{label} input 'octaves'")
            if count is not None:
                node.properties["octaves"] = int(count)
        amplitude = _input_of(element, "amplitude")
        values = self.numbers(amplitude, f"{label} input 'amplitude'") if amplitude is not None and self.resolve(amplitude) is None \
            and not amplitude.getInterfaceName() else None
        if mx_type != "float" and (values is None or len(set(values)) > 1):
            self.note(f"{label}: an amplitude that is not one number for all three channels has no counterpart; "
                      "its first channel is used")
        if values is not None:
            node.properties["amplitude"] = values[0]
        else:
            inputs(node.id, {"amplitude": "amplitude"})
        inputs(node.id, {"lacunarity": "lacunarity", "diminish": "diminish"})
        if element.getInput("position") is not None:
            inputs(node.id, {"position": "position"})
        else:  # MaterialX's default is the object-space position (the editor's 3D noises read world space)
            position = self.add("object_position", element, f"{element.getName()}_position")
            position.position = (node.position[0] - 150.0, node.position[1])
            self.graph.connect(position.id, "out", node.id, "position")
        return node.id, "out" if mx_type == "float" else "vector"

    def convert(self, element: Any, label: str, what: str) -> tuple[str, str] | None:
        """A `convert`: the editor converts a float or an equal width by itself; a narrower target keeps the
        first components (Swizzle), a wider one pads (Split + Compose, alpha 1)."""
        source = element.getInput("in")
        mx_type = element.getType()
        if source is None:
            return None
        found = self.resolve(source)
        interface = _interface_value(source) if found is None else None
        if interface is not None and self.resolve(interface) is not None:
            found = self.resolve(interface)
        if found is None:  # a value, its own or the interface input's it reads
            node = self.add(_CONSTANT_NODE.get(mx_type, "constant_vec3"), element, element.getName())
            values = self.numbers(interface if interface is not None else source, f"{label} input 'in'")
            if values is not None:
                node.properties["value"] = _fit(_coerce(values, mx_type), mx_type)
            return node.id, "out"
        made = self.node(found[0], found[1], what)
        if made is None:
            return None
        width_in, width_out = _WIDTHS.get(source.getType(), 1), _WIDTHS.get(mx_type, 1)
        if width_in == 1 or width_in == width_out:
            return made
        if width_out < width_in:
            swizzle = self.add("swizzle", element, element.getName(), {"pattern": "xyzw"[:width_out]})
            self.graph.connect(made[0], made[1], swizzle.id, "vector")
            return swizzle.id, "out"
        split = self.add("split", element, f"{element.getName()}_split")
        self.graph.connect(made[0], made[1], split.id, "vector")
        compose = self.add("compose", element, element.getName(), {"size": width_out})
        for index, component in enumerate("xyzw"[:width_out]):
            if index < width_in:
                self.graph.connect(split.id, component, compose.id, component)
            else:
                compose.properties[component] = 1.0 if (mx_type == "color4" and index == 3) else 0.0
        return compose.id, "out"

    def tiling_offset(self, element: Any, name: str, inputs: Any) -> tuple[str, str] | None:
        """The exporter's Tiling Offset chain (`add` N of `multiply` N_tiling) back as one Tiling Offset node."""
        first = element.getInput("in1")
        scale = first.getConnectedNode() if first is not None else None
        if scale is None or scale.getCategory() != "multiply" or scale.getName() != f"{name}_tiling":
            return None
        node = self.add("tiling_offset", element, name)
        inputs(node.id, {"in2": "offset"})
        for theirs, ours in (("in1", "uv"), ("in2", "tiling")):
            source = scale.getInput(theirs)
            if source is not None:
                self.connect(source, node.id, ours, f"node '{scale.getName()}' input '{theirs}'")
        return node.id, "out"

    def _make_special(self, element: Any, category: str, name: str, inputs: Any) -> tuple[str, str] | None:
        def fixed(input_name: str) -> float | None:
            source = _input_of(element, input_name)
            if source is None or self.resolve(source) is not None or source.getInterfaceName():
                return None
            values = self.numbers(source, f"node '{name}' input '{input_name}'")
            return values[0] if values else None

        if category == "clamp":
            if fixed("low") == 0.0 and fixed("high") == 1.0:
                node = self.add("saturate", element, name)
                inputs(node.id, {"in": "x"})
            else:
                node = self.add("clamp", element, name)
                inputs(node.id, {"in": "x", "low": "minimum", "high": "maximum"})
            return node.id, "out"
        if category == "subtract":
            if fixed("in1") == 0.0 and element.getType() == "float":
                node = self.add("negate", element, name)
                inputs(node.id, {"in2": "x"})
            else:
                node = self.add("subtract", element, name)
                inputs(node.id, {"in1": "a", "in2": "b"})
            return node.id, "out"
        if category == "invert":
            if fixed("amount") == 1.0:
                node = self.add("one_minus", element, name)
                inputs(node.id, {"in": "x"})
            else:
                node = self.add("subtract", element, name)
                inputs(node.id, {"amount": "a", "in": "b"})
            return node.id, "out"
        if category == "atan2":
            if fixed("inx") == 1.0:
                node = self.add("atan", element, name)
                inputs(node.id, {"iny": "x"})
            else:
                node = self.add("atan2", element, name)
                inputs(node.id, {"iny": "y", "inx": "x"})
            return node.id, "out"
        operators = {"ifgreater": ">", "ifgreatereq": ">=", "ifequal": "=="}
        if category in operators:
            if category == "ifgreatereq" and fixed("in1") == 1.0 and fixed("in2") == 0.0 and element.getType() == "float":
                node = self.add("step", element, name)
                inputs(node.id, {"value1": "x", "value2": "edge"})
                return node.id, "out"
            node = self.add("if", element, name, {"operator": operators[category]})
            inputs(node.id, {"value1": "a", "value2": "b", "in1": "if_true", "in2": "if_false"})
            return node.id, "out"
        self.note(f"node '{name}' ({category}): no counterpart in the editor; left at its default")
        return None

    def parameter(self, interface: Any, mx_type: str, element: Any, name: str, label: str) -> tuple[str, str]:
        parameter = interface.getName()
        if parameter in self.parameters:
            return self.parameters[parameter], "out"
        what = f"interface input '{parameter}'"
        values = self.numbers(interface, what) or (0.0,) * _WIDTHS.get(mx_type, 1)
        properties: dict[str, Any] = {"name": parameter}
        if mx_type in ("color4", "color3"):
            type_name = "color_parameter"
            properties["default"] = _fit(values, "color4")
        else:
            type_name = "float_parameter" if mx_type == "float" else "vector_parameter"
            properties["default"] = values[0] if mx_type == "float" else _fit(values, mx_type)
            if mx_type != "float":
                properties["size"] = _WIDTHS.get(mx_type, 3)
            for key, attribute in (("minimum", "uimin"), ("maximum", "uimax")):
                text = interface.getAttribute(attribute)
                if not text:
                    continue
                try:
                    bound = float(text.split(",")[0])
                except ValueError:
                    bound = math.nan
                if math.isfinite(bound):
                    properties[key] = bound
                else:
                    self.note(f"{what}: {attribute} {text[:40]!r} is not a finite number; not imported")
        node = self.add(type_name, element, name, properties)
        self.parameters[parameter] = node.id
        return node.id, "out"

    def primvar(self, element: Any, label: str, what: str) -> tuple[str, str] | None:
        varname = _input_of(element, "varname")
        name = varname.getValueString() if varname is not None else ""
        if element.getType() != "vector2":
            self.note(f"{label}: primvar '{name}' of type {element.getType()} has no counterpart; {what} left at its default")
            return None
        if name not in UV_PRIMVARS:
            self.note(f"{label}: primvar '{name}' read as the mesh's only UV set")
        return self.add("texcoord", element, element.getName()).id, "out"

    def transform2d(self, element: Any, label: str, name: str, inputs: Any) -> tuple[str, str] | None:
        """UsdTransform2d (out = in × scale rotated, + translation) as Tiling and Offset; a rotation is listed."""
        rotation = self.constant_of(element, "rotation", f"{label} input 'rotation'")
        if rotation == "connected" or (isinstance(rotation, tuple) and rotation[0] != 0.0):
            self.note(f"{label} input 'rotation': a UV rotation has no counterpart; not imported (rotation 0)")
        node = self.add("tiling_offset", element, name)
        inputs(node.id, {"in": "uv", "scale": "tiling", "translation": "offset"})
        return node.id, "out"

    def place2d(self, element: Any, label: str, name: str) -> tuple[str, str] | None:
        """place2d: (uv − pivot) / scale, rotated clockwise by `rotate` degrees, − offset, + pivot (operationorder 0,
        SRT; 1, TRS, subtracts the offset before rotating and scaling). Constant pivot, scale and offset without a
        rotation fold into one Tiling and Offset; otherwise the same steps as editor nodes."""
        found = {key: self.constant_of(element, key, f"{label} input '{key}'") for key in ("pivot", "scale", "rotate", "offset")}
        order = self.constant_of(element, "operationorder", f"{label} input 'operationorder'")
        if order == "connected":
            self.note(f"{label} input 'operationorder': a connected operation order is not imported; read as 0 (SRT)")
        trs = isinstance(order, tuple) and order[0] == 1.0
        pivot, scale, rotate, offset = (found[key] for key in ("pivot", "scale", "rotate", "offset"))
        texcoord = _input_of(element, "texcoord")
        if (isinstance(pivot, tuple) and isinstance(scale, tuple) and isinstance(offset, tuple) and len(pivot) == len(scale) == len(offset) == 2
                and all(scale) and (rotate is None or (isinstance(rotate, tuple) and rotate[0] == 0.0))):
            tiling = tuple(1.0 / value for value in scale)
            shift = tuple(p - (p + o) / s if trs else p - p / s - o for p, s, o in zip(pivot, scale, offset, strict=True))
            node = self.add("tiling_offset", element, name)
            self.set_value(node.id, "tiling", tiling, "vector2")
            self.set_value(node.id, "offset", shift, "vector2")
            if texcoord is not None:
                self.connect(texcoord, node.id, "uv", f"{label} input 'texcoord'")
            return node.id, "out"

        def step(type_name: str, suffix: str, first: tuple[str, str] | None, port: str, mx_input: str) -> tuple[str, str]:
            node = self.add(type_name, element, f"{name}_{suffix}")
            first_port = "uv" if type_name == "rotate_uv" else "a"
            if first is not None:
                self.graph.connect(first[0], first[1], node.id, first_port)
            elif texcoord is not None:
                self.connect(texcoord, node.id, first_port, f"{label} input 'texcoord'")
            source = _input_of(element, mx_input)
            if source is not None:
                self.connect(source, node.id, port, f"{label} input '{mx_input}'")
            return node.id, "out"

        current = step("subtract", "pivot", None, "b", "pivot")
        if trs:
            current = step("subtract", "offset", current, "b", "offset")
        if not trs:
            current = step("divide", "scale", current, "b", "scale")
        if rotate == "connected" or (isinstance(rotate, tuple) and rotate[0] != 0.0):
            turn = self.add("rotate_uv", element, f"{name}_rotate", {"center": (0.0, 0.0), "degrees": 0.0})
            self.graph.connect(current[0], current[1], turn.id, "uv")
            if isinstance(rotate, tuple):
                turn.properties["degrees"] = -rotate[0]  # rotate2d turns clockwise, Rotate UV counter-clockwise
            else:
                negate = self.add("negate", element, f"{name}_angle")
                self.connect(_input_of(element, "rotate"), negate.id, "x", f"{label} input 'rotate'")
                self.graph.connect(negate.id, "out", turn.id, "degrees")
            current = (turn.id, "out")
        if trs:
            current = step("divide", "scale", current, "b", "scale")
        else:
            current = step("subtract", "offset", current, "b", "offset")
        placed = step("add", "repivot", current, "b", "pivot")
        return placed

    def file_name(self, element: Any, what: str) -> tuple[str, str]:
        """(resolved file path or "", colour space) of an image node's `file` input (fileprefix applied)."""
        file_input = _input_of(element, "file")
        if file_input is None:
            return "", "lin_rec709"
        interface = _interface_value(file_input)
        source = interface if interface is not None else file_input
        stored = source.getResolvedValueString().strip() if source.getValueString().strip() else ""
        space = file_input.getColorSpace() or source.getActiveColorSpace() or ""
        if not stored:
            return "", space
        path = Path(stored)
        return str(path if path.is_absolute() else (self.folder / path).resolve()), space

    def image(self, element: Any, output: str, name: str, label: str) -> tuple[str, str] | None:
        category = element.getCategory()
        path, space = self.file_name(element, label)
        if category == "UsdUVTexture":
            source_space = element.getInput("sourceColorSpace")
            usd_space = source_space.getValueString() if source_space is not None else "auto"
            space = {"sRGB": "srgb_texture", "raw": "lin_rec709"}.get(usd_space, space)  # auto: the file's colorspace
        texture_id = _texture_parameter(self, element, name, label, path, space)
        sample = self.add("sample_texture", element, name)
        self.graph.connect(texture_id, "out", sample.id, "texture")
        self.image_uv(element, sample.id, label, path)
        self.image_unsupported(element, label)
        mx_type = element.getType()
        if category == "gltf_normalmap":
            normal_map = self.add("normal_map", element, f"{name}_normalmap")
            self.graph.connect(sample.id, "rgb", normal_map.id, "tangent_normal")
            scale = self.constant_of(element, "scale", f"{label} input 'scale'")
            if isinstance(scale, tuple):
                normal_map.properties["strength"] = scale[0]
            return normal_map.id, "normal_out"
        if category == "gltf_colorimage":
            port = {"outcolor": "rgb", "outa": "a"}.get(output, "rgb")
            return self.scaled(element, label, name, sample.id, port, "color")
        if category == "gltf_image":
            port = {"float": "r", "color3": "rgb", "vector3": "rgb", "color4": "rgba", "vector4": "rgba"}.get(mx_type, "rgba")
            return self.scaled(element, label, name, sample.id, port, "factor")
        if category == "UsdUVTexture":
            port = {"r": "r", "g": "g", "b": "b", "a": "a", "rgb": "rgb", "rgba": "rgba"}.get(output, "rgb")
            return self.usd_scale_bias(element, label, name, sample.id, port)
        port = {"float": "r", "color3": "rgb", "vector3": "rgb", "color4": "rgba", "vector4": "rgba", "vector2": "rgba"}.get(mx_type, "rgba")
        return sample.id, port

    def image_uv(self, element: Any, sample_id: str, label: str, path: str = "") -> None:
        """The Texture Sample's UV: texcoord / st, and a tiledimage's or gltf_image's transform as Tiling and Offset."""
        category = element.getCategory()
        uv_name = "st" if category == "UsdUVTexture" else "texcoord"
        uv = element.getInput(uv_name)
        tiling: Any = None
        offset: Any = None
        if category == "tiledimage":
            tiling = self.constant_of(element, "uvtiling", f"{label} input 'uvtiling'")
            offset = self.constant_of(element, "uvoffset", f"{label} input 'uvoffset'")
            offset = tuple(-value for value in offset) if isinstance(offset, tuple) else offset  # uv × tiling − offset
        elif category.startswith("gltf_"):
            tiling = self.constant_of(element, "scale", f"{label} input 'scale'") if category != "gltf_normalmap" else None
            offset = self.constant_of(element, "offset", f"{label} input 'offset'")
            rotate = self.constant_of(element, "rotate", f"{label} input 'rotate'")
            if rotate == "connected" or (isinstance(rotate, tuple) and rotate[0] != 0.0):
                self.note(f"{label} input 'rotate': a UV rotation has no counterpart; not imported (rotation 0)")
        clamped = _clamped(element)
        target = sample_id
        if clamped:
            # Clamp addressing: the UV limited to the outermost texel centres before the (repeating) sample reads
            # it, so the edge texels extend as with GL's CLAMP_TO_EDGE; to [0, 1] when the file's size is unknown.
            size = _image_size(path)
            limit = self.add("clamp" if size else "saturate", element, f"{element.getName()}_clamp")
            limit.position = (limit.position[0] - 60.0, limit.position[1] + 90.0)
            if size:
                self.set_value(limit.id, "minimum", (0.5 / size[0], 0.5 / size[1]), "vector2")
                self.set_value(limit.id, "maximum", (1.0 - 0.5 / size[0], 1.0 - 0.5 / size[1]), "vector2")
            self.graph.connect(limit.id, "out", sample_id, "uv")
            target = limit.id
        target_port = "x" if clamped else "uv"
        if tiling == "connected" or offset == "connected" or (tiling or (1.0, 1.0)) != (1.0, 1.0) or (offset or (0.0, 0.0)) != (0.0, 0.0):
            node = self.add("tiling_offset", element, f"{element.getName()}_uv")
            node.position = (node.position[0] - 100.0, node.position[1] + 60.0)
            for port, value, mx_input in (("tiling", tiling, "uvtiling" if category == "tiledimage" else "scale"),
                                          ("offset", offset, "uvoffset" if category == "tiledimage" else "offset")):
                if isinstance(value, tuple):
                    self.set_value(node.id, port, value, "vector2")
                elif value == "connected" and category == "tiledimage" and port == "offset":  # uv × tiling − offset
                    negate = self.add("negate", element, f"{element.getName()}_uvoffset")
                    self.connect(_input_of(element, mx_input), negate.id, "x", f"{label} input '{mx_input}'")
                    self.graph.connect(negate.id, "out", node.id, port)
                elif value == "connected":
                    self.connect(_input_of(element, mx_input), node.id, port, f"{label} input '{mx_input}'")
            if uv is not None:
                self.connect(uv, node.id, "uv", f"{label} input '{uv_name}'")
            elif clamped:
                self.graph.connect(self.add("texcoord", element, f"{element.getName()}_texcoord").id, "out", node.id, "uv")
            self.graph.connect(node.id, "out", target, target_port)
        elif uv is not None:
            self.connect(uv, target, target_port, f"{label} input '{uv_name}'")
        elif clamped:
            self.graph.connect(self.add("texcoord", element, f"{element.getName()}_texcoord").id, "out", target, target_port)

    def image_unsupported(self, element: Any, label: str) -> None:
        """Image inputs with no counterpart (address modes other than repeat, real-world sizes, ...) listed."""
        checks = {
            "uaddressmode": "periodic", "vaddressmode": "periodic", "wrapS": "periodic", "wrapT": "periodic",
            "address_mode_u": "periodic", "address_mode_v": "periodic",
        }
        clamped = _clamped(element)
        for input_name, neutral in checks.items():
            found = element.getInput(input_name)
            if clamped and input_name in ("uaddressmode", "vaddressmode"):
                continue  # both clamp: the UV is limited to [0, 1] (image_uv)
            if found is not None and found.getValueString() not in ("", neutral, "useMetadata", "repeat"):
                self.note(f"{label} input '{input_name}' ({found.getValueString()}): the editor repeats textures; not imported")
        for input_name in ("realworldimagesize", "realworldtilesize"):
            value = self.constant_of(element, input_name, f"{label} input '{input_name}'") if element.getInput(input_name) is not None else None
            if value == "connected" or (isinstance(value, tuple) and value != (1.0, 1.0)):
                self.note(f"{label} input '{input_name}': not imported")
        if element.getInput("default") is not None or element.getInput("fallback") is not None:
            pass  # what a missing file reads: the editor shows its own missing-texture colour

    def scaled(self, element: Any, label: str, name: str, sample_id: str, port: str, factor_name: str | None) -> tuple[str, str]:
        """A gltf image's output times its `factor`/`color` (skipped when 1)."""
        if factor_name is None:
            return sample_id, port
        value = self.constant_of(element, factor_name, f"{label} input '{factor_name}'")
        if value == "connected":
            self.note(f"{label} input '{factor_name}': a connected factor is not imported; left at 1")
            return sample_id, port
        if not isinstance(value, tuple):
            return sample_id, port
        channels = {"r": (0,), "a": (3,), "rgb": (0, 1, 2), "rgba": (0, 1, 2, 3)}[port]
        factors = tuple(value[i] if i < len(value) else value[0] for i in channels) if len(value) > 1 else value
        if all(v == 1.0 for v in factors):
            return sample_id, port
        multiply = self.add("multiply", element, f"{name}_{factor_name}")
        self.graph.connect(sample_id, port, multiply.id, "a")
        self.set_value(multiply.id, "b", factors, {1: "float", 3: "vector3", 4: "vector4"}[len(factors)])
        return multiply.id, "out"

    def usd_scale_bias(self, element: Any, label: str, name: str, sample_id: str, port: str) -> tuple[str, str]:
        """UsdUVTexture's texel × scale + bias (nodes only when not 1 and 0), on the channels of `port`."""
        channels = {"r": [0], "g": [1], "b": [2], "a": [3], "rgb": [0, 1, 2], "rgba": [0, 1, 2, 3]}[port]
        scale = self.constant_of(element, "scale", f"{label} input 'scale'")
        bias = self.constant_of(element, "bias", f"{label} input 'bias'")
        for what, value in (("scale", scale), ("bias", bias)):
            if value == "connected":
                self.note(f"{label} input '{what}': a connected {what} is not imported; left at its default")
        scale_values = tuple(scale[i] for i in channels) if isinstance(scale, tuple) else (1.0,) * len(channels)
        bias_values = tuple(bias[i] for i in channels) if isinstance(bias, tuple) else (0.0,) * len(channels)
        current = (sample_id, port)
        kind = "float" if len(channels) == 1 else ("vector3" if len(channels) == 3 else "vector4")
        if any(value != 1.0 for value in scale_values):
            multiply = self.add("multiply", element, f"{name}_scale")
            self.graph.connect(*current, multiply.id, "a")
            self.set_value(multiply.id, "b", scale_values, kind)
            current = (multiply.id, "out")
        if any(value != 0.0 for value in bias_values):
            add = self.add("add", element, f"{name}_bias")
            self.graph.connect(*current, add.id, "a")
            self.set_value(add.id, "b", bias_values, kind)
            current = (add.id, "out")
        return current

    # Shading models.

    def shader(self, shader: Any) -> None:
        category = shader.getCategory()
        mapper = _SHADERS.get(category)
        if mapper is None:
            supported = ", ".join(sorted(_SHADERS))
            raise ExportError(f"shader '{shader.getName()}' is a {category}; materials with {supported} can be imported")
        mapper(self, shader)

    def displacement(self, material: Any) -> None:
        """The material's `displacement` shader onto the Surface Output's height, scale and mid level.

        The exporter writes displacement = clamp(height, 0, 1) - mid level (a `clamp` into a `subtract`):
        that pattern maps back to the height and the mid level. Any other float displacement D is the height
        with mid level 0 (the preview then reads clamp(D, 0, 1), said in a note when D is not already in 0..1
        for sure). A vector displacement, another displacement shader or an output without a height is a
        note, the displacement left out."""
        found = material.getInput("displacementshader")
        if found is None:
            return
        shader = found.getConnectedNode()
        if shader is None:
            # An input left empty (`value=""`, as MaterialX's own examples declare it) means no displacement; only
            # a reference to a node that is not there is worth a note.
            if found.getNodeName() or found.getOutputString():
                self.note(f"material '{material.getName()}' input 'displacementshader': reads no node; no height imported")
            return
        label = f"displacement shader '{shader.getName()}'"
        node = self.graph.nodes[self.output_id]
        node_type = NODE_TYPES[node.type_name]
        if node_type.input("height") is None:
            self.note(f"{label}: the {node_type.display_name} has no height; not imported")
            return
        if shader.getCategory() != "displacement":
            self.note(f"{label}: a {shader.getCategory()}, not a displacement node; no height imported")
            return
        amount = _input_of(shader, "displacement")
        if amount is None:
            return
        if amount.getType() != "float":
            self.note(f"{label}: a {amount.getType()} displacement (a vector per point) has no counterpart; "
                      "only a float along the normal is imported as the height")
            return
        what = f"{label} input 'displacement'"
        pattern = self.exported_height(amount)
        if pattern is not None:
            clamp, centred = pattern
            self.connect(_input_of(clamp, "in"), self.output_id, "height", f"{label} height")
            self.connect(_input_of(centred, "in2"), self.output_id, "height_mid_level", f"{label} mid level")
        else:
            self.connect(amount, self.output_id, "height", what)
            node.properties["height_mid_level"] = 0.0
            value = self.constant_of(shader, "displacement", what)
            if not (isinstance(value, tuple) and 0.0 <= value[0] <= 1.0):
                self.note(f"{what}: read as the height with mid level 0; the preview clamps the height to 0..1")
        self.feed(shader, "scale", self.output_id, "height_scale")

    def exported_height(self, amount: Any) -> tuple[Any, Any] | None:
        """(the clamp, the subtract) when the displacement is the exporter's clamp(height, 0, 1) - mid level."""
        found = self.resolve(amount)
        if found is None or found[0].getCategory() != "subtract" or found[0].getType() != "float":
            return None
        centred = found[0]
        first = _input_of(centred, "in1")
        inner = self.resolve(first) if first is not None else None
        if inner is None or inner[0].getCategory() != "clamp" or inner[0].getType() != "float":
            return None
        clamp = inner[0]
        low = self.constant_of(clamp, "low", f"node '{clamp.getName()}' input 'low'")
        high = self.constant_of(clamp, "high", f"node '{clamp.getName()}' input 'high'")
        if low != (0.0,) or high != (1.0,) or _input_of(clamp, "in") is None or _input_of(centred, "in2") is None:
            return None
        return clamp, centred

    def surface(self, shader: Any, category: str) -> str:
        output = self.graph.add_node("surface_output", (600.0, 0.0), node_id=self.new_id("surface"))
        self.output_id = output.id
        return output.id

    def feed(self, shader: Any, theirs: str, target: str, ours: str) -> None:
        """Our output input `ours` from the shader's input `theirs` (or its node definition's default)."""
        element = _input_of(shader, theirs)
        if element is not None:
            self.connect(element, target, ours, f"{shader.getCategory()} input '{theirs}'")

    def product(self, shader: Any, names: Sequence[str], target: str, ours: str) -> None:
        """Our input `ours` = the product of the shader's inputs `names` (numbers multiplied, else Multiply nodes)."""
        category = shader.getCategory()
        constants = [self.constant_of(shader, name, f"{category} input '{name}'") for name in names]
        connected = [name for name, value in zip(names, constants) if value == "connected"]
        numbers = [value for value in constants if isinstance(value, tuple)]
        product: tuple[float, ...] = (1.0,)
        for values in numbers:
            if len(values) == 1:
                product = tuple(p * values[0] for p in product)
            else:
                base = product if len(product) > 1 else product * len(values)
                product = tuple(b * v for b, v in zip(base, values))
        if not connected:
            element_type = "color3" if len(product) >= 3 else "float"
            self.set_value(target, ours, product, element_type)
            return
        current_target, current_port = target, ours
        for name in connected[1:]:
            multiply = self.graph.add_node("multiply", (self.graph.nodes[target].position[0] - 150.0, 0.0),
                                           node_id=self.new_id(f"{target}_{ours}_{name}"))
            self.graph.connect(multiply.id, "out", current_target, current_port)
            self.feed(shader, name, multiply.id, "b")
            current_target, current_port = multiply.id, "a"
        if product != (1.0,) and any(value != 1.0 for value in product):
            multiply = self.graph.add_node("multiply", (self.graph.nodes[target].position[0] - 150.0, 0.0),
                                           node_id=self.new_id(f"{target}_{ours}_weight"))
            self.graph.connect(multiply.id, "out", current_target, current_port)
            self.set_value(multiply.id, "b", product, "color3" if len(product) > 1 else "float")
            current_target, current_port = multiply.id, "a"
        self.feed(shader, connected[0], current_target, current_port)

    def unrepresented(self, shader: Any, handled: set[str], lobes: dict[str, Sequence[str]] | None = None) -> None:
        """List the shader's inputs without a counterpart that change the look (connected, or not their default)."""
        category = shader.getCategory()
        definition = shader.getNodeDef()
        lobes = lobes or {}
        silent: set[str] = set()
        for weight, dependents in lobes.items():
            value = self.constant_of(shader, weight, f"{category} input '{weight}'")
            if isinstance(value, tuple) and not any(value):
                silent.update(dependents)  # the lobe is off: its other inputs do nothing
        for element in shader.getInputs():
            name = element.getName()
            if name in handled or name in silent:
                continue
            value = self.constant_of(shader, name, f"{category} input '{name}'")
            default = definition.getActiveInput(name) if definition is not None else None
            default_text = default.getValueString() if default is not None else ""
            if value != "connected" and (element.getValueString() == default_text
                                         or (isinstance(value, tuple) and default is not None
                                             and value == self.numbers(default, name))):
                continue
            shown = "connected" if value == "connected" else element.getValueString()
            self.note(f"{category} input '{name}' ({shown}): no counterpart on the {self.output_label()}; not imported")

    def output_label(self) -> str:
        node = self.graph.nodes.get(self.output_id)
        return NODE_TYPES[node.type_name].display_name if node is not None else "output"

    def ior_to_specular(self, shader: Any, ior_name: str, specular_name: str | None, target: str) -> set[str]:
        """A dielectric IOR as the Surface Output's specular factor (F0 / 0.04, glTF's KHR_materials_ior and
        _specular); the handled names, or a note when it needs more than 1."""
        category = shader.getCategory()
        ior = self.constant_of(shader, ior_name, f"{category} input '{ior_name}'")
        weight = self.constant_of(shader, specular_name, f"{category} input '{specular_name}'") if specular_name else (1.0,)
        if ior == "connected" or weight == "connected":
            if weight == "connected" and ior != "connected" and isinstance(ior, tuple) and abs(ior[0] - 1.5) < 1e-6:
                self.feed(shader, specular_name or "", target, "specular")
                return {ior_name, specular_name or ""}
            self.note(f"{category} inputs '{ior_name}'/'{specular_name}': connected; the specular factor is left at 1")
            return {ior_name, specular_name or ""}
        index = ior[0] if isinstance(ior, tuple) else 1.5
        factor = ((index - 1.0) / (index + 1.0)) ** 2 / 0.04 * (weight[0] if isinstance(weight, tuple) else 1.0)
        if factor > 1.0 + 1e-3:
            self.note(f"{category} input '{ior_name}' ({index:g}): reflects more than the Surface Output's most "
                      f"(IOR 1.5, specular 1); specular set to 1")
        self.graph.nodes[target].properties["specular"] = min(max(factor, 0.0), 1.0)
        return {ior_name, specular_name or ""}


def _texture_parameter(importer: _Importer, element: Any, name: str, label: str, path: str, space: str) -> str:
    """The Texture Parameter of an image node's file (one per file and colour space)."""
    if not path:
        importer.note(f"{label}: an image without a file name; the texture is left empty")
    elif not _is_file(path):
        importer.note(f"{label}: its file {path} is not found; the texture names it as it is")
    if space not in ("", "lin_rec709", "srgb_texture", "raw", "none"):
        importer.note(f"{label}: colour space '{space}' of its file is not supported; read as {'sRGB' if 'srgb' in space else 'linear'}")
    color_space = "srgb" if "srgb" in space else "linear"
    key = ("texture", f"{path}|{color_space}")
    if key not in importer.made:
        file_input = _input_of(element, "file")
        interface = _interface_value(file_input) if file_input is not None else None
        parameter = interface.getName() if interface is not None else f"{name}_texture"
        texture = importer.add("texture_parameter", element, parameter if interface is not None else f"{name}_texture",
                               {"name": importer.graph.unique_parameter_name(_valid(parameter)), "image": path, "color_space": color_space})
        texture.position = (texture.position[0] - 200.0, texture.position[1])
        importer.made[key] = (texture.id, "out")
    return str(importer.made[key][0])  # type: ignore[index]  # set to a (node, port) pair just above


def _hextiled_image(importer: _Importer, element: Any, name: str, label: str) -> tuple[str, str]:
    """A `hextiledimage` as a Hex Tiled Image reading the file's Texture Parameter (the same inputs)."""
    path, space = importer.file_name(element, label)
    node = importer.add("hextiled_image", element, name)
    importer.graph.connect(_texture_parameter(importer, element, name, label, path, space), "out", node.id, "texture")
    for theirs, ours in HEXTILED_INPUTS.items():
        source = element.getInput(theirs)
        if source is not None:
            importer.connect(source, node.id, ours, f"{label} input '{theirs}'")
    return node.id, "rgba" if element.getType() == "color4" else "rgb"


def _interface_value(element: Any) -> Any:
    """The interface input a node input reads (through `interfacename`), or None."""
    name = element.getInterfaceName()
    if not name:
        return None
    parent = element.getParent().getParent()
    return parent.getInput(name) if parent is not None else None


def _input_of(element: Any, name: str) -> Any:
    """The node's input `name`, or its node definition's (which holds the default value), or None."""
    found = element.getInput(name)
    if found is not None:
        return found
    definition = element.getNodeDef() if hasattr(element, "getNodeDef") else None
    return definition.getActiveInput(name) if definition is not None else None


def _clamped(element: Any) -> bool:
    """Whether the image clamps its UV in both directions (MaterialX's `clamp` address mode)."""
    modes = [element.getInput(name) for name in ("uaddressmode", "vaddressmode")]
    return all(mode is not None and mode.getValueString() == "clamp" for mode in modes)


def _is_file(path: str) -> bool:
    """Whether `path` names a regular file. A name the system cannot look up (too long, a component too long) is
    no file: a document may name anything, and the import then lists the texture as not found."""
    try:
        return Path(path).is_file()
    except OSError:
        return False


def _image_size(path: str) -> tuple[int, int] | None:
    """(width, height) of an image file from its header, or None (no such regular file, or unreadable)."""
    if not path or not _is_file(path):
        return None
    import OpenImageIO as oiio  # noqa: N813 - the library's own documented alias

    image = oiio.ImageInput.open(path)
    if image is None:
        return None
    try:
        spec = image.spec()
        return (spec.width, spec.height) if spec.width > 0 and spec.height > 0 else None
    finally:
        image.close()


def _valid(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", text) or "texture"
    return cleaned if not cleaned[0].isdigit() else f"_{cleaned}"


def _coerce(values: Sequence[float], mx_type: str) -> tuple[float, ...]:
    width = _WIDTHS.get(mx_type, 1)
    if len(values) == 1:
        return (float(values[0]),) * width
    padded = list(values[:width])
    while len(padded) < width:
        padded.append(1.0 if (mx_type == "color4" and len(padded) == 3) else 0.0)
    return tuple(padded)


_CM_NODES = {f"{space}_to_lin_rec709" for space in ("g18_rec709", "g22_rec709", "rec709_display", "acescg", "g22_ap1",
                                                     "lin_adobergb", "adobergb", "srgb_displayp3", "lin_displayp3")}


# Shading models onto the outputs ---------------------------------------------------------------------


def _gltf_pbr(importer: _Importer, shader: Any) -> None:
    target = importer.surface(shader, "gltf_pbr")
    output = importer.graph.nodes[target]
    mode_value = importer.constant_of(shader, "alpha_mode", "gltf_pbr input 'alpha_mode'")
    mode = int(mode_value[0]) if isinstance(mode_value, tuple) else 0
    handled = {"alpha_mode", "alpha", "alpha_cutoff"}
    for ours, (theirs, _mx_type) in GLTF_PBR_INPUTS.items():
        if theirs in handled:
            continue
        importer.feed(shader, theirs, target, ours)
        handled.add(theirs)
    if mode in (1, 2):
        importer.feed(shader, "alpha", target, "opacity")
    elif shader.getInput("alpha") is not None:
        value = importer.constant_of(shader, "alpha", "gltf_pbr input 'alpha'")
        if value == "connected" or (isinstance(value, tuple) and value[0] != 1.0):
            importer.note("gltf_pbr input 'alpha': ignored, as glTF ignores it, because alpha_mode is OPAQUE")
    if mode == 1:
        cutoff = importer.constant_of(shader, "alpha_cutoff", "gltf_pbr input 'alpha_cutoff'")
        if cutoff == "connected":
            importer.feed(shader, "alpha_cutoff", target, "alpha_clip")
        else:
            output.properties["alpha_clip"] = cutoff[0] if isinstance(cutoff, tuple) else 0.5
    else:
        output.properties["alpha_clip"] = 0.0
    # The KHR extension inputs are the Surface Output's, under the same names (ior included: KHR_materials_ior).
    for name in GLTF_PBR_EXTENSION_INPUTS:
        element = shader.getInput(name)
        if element is None:
            continue
        handled.add(name)
        if name == "clearcoat_normal" and not (element.getNodeName() or element.getNodeGraphString() or element.getInterfaceName()):
            continue  # a constant world-space normal: unconnected, the Surface Output reads the interpolated normal
        importer.feed(shader, name, target, name)
    if shader.getInput("iridescence") is not None and shader.getInput("iridescence_thickness") is None:
        output.properties["iridescence_thickness"] = 100.0  # gltf_pbr's default (the Surface Output's is 400 nm)
    importer.unrepresented(shader, handled)


def _standard_surface(importer: _Importer, shader: Any) -> None:
    """standard_surface onto the Surface Output when the glTF model holds everything it sets, else onto the
    OpenPBR Surface (`_standard_to_openpbr`)."""
    if _standard_needs_openpbr(importer, shader):
        _standard_to_openpbr(importer, shader)
        return
    target = importer.surface(shader, "standard_surface")
    transmission = importer.constant_of(shader, "transmission", "standard_surface input 'transmission'")
    metalness = importer.constant_of(shader, "metalness", "standard_surface input 'metalness'")
    # glTF tints the transmission by the base colour; fully transmissive and not metal, no diffuse is left for it.
    clear = transmission == (1.0,) and metalness == (0.0,)
    if not clear:
        importer.product(shader, ("base", "base_color"), target, "base_color")
    importer.feed(shader, "metalness", target, "metallic")
    importer.feed(shader, "specular_roughness", target, "roughness")
    importer.feed(shader, "normal", target, "normal")
    importer.product(shader, ("emission", "emission_color"), target, "emissive_color")
    importer.graph.nodes[target].properties["emissive_strength"] = 1.0
    handled = {"base", "base_color", "metalness", "specular_roughness", "normal", "emission", "emission_color", "opacity"}
    if transmission == "connected" or (isinstance(transmission, tuple) and transmission[0] != 0.0):
        handled |= _standard_transmission(importer, shader, target, clear)
    else:
        handled |= importer.ior_to_specular(shader, "specular_IOR", "specular", target)
    opacity = importer.constant_of(shader, "opacity", "standard_surface input 'opacity'")
    if opacity == "connected":
        swizzle = importer.graph.add_node("swizzle", (450.0, 200.0), {"pattern": "x"}, node_id=importer.new_id("opacity_red"))
        importer.feed(shader, "opacity", swizzle.id, "vector")
        importer.graph.connect(swizzle.id, "out", target, "opacity")
        importer.note("standard_surface input 'opacity' (connected, colour): its red channel is the opacity")
    elif isinstance(opacity, tuple):
        importer.graph.nodes[target].properties["opacity"] = sum(opacity) / len(opacity)
        if max(opacity) - min(opacity) > 1e-6:
            importer.note(f"standard_surface input 'opacity' ({opacity}): a coloured opacity; its mean is the opacity")
    importer.unrepresented(shader, handled, {
        "coat": ("coat_color", "coat_roughness", "coat_anisotropy", "coat_rotation", "coat_IOR", "coat_normal",
                 "coat_affect_color", "coat_affect_roughness"),
        "sheen": ("sheen_color", "sheen_roughness"),
        "transmission": ("transmission_color", "transmission_depth", "transmission_scatter", "transmission_scatter_anisotropy",
                         "transmission_extra_roughness"),
        "subsurface": ("subsurface_color", "subsurface_radius", "subsurface_scale", "subsurface_anisotropy"),
        "thin_film_thickness": ("thin_film_IOR",),
        "specular_anisotropy": ("specular_rotation",),
        "specular": ("specular_color",),
    })


def _standard_value(importer: _Importer, shader: Any, name: str) -> tuple[float, ...] | str | None:
    return importer.constant_of(shader, name, f"standard_surface input '{name}'")


def _standard_on(importer: _Importer, shader: Any, name: str) -> bool:
    """Whether the input is connected or a constant other than 0."""
    value = _standard_value(importer, shader, name)
    return value == "connected" or (isinstance(value, tuple) and any(value))


def _standard_needs_openpbr(importer: _Importer, shader: Any) -> bool:
    """Whether the shader sets something the Surface Output (glTF metallic-roughness and its extensions) cannot
    represent: a coat, sheen, subsurface, thin film, specular anisotropy, diffuse roughness, a tinted specular,
    a scattering or tinted (not fully transmissive) transmission, or a dielectric reflecting more than IOR 1.5."""
    if any(_standard_on(importer, shader, name) for name in
           ("coat", "sheen", "subsurface", "thin_film_thickness", "specular_anisotropy", "diffuse_roughness")):
        return True
    reflects = _standard_on(importer, shader, "specular") or _standard_on(importer, shader, "metalness")
    if reflects and _standard_value(importer, shader, "specular_color") not in ((1.0, 1.0, 1.0), None):
        return True
    transmission = _standard_value(importer, shader, "transmission")
    if transmission == "connected" or (isinstance(transmission, tuple) and transmission[0] != 0.0):
        if _standard_on(importer, shader, "transmission_scatter"):
            return True
        clear = transmission == (1.0,) and _standard_value(importer, shader, "metalness") == (0.0,)
        depth = _standard_value(importer, shader, "transmission_depth")
        tinted = _standard_value(importer, shader, "transmission_color") not in ((1.0, 1.0, 1.0), None)
        return tinted and not clear and not (isinstance(depth, tuple) and depth[0] > 0.0)
    ior = _standard_value(importer, shader, "specular_IOR")
    return isinstance(ior, tuple) and ((ior[0] - 1.0) / (ior[0] + 1.0)) ** 2 > 0.04 + 1e-6


#: standard_surface inputs that are OpenPBR Surface inputs of the same meaning under another name.
STANDARD_TO_OPENPBR = {
    "base": "base_weight", "base_color": "base_color", "diffuse_roughness": "base_diffuse_roughness",
    "metalness": "base_metalness", "specular_IOR": "specular_ior",
    "transmission": "transmission_weight", "transmission_color": "transmission_color",
    "transmission_depth": "transmission_depth", "transmission_scatter": "transmission_scatter",
    "transmission_scatter_anisotropy": "transmission_scatter_anisotropy",
    "subsurface": "subsurface_weight", "subsurface_color": "subsurface_color",
    "subsurface_radius": "subsurface_radius_scale", "subsurface_scale": "subsurface_radius",
    "subsurface_anisotropy": "subsurface_scatter_anisotropy",
    "sheen": "fuzz_weight", "sheen_color": "fuzz_color",
    "coat": "coat_weight", "coat_color": "coat_color", "coat_IOR": "coat_ior", "coat_affect_color": "coat_darkening",
    "thin_film_IOR": "thin_film_ior", "emission": "emission_luminance", "emission_color": "emission_color",
    "thin_walled": "geometry_thin_walled", "normal": "geometry_normal", "coat_normal": "geometry_coat_normal",
    "tangent": "geometry_tangent",
}
#: OpenPBR's μ̄ of the F82-tint metal: the edge tint is the reflectance at arccos(1/7) ≈ 82° over Schlick's.
_F82_COSINE = 1.0 / 7.0


def conductor_fresnel(cosine: float, n: float, k: float) -> float:
    """The unpolarised Fresnel reflectance of a conductor of complex IOR n + ik, from a dielectric of IOR 1."""
    c2 = cosine * cosine
    s2 = 1.0 - c2
    t0 = n * n - k * k - s2
    a2b2 = math.sqrt(t0 * t0 + 4.0 * n * n * k * k)
    a = math.sqrt(max(0.5 * (a2b2 + t0), 0.0))
    t1, t2 = a2b2 + c2, 2.0 * a * cosine
    rs = (t1 - t2) / (t1 + t2)
    t3, t4 = c2 * a2b2 + s2 * s2, t2 * s2
    rp = rs * (t3 - t4) / (t3 + t4)
    return 0.5 * (rs + rp)


def standard_metal_edge_tint(reflectivity: Sequence[float], edge: Sequence[float]) -> tuple[float, ...]:
    """The OpenPBR specular_color (F82 tint) of a standard_surface metal of `reflectivity` (base × base_color)
    and edge colour (specular × specular_color), per channel.

    standard_surface's metal is a conductor whose complex IOR is Gulbrandsen's "artist friendly metallic
    Fresnel" (JCGT 2014) of the two colours: its normal reflectance is the reflectivity, which is OpenPBR's F0
    (base_weight × base_color). OpenPBR's F82-tint metal is Schlick's curve of F0 bent so that at μ̄ = 1/7 it
    is the tint × Schlick's value; the tint making the two agree there is the conductor's reflectance over
    Schlick's at μ̄. Both curves then meet at normal incidence, at μ̄ and at grazing incidence (1)."""
    tint = []
    for r_value, g_value in zip(reflectivity, edge):
        r = min(max(r_value, 0.0), 0.99)
        g = min(max(g_value, 0.0), 1.0)
        n_low, n_high = (1.0 - r) / (1.0 + r), (1.0 + math.sqrt(r)) / (1.0 - math.sqrt(r))
        n = n_high + (n_low - n_high) * g
        k = math.sqrt(max(((n + 1.0) ** 2 * r - (n - 1.0) ** 2) / (1.0 - r), 0.0))
        schlick = r + (1.0 - r) * (1.0 - _F82_COSINE) ** 5
        tint.append(min(max(conductor_fresnel(_F82_COSINE, n, k) / schlick, 0.0), 1.0))
    return tuple(tint)


def standard_roughness_scale(anisotropy: float) -> float:
    """The factor on a standard_surface roughness that gives OpenPBR's anisotropic lobe the same α.

    standard_surface (MaterialX's `roughness_anisotropy`): α_x = r² / √(1 − a), α_y = r² √(1 − a), a at most
    0.98. OpenPBR: α_t = r'² √(2 / (1 + (1 − a')²)), α_b = (1 − a') α_t. The ratio α_b / α_t is 1 − a in both,
    so a' = a, and α_t agrees when r' = r ((1 + (1 − a)²) / (2 (1 − a)))^¼ (1 when isotropic)."""
    left = 1.0 - min(max(anisotropy, 0.0), 0.98)
    return float(((1.0 + left * left) / (2.0 * left)) ** 0.25)


#: fuzz_roughness = SHEEN_SCALE × sheen_roughness ^ SHEEN_EXPONENT (`standard_sheen_roughness`).
SHEEN_SCALE = 0.725
SHEEN_EXPONENT = 0.158


def standard_sheen_roughness(roughness: float) -> float:
    """The OpenPBR fuzz roughness whose directional albedo is closest to a standard_surface sheen's.

    standard_surface's sheen is Conty and Kulla's (Imageworks) microfacet sheen, OpenPBR's fuzz Zeltner,
    Burley and Chiang's LTC sheen (MaterialX's `sheen_bsdf` modes); the same roughness number means different
    lobes. Under environment light both shade as irradiance × colour × directional albedo A(μ) over
    1 − A(μ) of the layer below, so the fuzz roughness is chosen to match A: for each sheen roughness, the one
    minimising ∫ μ (A_fuzz − A_sheen)² dμ over MaterialX's fits of both albedos; a power law fits those to 0.022
    (0.03 to 1: 0.45 to 0.73; the albedos then differ by 0.012 rms at 0.3, against 0.16 with the number kept)."""
    return float(SHEEN_SCALE * max(roughness, 0.0) ** SHEEN_EXPONENT)


def _standard_sheen_roughness(importer: _Importer, shader: Any, target: str) -> None:
    value = _standard_value(importer, shader, "sheen_roughness")
    if isinstance(value, tuple):
        importer.graph.nodes[target].properties["fuzz_roughness"] = min(standard_sheen_roughness(value[0]), 1.0)
        return
    graph = importer.graph
    power = graph.add_node("power", (450.0, 300.0), node_id=importer.new_id("fuzz_roughness_curve"))
    importer.feed(shader, "sheen_roughness", power.id, "base")
    importer.set_value(power.id, "exponent", (SHEEN_EXPONENT,), "float")
    scale = graph.add_node("multiply", (525.0, 300.0), node_id=importer.new_id("fuzz_roughness"))
    graph.connect(power.id, "out", scale.id, "a")
    importer.set_value(scale.id, "b", (SHEEN_SCALE,), "float")
    graph.connect(scale.id, "out", target, "fuzz_roughness")


def standard_coated_ior(ior: float, coat: float, coat_ior: float) -> float:
    """The OpenPBR specular IOR under a coat that reflects as standard_surface's `ior` does.

    OpenPBR's base reflects at its interface with the coat: the specular IOR relative to the coat's where the
    coat is, mix(η, η / η_c, coat) (its `modulated_eta_s`; under a coat of the same IOR it reflects nothing).
    standard_surface layers its coat over a base that reflects against air whatever the coat. Solving
    mix(x, x / η_c, coat) = η for x keeps standard_surface's base reflection."""
    return ior / (1.0 - coat + coat / max(coat_ior, 1e-3))


def standard_coated_roughness(roughness: float, coat: float, coat_roughness: float) -> float:
    """The OpenPBR specular roughness that a coat roughens to `roughness`, as near as it can (0 at least).

    OpenPBR roughens the base under a rough coat: mix(r, min(1, r⁴ + 2 r_c⁴)^¼, coat) (its
    `effective_specular_roughness`); standard_surface leaves the base as it is (unless `coat_affect_roughness`).
    The roughness that the formula takes to the document's is found by bisection (it rises with r)."""
    def effective(value: float) -> float:
        return float(value + (min(1.0, value**4 + 2.0 * coat_roughness**4) ** 0.25 - value) * coat)

    low, high = 0.0, roughness
    if effective(low) >= roughness:
        return 0.0
    for _step in range(40):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if effective(middle) < roughness else (low, middle)
    return 0.5 * (low + high)


def _standard_coated_roughness(importer: _Importer, shader: Any, output: Any) -> None:
    """`standard_coated_roughness` on the (anisotropy-scaled) specular roughness when the numbers are constants."""
    coat = _standard_value(importer, shader, "coat")
    coat_roughness = _standard_value(importer, shader, "coat_roughness")
    roughness = output.properties.get("specular_roughness")
    if (isinstance(coat, tuple) and coat[0] > 0.0 and isinstance(coat_roughness, tuple) and coat_roughness[0] > 0.0
            and isinstance(roughness, float) and importer.graph.connection_into(output.id, "specular_roughness") is None):
        output.properties["specular_roughness"] = standard_coated_roughness(roughness, min(coat[0], 1.0), min(coat_roughness[0], 1.0))


def _standard_coated_ior(importer: _Importer, shader: Any, output: Any) -> None:
    """`standard_coated_ior` on a coated opaque dielectric whose numbers are constants (a transmission would
    refract at the changed IOR too, so it keeps the IOR as it is)."""
    coat = _standard_value(importer, shader, "coat")
    coat_ior = _standard_value(importer, shader, "coat_IOR")
    ior = _standard_value(importer, shader, "specular_IOR")
    transmission = _standard_value(importer, shader, "transmission")
    if (isinstance(coat, tuple) and coat[0] > 0.0 and isinstance(coat_ior, tuple) and isinstance(ior, tuple)
            and transmission == (0.0,) and _standard_on(importer, shader, "specular") and ior[0] >= 1.0):
        output.properties["specular_ior"] = standard_coated_ior(ior[0], min(coat[0], 1.0), coat_ior[0])


def _standard_scaled(importer: _Importer, shader: Any, theirs: str, target: str, ours: str, factor: float,
                     limit: float | None = None) -> None:
    """Our input `ours` = the shader's input `theirs` × factor (at most `limit`): a number, or a Multiply node."""
    value = _standard_value(importer, shader, theirs)
    if isinstance(value, tuple):
        scaled = value[0] * factor
        importer.graph.nodes[target].properties[ours] = min(scaled, limit) if limit is not None else scaled
        return
    if factor == 1.0:
        importer.feed(shader, theirs, target, ours)
        return
    graph = importer.graph
    multiply = graph.add_node("multiply", (graph.nodes[target].position[0] - 150.0, 0.0), node_id=importer.new_id(f"{target}_{ours}"))
    importer.feed(shader, theirs, multiply.id, "a")
    importer.set_value(multiply.id, "b", (factor,), "float")
    if limit is None:
        graph.connect(multiply.id, "out", target, ours)
        return
    bounded = graph.add_node("min", (graph.nodes[target].position[0] - 100.0, 0.0), node_id=importer.new_id(f"{target}_{ours}_bound"))
    graph.connect(multiply.id, "out", bounded.id, "a")
    importer.set_value(bounded.id, "b", (limit,), "float")
    graph.connect(bounded.id, "out", target, ours)


def _standard_anisotropic(importer: _Importer, shader: Any, target: str, roughness: str, anisotropy: str, ours: str,
                          ours_anisotropy: str) -> None:
    """A roughness and anisotropy pair (`standard_roughness_scale`); a connected anisotropy keeps the roughness."""
    importer.feed(shader, anisotropy, target, ours_anisotropy)
    value = _standard_value(importer, shader, anisotropy)
    factor = standard_roughness_scale(value[0]) if isinstance(value, tuple) else 1.0
    _standard_scaled(importer, shader, roughness, target, ours, factor, 1.0 if factor != 1.0 else None)


def _standard_to_openpbr(importer: _Importer, shader: Any) -> None:
    """standard_surface (Autodesk Standard Surface 1.0) onto the OpenPBR Surface (1.1): the mapping table of
    docs/interchange.md, "Standard Surface onto the OpenPBR Surface". Most inputs have a counterpart of the same
    meaning (STANDARD_TO_OPENPBR); the specular weight, the metal's edge tint, anisotropic roughness, the thin
    film's thickness (nm to μm), dispersion (an Abbe number) and the opacity are converted; what has no
    counterpart is listed."""
    graph = importer.graph
    output = graph.add_node("openpbr_surface", (600.0, 0.0), node_id=importer.new_id("surface"))
    target = importer.output_id = output.id
    for theirs, ours in STANDARD_TO_OPENPBR.items():
        if theirs not in ("specular_IOR",) or _standard_on(importer, shader, "specular") or _standard_on(importer, shader, "transmission"):
            importer.feed(shader, theirs, target, ours)
    # geometry_tangent: standard_surface's one tangent serves the coat too.
    importer.feed(shader, "tangent", target, "geometry_coat_tangent")
    handled = set(STANDARD_TO_OPENPBR) | {"specular", "specular_color", "specular_roughness", "specular_anisotropy",
                                          "coat_roughness", "coat_anisotropy", "thin_film_thickness",
                                          "transmission_dispersion", "opacity", "sheen_roughness"}
    metalness = _standard_value(importer, shader, "metalness")
    specular = _standard_value(importer, shader, "specular")
    # OpenPBR's specular weight scales the metal's reflection too; standard_surface's the dielectric's alone.
    if metalness == (1.0,):
        output.properties["specular_weight"] = 1.0
    else:
        importer.feed(shader, "specular", target, "specular_weight")
        if metalness != (0.0,) and specular != (1.0,):
            importer.note(f"standard_surface input 'specular' ({'connected' if specular == 'connected' else specular}): "
                          f"on the OpenPBR Surface it also scales the metal's reflection (metalness "
                          f"{'connected' if metalness == 'connected' else metalness}); imported as the dielectric's weight")
    # specular_color: the dielectric's tint in both; a metal's edge colour (× specular) becomes the F82 tint.
    color = _standard_value(importer, shader, "specular_color")
    base = _standard_value(importer, shader, "base")
    base_color = _standard_value(importer, shader, "base_color")
    if (metalness == (1.0,) and isinstance(color, tuple) and isinstance(specular, tuple) and isinstance(base, tuple)
            and isinstance(base_color, tuple)):
        tint = standard_metal_edge_tint([base[0] * c for c in base_color[:3]], [specular[0] * c for c in color[:3]])
        output.properties["specular_color"] = (*tint, 1.0)
    else:
        importer.feed(shader, "specular_color", target, "specular_color")
    # The specular and coat lobes' anisotropic roughness; the tangent's rotation has no counterpart.
    _standard_anisotropic(importer, shader, target, "specular_roughness", "specular_anisotropy", "specular_roughness",
                          "specular_roughness_anisotropy")
    _standard_anisotropic(importer, shader, target, "coat_roughness", "coat_anisotropy", "coat_roughness", "coat_roughness_anisotropy")
    _standard_sheen_roughness(importer, shader, target)
    _standard_coated_ior(importer, shader, output)
    _standard_coated_roughness(importer, shader, output)
    # Thin film: standard_surface's thickness is in nanometres (0: none), OpenPBR's in micrometres with a weight.
    if _standard_on(importer, shader, "thin_film_thickness"):
        output.properties["thin_film_weight"] = 1.0
        _standard_scaled(importer, shader, "thin_film_thickness", target, "thin_film_thickness", 0.001)
    else:
        output.properties["thin_film_weight"] = 0.0
    # Dispersion: standard_surface's is an Abbe number (0: none); OpenPBR's a scale on its own Abbe number.
    abbe = _standard_value(importer, shader, "transmission_dispersion")
    if isinstance(abbe, tuple) and abbe[0] > 0.0:
        output.properties["transmission_dispersion_scale"] = 1.0
        output.properties["transmission_dispersion_abbe_number"] = abbe[0]
    elif abbe == "connected":
        importer.note("standard_surface input 'transmission_dispersion' (connected): the OpenPBR Surface's Abbe number "
                      "is a number; not imported")
    # Opacity: a colour in standard_surface, one number in OpenPBR.
    opacity = _standard_value(importer, shader, "opacity")
    if opacity == "connected":
        swizzle = graph.add_node("swizzle", (450.0, 200.0), {"pattern": "x"}, node_id=importer.new_id("opacity_red"))
        importer.feed(shader, "opacity", swizzle.id, "vector")
        graph.connect(swizzle.id, "out", target, "geometry_opacity")
        importer.note("standard_surface input 'opacity' (connected, colour): its red channel is the opacity")
    elif isinstance(opacity, tuple):
        output.properties["geometry_opacity"] = sum(opacity) / len(opacity)
        if max(opacity) - min(opacity) > 1e-6:
            importer.note(f"standard_surface input 'opacity' ({opacity}): a coloured opacity; its mean is the opacity")
    # No counterpart: transmission_extra_roughness, specular_rotation, coat_rotation, coat_affect_roughness.
    importer.unrepresented(shader, handled, {
        "coat": ("coat_color", "coat_roughness", "coat_anisotropy", "coat_rotation", "coat_IOR", "coat_normal",
                 "coat_affect_color", "coat_affect_roughness"),
        "transmission": ("transmission_extra_roughness",),
        "specular_anisotropy": ("specular_rotation",),
    })


#: The path length, in scene units, a solid standard_surface's transmission is attenuated over: one unit, as the
#: OpenPBR Surface's Beer-Lambert (MaterialX's `anisotropic_vdf` for `transmission_depth`).
STANDARD_TRANSMISSION_THICKNESS = 1.0


def _standard_transmission(importer: _Importer, shader: Any, target: str, clear: bool) -> set[str]:
    """standard_surface's transmission onto the Surface Output's glTF transmission extensions; the handled names.

    - `transmission` is KHR_materials_transmission's factor; `specular_IOR` is KHR_materials_ior's `ior` (it
      refracts) and `specular` the specular factor.
    - Solid (`thin_walled` 0, the default) is a volume: `thickness` one scene unit; `transmission_depth` > 0 with
      `transmission_color` is the attenuation distance and colour (both: the colour reached at that depth).
    - glTF tints the transmission by the base colour. `clear` (transmission 1, metalness 0: the base colour
      colours nothing else): the base colour is `transmission_color` at depth 0 (and white with a depth);
      otherwise a `transmission_color` at depth 0 is listed.
    - `transmission_dispersion` is an Abbe number V (0: none): KHR_materials_dispersion's dispersion = 20 / V. It
      refracts only through a volume, so a thin wall lists it.
    """
    output = importer.graph.nodes[target]
    importer.feed(shader, "transmission", target, "transmission")
    importer.feed(shader, "specular_IOR", target, "ior")
    importer.feed(shader, "specular", target, "specular")
    handled = {"transmission", "specular_IOR", "specular", "transmission_dispersion"}
    thin = importer.constant_of(shader, "thin_walled", "standard_surface input 'thin_walled'")
    solid = isinstance(thin, tuple) and thin[0] == 0.0
    if thin != "connected":
        handled.add("thin_walled")
    if solid:
        output.properties["thickness"] = STANDARD_TRANSMISSION_THICKNESS
        depth = importer.constant_of(shader, "transmission_depth", "standard_surface input 'transmission_depth'")
        if isinstance(depth, tuple) and depth[0] > 0.0:
            output.properties["attenuation_distance"] = depth[0]
            importer.feed(shader, "transmission_color", target, "attenuation_color")
            handled |= {"transmission_depth", "transmission_color"}
    if clear:
        handled |= {"base", "base_color"}
        if "transmission_color" in handled:
            output.properties["base_color"] = (1.0, 1.0, 1.0, 1.0)
        else:
            importer.feed(shader, "transmission_color", target, "base_color")
            handled.add("transmission_color")
    abbe = importer.constant_of(shader, "transmission_dispersion", "standard_surface input 'transmission_dispersion'")
    if abbe == "connected":
        importer.note("standard_surface input 'transmission_dispersion' (connected): KHR_materials_dispersion is one "
                      "number (20 / Abbe number); not imported")
    elif isinstance(abbe, tuple) and abbe[0] > 0.0:
        if solid:
            output.properties["dispersion"] = 20.0 / abbe[0]
        else:
            importer.note(f"standard_surface input 'transmission_dispersion' ({abbe[0]:g}): dispersion refracts only "
                          f"through a volume (thin_walled 0); not imported")
    return handled


def _usd_preview_surface(importer: _Importer, shader: Any) -> None:
    target = importer.surface(shader, "UsdPreviewSurface")
    output = importer.graph.nodes[target]
    for theirs, ours in (("diffuseColor", "base_color"), ("metallic", "metallic"), ("roughness", "roughness"),
                         ("emissiveColor", "emissive_color"), ("opacity", "opacity"), ("occlusion", "ambient_occlusion")):
        importer.feed(shader, theirs, target, ours)
    output.properties["emissive_strength"] = 1.0
    handled = {"diffuseColor", "metallic", "roughness", "emissiveColor", "opacity", "occlusion", "opacityThreshold", "normal",
               "useSpecularWorkflow"}
    threshold = importer.constant_of(shader, "opacityThreshold", "UsdPreviewSurface input 'opacityThreshold'")
    if threshold == "connected":
        importer.feed(shader, "opacityThreshold", target, "alpha_clip")
    elif isinstance(threshold, tuple) and threshold[0] > 0.0:
        output.properties["alpha_clip"] = threshold[0]
    normal = shader.getInput("normal")
    if normal is not None and (normal.getConnectedNode() is not None or normal.getNodeGraphString()):
        # A tangent-space normal in [-1, 1]; the Normal Map node reads n / 2 + 1/2.
        normal_map = importer.graph.add_node("normal_map", (450.0, 300.0), node_id=importer.new_id("normal_map"))
        encode = importer.graph.add_node("multiply", (300.0, 300.0), node_id=importer.new_id("normal_half"))
        shift = importer.graph.add_node("add", (375.0, 300.0), node_id=importer.new_id("normal_encoded"))
        importer.feed(shader, "normal", encode.id, "a")
        importer.set_value(encode.id, "b", (0.5,), "float")
        importer.graph.connect(encode.id, "out", shift.id, "a")
        importer.set_value(shift.id, "b", (0.5,), "float")
        importer.graph.connect(shift.id, "out", normal_map.id, "tangent_normal")
        importer.graph.connect(normal_map.id, "normal_out", target, "normal")
    workflow = importer.constant_of(shader, "useSpecularWorkflow", "UsdPreviewSurface input 'useSpecularWorkflow'")
    if isinstance(workflow, tuple) and workflow[0]:
        importer.note("UsdPreviewSurface input 'useSpecularWorkflow' (1): the specular workflow has no counterpart; "
                      "read as metallic-roughness")
    else:
        handled.add("specularColor")
    ior = importer.constant_of(shader, "ior", "UsdPreviewSurface input 'ior'")
    if isinstance(ior, tuple) and ior[0] > 1.5:
        # Beyond what the specular factor reaches: KHR_materials_ior's F0 = ((ior - 1) / (ior + 1))², as MaterialX's.
        output.properties["ior"] = ior[0]
        output.properties["specular"] = 1.0
        handled.add("ior")
    else:
        handled |= importer.ior_to_specular(shader, "ior", None, target)
    # MaterialX's coat: GGX at clearcoatRoughness, Schlick from F0 = ((ior - 1) / (ior + 1))² to 1, layered over the
    # rest: KHR_materials_clearcoat's (F0 0.04) when the IOR is 1.5.
    importer.feed(shader, "clearcoat", target, "clearcoat")
    importer.feed(shader, "clearcoatRoughness", target, "clearcoat_roughness")
    handled |= {"clearcoat", "clearcoatRoughness"}
    coat = importer.constant_of(shader, "clearcoat", "UsdPreviewSurface input 'clearcoat'")
    if coat != (0.0,) and not (isinstance(ior, tuple) and abs(ior[0] - 1.5) < 1e-6):
        shown = "connected" if not isinstance(ior, tuple) else f"{ior[0]:g}"
        importer.note(f"UsdPreviewSurface input 'clearcoat': its Fresnel follows 'ior' ({shown}); the Surface Output's "
                      f"clearcoat has IOR 1.5")
    importer.unrepresented(shader, handled, {})


def _open_pbr_surface(importer: _Importer, shader: Any) -> None:
    """open_pbr_surface onto the OpenPBR Surface: the same inputs by name (absent ones take the node definition's
    defaults, which are the node's)."""
    from app.material.nodes.openpbr import INPUTS as OPENPBR_INPUTS

    output = importer.graph.add_node("openpbr_surface", (600.0, 0.0), node_id=importer.new_id("surface"))
    importer.output_id = output.id
    for name, *_ in OPENPBR_INPUTS:
        importer.feed(shader, name, output.id, name)
    importer.unrepresented(shader, {name for name, *_ in OPENPBR_INPUTS})


def _surface_unlit(importer: _Importer, shader: Any) -> None:
    """surface_unlit's colour is linear; the Unlit Output's is display-referred (what the screen shows), so it is
    encoded with the sRGB transfer function: numbers directly, a graph through nodes."""
    output = importer.graph.add_node("material_output", (600.0, 0.0), node_id=importer.new_id("surface"))
    importer.output_id = output.id
    output.properties["emissive"] = (0.0, 0.0, 0.0, 1.0)
    importer.feed(shader, "opacity", output.id, "opacity")
    color = importer.constant_of(shader, "emission_color", "surface_unlit input 'emission_color'")
    weight = importer.constant_of(shader, "emission", "surface_unlit input 'emission'")
    if color != "connected" and weight != "connected":
        rgb = color if isinstance(color, tuple) else (1.0, 1.0, 1.0)
        scale = weight[0] if isinstance(weight, tuple) else 1.0
        output.properties["base_color"] = tuple(linear_to_srgb(value * scale) for value in rgb[:3]) + (1.0,)
    else:
        _encode_srgb(importer, shader, output.id)
    importer.unrepresented(shader, {"emission", "emission_color", "opacity"}, {"transmission": ("transmission_color",)})


def _encode_srgb(importer: _Importer, shader: Any, target: str) -> None:
    """base_color = srgb(emission × emission_color). The exporter's `srgb_texture_to_lin_rec709` node (and an
    sRGB image read directly) cancel the encoding, so they connect straight through."""
    element = _input_of(shader, "emission_color")
    found = importer.resolve(element) if element is not None else None
    weight = importer.constant_of(shader, "emission", "surface_unlit input 'emission'")
    unit = isinstance(weight, tuple) and weight[0] == 1.0
    if found is not None and unit and found[0].getCategory() == "srgb_texture_to_lin_rec709":
        source = found[0].getInput("in")
        if source is not None:
            importer.connect(source, target, "base_color", "surface_unlit input 'emission_color'")
        return
    if found is not None and unit and found[0].getCategory() in (*IMAGE_CATEGORIES, "hextiledimage"):
        _path, space = importer.file_name(found[0], "")
        if "srgb" in space:
            importer.connect(element, target, "base_color", "surface_unlit input 'emission_color'")
            texture = importer.graph.connection_into(target, "base_color")
            sample = importer.graph.nodes[texture.source_node] if texture is not None else None
            if sample is not None and sample.type_name in ("sample_texture", "hextiled_image"):
                return  # an sRGB file shown as stored: the Unlit Output does not decode it
    # linear -> sRGB with nodes: mix(12.92 x, 1.055 x^(1/2.4) - 0.055, saturate((x - 0.0031308) 1e7)), component-wise
    graph = importer.graph
    x = graph.add_node("multiply", (0.0, 0.0), node_id=importer.new_id("unlit_linear"))
    importer.feed(shader, "emission_color", x.id, "a")
    importer.feed(shader, "emission", x.id, "b")
    clamped = graph.add_node("max", (100.0, 0.0), node_id=importer.new_id("unlit_positive"))
    graph.connect(x.id, "out", clamped.id, "a")
    importer.set_value(clamped.id, "b", (0.0,), "float")
    power = graph.add_node("power", (200.0, 0.0), {"exponent": 1.0 / 2.4}, node_id=importer.new_id("unlit_power"))
    graph.connect(clamped.id, "out", power.id, "base")
    importer.set_value(power.id, "exponent", (1.0 / 2.4,), "float")
    curve = graph.add_node("multiply", (300.0, 0.0), node_id=importer.new_id("unlit_curve"))
    graph.connect(power.id, "out", curve.id, "a")
    importer.set_value(curve.id, "b", (1.055,), "float")
    offset = graph.add_node("subtract", (400.0, 0.0), node_id=importer.new_id("unlit_srgb"))
    graph.connect(curve.id, "out", offset.id, "a")
    importer.set_value(offset.id, "b", (0.055,), "float")
    toe = graph.add_node("multiply", (300.0, 100.0), node_id=importer.new_id("unlit_toe"))
    graph.connect(clamped.id, "out", toe.id, "a")
    importer.set_value(toe.id, "b", (12.92,), "float")
    above = graph.add_node("subtract", (200.0, 200.0), node_id=importer.new_id("unlit_above"))
    graph.connect(clamped.id, "out", above.id, "a")
    importer.set_value(above.id, "b", (0.0031308,), "float")
    steep = graph.add_node("multiply", (300.0, 200.0), node_id=importer.new_id("unlit_steep"))
    graph.connect(above.id, "out", steep.id, "a")
    importer.set_value(steep.id, "b", (1e7,), "float")
    step = graph.add_node("saturate", (400.0, 200.0), node_id=importer.new_id("unlit_knee"))  # a component-wise step
    graph.connect(steep.id, "out", step.id, "x")
    mix = graph.add_node("mix", (500.0, 0.0), node_id=importer.new_id("unlit_display"))
    graph.connect(toe.id, "out", mix.id, "a")
    graph.connect(offset.id, "out", mix.id, "b")
    graph.connect(step.id, "out", mix.id, "t")
    graph.connect(mix.id, "out", target, "base_color")


_SHADERS: dict[str, Callable[[_Importer, Any], None]] = {
    "gltf_pbr": _gltf_pbr,
    "open_pbr_surface": _open_pbr_surface,
    "standard_surface": _standard_surface,
    "UsdPreviewSurface": _usd_preview_surface,
    "surface_unlit": _surface_unlit,
}


# After the walk -------------------------------------------------------------------------------------


def _prune(graph: MaterialGraph, output_id: str) -> None:
    """Remove nodes that feed nothing the output reads (made by the sources-first walk for chains that were
    then read as one node, such as the exporter's Tiling Offset pair)."""
    feeding: dict[str, list[str]] = {}
    for connection in graph.connections:
        feeding.setdefault(connection.target_node, []).append(connection.source_node)
    keep = {output_id}
    stack = [output_id]
    while stack:
        for source in feeding.get(stack.pop(), ()):
            if source not in keep:
                keep.add(source)
                stack.append(source)
    for node_id in [node_id for node_id in graph.nodes if node_id not in keep]:
        graph.remove_node(node_id)


#: The space between two columns of laid-out nodes (room for the wires between them).
COLUMN_GAP = 70.0
#: Where a laid-out node's input rows start below its top, in the editor's drawing (its title).
_FIRST_ROW = 30.0


def _place(graph: MaterialGraph, output_id: str, free: set[str]) -> None:
    """Lay out the nodes in `free` left of the output, as Blender's and Substance's arrangers do: columns by the
    longest path to the output (sources to the left), each as wide as its widest node, with its nodes aligned on
    their right (outputs towards their consumers); within a column, nodes ordered by the mean row of the inputs
    they feed (a barycentric pass from the output leftwards, which undoes most wire crossings), each as near that
    row as it can be and below the one above it by its height in the editor and a gap (app/material/node_extent.py),
    so no two nodes overlap."""

    free = {node_id for node_id in free if node_id in graph.nodes}
    if not free:
        return
    consumers: dict[str, list[tuple[str, str]]] = {}
    feeding: dict[str, set[str]] = {}
    for connection in graph.connections:
        consumers.setdefault(connection.source_node, []).append((connection.target_node, connection.target_port))
        feeding.setdefault(connection.target_node, set()).add(connection.source_node)
    depth = {output_id: 0}
    waiting = {node_id: len({target for target, _port in consumers.get(node_id, ())}) for node_id in graph.nodes}
    ready = [output_id]
    while ready:  # Kahn's order from the output upstream: a node's depth is final once all its consumers are done
        node_id = ready.pop()
        for source in feeding.get(node_id, ()):
            depth[source] = max(depth.get(source, 0), depth[node_id] + 1)
            waiting[source] -= 1
            if waiting[source] == 0:
                ready.append(source)
    scope = Scope(graph.functions)
    wired = wired_inputs(graph)
    height = {node_id: drawn_height(graph.nodes[node_id], scope, graph, wired) for node_id in free}
    rows: dict[str, dict[str, int]] = {}

    def port_y(node_id: str, port: str) -> float:
        if node_id not in rows:
            rows[node_id] = input_rows(graph.nodes[node_id], scope, graph, wired)
        return graph.nodes[node_id].position[1] + _FIRST_ROW + NODE_PORT_ROW_HEIGHT * rows[node_id].get(port, 0)

    columns: dict[int, list[str]] = {}
    for node_id in free:
        columns.setdefault(depth.get(node_id, 1), []).append(node_id)
    width = {node_id: drawn_width(graph.nodes[node_id], scope) for node_id in free}
    origin = graph.nodes[output_id].position
    right = origin[0] + width.get(output_id, 0.0)  # the left edge of the column to the right (column 0: the output)
    placed = set(graph.nodes) - free
    for column in sorted(columns):
        # Where each node would like its middle: the mean height of the inputs it feeds (laid out already, as
        # every consumer is in a column to the right); the output's column keeps the output's own place.
        wanted: dict[str, float] = {}
        for node_id in columns[column]:
            targets = [port_y(target, port) for target, port in consumers.get(node_id, ()) if target in placed]
            wanted[node_id] = (sum(targets) / len(targets) if targets else origin[1] + height[node_id] / 2.0)
        order = sorted(columns[column], key=lambda name: (wanted[name], name))
        tops: list[float] = []
        free_from = float("-inf")
        for node_id in order:
            top = max(wanted[node_id] - height[node_id] / 2.0, free_from)
            tops.append(top)
            free_from = top + height[node_id] + NODE_GAP
        # Pushing each node below the one above drifts the column down: move it back up as a whole (which keeps
        # the gaps) so that on average the nodes sit where their consumers want them.
        shift = 0.0 if column == 0 else sum(
            top + height[node_id] / 2.0 - wanted[node_id] for top, node_id in zip(tops, order)) / len(order)
        gap = 0.0 if column == 0 else COLUMN_GAP
        for top, node_id in zip(tops, order):  # right-aligned: each node's output as near its consumers as can be
            # Whole units: xpos/ypos (hundredths of them) then survive an export and import exactly.
            graph.nodes[node_id].position = (float(math.floor(right - gap - width[node_id])), float(round(top - shift)))
            placed.add(node_id)
        right = min(graph.nodes[node_id].position[0] for node_id in order)


def _cut_mismatches(importer: _Importer) -> None:
    """Remove connections the editor's types refuse (a document typed inconsistently), each with a note, until
    the graph's types resolve; ExportError naming the node when a refusal has no connection to blame."""
    from app.material.port_types import refusal
    from app.material.propagation import propagate

    graph = importer.graph
    for _attempt in range(len(graph.connections) + 1):
        resolution = propagate(graph)
        if not resolution.errors:
            return
        cut = False
        for node_id in sorted(resolution.errors):
            node_type = NODE_TYPES[graph.nodes[node_id].type_name]
            into = [c for c in graph.connections if c.target_node == node_id]
            widths: dict[str, int] = {}
            for connection in into:
                source = resolution.port_types.get((connection.source_node, connection.source_port))
                spec = node_type.input(connection.target_port)
                if source is None or spec is None:
                    continue
                if refusal(source, spec.type, connection.target_port) is not None:
                    graph.disconnect(connection.source_node, connection.source_port, node_id, connection.target_port)
                    importer.note(f"{connection.source_node}.{connection.source_port} ({source}) cannot feed {node_id} input "
                                  f"'{connection.target_port}' ({spec.type}); left at its default")
                    cut = True
                elif not isinstance(spec.type, PortType) and source.width > 1:
                    widths[connection.target_port] = source.width
            if not cut and len(set(widths.values())) > 1:
                narrow = min(widths, key=lambda port: (widths[port], port))
                connection = next(c for c in into if c.target_port == narrow)
                graph.disconnect(connection.source_node, connection.source_port, node_id, narrow)
                importer.note(f"{node_id} input '{narrow}': its source's width ({widths[narrow]}) differs from the node's "
                              f"other inputs; left at its default")
                cut = True
        if not cut:
            node_id = sorted(resolution.errors)[0]
            raise ExportError(f"the imported node '{node_id}' has no valid types: {resolution.errors[node_id][0]}")
    raise ExportError("the imported graph's types do not resolve")


def _read_mtlx_text(path: str | os.PathLike[str], source: Path, included: str | None = None) -> str:
    """A MaterialX document's text (`source`, or the document it includes by the name `included` at `path`), read
    as every external file is (a regular file within the MaterialX budget: MaterialX's own reader blocks on a FIFO
    and reads any size) and decoded as UTF-8; ExportError naming the document when it cannot be."""
    subject = f"{source}:" if included is None else f"{source}: the included document {included!r}"
    verb = "" if included is None else " is"
    try:
        data = read_external(path, "mtlx")
    except OSError as error:
        raise ExportError(f"{subject} cannot be read ({error.strerror or error})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ExportError(f"{subject}{verb} not UTF-8 text ({error.reason} at byte {error.start})") from None


#: The most documents one import reads through XInclude (a document including itself would never end).
MAX_INCLUDES = 64


def _read_options(mx: Any, source: Path) -> Any:
    """MaterialX read options whose XInclude reads each included document as the importer reads `source`:
    a regular file within the MaterialX budget (MaterialX's own reader blocked on a FIFO and read any size),
    at most MAX_INCLUDES of them."""
    included: list[str] = []

    def include(doc: Any, filename: Any, search_path: Any, options: Any) -> None:
        name = filename.asString()
        if len(included) >= MAX_INCLUDES:
            raise ExportError(f"{source}: more than {MAX_INCLUDES} documents included (XInclude); does one include itself?")
        found = search_path.find(filename).asString()
        included.append(found)
        text = _read_mtlx_text(found, source, name)
        nested = mx.FileSearchPath(str(Path(found).parent))
        nested.append(search_path)
        mx.readFromXmlString(doc, text, nested, options)

    options = mx.XmlReadOptions()
    options.readXIncludeFunction = include
    return options


def _read_document(source: Path) -> Any:
    """The MaterialX document at `source` (its includes resolved); ExportError when it cannot be read."""
    import MaterialX as mx  # noqa: N813 - the package's name

    text = _read_mtlx_text(source, source)
    doc = mx.createDocument()
    try:
        mx.readFromXmlString(doc, text, mx.FileSearchPath(str(source.parent)), _read_options(mx, source))
    except _mx_errors(mx) as error:
        raise ExportError(f"{source}: cannot read the MaterialX document ({error})") from None
    return doc


def mtlx_material_names(path: str | os.PathLike[str]) -> list[str]:
    """The names of the document's materials (`surfacematerial` nodes), in the document's order: what
    `import_mtlx`'s `material` chooses from. ExportError when the document cannot be read."""
    return [material.getName() for material in _read_document(Path(path)).getMaterialNodes()]


def import_mtlx(path: str | os.PathLike[str], material: str | None = None) -> MtlxImport:
    """Read a MaterialX document's material into an editor graph (module docstring): the one named `material`, or
    the first; the others are listed by name. ExportError when it cannot be used."""
    source = Path(path)
    doc = _read_document(source)
    doc.setDataLibrary(_library())
    importer = _Importer(doc, source.parent)
    materials = doc.getMaterialNodes()
    if not materials:
        raise ExportError(f"{source}: the document has no surfacematerial")
    names = [candidate.getName() for candidate in materials]
    if material is not None and material not in names:
        raise ExportError(f"{source}: the document has no material '{material}' (it has: {', '.join(names)})")
    chosen = materials[names.index(material) if material is not None else 0]
    shader_input = chosen.getInput("surfaceshader")
    shader = shader_input.getConnectedNode() if shader_input is not None else None
    if shader is None:
        raise ExportError(f"{source}: the material '{chosen.getName()}' has no surface shader")
    space = doc.getColorSpace()
    if space and space != "lin_rec709":
        importer.note(f"document colour space '{space}': values without their own colour space are read as lin_rec709")
    importer.shader(shader)
    importer.displacement(chosen)
    for extra in materials:
        if extra is not chosen:
            importer.note(f"material '{extra.getName()}': not imported (one material per editor document; choose it "
                          f"when importing)")
    _prune(importer.graph, importer.output_id)
    _cut_mismatches(importer)
    _prune(importer.graph, importer.output_id)
    # A document without positions has every node laid out, the nodes the import adds around them (constants,
    # conversions, the output) too; one with positions keeps them and the import's helpers beside their nodes.
    documented = importer.documented & set(importer.graph.nodes)
    _place(importer.graph, importer.output_id, importer.unplaced if documented else set(importer.graph.nodes))
    return MtlxImport(importer.graph, importer.skipped)
