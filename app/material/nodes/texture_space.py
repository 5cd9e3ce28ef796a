"""Texture-space nodes: the Texture Buffer and the filters that read buffers at other texels.

Every node here renders a texture in UV space over the unit square (a
*pass*, `app.material.texture_passes`); its texture output feeds Texture
Sample, other filters, or any colour/float/vector input (read at the mesh's
texture coordinates). The filters are written with the filter-authoring API
(`texture_passes.define_filter`, docs/texture-space.md).
"""

from __future__ import annotations

from app.material import texture_passes
from app.material.node_types import NodeType, PortSpec, register
from app.material.port_types import DYNAMIC, PortType

register(
    NodeType(
        texture_passes.BUFFER_TYPE,
        "Texture Buffer",
        texture_passes.CATEGORY,
        "Renders its input over the UV square into a texture that filters (blur, height to normal, ...) can read "
        "at neighbouring texels.",
        inputs=[PortSpec("input", DYNAMIC, label="colour")],
        outputs=[PortSpec("out", PortType.TEXTURE)],
        properties=list(texture_passes.BUFFER_PROPERTIES),
        lower=texture_passes.lower_pass_outputs,
        notes=(
            "A pass of its own: the upstream sub-graph is lowered into its own module, drawn over the UV square "
            "(texcoord = the texel's uv; world position (2u-1, 2v-1, 0) and normal +Z: a flat plane facing +Z); "
            "float f is stored as (f, f, f, 1), vec2 as (x, y, 0, 1), vec3 with alpha 1. Where it is read, one "
            "load of the pass's sampler uniform. Unconnected, the buffer holds its colour property."
        ),
    )
)
