"""What a material's output node says, as plain data for the bakers and writers (no GL, no Qt).

A material has one output node (`app.material.lowering.OUTPUT_NODE_TYPES`):
the Surface Output (glTF 2.0 metallic-roughness) or the Unlit Output. Its
inputs become *channels*: base colour, opacity, occlusion, roughness,
metallic, specular, normal (tangent space, bumped by the height), emissive
(colour × strength, linear HDR) and height (0..1); an Unlit Output has base colour (base + emissive) and opacity.

A channel whose inputs are all unconnected is constant: its value is read
here from the node's properties, clamped as the Surface Output clamps it, and
never rendered. A connected channel is baked (`app.export.bake`); a baked
channel that turns out uniform over the mesh is constant too
(`BakedMaterial.constant`).

The alpha mode follows glTF's: MASK when alpha clipping is on (the clip
input connected or its threshold above 0), else BLEND when the opacity is
connected or below 1, else OPAQUE. A connected clip threshold becomes a
fixed cutoff of 0.5 with the opacity baked as opacity − threshold + 0.5
(clamped), which keeps exactly the texels the material keeps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from app.material.catalog import NODE_TYPES
from app.material.graph import MaterialGraph
from app.material.lowering import OUTPUT_NODE_TYPES
from app.material.node_types import as_numbers, input_default
from app.material.traversal import node_id_key

SURFACE = "surface_output"
UNLIT = "material_output"
OPENPBR = "openpbr_surface"

#: Passes of the baker: each renders four values per texel.
#: base: base colour rgb, opacity; orm: occlusion, roughness, metallic, specular (glTF's ORM order,
#: with KHR_materials_specular's factor in alpha); normal: the tangent-space normal (x, y, z, 1);
#: emissive: linear emitted radiance rgb (colour × strength), 1.
#: height: the Surface Output's height (0..1), 0, 0, 1.
PASSES: tuple[str, ...] = ("base", "orm", "normal", "emissive", "height")


@dataclass(frozen=True)
class Channel:
    """One output quantity: where it lives in the baked passes and which output inputs it reads."""

    name: str
    pass_name: str
    components: tuple[int, ...]
    inputs: tuple[str, ...]


SURFACE_CHANNELS: tuple[Channel, ...] = (
    Channel("base_color", "base", (0, 1, 2), ("base_color",)),
    Channel("opacity", "base", (3,), ("opacity", "alpha_clip")),
    Channel("occlusion", "orm", (0,), ("ambient_occlusion",)),
    Channel("roughness", "orm", (1,), ("roughness",)),
    Channel("metallic", "orm", (2,), ("metallic",)),
    Channel("specular", "orm", (3,), ("specular",)),
    # The height bumps the normal (app.material.nodes.height), so a normal map carries it.
    Channel("normal", "normal", (0, 1, 2), ("normal", "height", "height_scale", "height_mid_level")),
    Channel("emissive", "emissive", (0, 1, 2), ("emissive_color", "emissive_strength")),
    Channel("height", "height", (0,), ("height",)),
)
UNLIT_CHANNELS: tuple[Channel, ...] = (
    Channel("base_color", "base", (0, 1, 2), ("base_color", "emissive")),
    Channel("opacity", "base", (3,), ("opacity", "alpha_clip")),
)

#: Values of channels nothing sets (the glTF defaults, and what an unconnected normal means).
NEUTRAL: dict[str, tuple[float, ...]] = {
    "base_color": (1.0, 1.0, 1.0),
    "opacity": (1.0,),
    "occlusion": (1.0,),
    "roughness": (1.0,),
    "metallic": (1.0,),
    "specular": (1.0,),
    "normal": (0.0, 0.0, 1.0),
    "emissive": (0.0, 0.0, 0.0),
    "height": (0.5,),
}


class ExportError(Exception):
    """A material cannot be exported as asked; the message is for the artist (one line)."""


@dataclass(frozen=True)
class OutputDescription:
    node_id: str
    kind: str  # SURFACE, UNLIT or OPENPBR (no channels)
    channels: tuple[Channel, ...]
    connected: frozenset[str]  # the output node's connected inputs
    alpha_mode: str  # "OPAQUE", "MASK" or "BLEND"
    alpha_cutoff: float  # for MASK
    #: Values of channels no connected input feeds (clamped as the output node clamps them).
    constants: dict[str, tuple[float, ...]] = field(default_factory=dict)
    #: The Surface Output's height scale (world units) and mid level (unconnected: their properties).
    height_scale: float = 0.0
    height_mid_level: float = 0.5

    @property
    def unlit(self) -> bool:
        return self.kind == UNLIT

    def channel(self, name: str) -> Channel | None:
        for channel in self.channels:
            if channel.name == name:
                return channel
        return None

    def varying_channels(self) -> list[Channel]:
        """Channels with a connected input: they must be baked."""
        return [channel for channel in self.channels if channel.name not in self.constants]

    def passes_to_bake(self) -> list[str]:
        return sorted({channel.pass_name for channel in self.varying_channels()}, key=PASSES.index)

    @property
    def clip_connected(self) -> bool:
        return "alpha_clip" in self.connected


def _clamp(values: Iterable[float], low: float = 0.0, high: float | None = 1.0) -> tuple[float, ...]:
    return tuple(min(max(value, low), high) if high is not None else max(value, low) for value in values)


def output_node_id(graph: MaterialGraph) -> str:
    """The material's output node (the first by id, as the lowering takes it); ExportError without one."""
    outputs = sorted((node_id for node_id, node in graph.nodes.items() if node.type_name in OUTPUT_NODE_TYPES), key=node_id_key)
    if not outputs:
        raise ExportError("the material has no output node (add a Surface Output)")
    return outputs[0]


def require_channels(description: OutputDescription) -> None:
    """ExportError for an output without baked channels (the OpenPBR Surface): glTF and engine maps need them."""
    if description.kind == OPENPBR:
        raise ExportError("the OpenPBR Surface has no glTF or baked-map form yet: export it to MaterialX, "
                          "whose open_pbr_surface it is")


def describe_output(graph: MaterialGraph) -> OutputDescription:
    """The output node of `graph` as channels, alpha mode and constants; ExportError without one."""
    node_id = output_node_id(graph)
    node = graph.nodes[node_id]
    if node.type_name == OPENPBR:
        # No baked channels (glTF, engine maps refuse it: `require_channels`); MaterialX maps it input for input.
        return OutputDescription(node_id, OPENPBR, (), frozenset(c.target_port for c in graph.connections if c.target_node == node_id),
                                 "OPAQUE", 0.0, {})
    node_type = NODE_TYPES[node.type_name]
    connected = frozenset(c.target_port for c in graph.connections if c.target_node == node_id)

    def number(name: str) -> float:
        return as_numbers(input_default(node, node_type, name), 1)[0]

    def numbers(name: str, width: int) -> tuple[float, ...]:
        return tuple(as_numbers(input_default(node, node_type, name), width))

    clip_on = "alpha_clip" in connected or number("alpha_clip") > 0.0
    if clip_on:
        alpha_mode = "MASK"
    elif "opacity" in connected or number("opacity") < 1.0:
        alpha_mode = "BLEND"
    else:
        alpha_mode = "OPAQUE"
    # A connected threshold is baked into the opacity (see the module docstring).
    cutoff = 0.5 if "alpha_clip" in connected else min(max(number("alpha_clip"), 0.0), 1.0)

    kind = node.type_name
    channels = SURFACE_CHANNELS if kind == SURFACE else UNLIT_CHANNELS
    constants: dict[str, tuple[float, ...]] = {}
    for channel in channels:
        if any(name in connected for name in channel.inputs):
            continue
        if channel.name == "base_color" and kind == UNLIT:
            base, emissive = numbers("base_color", 4), numbers("emissive", 3)
            constants[channel.name] = tuple(b + e for b, e in zip(base[:3], emissive))
        elif channel.name == "base_color":
            constants[channel.name] = _clamp(numbers("base_color", 4)[:3])
        elif channel.name == "opacity":
            constants[channel.name] = _clamp((number("opacity"),))
        elif channel.name == "occlusion":
            constants[channel.name] = _clamp((number("ambient_occlusion"),))
        elif channel.name == "normal":
            constants[channel.name] = NEUTRAL["normal"]  # unconnected: the interpolated normal itself
        elif channel.name == "height":
            constants[channel.name] = _clamp((number("height"),))
        elif channel.name == "emissive":
            strength = max(number("emissive_strength"), 0.0)
            constants[channel.name] = tuple(max(c, 0.0) * strength for c in numbers("emissive_color", 4)[:3])
        else:
            constants[channel.name] = _clamp((number(channel.name),))
    heights = (max(number("height_scale"), 0.0), number("height_mid_level")) if kind == SURFACE else (0.0, 0.5)
    return OutputDescription(node_id, kind, channels, connected, alpha_mode, cutoff, constants, *heights)
