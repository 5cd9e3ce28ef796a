"""Output nodes: the Surface Output (physically based) and the Unlit Output. A material has exactly one.

**Surface Output** (`surface_output`, the default of new materials): the
glTF 2.0 metallic-roughness material. Its inputs are the contract other
areas rely on (docs/material-nodes.md): `base_color`, `metallic`,
`roughness`, `normal` (world space; the interpolated normal when
unconnected), `ambient_occlusion`, `emissive_color`, `emissive_strength`,
`opacity`, `alpha_clip` and `specular` (the dielectric F0 scale of
KHR_materials_specular). It writes **linear HDR radiance** to the fragment
output `radiance`:

    radiance = gltf_brdf(N, V, L, ...) · light_color · light_intensity · max(N·L, 0)
             + ambient_occlusion · environment(N, V, ...)
             + emissive_color · emissive_strength

with the BRDF of `pbr_functions` (Appendix B of the glTF 2.0
specification) emitted as VPL helper functions, the light and the
environment from the scene record (`app/material/scene.py`). Inputs are
clamped to their glTF ranges first ([0, 1]; emissive colour and strength
>= 0), so no input can make the radiance negative or the BRDF reflect more
light than arrives. The host
tone-maps `radiance` (docs/preview.md); exported GLSL stays linear.

**Unlit Output** (`material_output`, the output of materials made before
the Surface Output existed; type name and files unchanged): FragmentColor =
vec4(base_color.rgb + emissive, opacity), a *display* colour the host shows
as it is (no exposure or tone mapping), so existing materials keep their
look. Lighting, if any, is built by hand from the Lighting nodes.

Both: when alpha clipping is on (its input is connected or its threshold is
above 0) the output branches on `opacity < alpha_clip` to a block that
discards the fragment, and stores the colour in the other block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import InputSection, NodeType, PortSpec, PropertySpec, register
from app.material.nodes import gltf_shading, height, pbr_functions
from app.material.port_types import PortType
from app.material.scene import DISPLAY_OUTPUT_NAME, RADIANCE_OUTPUT_NAME
from app.material.texture_passes import DISPLACEMENT_CHOICES, DISPLACEMENT_PROPERTY
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

CATEGORY = "Output"


def _store_with_alpha_clip(ctx: NodeContext, output_name: str, rgb: Operand, opacity: Operand) -> None:
    fn = ctx.fn
    color = fn.construct(vec(4), rgb, opacity)
    if ctx.is_connected("alpha_clip") or ctx.number("alpha_clip") > 0.0:
        clipped = fn.binary(BinaryOperator.LESS, opacity, ctx.input("alpha_clip"))
        discard_block, keep_block = fn.new_block(), fn.new_block()
        fn.branch_if(clipped, discard_block, keep_block)
        fn.position_at(discard_block)
        fn.discard()
        fn.position_at(keep_block)
    fn.store(ctx.lowering.declare_fragment_output(output_name), color)
    fn.ret()


# Unlit Output ----------------------------------------------------------------------------------


def _lower_unlit_output(ctx: NodeContext) -> None:
    fn = ctx.fn
    rgb = fn.add(fn.swizzle(ctx.input("base_color"), "xyz"), ctx.input("emissive"))
    _store_with_alpha_clip(ctx, DISPLAY_OUTPUT_NAME, rgb, ctx.input("opacity"))


register(
    NodeType(
        "material_output",
        "Unlit Output",
        CATEGORY,
        "A display colour shown as is (no lighting or tone mapping): base + emissive, opacity, alpha clip.",
        inputs=[
            PortSpec("base_color", PortType.COLOR),
            PortSpec("emissive", PortType.VEC3),
            PortSpec("opacity", PortType.FLOAT, 1.0),
            PortSpec("alpha_clip", PortType.FLOAT, 0.0),
        ],
        outputs=[],
        properties=[
            PropertySpec("base_color", "color", (0.8, 0.8, 0.8, 1.0)),
            PropertySpec("emissive", "color", (0.0, 0.0, 0.0, 1.0)),
            PropertySpec("opacity", "float", 1.0, 0.0, 1.0),
            PropertySpec("alpha_clip", "float", 0.0, 0.0, 1.0),
        ],
        lower=_lower_unlit_output,
        notes=(
            "Stores vec4(base.rgb + emissive, opacity) to the FragmentColor output `color` (display-referred: "
            "the host shows it as is) and returns; with alpha clip, first `branch_if (less opacity threshold)` "
            "to a `discard` block."
        ),
    )
)


# Surface Output ------------------------------------------------------------------------------


def _unit_input(ctx: NodeContext, name: str) -> Operand:
    return ctx.fn.builtin(Builtin.NORMALIZE, PortType.VEC3, ctx.input(name))


def _lower_surface_output(ctx: NodeContext) -> None:
    lowering = ctx.lowering
    relief = None
    if height.displaces(ctx):
        relief = height.lower_displacement(ctx)
    elif height.height_active(ctx):
        relief = height.lower_height(ctx)
    fn = ctx.fn
    base_color = pbr_functions.saturate(fn, fn.swizzle(ctx.input("base_color"), "xyz"))
    metallic = pbr_functions.saturate(fn, ctx.input("metallic"))
    roughness = pbr_functions.saturate(fn, ctx.input("roughness"))
    specular = pbr_functions.saturate(fn, ctx.input("specular"))
    occlusion = pbr_functions.saturate(fn, ctx.input("ambient_occlusion"))
    normal = _unit_input(ctx, "normal") if relief is None else relief.normal
    view = ctx.source("view_direction")
    light = ctx.source("light_direction")

    extensions = gltf_shading.Extensions.of(ctx)
    if extensions.base:
        facing = fn.builtin(Builtin.MAX, PortType.FLOAT, fn.builtin(Builtin.DOT, PortType.FLOAT, normal, light), fn.f(0.0))
        if relief is not None and relief.light_visibility is not None:
            facing = fn.multiply(facing, relief.light_visibility)
        irradiance = fn.multiply(ctx.scene("light_color"), fn.multiply(ctx.scene("light_intensity"), facing))
        inputs = gltf_shading.BaseInputs(normal, view, light, base_color, metallic, roughness, specular, irradiance)
        direct, environment = gltf_shading.extended_base(ctx, extensions, inputs)
    else:
        brdf = fn.call(pbr_functions.gltf_brdf(lowering), normal, view, light, base_color, metallic, roughness, specular)
        assert brdf is not None
        facing = fn.builtin(Builtin.MAX, PortType.FLOAT, fn.builtin(Builtin.DOT, PortType.FLOAT, normal, light), fn.f(0.0))
        if relief is not None and relief.light_visibility is not None:
            facing = fn.multiply(facing, relief.light_visibility)
        irradiance = fn.multiply(ctx.scene("light_color"), fn.multiply(ctx.scene("light_intensity"), facing))
        direct = fn.multiply(brdf, irradiance)
        called = fn.call(pbr_functions.environment_light(lowering), normal, view, base_color, metallic, roughness, specular)
        assert called is not None
        environment = called
    indirect = fn.multiply(environment, occlusion)

    strength = fn.builtin(Builtin.MAX, PortType.FLOAT, ctx.input("emissive_strength"), fn.f(0.0))
    emissive_rgb = fn.builtin(Builtin.MAX, PortType.VEC3, fn.swizzle(ctx.input("emissive_color"), "xyz"), pbr_functions.splat3(fn, 0.0))
    emissive = fn.multiply(emissive_rgb, strength)
    if extensions.layers:
        radiance = gltf_shading.layers(ctx, extensions, normal, view, light, direct, indirect, emissive, occlusion)
    else:
        radiance = fn.add(fn.add(direct, indirect), emissive)
    _store_with_alpha_clip(ctx, RADIANCE_OUTPUT_NAME, radiance, ctx.input("opacity"))


register(
    NodeType(
        "surface_output",
        "Surface Output",
        CATEGORY,
        "The physically based surface (glTF metallic-roughness), lit by the scene's light and environment.",
        inputs=[
            PortSpec("base_color", PortType.COLOR),
            PortSpec("metallic", PortType.FLOAT, 0.0),
            PortSpec("roughness", PortType.FLOAT, 0.5),
            PortSpec("normal", PortType.VEC3, "world_normal"),
            PortSpec("ambient_occlusion", PortType.FLOAT, 1.0),
            PortSpec("emissive_color", PortType.COLOR),
            PortSpec("emissive_strength", PortType.FLOAT, 1.0),
            PortSpec("opacity", PortType.FLOAT, 1.0),
            PortSpec("alpha_clip", PortType.FLOAT, 0.0),
            PortSpec("specular", PortType.FLOAT, 1.0),
            PortSpec("height", PortType.FLOAT, 0.5),
            PortSpec("height_scale", PortType.FLOAT, 0.05),
            PortSpec("height_mid_level", PortType.FLOAT, 0.5),
            PortSpec("clearcoat", PortType.FLOAT, 0.0),
            PortSpec("clearcoat_roughness", PortType.FLOAT, 0.0),
            PortSpec("clearcoat_normal", PortType.VEC3, "world_normal"),
            PortSpec("sheen_color", PortType.COLOR, (0.0, 0.0, 0.0, 1.0)),
            PortSpec("sheen_roughness", PortType.FLOAT, 0.0),
            PortSpec("transmission", PortType.FLOAT, 0.0),
            PortSpec("thickness", PortType.FLOAT, 0.0),
            PortSpec("attenuation_color", PortType.COLOR, (1.0, 1.0, 1.0, 1.0)),
            PortSpec("attenuation_distance", PortType.FLOAT, 0.0),
            PortSpec("dispersion", PortType.FLOAT, 0.0),
            PortSpec("ior", PortType.FLOAT, 1.5),
            PortSpec("iridescence", PortType.FLOAT, 0.0),
            PortSpec("iridescence_ior", PortType.FLOAT, 1.3),
            PortSpec("iridescence_thickness", PortType.FLOAT, 400.0),
            PortSpec("anisotropy_strength", PortType.FLOAT, 0.0),
            PortSpec("anisotropy_rotation", PortType.FLOAT, 0.0),
        ],
        outputs=[],
        properties=[
            PropertySpec("base_color", "color", (0.8, 0.8, 0.8, 1.0)),
            PropertySpec("metallic", "float", 0.0, 0.0, 1.0),
            PropertySpec("roughness", "float", 0.5, 0.0, 1.0),
            PropertySpec("ambient_occlusion", "float", 1.0, 0.0, 1.0),
            PropertySpec("emissive_color", "color", (0.0, 0.0, 0.0, 1.0)),
            PropertySpec("emissive_strength", "float", 1.0, 0.0, 100.0),
            PropertySpec("opacity", "float", 1.0, 0.0, 1.0),
            PropertySpec("alpha_clip", "float", 0.0, 0.0, 1.0),
            PropertySpec("specular", "float", 1.0, 0.0, 1.0),
            PropertySpec("height", "float", 0.5, 0.0, 1.0),
            PropertySpec("height_scale", "float", 0.05, 0.0, 1.0),
            PropertySpec("height_mid_level", "float", 0.5, 0.0, 1.0),
            PropertySpec(DISPLACEMENT_PROPERTY, "enum", DISPLACEMENT_CHOICES[0], choices=DISPLACEMENT_CHOICES,
                         label="displacement method"),
            PropertySpec("clearcoat", "float", 0.0, 0.0, 1.0),
            PropertySpec("clearcoat_roughness", "float", 0.0, 0.0, 1.0),
            PropertySpec("sheen_color", "color", (0.0, 0.0, 0.0, 1.0)),
            PropertySpec("sheen_roughness", "float", 0.0, 0.0, 1.0),
            PropertySpec("transmission", "float", 0.0, 0.0, 1.0),
            PropertySpec("thickness", "float", 0.0, 0.0, 10.0),
            PropertySpec("attenuation_color", "color", (1.0, 1.0, 1.0, 1.0)),
            PropertySpec("attenuation_distance", "float", 0.0, 0.0, 100.0),
            PropertySpec("dispersion", "float", 0.0, 0.0, 5.0),
            PropertySpec("ior", "float", 1.5, 1.0, 3.0),
            PropertySpec("iridescence", "float", 0.0, 0.0, 1.0),
            PropertySpec("iridescence_ior", "float", 1.3, 1.0, 3.0),
            PropertySpec("iridescence_thickness", "float", 400.0, 0.0, 1200.0),
            PropertySpec("anisotropy_strength", "float", 0.0, 0.0, 1.0),
            PropertySpec("anisotropy_rotation", "float", 0.0, -3.2, 3.2),
        ],
        lower=_lower_surface_output,
        # Blender's Principled BSDF panels: the metallic-roughness core always shown, each glTF extension lobe
        # (and emission, height) a section folded while it is unconnected and neutral.
        sections=(
            InputSection("Specular", ("specular", "ior")),
            InputSection("Emission", ("emissive_color", "emissive_strength")),
            InputSection("Coat", ("clearcoat", "clearcoat_roughness", "clearcoat_normal")),
            InputSection("Sheen", ("sheen_color", "sheen_roughness")),
            InputSection("Transmission", ("transmission", "dispersion")),
            InputSection("Volume", ("thickness", "attenuation_color", "attenuation_distance")),
            InputSection("Thin Film", ("iridescence", "iridescence_ior", "iridescence_thickness")),
            InputSection("Anisotropy", ("anisotropy_strength", "anisotropy_rotation")),
            InputSection("Height", ("height", "height_scale", "height_mid_level")),
        ),
        notes=(
            "Clamps the inputs to [0, 1], calls the helper `gltf_brdf` (glTF 2.0 Appendix B: GGX "
            "`ggx_distribution`, height-correlated Smith `smith_visibility`, Schlick `schlick_weight`, "
            "Lambert; KHR_materials_specular's specular) for the scene's directional light times "
            "max(N·L, 0), adds `environment_light` (split-sum image-based lighting with multiple-scattering "
            "compensation, sampled with `texture_lod` from the host's environment textures) times occlusion "
            "and emissive colour × strength, and stores vec4(radiance, opacity) to the FragmentColor output "
            "`radiance` (linear HDR: the host applies exposure, tone mapping and the sRGB encoding); alpha "
            "clip as in the Unlit Output. A connected height (0..1; displacement (height − mid level) × scale world "
            "units along the normal) is drawn with parallax occlusion mapping: the view ray is marched through the "
            "height field (layers 1/8 to 1/32 apart by the view angle, unrolled; 5 halvings; a linear interpolation), the other inputs are "
            "computed again where it hits (texture coordinates and world position moved there), a march towards "
            "the light darkens the direct light (self-shadowing) and the normal is bumped by the height's slope "
            "fitted to 8 taps 2 pixels wide. Displacement method 'displacement_and_bump' instead moves the mesh in "
            "the vertex stage (`texture_lod` at level 0 of a buffer the height is rendered into in UV space) and "
            "bumps the normal by the same height at the pixel, without parallax. The glTF extension inputs (clearcoat, sheen, transmission with volume "
            "thickness, attenuation and dispersion, ior, iridescence, anisotropy) are shaded by the KHR extensions' formulas "
            "(app/material/nodes/gltf_shading.py); each emits nothing while its factor is unconnected and neutral "
            "(0; ior 1.5; a black sheen colour; dispersion only refracts with a volume: thickness above 0)."
        ),
    )
)

