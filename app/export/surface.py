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
from app.material.node_types import as_numbers, input_default
from app.material.scene import OUTPUT_NODE_TYPES
from app.material.traversal import node_id_key

SURFACE = "surface_output"
UNLIT = "material_output"
OPENPBR = "openpbr_surface"

#: Passes of the baker: each renders four values per texel.
#: base: base colour rgb, opacity; orm: occlusion, roughness, metallic, specular (glTF's ORM order,
#: with KHR_materials_specular's factor in alpha); normal: the tangent-space normal (x, y, z, 1);
#: emissive: linear emitted radiance rgb (colour × strength), 1.
#: height: the Surface Output's height (0..1), 0, 0, 1.
#: The OpenPBR Surface adds coat, fuzz, specular_color, film, volume and coat_normal
#: (`OPENPBR_CHANNELS`), each four raw inputs.
#: The Surface Output's glTF extension inputs use coat, fuzz, film, volume, coat_normal and extra
#: (`SURFACE_EXTENSION_CHANNELS`), baked raw like the OpenPBR Surface's.
PASSES: tuple[str, ...] = ("base", "orm", "normal", "emissive", "height", "coat", "fuzz", "specular_color", "film", "volume",
                           "coat_normal", "unmapped", "unmapped_color", "extra")


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
#: The Surface Output's glTF extension inputs, baked raw (one input per channel) when connected; the glTF
#: writer (app.export.gltf_extensions) maps them onto the KHR extensions.
SURFACE_EXTENSION_CHANNELS: tuple[Channel, ...] = (
    Channel("clearcoat", "coat", (0,), ("clearcoat",)),
    Channel("clearcoat_roughness", "coat", (1,), ("clearcoat_roughness",)),
    Channel("transmission", "coat", (2,), ("transmission",)),
    Channel("iridescence", "coat", (3,), ("iridescence",)),
    Channel("sheen_color", "fuzz", (0, 1, 2), ("sheen_color",)),
    Channel("sheen_roughness", "fuzz", (3,), ("sheen_roughness",)),
    Channel("iridescence_thickness", "film", (0,), ("iridescence_thickness",)),
    Channel("anisotropy_strength", "film", (1,), ("anisotropy_strength",)),
    Channel("ior", "film", (2,), ("ior",)),
    Channel("iridescence_ior", "film", (3,), ("iridescence_ior",)),
    Channel("attenuation_color", "volume", (0, 1, 2), ("attenuation_color",)),
    Channel("attenuation_distance", "volume", (3,), ("attenuation_distance",)),
    Channel("clearcoat_normal", "coat_normal", (0, 1, 2), ("clearcoat_normal",)),
    Channel("thickness", "extra", (0,), ("thickness",)),
    Channel("anisotropy_rotation", "extra", (1,), ("anisotropy_rotation",)),
    Channel("dispersion", "extra", (2,), ("dispersion",)),
)
#: The extension channels' neutral values (an extension whose factor is neutral is off).
EXTENSION_FACTORS: dict[str, tuple[float, ...]] = {
    "clearcoat": (0.0,), "sheen_color": (0.0, 0.0, 0.0), "transmission": (0.0,), "ior": (1.5,), "iridescence": (0.0,),
    "anisotropy_strength": (0.0,),
}


#: Raw channels holding a world-space normal (baked in the mesh's tangent frame).
NORMAL_CHANNELS = ("normal", "coat_normal", "clearcoat_normal")
#: The OpenPBR Surface's inputs, baked raw (one input per channel) in passes of four values; the glTF
#: writer combines them (base_color × base_weight, the anisotropy remapping, ...). Passes holding only
#: unconnected inputs are never rendered.
OPENPBR_CHANNELS: tuple[Channel, ...] = (
    Channel("base_color", "base", (0, 1, 2), ("base_color",)),
    Channel("opacity", "base", (3,), ("geometry_opacity",)),
    Channel("base_weight", "orm", (0,), ("base_weight",)),
    Channel("roughness", "orm", (1,), ("specular_roughness",)),
    Channel("metallic", "orm", (2,), ("base_metalness",)),
    Channel("specular", "orm", (3,), ("specular_weight",)),
    Channel("normal", "normal", (0, 1, 2), ("geometry_normal",)),
    Channel("emission_color", "emissive", (0, 1, 2), ("emission_color",)),
    Channel("emission_luminance", "emissive", (3,), ("emission_luminance",)),
    Channel("coat_weight", "coat", (0,), ("coat_weight",)),
    Channel("coat_roughness", "coat", (1,), ("coat_roughness",)),
    Channel("transmission_weight", "coat", (2,), ("transmission_weight",)),
    Channel("thin_film_weight", "coat", (3,), ("thin_film_weight",)),
    Channel("fuzz_color", "fuzz", (0, 1, 2), ("fuzz_color",)),
    Channel("fuzz_weight", "fuzz", (3,), ("fuzz_weight",)),
    Channel("specular_color", "specular_color", (0, 1, 2), ("specular_color",)),
    Channel("fuzz_roughness", "specular_color", (3,), ("fuzz_roughness",)),
    Channel("thin_film_thickness", "film", (0,), ("thin_film_thickness",)),
    Channel("anisotropy", "film", (1,), ("specular_roughness_anisotropy",)),
    Channel("specular_ior", "film", (2,), ("specular_ior",)),
    Channel("thin_film_ior", "film", (3,), ("thin_film_ior",)),
    Channel("transmission_color", "volume", (0, 1, 2), ("transmission_color",)),
    Channel("transmission_depth", "volume", (3,), ("transmission_depth",)),
    Channel("coat_normal", "coat_normal", (0, 1, 2), ("geometry_coat_normal",)),
)
#: OpenPBR inputs glTF has no slot for: never baked; their unconnected values are kept as constants
#: "input:<name>" so the glTF writer can name the ones in use.
COLOR_INPUTS = ("coat_color", "transmission_scatter")
OPENPBR_UNMAPPED = ("subsurface_weight", "coat_color", "coat_darkening", "coat_ior", "coat_roughness_anisotropy",
                    "base_diffuse_roughness", "transmission_scatter", "transmission_scatter_anisotropy",
                    "transmission_dispersion_scale", "transmission_dispersion_abbe_number")
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
    kind: str  # SURFACE, UNLIT or OPENPBR
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
    """ExportError for an output whose channels are not the baked-map set (the OpenPBR Surface): engine maps need them."""
    if description.kind == OPENPBR:
        raise ExportError("the OpenPBR Surface has no baked-map form: export it to glTF (core and KHR extensions) "
                          "or to MaterialX, whose open_pbr_surface it is")


def _openpbr_description(graph: MaterialGraph, node_id: str) -> OutputDescription:
    """The OpenPBR Surface's inputs as raw channels (app.export.gltf_openpbr maps them onto glTF)."""
    node = graph.nodes[node_id]
    node_type = NODE_TYPES[node.type_name]
    connected = frozenset(c.target_port for c in graph.connections if c.target_node == node_id)
    constants: dict[str, tuple[float, ...]] = {}
    for channel in OPENPBR_CHANNELS:
        if any(name in connected for name in channel.inputs):
            continue
        if channel.name in ("normal", "coat_normal"):
            constants[channel.name] = NEUTRAL["normal"]
            continue
        (name,) = channel.inputs
        width = len(channel.components)
        values = tuple(as_numbers(input_default(node, node_type, name), 4 if width == 3 else 1))[:width]
        constants[channel.name] = values
    for name in OPENPBR_UNMAPPED:
        if name not in connected:
            constants[f"input:{name}"] = tuple(as_numbers(input_default(node, node_type, name), 3 if name in COLOR_INPUTS else 1))
    thin = input_default(node, node_type, "geometry_thin_walled")
    constants["thin_walled"] = (1.0 if thin is True or (not isinstance(thin, bool) and as_numbers(thin, 1)[0] > 0.5) else 0.0,)
    opacity = constants.get("opacity")
    alpha_mode = "BLEND" if opacity is None or opacity[0] < 1.0 else "OPAQUE"
    return OutputDescription(node_id, OPENPBR, OPENPBR_CHANNELS, connected, alpha_mode, 0.0, constants)


def describe_output(graph: MaterialGraph) -> OutputDescription:
    """The output node of `graph` as channels, alpha mode and constants; ExportError without one."""
    node_id = output_node_id(graph)
    node = graph.nodes[node_id]
    if node.type_name == OPENPBR:
        return _openpbr_description(graph, node_id)
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
    channels = SURFACE_CHANNELS + SURFACE_EXTENSION_CHANNELS if kind == SURFACE else UNLIT_CHANNELS
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
        elif channel.name in NORMAL_CHANNELS:
            constants[channel.name] = NEUTRAL["normal"]  # unconnected: the interpolated normal itself
        elif channel in SURFACE_EXTENSION_CHANNELS:  # raw: the glTF writer clamps them
            width = len(channel.components)
            constants[channel.name] = numbers(channel.name, 4)[:3] if width == 3 else (number(channel.name),)
        elif channel.name == "height":
            constants[channel.name] = _clamp((number("height"),))
        elif channel.name == "emissive":
            strength = max(number("emissive_strength"), 0.0)
            constants[channel.name] = tuple(max(c, 0.0) * strength for c in numbers("emissive_color", 4)[:3])
        else:
            constants[channel.name] = _clamp((number(channel.name),))
    heights = (max(number("height_scale"), 0.0), number("height_mid_level")) if kind == SURFACE else (0.0, 0.5)
    return OutputDescription(node_id, kind, channels, connected, alpha_mode, cutoff, constants, *heights)


def extensions_in_use(description: OutputDescription) -> list[str]:
    """The Surface Output's glTF extension factors that are connected or not neutral (what only glTF carries)."""
    if description.kind != SURFACE:
        return []
    return [name for name, neutral in EXTENSION_FACTORS.items()
            if name in description.connected or description.constants.get(name) != neutral]
