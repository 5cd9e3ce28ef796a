"""The OpenPBR Surface output (`openpbr_surface`): OpenPBR Surface 1.1, MaterialX 1.39's `open_pbr_surface`.

Its inputs are the specification's parameters with MaterialX's names and
node-definition defaults, so a MaterialX document maps onto it input for
input (app/export/mtlx.py, mtlx_import.py). It writes linear HDR radiance
to `radiance` as the Surface Output does; the shading (layers, lobes, the
real-time approximations) is `openpbr_shading.shade`, docs/lighting.md
"OpenPBR Surface" lists each approximation with its reference. A lobe whose
weight is an unconnected constant 0 emits no instructions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import InputSection, NodeType, PortSpec, PropertySpec, register
from app.material.nodes import openpbr_shading
from app.material.port_types import PortType
from app.material.scene import RADIANCE_OUTPUT_NAME
from vpl_core.ir.types import vec

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

TYPE_NAME = "openpbr_surface"

#: (name, port type, default, (min, max) of the property's widget) in the node definition's order.
#: Colours carry alpha 1 (the editor's colours are rgba); only rgb is read.
_F, _C, _V, _B = PortType.FLOAT, PortType.COLOR, PortType.VEC3, PortType.BOOL
INPUTS: tuple[tuple[str, PortType, object, tuple[float, float] | None], ...] = (
    ("base_weight", _F, 1.0, (0.0, 1.0)),
    ("base_color", _C, (0.8, 0.8, 0.8, 1.0), None),
    ("base_diffuse_roughness", _F, 0.0, (0.0, 1.0)),
    ("base_metalness", _F, 0.0, (0.0, 1.0)),
    ("specular_weight", _F, 1.0, (0.0, 1.0)),
    ("specular_color", _C, (1.0, 1.0, 1.0, 1.0), None),
    ("specular_roughness", _F, 0.3, (0.0, 1.0)),
    ("specular_ior", _F, 1.5, (1.0, 3.0)),
    ("specular_roughness_anisotropy", _F, 0.0, (0.0, 1.0)),
    ("transmission_weight", _F, 0.0, (0.0, 1.0)),
    ("transmission_color", _C, (1.0, 1.0, 1.0, 1.0), None),
    ("transmission_depth", _F, 0.0, (0.0, 100.0)),
    ("transmission_scatter", _C, (0.0, 0.0, 0.0, 1.0), None),
    ("transmission_scatter_anisotropy", _F, 0.0, (-1.0, 1.0)),
    ("transmission_dispersion_scale", _F, 0.0, (0.0, 1.0)),
    ("transmission_dispersion_abbe_number", _F, 20.0, (9.0, 91.0)),
    ("subsurface_weight", _F, 0.0, (0.0, 1.0)),
    ("subsurface_color", _C, (0.8, 0.8, 0.8, 1.0), None),
    ("subsurface_radius", _F, 1.0, (0.0, 10.0)),
    ("subsurface_radius_scale", _C, (1.0, 0.5, 0.25, 1.0), None),
    ("subsurface_scatter_anisotropy", _F, 0.0, (-1.0, 1.0)),
    ("fuzz_weight", _F, 0.0, (0.0, 1.0)),
    ("fuzz_color", _C, (1.0, 1.0, 1.0, 1.0), None),
    ("fuzz_roughness", _F, 0.5, (0.0, 1.0)),
    ("coat_weight", _F, 0.0, (0.0, 1.0)),
    ("coat_color", _C, (1.0, 1.0, 1.0, 1.0), None),
    ("coat_roughness", _F, 0.0, (0.0, 1.0)),
    ("coat_roughness_anisotropy", _F, 0.0, (0.0, 1.0)),
    ("coat_ior", _F, 1.6, (1.0, 3.0)),
    ("coat_darkening", _F, 1.0, (0.0, 1.0)),
    ("thin_film_weight", _F, 0.0, (0.0, 1.0)),
    ("thin_film_thickness", _F, 0.5, (0.0, 1.0)),
    ("thin_film_ior", _F, 1.4, (1.0, 3.0)),
    ("emission_luminance", _F, 0.0, (0.0, 1000.0)),
    ("emission_color", _C, (1.0, 1.0, 1.0, 1.0), None),
    ("geometry_opacity", _F, 1.0, (0.0, 1.0)),
    ("geometry_thin_walled", _B, False, None),
    ("geometry_normal", _V, "world_normal", None),
    ("geometry_coat_normal", _V, "world_normal", None),
    ("geometry_tangent", _V, "world_tangent", None),
    ("geometry_coat_tangent", _V, "world_tangent", None),
)


#: The specification's parameter groups as foldable sections; the inputs Blender's Principled BSDF shows outside
#: its panels (base colour, metalness, roughness, IOR, opacity, normal) are in none.
SECTIONS = (
    InputSection("Diffuse", ("base_weight", "base_diffuse_roughness")),
    InputSection("Specular", ("specular_weight", "specular_color", "specular_roughness_anisotropy", "geometry_tangent")),
    InputSection("Transmission", ("transmission_weight", "transmission_color", "transmission_depth",
                                  "transmission_scatter", "transmission_scatter_anisotropy",
                                  "transmission_dispersion_scale", "transmission_dispersion_abbe_number")),
    InputSection("Subsurface", ("subsurface_weight", "subsurface_color", "subsurface_radius", "subsurface_radius_scale",
                                "subsurface_scatter_anisotropy")),
    InputSection("Coat", ("coat_weight", "coat_color", "coat_roughness", "coat_roughness_anisotropy", "coat_ior",
                          "coat_darkening", "geometry_coat_normal", "geometry_coat_tangent")),
    InputSection("Fuzz", ("fuzz_weight", "fuzz_color", "fuzz_roughness")),
    InputSection("Thin Film", ("thin_film_weight", "thin_film_thickness", "thin_film_ior")),
    InputSection("Emission", ("emission_luminance", "emission_color")),
    InputSection("Thin Walled", ("geometry_thin_walled",)),
)


def _properties() -> list[PropertySpec]:
    specs = []
    for name, port_type, default, bounds in INPUTS:
        if port_type is PortType.FLOAT:
            assert bounds is not None and isinstance(default, float)
            specs.append(PropertySpec(name, "float", default, bounds[0], bounds[1]))
        elif port_type is PortType.COLOR:
            specs.append(PropertySpec(name, "color", default))
        elif port_type is PortType.BOOL:
            specs.append(PropertySpec(name, "bool", default))
    return specs


def _lower(ctx: NodeContext) -> None:
    fn = ctx.fn
    radiance = openpbr_shading.shade(ctx)
    opacity = openpbr_shading.Emit(fn).sat(ctx.input("geometry_opacity"))
    fn.store(ctx.lowering.declare_fragment_output(RADIANCE_OUTPUT_NAME), fn.construct(vec(4), radiance, opacity))
    fn.ret()


register(
    NodeType(
        TYPE_NAME,
        "OpenPBR Surface",
        "Output",
        "OpenPBR Surface 1.1 (MaterialX's open_pbr_surface), lit by the scene's light and environment.",
        inputs=[PortSpec(name, port_type, default) for name, port_type, default, _ in INPUTS],  # type: ignore[arg-type]  # the table's defaults are a wider union than PortSpec's
        outputs=[],
        properties=_properties(),
        lower=_lower,
        sections=SECTIONS,
        notes=(
            "Fuzz over coat over a metal/dielectric base (OpenPBR 1.1's layering): GGX specular with OpenPBR's "
            "anisotropy, exact dielectric Fresnel from specular_ior scaled by specular_weight, F82-tint metal, "
            "Oren-Nayar (Fujii) diffuse, coat with darkening and coat_color absorption, Zeltner sheen, Airy thin "
            "film, environment refraction for transmission (one lookup per colour channel with dispersion: the IOR spread "
            "by the effective Abbe number abbe_number / scale, as KHR_materials_dispersion) through a scattering medium "
            "(transmission_scatter: ballistic, scattered and escaping shares over the unit sphere's chord), wrapped diffuse "
            "for subsurface (its spread by the similarity relation r / (1 - g)); environment by the "
            "host's prefiltered maps (split sum); stores vec4(radiance, geometry_opacity) to `radiance`. A lobe "
            "whose weight is an unconnected constant 0 emits nothing."
        ),
    )
)
