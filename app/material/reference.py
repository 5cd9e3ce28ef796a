"""docs/material-nodes.md, generated from the catalog so the reference cannot drift from the code.

`python -m app.material.reference` rewrites the file; a test fails when the
checked-in file differs from `render()`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.material.catalog import categories
from app.material.node_types import NodeType, PortSpec, PropertySpec
from app.material.port_types import Constraint, PortType, conversion

#: How each implicit conversion is spelled in the docs and in port tooltips.
CONVERSION_TEXT = {
    "same": "as is (same VPL type)",
    "broadcast": "broadcast: the float in every component",
    "drop_alpha": "rgb: alpha dropped",
    "add_alpha": "rgba with alpha 1",
    "luminance": "luminance: 0.2126 r + 0.7152 g + 0.0722 b (Rec. 709 weights of linear light; alpha ignored)",
    "sample": "read at the mesh's texture coordinates as Texture Sample reads it, then converted from the colour",
}

INTRO = """\
# Material nodes

Generated from `app/material/catalog.py` by `python -m app.material.reference`;
do not edit by hand (a test compares this file with the catalog).

## Port types

| type | VPL type | notes |
|---|---|---|
| `float` | float | broadcast (splat) into any float-valued input |
| `vec2`, `vec3`, `vec4` | vector float 2/3/4 | |
| `color` | vector float 4 | rgba; prefers a colour widget; connects to `vec4` freely, to `vec3` by dropping alpha; a `vec3` into a colour input gains alpha 1 |
| `texture` | sampler2D | from a Texture Parameter, a Texture Buffer or a filter; into a float, vector or colour input it is read at the mesh's texture coordinates (docs/texture-space.md) |
| `bool` | bool | from Compare / And / Or / Not |
| dynamic | any of float, vec2-4, color | all dynamic inputs of a node take one width W (floats broadcast); dynamic outputs are `vecW` (`color` when a colour came in and W = 4) |

A refused connection names both types. Unconnected inputs read the node
property of the same name (shown as a widget), else the port default; `uv`
inputs default to the mesh texture coordinates, directions to the scene's
normal / view / light directions.

## How a material lowers

- Uniforms: `scene` (the preview host's record: model, view, projection,
  normal_matrix, camera_position, time, light_direction, light_intensity,
  light_color, ambient_color; `app/material/scene.py`), then one uniform per
  parameter node, named by its *name* property (unique, nonempty, not
  `scene`).
- Only what the material reads is declared (on demand): vertex inputs
  position/normal/texcoord/tangent at locations 0/1/2/3 and the varyings
  world_position (location 0), world_normal (1, normal_matrix applied),
  surface_texcoord (2) and world_tangent (3, a vec4 whose w is the
  handedness). The vertex stage `vertex_main` always writes the clip
  position (projection * view * model * vec4(position, 1)).
- Fragment stage `fragment_main`: nodes in topological order (ties by node
  id), each lowered once, then the output node. Surface Output: output
  `radiance` (FragmentColor, location 0) = linear HDR radiance, shaded by
  the glTF BRDF helpers (below); the host applies exposure, tone mapping
  and the sRGB encoding. Unlit Output: output `color` = vec4(base_color.rgb
  + emissive, opacity), a display colour shown as it is.
- Explicit blocks: If branches to two blocks that join; alpha clip branches
  to a block that discards; Fractal Noise calls a helper whose octave loop
  has an explicit back-edge. Everything not depending on an If is emitted
  before the first branch, so texture samples stay in uniform control flow;
  a sample whose inputs come from behind an If uses `texture_lod` (level 0).
- Lighting convention: `scene.light_direction` points from the surface
  towards the light. With the Unlit Output, lighting nodes give float
  factors that you multiply into the base colour.

## Physically based materials

- The **Surface Output** is the glTF 2.0 metallic-roughness material
  (Appendix B of the glTF 2.0 specification), lowered into the helper
  functions `gltf_brdf`, `ggx_distribution`, `smith_visibility` and
  `schlick_weight` (visible in the VPL tab). Inputs are clamped to their
  glTF ranges; `specular` is KHR_materials_specular's factor (dielectric
  F0 = 0.04 x specular). Light: the scene's directional light
  (light_color x light_intensity, in lux-like units) and its environment,
  times ambient occlusion (which affects only the environment, as in glTF);
  plus emissive colour x strength.
- The **OpenPBR Surface** (`openpbr_surface`) is OpenPBR Surface 1.1 with
  MaterialX 1.39's input names and defaults (`open_pbr_surface`): base,
  specular (with anisotropy), transmission, subsurface, coat, fuzz, thin
  film, emission and geometry. It writes linear radiance like the Surface
  Output; its layering and real-time approximations are in
  docs/lighting.md, "OpenPBR Surface". A lobe whose weight is an
  unconnected constant 0 emits no code.
- The Surface Output's **glTF extension inputs** carry the KHR material
  extensions that layer onto metallic-roughness: `clearcoat`,
  `clearcoat_roughness`, `clearcoat_normal` (KHR_materials_clearcoat);
  `sheen_color`, `sheen_roughness` (KHR_materials_sheen); `transmission`
  (KHR_materials_transmission) with `thickness`, `attenuation_color`,
  `attenuation_distance` (KHR_materials_volume; distance 0 = no
  attenuation, thickness 0 = thin-walled); `ior` (KHR_materials_ior);
  `iridescence`, `iridescence_ior`, `iridescence_thickness` in nm
  (KHR_materials_iridescence); `anisotropy_strength`,
  `anisotropy_rotation` in radians from the tangent
  (KHR_materials_anisotropy). They are shaded by the extensions' formulas
  (docs/lighting.md, "glTF extensions of the Surface Output") and exported
  to glTF as those extensions. An extension whose factor is unconnected and
  neutral (0; ior 1.5; a black sheen colour) emits no code, so materials
  that do not use it are unchanged.
- **Colour space**: a Texture Parameter is sRGB (colour maps: base colour,
  emission) or linear (data: normal, roughness, metallic, ORM maps). In a
  Surface Output material Texture Sample decodes sRGB texels to linear with
  the helper `srgb_to_linear`; in an Unlit Output material texels are used
  as read. Colour properties and parameters are linear values.
- **Tangent space** is MikkTSpace's (glTF, Blender, Substance): tangent
  along +u, bitangent = w x cross(normal, tangent) along +v. Normal Map
  reads OpenGL-convention maps (green up) unless set to DirectX.
- **ORM** textures follow glTF: R = ambient occlusion, G = roughness,
  B = metallic (ORM Unpack).
- **Height** (the Surface Output's `height`, `height_scale`,
  `height_mid_level`; app/material/nodes/height.py): a height of 0..1 is a
  displacement of (height − mid level) x scale world units along the
  normal. When `height` is connected the surface is drawn with **parallax
  occlusion mapping**: the view ray is marched through the height field in
  tangent space (layers 1/8 apart looking along the normal, down to 1/32
  at grazing angles; 5 halvings of the bracket found; a linear
  interpolation inside it), texture coordinates per world unit taken from
  the screen derivatives; every other input is computed again where the ray hits
  (texture coordinates and world position moved there, so triplanar
  projections follow too); a march of 12 steps from that point towards the
  key light darkens its direct light where the field rises above the ray
  (self-shadowing); and the shading normal is bumped by the height's slope
  fitted to 8 taps on a circle 2 pixels wide (filtered, so a sharp mask
  gives a smooth bevel, as Normal From Height with a filter width). The
  marches are unrolled straight-line code (32 + 5 + 12 evaluations of the
  height's nodes, then 8 taps): no branches, so textures keep their mipmaps
  everywhere, but a costly height (many noise octaves) compiles and draws
  slowly. Limits: the
  silhouette stays the mesh's (no geometry moves); a ray more grazing than
  84° is marched as if at 84°; a height computed in a group (or after an If)
  cannot be moved, and then only bumps the normal (`dfdx` slope); the
  height must not come after an If node. An unconnected height changes
  nothing (the same code as before). That is displacement method "Bump
  only" (the default); **"Displacement and bump"** instead moves the mesh:
  the height's sub-graph is rendered into a 512² float buffer (an internal
  texture pass), the vertex stage moves each vertex along its normal by
  (height − mid level) x scale read from it with `texture_lod` at level 0,
  and the fragment stage only bumps the normal by the same height (no
  parallax, no self-shadowing march: the shadow map shades the geometry).
  Its scale and mid level must be unconnected (numbers of the vertex stage).
  Details in docs/preview.md ("Height: displacement and bump").

## Noise that looks the same everywhere

Every random value (noise, Voronoi points, white noise, brick and tile
ids) comes from one exact hash: the permutation polynomial
`permute(x) = ((34 x + 1) x) mod 289` of Gustavson and McEwan's
webgl-noise, evaluated on integer-valued floats whose every intermediate
is an integer below 2^24, so binary32 computes it exactly on every GPU and
target (no `sin`-based hashing). Patterns repeat every 289 cells. Lattice
cells may have coordinates up to 2^23 in magnitude. Gradient directions use
cos/sin of angles in [0, 2 pi), whose small differences between
implementations change the result continuously and by far less than
1/255. Details: `app/material/nodes/noise.py`.

2D forms take `uv` (the mesh UVs by default); 3D forms take a `position`
(the world position by default; connect Object Position for noise that
moves with the object, with no pinching at a sphere's poles).

![The noise family and Bricks, 3D forms on the preview sphere](images/noise-family.png)

Cost on Mesa llvmpipe (`benchmarks/bench_noise.py`, 512x512, every pixel
running the node, relative to a constant colour in the same run): white
noise about 2x, value noise 3x, gradient/simplex 2D 4-5x, Voronoi 2D 6x,
3D forms about twice their 2D form (Voronoi 3D about 19x), and a 5-octave
fractal about 5 times its basis (a 3D gradient fBm above 100x). On a GPU
everything is much faster; the ratios still tell what is expensive.

**MaterialX Fractal 3D** is the exception to the one hash: it is
MaterialX's `fractal3d` (what `vpl import-mtlx` makes of one, and exported
back as one), so it hashes its lattice as MaterialX does, with Bob
Jenkins' lookup3 on 32-bit integers, and draws the same pattern as
MaterialX's renderer (checked against a numpy port of MaterialX's code,
itself checked against MaterialX's GLSL). VPL has no bit operators, so the
XORs are built from 32-bit integer arithmetic, bit by bit
(`app/material/nodes/mtlx_noise.py`): at 3 octaves it costs about 10
times the editor's 3D gradient fBm of 3 octaves on llvmpipe
(docs/performance.md). For a new material, Fractal Noise 3D with the
gradient basis gives a similar look (normalised to [0, 1]) for far less.

The examples built with these nodes: stylised lava, triplanar rock and a
tiled floor end in the Surface Output, so the stage's light and
environment light them like any physically based material (the patterns
drive base colour, roughness, a bump and, for the lava, emission); toon
shading stays on the Unlit Output on purpose, its flat bands being the
look (`tools/make_pbr_screenshots.py --only node-library-examples`).

![Stylised lava, triplanar rock and tiled floor (Surface Output) in the studio and outdoor environments, toon shading (Unlit Output)](images/node-library-examples.png)
"""



def _value(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_value(item) for item in value) + ")"
    if isinstance(value, str):
        return value if value else '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _port(port: PortSpec, with_default: bool, node_type: NodeType) -> str:
    kind = "dynamic" if isinstance(port.type, Constraint) else port.type.value
    text = f"`{port.name}`: {kind}"
    if with_default:
        prop = node_type.property(port.name)
        if prop is not None:
            text += " = property"
        elif port.default is not None:
            text += f" = {_value(port.default)}"
    return text


def _property(prop: PropertySpec) -> str:
    text = f"`{prop.name}` ({prop.kind}) = {_value(prop.default)}"
    if prop.minimum is not None or prop.maximum is not None:
        text += f" [{_value(prop.minimum)}..{_value(prop.maximum)}]"
    if prop.choices:
        text += " {" + " ".join(prop.choices) + "}"
    return text


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def conversion_lines() -> list[str]:
    """The table of implicit conversions, computed from `types.conversion` (so it cannot drift)."""
    lines = ["## Implicit conversions\n", "What a connection does when the output's type differs from the input's:\n",
             "| output | input | conversion |", "|---|---|---|"]
    numeric = [port_type for port_type in PortType if port_type.is_numeric]
    for source in numeric:
        for target in numeric:
            kind = conversion(source, target)
            if source is not target and kind is not None:
                lines.append(f"| `{source}` | `{target}` | {CONVERSION_TEXT[kind]} |")
    lines.append("")
    lines.append("Dynamic inputs take any float, vector or colour (see above). Every other pair is refused; the")
    lines.append("port tooltip lists what each input accepts.\n")
    return lines


def render() -> str:
    lines = [INTRO, *conversion_lines()]
    grouped = categories()
    total = sum(len(types) for types in grouped.values())
    lines.append(f"## Catalog ({total} node types)\n")
    for category, types in grouped.items():
        lines.append(f"### {category}\n")
        lines.append("| node | inputs | outputs | properties | description | lowering |")
        lines.append("|---|---|---|---|---|---|")
        for node_type in types:
            inputs = "<br>".join(_port(port, True, node_type) for port in node_type.inputs) or "-"
            outputs = "<br>".join(_port(port, False, node_type) for port in node_type.outputs) or "-"
            properties = "<br>".join(_property(prop) for prop in node_type.properties) or "-"
            lines.append(
                f"| **{node_type.display_name}**<br>`{node_type.type_name}` | {_cell(inputs)} | {_cell(outputs)} | "
                f"{_cell(properties)} | {_cell(node_type.description)} | {_cell(node_type.notes)} |"
            )
        lines.append("")
    return "\n".join(lines)


def reference_path() -> Path:
    return Path(__file__).resolve().parents[2] / "docs" / "material-nodes.md"


if __name__ == "__main__":
    reference_path().write_text(render(), encoding="utf-8")
    print(reference_path())
