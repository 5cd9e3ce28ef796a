"""Node type definitions, one module per palette category; importing this registers them all.

Each module declares its node types with `node_types.register(NodeType(...))`
next to the function that lowers them, so a node's ports, properties and
VPL stay in one place. Import order is palette order within a category.
`noise` registers nothing: it holds the exact hash and the noise kernels
(VPL helper functions) that the procedural and pattern nodes call.
"""

from app.material.nodes import (
    color,
    hextile,  # imports textures first: Texture Sample leads the Texture category
    inputs,
    lighting,
    logic,
    mapping,
    maths,
    openpbr,
    output,
    patterns,
    pbr,
    procedural,
    texture_regions,  # imports texture_space first: the Texture Buffer leads its category
    texture_space,
    texture_space_adjustments,
    texture_space_analysis,
    texture_warps,
    textures,
    tile_sampler,
    utility,
    vectors,
)
