"""The example materials shipped with the editor, and the code that generates them.

Each example is a graph built in code here (`EXAMPLE_GRAPHS`); the checked-in
files under `resources/examples/<name>.vpl` are exactly `save_text` of those
graphs (`write_examples` regenerates them, and a test checks they are in
sync). The files ship inside the installed package as
`app/material/examples/` (a link to `resources/examples` in the source tree)
and are read through `importlib.resources`, so nothing depends on the
working directory.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from app.material.document import LoadedDocument, load_text, save_text
from app.material.graph import GroupDefinition, MaterialGraph, Node
from app.material.node_extent import NODE_GAP, NODE_WIDTH, drawn_height
from app.material.node_types import Scope

if TYPE_CHECKING:  # `importlib.resources.abc` is new in Python 3.11; the editor runs on 3.10 too
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

EXAMPLES_PACKAGE = "app.material"
EXAMPLES_DIRECTORY = "examples"
#: What the editor opens without a file: a new user's first impression, so a textured physically based
#: material (albedo, ORM and normal map on the Surface Output) lit by the studio environment.
DEFAULT_EXAMPLE = "painted_metal"


def _examples_root() -> Traversable:
    return resources.files(EXAMPLES_PACKAGE).joinpath(EXAMPLES_DIRECTORY)


def example_names() -> list[str]:
    """Names of the shipped examples (file stems), sorted."""
    root = _examples_root()
    if not root.is_dir():
        return []
    return sorted(entry.name[: -len(".vpl")] for entry in root.iterdir() if entry.name.endswith(".vpl"))


def example_path(name: str) -> Path:
    """The example's file. KeyError for an unknown name."""
    if name not in example_names():
        raise KeyError(f"no example material named {name!r}")
    entry = _examples_root().joinpath(f"{name}.vpl")
    return Path(str(entry))


def load_example(name: str) -> LoadedDocument:
    """Open a shipped example as a document (label: its file name)."""
    entry = _examples_root().joinpath(f"{name}.vpl")
    if name not in example_names():
        return LoadedDocument(message=f"no example material named {name!r}", label=f"{name}.vpl")
    return load_text(entry.read_bytes(), label=f"{name}.vpl")


# The example graphs ---------------------------------------------------------------------------
#
# Columns of 250 units left to right, rows of 140 units: roughly how an artist lays them out. The rows
# are only an order: `_stack_columns` then pushes each node of a column below the one above it, by the
# height the editor draws it at (ports and thumbnail), so that no node covers another
# (tests/app/ui/test_example_layout.py measures the real widget's heights).

COLUMN_WIDTH = 250.0
ROW_HEIGHT = 140.0
#: The space left around a frame's members (node sizes: app/material/node_extent.py).
FRAME_PADDING = 20.0
FRAME_TITLE_HEIGHT = 42.0


def _at(column: int, row: float) -> tuple[float, float]:
    return (column * COLUMN_WIDTH, row * ROW_HEIGHT)


def _stack_columns(graph: MaterialGraph, scope: Scope) -> None:
    """Move the nodes of each column (same x) down so that each starts below the one above, fit every
    frame around its members, and move a node that is not a member below any frame it would sit in
    (then stack again): no node covers another and a frame covers only its members (see
    tests/app/ui/test_example_layout.py)."""
    heights = {node.id: drawn_height(node, scope, graph) for node in graph.nodes.values()}
    for _ in range(len(graph.nodes) + 1):  # each round moves at least one node below a frame, never back
        columns: dict[float, list[Node]] = {}
        for node in graph.nodes.values():
            columns.setdefault(node.position[0], []).append(node)
        for nodes in columns.values():
            nodes.sort(key=lambda node: node.position[1])
            free_from = float("-inf")
            for node in nodes:
                y = max(node.position[1], free_from)
                node.position = (node.position[0], y)
                free_from = y + heights[node.id] + NODE_GAP
        moved = False
        for frame in graph.frames:
            members = [graph.nodes[node_id] for node_id in frame.node_ids if node_id in graph.nodes]
            if not members:
                continue
            left = min(node.position[0] for node in members) - FRAME_PADDING
            top = min(node.position[1] for node in members) - FRAME_TITLE_HEIGHT
            right = max(node.position[0] + NODE_WIDTH for node in members) + FRAME_PADDING
            bottom = max(node.position[1] + heights[node.id] for node in members) + FRAME_PADDING
            frame.position = (left, top)
            frame.size = (right - left, bottom - top)
            for node in graph.nodes.values():
                x, y = node.position
                inside = x < right and x + NODE_WIDTH > left and y < bottom and y + heights[node.id] > top
                if inside and node.id not in frame.node_ids:
                    node.position = (x, bottom + NODE_GAP)
                    moved = True
        if not moved:
            return


def _laid_out(build: Callable[[], MaterialGraph]) -> Callable[[], MaterialGraph]:
    """`build`, with its graph's columns (and every group body's) stacked by `_stack_columns`."""

    @functools.wraps(build)
    def laid_out() -> MaterialGraph:
        graph = build()
        _stack_columns(graph, Scope(graph.functions))
        definition: GroupDefinition
        for definition in graph.functions.values():
            _stack_columns(definition.body, Scope(graph.functions, definition))
        return graph

    return laid_out


def textured() -> MaterialGraph:
    """A tiled texture lit by a Lambert term, with a little ambient light."""
    graph = MaterialGraph()
    texture = graph.add_node("texture_parameter", _at(0, 0), {"name": "albedo"})
    tiling = graph.add_node("tiling_offset", _at(0, 1), {"tiling": (2.0, 2.0)})
    sample = graph.add_node("sample_texture", _at(1, 0))
    lambert = graph.add_node("lambert", _at(1, 2))
    ambient = graph.add_node("float_parameter", _at(1, 3), {"name": "ambient", "default": 0.2})
    lit = graph.add_node("add", _at(2, 2))
    shade = graph.add_node("multiply", _at(3, 0))
    output = graph.add_node("material_output", _at(4, 0))
    graph.connect(texture.id, "out", sample.id, "texture")
    graph.connect(tiling.id, "out", sample.id, "uv")
    graph.connect(lambert.id, "out", lit.id, "a")
    graph.connect(ambient.id, "out", lit.id, "b")
    graph.connect(sample.id, "rgba", shade.id, "a")
    graph.connect(lit.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    # The frame's rectangle encloses its members with a margin on every side,
    # so the drawn frame (which NodeGraphQt drags nodes with) agrees with them.
    graph.add_frame("Texture", (-20.0, -42.0), (440.0, 320.0), [texture.id, tiling.id, sample.id])
    return graph


def animated() -> MaterialGraph:
    """A scrolling checker whose emissive glow pulses with time."""
    graph = MaterialGraph()
    panner = graph.add_node("panner", _at(0, 0), {"speed": (0.05, 0.02)})
    checker = graph.add_node("checker", _at(1, 0), {"scale": 6.0, "color_a": (0.15, 0.3, 0.6, 1.0)})
    time = graph.add_node("time", _at(0, 2))
    speed = graph.add_node("float_parameter", _at(0, 3), {"name": "pulse_speed", "default": 3.0, "maximum": 10.0})
    phase = graph.add_node("multiply", _at(1, 2))
    wave = graph.add_node("sin", _at(2, 2))
    positive = graph.add_node("remap", _at(3, 2), {"in_min": -1.0, "in_max": 1.0, "out_min": 0.0, "out_max": 1.0})
    glow_color = graph.add_node("color_parameter", _at(3, 3), {"name": "glow", "default": (0.6, 0.25, 0.05, 1.0)})
    glow = graph.add_node("multiply", _at(4, 2))
    lambert = graph.add_node("lambert", _at(1, 1))
    shade = graph.add_node("multiply", _at(2, 0))
    output = graph.add_node("material_output", _at(5, 0))
    graph.connect(panner.id, "out", checker.id, "uv")
    graph.connect(checker.id, "out", shade.id, "a")
    graph.connect(lambert.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    graph.connect(time.id, "out", phase.id, "a")
    graph.connect(speed.id, "out", phase.id, "b")
    graph.connect(phase.id, "out", wave.id, "x")
    graph.connect(wave.id, "out", positive.id, "x")
    graph.connect(positive.id, "out", glow.id, "a")
    graph.connect(glow_color.id, "out", glow.id, "b")
    graph.connect(glow.id, "out", output.id, "emissive")
    return graph


def procedural_noise() -> MaterialGraph:
    """Fractal noise blending two colours, like marble or clouds."""
    graph = MaterialGraph()
    noise = graph.add_node("fractal_noise", _at(0, 0), {"octaves": 6, "scale": 5.0})
    contrast = graph.add_node("smoothstep", _at(1, 0), {"edge0": 0.3, "edge1": 0.7})
    dark = graph.add_node("color_parameter", _at(1, 1), {"name": "dark", "default": (0.08, 0.1, 0.25, 1.0)})
    light = graph.add_node("color_parameter", _at(1, 2), {"name": "light", "default": (0.9, 0.92, 1.0, 1.0)})
    blend = graph.add_node("mix", _at(2, 0))
    lambert = graph.add_node("lambert", _at(2, 2))
    wrap = graph.add_node("remap", _at(3, 2), {"out_min": 0.35, "out_max": 1.0})
    shade = graph.add_node("multiply", _at(4, 0))
    output = graph.add_node("material_output", _at(5, 0))
    graph.connect(noise.id, "out", contrast.id, "x")
    graph.connect(dark.id, "out", blend.id, "a")
    graph.connect(light.id, "out", blend.id, "b")
    graph.connect(contrast.id, "out", blend.id, "t")
    graph.connect(lambert.id, "out", wrap.id, "x")
    graph.connect(blend.id, "out", shade.id, "a")
    graph.connect(wrap.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    return graph


def lit_blinn_phong() -> MaterialGraph:
    """Plastic: diffuse colour, Blinn-Phong highlight and a Fresnel rim."""
    graph = MaterialGraph()
    color = graph.add_node("color_parameter", _at(0, 0), {"name": "base_color", "default": (0.75, 0.12, 0.1, 1.0)})
    lambert = graph.add_node("lambert", _at(0, 1))
    diffuse = graph.add_node("multiply", _at(1, 0))
    shininess = graph.add_node("float_parameter", _at(0, 2), {"name": "shininess", "default": 48.0, "minimum": 1.0, "maximum": 256.0})
    specular = graph.add_node("blinn_phong", _at(1, 2))
    highlight = graph.add_node("add", _at(2, 0))
    fresnel = graph.add_node("fresnel", _at(1, 3), {"power": 4.0})
    rim_color = graph.add_node("color_parameter", _at(1, 4), {"name": "rim_color", "default": (0.3, 0.5, 1.0, 1.0)})
    rim = graph.add_node("multiply", _at(2, 3))
    output = graph.add_node("material_output", _at(3, 0))
    graph.connect(color.id, "out", diffuse.id, "a")
    graph.connect(lambert.id, "out", diffuse.id, "b")
    graph.connect(shininess.id, "out", specular.id, "shininess")
    graph.connect(diffuse.id, "out", highlight.id, "a")
    graph.connect(specular.id, "out", highlight.id, "b")
    graph.connect(highlight.id, "out", output.id, "base_color")
    graph.connect(fresnel.id, "out", rim.id, "a")
    graph.connect(rim_color.id, "out", rim.id, "b")
    graph.connect(rim.id, "out", output.id, "emissive")
    return graph


def alpha_clip() -> MaterialGraph:
    """Holes cut by noise: opacity from value noise, fragments below the threshold discarded."""
    graph = MaterialGraph()
    noise = graph.add_node("value_noise", _at(0, 0), {"scale": 12.0})
    threshold = graph.add_node("float_parameter", _at(0, 1), {"name": "clip_threshold", "default": 0.45})
    color = graph.add_node("color_parameter", _at(0, 2), {"name": "leaf_color", "default": (0.2, 0.6, 0.15, 1.0)})
    lambert = graph.add_node("lambert", _at(0, 3))
    shade = graph.add_node("multiply", _at(1, 2))
    output = graph.add_node("material_output", _at(2, 0))
    graph.connect(noise.id, "out", output.id, "opacity")
    graph.connect(threshold.id, "out", output.id, "alpha_clip")
    graph.connect(color.id, "out", shade.id, "a")
    graph.connect(lambert.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    return graph


def compare_and_branch() -> MaterialGraph:
    """Two materials split by height: an If node branches on the world-space y coordinate."""
    graph = MaterialGraph()
    position = graph.add_node("world_position", _at(0, 0))
    split = graph.add_node("split", _at(1, 0))
    height = graph.add_node("float_parameter", _at(1, 1), {"name": "split_height", "default": 0.0, "minimum": -1.0, "maximum": 1.0})
    upper = graph.add_node("color_parameter", _at(1, 2), {"name": "upper", "default": (0.95, 0.95, 0.98, 1.0)})
    checker = graph.add_node("checker", _at(1, 3), {"scale": 10.0})
    branch = graph.add_node("if", _at(2, 0), {"operator": ">"})
    lambert = graph.add_node("lambert", _at(2, 2))
    shade = graph.add_node("multiply", _at(3, 0))
    output = graph.add_node("material_output", _at(4, 0))
    graph.connect(position.id, "out", split.id, "vector")
    graph.connect(split.id, "y", branch.id, "a")
    graph.connect(height.id, "out", branch.id, "b")
    graph.connect(upper.id, "out", branch.id, "if_true")
    graph.connect(checker.id, "out", branch.id, "if_false")
    graph.connect(branch.id, "out", shade.id, "a")
    graph.connect(lambert.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    return graph


# Examples of the node library (noise family, colour ramp, triplanar, patterns) ------------------------
#
# Lava, rock and floor are physically based in spirit, so they end in the Surface Output and are lit by
# the stage's light and environment like every other PBR material; the patterns give base colour,
# roughness, a bump (Normal From Height) and, for the lava, emission. Toon shading stays on the Unlit
# Output: its bands are the look, and environment lighting would wash them out.

LAVA_ROCK_RAMP = (
    (0.0, 0.2, 0.035, 0.01, 1.0),
    (0.07, 0.06, 0.035, 0.03, 1.0),
    (0.3, 0.045, 0.042, 0.04, 1.0),
    (1.0, 0.11, 0.1, 0.095, 1.0),
)
#: Emission of the cracks (multiplied by the output's emissive strength): white-hot in the middle, red at the rim.
LAVA_GLOW_RAMP = (
    (0.0, 1.0, 0.85, 0.35, 1.0),
    (0.05, 1.0, 0.5, 0.04, 1.0),
    (0.09, 0.85, 0.14, 0.0, 1.0),
    (0.14, 0.18, 0.01, 0.0, 1.0),
    (0.18, 0.0, 0.0, 0.0, 1.0),
)


def stylised_lava() -> MaterialGraph:
    """Cooled basalt plates split by glowing cracks (Surface Output): domain-warped Voronoi edges, drifting with
    time, give the cracks' emission and the rock's colour through colour ramps; the plates are rough and raised."""
    graph = MaterialGraph()
    position = graph.add_node("object_position", _at(0, 0))
    time = graph.add_node("time", _at(0, 1))
    flow = graph.add_node("multiply", _at(1, 1), {"b": 0.05})
    drift = graph.add_node("add", _at(1, 0))
    warp = graph.add_node("domain_warp_3d", _at(2, 0), {"scale": 1.5, "strength": 0.25})
    cells = graph.add_node("voronoi_3d", _at(3, 0), {"scale": 3.0, "jitter": 0.9})
    detail = graph.add_node("fractal_noise_3d", _at(3, 2), {"scale": 6.0, "octaves": 4, "basis": "gradient"})
    wobble = graph.add_node("multiply", _at(4, 2), {"b": 0.08})
    edge = graph.add_node("add", _at(4, 0))
    rock = graph.add_node("color_ramp", _at(5, 0), {"stops": LAVA_ROCK_RAMP, "interpolation": "ease"})
    glow = graph.add_node("color_ramp", _at(5, 1), {"stops": LAVA_GLOW_RAMP, "interpolation": "ease"})
    roughness = graph.add_node("remap", _at(5, 3), {"out_min": 0.6, "out_max": 0.95})
    plates = graph.add_node("smoothstep", _at(5, 4), {"edge0": 0.06, "edge1": 0.18})
    grain = graph.add_node("multiply", _at(5, 5), {"b": 0.25})
    height = graph.add_node("add", _at(6, 4))
    bump = graph.add_node("normal_from_height", _at(7, 4), {"strength": 0.03, "filter_width": 0.0})
    output = graph.add_node("surface_output", _at(8, 0), {"emissive_strength": 1.5})
    graph.connect(time.id, "out", flow.id, "a")
    graph.connect(position.id, "out", drift.id, "a")
    graph.connect(flow.id, "out", drift.id, "b")
    graph.connect(drift.id, "out", warp.id, "position")
    graph.connect(warp.id, "out", cells.id, "position")
    graph.connect(position.id, "out", detail.id, "position")
    graph.connect(detail.id, "out", wobble.id, "a")
    graph.connect(cells.id, "edge", edge.id, "a")
    graph.connect(wobble.id, "out", edge.id, "b")
    graph.connect(edge.id, "out", rock.id, "factor")
    graph.connect(edge.id, "out", glow.id, "factor")
    graph.connect(detail.id, "out", roughness.id, "x")
    graph.connect(edge.id, "out", plates.id, "x")
    graph.connect(detail.id, "out", grain.id, "a")
    graph.connect(plates.id, "out", height.id, "a")
    graph.connect(grain.id, "out", height.id, "b")
    graph.connect(height.id, "out", bump.id, "height")
    graph.connect(rock.id, "color", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(bump.id, "normal_out", output.id, "normal")
    graph.connect(glow.id, "color", output.id, "emissive_color")
    graph.add_frame("Cracks", (0.0, -60.0), (1500.0, 420.0), [position.id, time.id, flow.id, drift.id, warp.id, cells.id])
    return graph


ROCK_RAMP = (
    (0.0, 0.1, 0.09, 0.08, 1.0),
    (0.18, 0.3, 0.27, 0.24, 1.0),
    (0.35, 0.5, 0.46, 0.4, 1.0),
    (0.6, 0.66, 0.63, 0.58, 1.0),
    (1.0, 0.85, 0.83, 0.8, 1.0),
)


def triplanar_rock() -> MaterialGraph:
    """Layered rock with no UV seams (Surface Output): turbulent fractal noise projected along three axes and
    blended by the normal gives the colour, a bump, rougher crevices and occlusion in them."""
    graph = MaterialGraph()
    position = graph.add_node("object_position", _at(0, 0))
    normal = graph.add_node("object_normal", _at(0, 1))
    planes = graph.add_node("triplanar_coordinates", _at(1, 0), {"scale": 2.0, "sharpness": 6.0})
    noises = [
        graph.add_node("fractal_noise", _at(2, row), {"scale": 1.5, "octaves": 6, "basis": "gradient", "mode": "turbulence"})
        for row in (0, 1, 2)
    ]
    blend = graph.add_node("triplanar_blend", _at(3, 0))
    bend = graph.add_node("domain_warp", _at(2, 3), {"scale": 2.0, "strength": 0.15})
    strata = graph.add_node("stripes", _at(3, 2), {"frequency": 4.0, "width": 0.2, "angle": 90.0})
    streak = graph.add_node("mix", _at(4, 1), {"t": 0.12})
    ramp = graph.add_node("color_ramp", _at(5, 0), {"stops": ROCK_RAMP})
    roughness = graph.add_node("remap", _at(5, 1), {"out_min": 0.95, "out_max": 0.7})
    occlusion = graph.add_node("remap", _at(5, 2), {"out_min": 0.45, "out_max": 1.0})
    bump = graph.add_node("normal_from_height", _at(5, 3), {"strength": 0.02, "filter_width": 0.0})
    output = graph.add_node("surface_output", _at(6, 0))
    graph.connect(position.id, "out", planes.id, "position")
    graph.connect(normal.id, "out", planes.id, "normal")
    for noise, port in zip(noises, ("uv_x", "uv_y", "uv_z")):
        graph.connect(planes.id, port, noise.id, "uv")
    for noise, port in zip(noises, ("x", "y", "z")):
        graph.connect(noise.id, "out", blend.id, port)
    graph.connect(planes.id, "weights", blend.id, "weights")
    graph.connect(planes.id, "uv_x", bend.id, "uv")
    graph.connect(bend.id, "out", strata.id, "uv")
    graph.connect(blend.id, "out", streak.id, "a")
    graph.connect(strata.id, "out", streak.id, "b")
    graph.connect(streak.id, "out", ramp.id, "factor")
    graph.connect(streak.id, "out", roughness.id, "x")
    graph.connect(streak.id, "out", occlusion.id, "x")
    graph.connect(blend.id, "out", bump.id, "height")
    graph.connect(ramp.id, "color", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(occlusion.id, "out", output.id, "ambient_occlusion")
    graph.connect(bump.id, "normal_out", output.id, "normal")
    return graph


def tiled_floor() -> MaterialGraph:
    """Glazed hexagonal tiles (Surface Output) in three colours picked per tile, set in rough grout with bevelled
    edges, under a soft overlay of grime that also dulls the glaze."""
    graph = MaterialGraph()
    uv = graph.add_node("transform_uv", _at(0, 0), {"tiling": (2.0, 2.0), "rotation": 15.0})
    tiles = graph.add_node("hexagons", _at(1, 0), {"scale": 5.0, "gap": 0.08})
    tint = graph.add_node("color_ramp", _at(2, 0), {
        "stops": ((0.0, 0.16, 0.33, 0.42, 1.0), (0.35, 0.85, 0.82, 0.74, 1.0), (0.8, 0.62, 0.36, 0.24, 1.0)),
        "interpolation": "constant",
    })
    grout = graph.add_node("constant_color", _at(2, 1), {"value": (0.18, 0.17, 0.16, 1.0)})
    laid = graph.add_node("mix", _at(3, 0))
    grime = graph.add_node("fractal_noise", _at(2, 3), {"scale": 6.0, "octaves": 5})
    grime_color = graph.add_node("compose", _at(3, 3), {"size": 3})
    dirty = graph.add_node("blend", _at(4, 0), {"mode": "overlay", "factor": 0.6})
    glaze = graph.add_node("mix", _at(4, 1), {"a": 0.9, "b": 0.12})
    dull = graph.add_node("multiply", _at(4, 3), {"b": 0.2})
    roughness = graph.add_node("add", _at(5, 1))
    bevel = graph.add_node("smoothstep", _at(3, 4), {"edge0": 0.04, "edge1": 0.1})
    bump = graph.add_node("normal_from_height", _at(4, 4), {"strength": 0.01, "filter_width": 0.0})
    output = graph.add_node("surface_output", _at(6, 0))
    graph.connect(uv.id, "out", tiles.id, "uv")
    graph.connect(tiles.id, "cell_id", tint.id, "factor")
    graph.connect(grout.id, "out", laid.id, "a")
    graph.connect(tint.id, "color", laid.id, "b")
    graph.connect(tiles.id, "mask", laid.id, "t")
    graph.connect(uv.id, "out", grime.id, "uv")
    for axis in "xyz":
        graph.connect(grime.id, "out", grime_color.id, axis)
    graph.connect(laid.id, "out", dirty.id, "base")
    graph.connect(grime_color.id, "out", dirty.id, "layer")
    graph.connect(tiles.id, "mask", glaze.id, "t")
    graph.connect(grime.id, "out", dull.id, "a")
    graph.connect(glaze.id, "out", roughness.id, "a")
    graph.connect(dull.id, "out", roughness.id, "b")
    graph.connect(tiles.id, "edge_distance", bevel.id, "x")
    graph.connect(bevel.id, "out", bump.id, "height")
    graph.connect(dirty.id, "out", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(bump.id, "normal_out", output.id, "normal")
    return graph


TOON_RAMP = ((0.0, 0.28, 0.3, 0.45, 1.0), (0.25, 0.62, 0.64, 0.78, 1.0), (0.7, 1.0, 1.0, 1.0, 1.0))


def toon_shading() -> MaterialGraph:
    """Cel shading, unlit on purpose (Unlit Output): the Lambert term through a constant colour ramp (three flat
    bands) plus a hard rim light; environment lighting would wash out the bands that are the look."""
    graph = MaterialGraph()
    base = graph.add_node("color_parameter", _at(0, 0), {"name": "base_color", "default": (0.95, 0.45, 0.3, 1.0)})
    lambert = graph.add_node("lambert", _at(0, 1))
    bands = graph.add_node("color_ramp", _at(1, 1), {"stops": TOON_RAMP, "interpolation": "constant"})
    shade = graph.add_node("multiply", _at(2, 0))
    fresnel = graph.add_node("fresnel", _at(1, 3), {"power": 3.0})
    rim = graph.add_node("step", _at(2, 3), {"edge": 0.55})
    rim_color = graph.add_node("multiply", _at(3, 3), {"b": 0.6})
    rim_rgb = graph.add_node("compose", _at(4, 3), {"size": 3})
    output = graph.add_node("material_output", _at(5, 0))
    graph.connect(lambert.id, "out", bands.id, "factor")
    graph.connect(base.id, "out", shade.id, "a")
    graph.connect(bands.id, "color", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    graph.connect(fresnel.id, "out", rim.id, "x")
    graph.connect(rim.id, "out", rim_color.id, "a")
    for axis in "xyz":
        graph.connect(rim_color.id, "out", rim_rgb.id, axis)
    graph.connect(rim_rgb.id, "out", output.id, "emissive")
    return graph


# Physically based examples (Surface Output). Textures live in resources/examples/textures/
# (generated by tools/make_textures.py); image paths are relative to the example file.

TEXTURES_DIRECTORY = "textures"


def _texture(graph: MaterialGraph, position: tuple[float, float], name: str, image: str, color_space: str) -> Node:
    return graph.add_node(
        "texture_parameter", position, {"name": name, "image": f"{TEXTURES_DIRECTORY}/{image}", "color_space": color_space}
    )


def painted_metal() -> MaterialGraph:
    """Painted steel panels, worn to the bare metal: albedo (sRGB) + ORM + normal map (linear), 10 nodes."""
    graph = MaterialGraph()
    tiling = graph.add_node("tiling_offset", _at(0, 1.5), {"tiling": (2.0, 1.0), "offset": (0.75, 0.75)})  # the worn panel in front
    albedo = _texture(graph, _at(0, 0), "albedo", "painted_metal_albedo.png", "srgb")
    orm = _texture(graph, _at(0, 2.5), "orm", "painted_metal_orm.png", "linear")
    normal = _texture(graph, _at(0, 3.5), "normal_map", "painted_metal_normal.png", "linear")
    albedo_sample = graph.add_node("sample_texture", _at(1, 0))
    orm_sample = graph.add_node("sample_texture", _at(1, 2))
    normal_sample = graph.add_node("sample_texture", _at(1, 3.5))
    unpack = graph.add_node("orm_unpack", _at(2, 2))
    normal_map = graph.add_node("normal_map", _at(2, 3.5))
    # A gap wider than the column's: the Normal Map (its convention and strength fields) is wider than a column.
    output = graph.add_node("surface_output", (3 * COLUMN_WIDTH + NODE_GAP, 0.0))
    for texture, sample in ((albedo, albedo_sample), (orm, orm_sample), (normal, normal_sample)):
        graph.connect(texture.id, "out", sample.id, "texture")
        graph.connect(tiling.id, "out", sample.id, "uv")
    graph.connect(albedo_sample.id, "rgba", output.id, "base_color")
    graph.connect(orm_sample.id, "rgba", unpack.id, "orm")
    graph.connect(unpack.id, "occlusion", output.id, "ambient_occlusion")
    graph.connect(unpack.id, "roughness", output.id, "roughness")
    graph.connect(unpack.id, "metallic", output.id, "metallic")
    graph.connect(normal_sample.id, "rgb", normal_map.id, "tangent_normal")
    graph.connect(normal_map.id, "normal_out", output.id, "normal")
    return graph


def brushed_metal() -> MaterialGraph:
    """Brushed aluminium: noise stretched along u drives the roughness and, as a height, a bump."""
    graph = MaterialGraph()
    streaks = graph.add_node("tiling_offset", _at(0, 1), {"tiling": (2.0, 500.0)})
    noise = graph.add_node("value_noise", _at(1, 1), {"scale": 1.0})
    roughness = graph.add_node("remap", _at(2, 1), {"out_min": 0.22, "out_max": 0.38})
    bump = graph.add_node("normal_from_height", _at(2, 2), {"strength": 0.0004, "filter_width": 0.0})
    color = graph.add_node("color_parameter", _at(2, 0), {"name": "metal_color", "default": (0.91, 0.92, 0.92, 1.0)})
    output = graph.add_node("surface_output", _at(3, 0), {"metallic": 1.0})
    graph.connect(streaks.id, "out", noise.id, "uv")
    graph.connect(noise.id, "out", roughness.id, "x")
    graph.connect(noise.id, "out", bump.id, "height")
    graph.connect(color.id, "out", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(bump.id, "normal_out", output.id, "normal")
    return graph


def polished_gold() -> MaterialGraph:
    """Polished gold: a metal is its base colour (glTF's gold is (1.0, 0.766, 0.336)) and a low roughness."""
    graph = MaterialGraph()
    color = graph.add_node("color_parameter", _at(0, 0), {"name": "gold", "default": (1.0, 0.766, 0.336, 1.0)})
    roughness = graph.add_node("float_parameter", _at(0, 1), {"name": "roughness", "default": 0.12})
    output = graph.add_node("surface_output", _at(1, 0), {"metallic": 1.0})
    graph.connect(color.id, "out", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    return graph


def rough_plastic() -> MaterialGraph:
    """Rough orange plastic: a dielectric with a high roughness and a fine grain from fractal noise."""
    graph = MaterialGraph()
    color = graph.add_node("color_parameter", _at(0, 0), {"name": "plastic_color", "default": (0.8, 0.22, 0.03, 1.0)})
    roughness = graph.add_node("float_parameter", _at(0, 1), {"name": "roughness", "default": 0.65})
    grain = graph.add_node("fractal_noise", _at(0, 2), {"scale": 90.0, "octaves": 3})
    bump = graph.add_node("normal_from_height", _at(1, 2), {"strength": 0.0015, "filter_width": 0.0})
    output = graph.add_node("surface_output", _at(2, 0))
    graph.connect(color.id, "out", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(grain.id, "out", bump.id, "height")
    graph.connect(bump.id, "normal_out", output.id, "normal")
    return graph


def glazed_ceramic() -> MaterialGraph:
    """Glazed ceramic: cobalt bands painted on cream under a glossy glaze (a smooth dielectric)."""
    graph = MaterialGraph()
    uv = graph.add_node("texcoord", _at(0, 0))
    split = graph.add_node("split", _at(1, 0))
    frequency = graph.add_node("multiply", _at(2, 0), {"b": 40.0})
    wave = graph.add_node("sin", _at(3, 0))
    bands = graph.add_node("smoothstep", _at(4, 0), {"edge0": 0.55, "edge1": 0.7})
    cream = graph.add_node("color_parameter", _at(3, 1), {"name": "glaze", "default": (0.86, 0.82, 0.7, 1.0)})
    cobalt = graph.add_node("color_parameter", _at(3, 2), {"name": "cobalt", "default": (0.03, 0.09, 0.42, 1.0)})
    blend = graph.add_node("mix", _at(5, 0))
    output = graph.add_node("surface_output", _at(6, 0), {"roughness": 0.06})
    graph.connect(uv.id, "out", split.id, "vector")
    graph.connect(split.id, "y", frequency.id, "a")
    graph.connect(frequency.id, "out", wave.id, "x")
    graph.connect(wave.id, "out", bands.id, "x")
    graph.connect(cream.id, "out", blend.id, "a")
    graph.connect(cobalt.id, "out", blend.id, "b")
    graph.connect(bands.id, "out", blend.id, "t")
    graph.connect(blend.id, "out", output.id, "base_color")
    return graph


def material_chart() -> MaterialGraph:
    """Metallic (0 to 1, left to right) against roughness (0 to 1, top to bottom) in 5 x 5 cells of one mesh."""
    graph = MaterialGraph()
    position = graph.add_node("world_position", _at(0, 0))
    split = graph.add_node("split", _at(1, 0))
    columns = graph.add_node("remap", _at(2, 0), {"in_min": -1.0, "in_max": 1.0, "out_min": 0.0, "out_max": 4.999})
    rows = graph.add_node("remap", _at(2, 1), {"in_min": 1.0, "in_max": -1.0, "out_min": 0.0, "out_max": 4.999})
    column = graph.add_node("floor", _at(3, 0))
    row = graph.add_node("floor", _at(3, 1))
    metallic = graph.add_node("divide", _at(4, 0), {"b": 4.0})
    roughness = graph.add_node("divide", _at(4, 1), {"b": 4.0})
    color = graph.add_node("color_parameter", _at(4, 2), {"name": "base_color", "default": (0.95, 0.64, 0.54, 1.0)})
    output = graph.add_node("surface_output", _at(5, 0))
    graph.connect(position.id, "out", split.id, "vector")
    graph.connect(split.id, "x", columns.id, "x")
    graph.connect(split.id, "y", rows.id, "x")
    graph.connect(columns.id, "out", column.id, "x")
    graph.connect(rows.id, "out", row.id, "x")
    graph.connect(column.id, "out", metallic.id, "a")
    graph.connect(row.id, "out", roughness.id, "a")
    graph.connect(metallic.id, "out", output.id, "metallic")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(color.id, "out", output.id, "base_color")
    return graph


def grouped_rock() -> MaterialGraph:
    """The triplanar rock packaged in nested node groups: "Triplanar noise" and "Strata" inside "Rock pattern".

    Each group is one VPL helper function (`group_triplanar_noise`,
    `group_strata`, `group_rock_pattern`); Tab into "Rock pattern" in the
    editor to see the two groups it calls.
    """
    from app.material.groups import group_nodes

    graph = triplanar_rock()
    # n3: coordinates, n4-n6: the three noises, n7: their blend, n8: warp, n9: stripes, n10: mix, n11: ramp.
    noise = group_nodes(graph, None, ["n3", "n4", "n5", "n6", "n7"], name="Triplanar noise")
    strata = group_nodes(noise.document, None, ["n8", "n9"], name="Strata")
    pattern = group_nodes(strata.document, None, [noise.instance_id, strata.instance_id, "n10", "n11"],
                          name="Rock pattern")
    return pattern.document


#: The body of the Custom Code node of `custom_posterize`: colour bands, as VPL instructions.
POSTERIZE_CODE = """\
(registers (register r0 Vec4) (register r1 Float) (register r2 Vec3) (register r3 Vec3) (register r4 Vec3)
           (register r5 Float) (register r6 Vec4))
(block entry
  (load r0 (parameter color))
  (load r1 (parameter levels))
  (swizzle r2 r0 "xyz")
  (multiply r3 r2 r1)
  (floor r3 r3)
  (divide r4 r3 r1)
  (swizzle r5 r0 "w")
  (construct r6 r4 r5)
  (return r6))
"""


POSTER_RAMP = ((0.0, 0.08, 0.16, 0.55, 1.0), (0.45, 0.2, 0.65, 0.75, 1.0), (0.7, 0.98, 0.85, 0.45, 1.0),
               (1.0, 1.0, 0.98, 0.9, 1.0))


def custom_posterize() -> MaterialGraph:
    """Marbled noise posterized into flat colour bands by a Custom Code node (VPL instructions, verified)."""
    graph = MaterialGraph()
    noise = graph.add_node("fractal_noise", _at(0, 0), {"octaves": 5, "scale": 4.0})
    ramp = graph.add_node("color_ramp", _at(1, 0), {"stops": POSTER_RAMP})
    levels = graph.add_node("float_parameter", _at(1, 1), {"name": "levels", "default": 4.0, "minimum": 1.0,
                                                          "maximum": 16.0})
    posterize = graph.add_node("custom_code", _at(2, 0), {
        "name": "posterize",
        "inputs": (("color", "color"), ("levels", "float")),
        "outputs": (("out", "color"),),
        "code": POSTERIZE_CODE,
        "color": (1.0, 1.0, 1.0, 1.0),
        "levels": 4.0,
    })
    lambert = graph.add_node("lambert", _at(2, 2))
    wrap = graph.add_node("remap", _at(3, 2), {"out_min": 0.4, "out_max": 1.0})
    shade = graph.add_node("multiply", _at(4, 0))
    output = graph.add_node("material_output", _at(5, 0))
    graph.connect(noise.id, "out", ramp.id, "factor")
    graph.connect(ramp.id, "color", posterize.id, "color")
    graph.connect(levels.id, "out", posterize.id, "levels")
    graph.connect(lambert.id, "out", wrap.id, "x")
    graph.connect(posterize.id, "out", shade.id, "a")
    graph.connect(wrap.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    return graph


# OpenPBR Surface examples: one per lobe the glTF model cannot make.


def _openpbr(graph: MaterialGraph, column: int, properties: dict[str, object]) -> Node:
    return graph.add_node("openpbr_surface", _at(column, 0), properties)


def car_paint() -> MaterialGraph:
    """Car paint (OpenPBR Surface): a clear coat over a red base whose metallic flakes are fine noise."""
    graph = MaterialGraph()
    sparkle = graph.add_node("tiling_offset", _at(0, 1), {"tiling": (600.0, 300.0)})
    noise = graph.add_node("value_noise", _at(1, 1), {"scale": 1.0})
    flakes = graph.add_node("remap", _at(2, 1), {"out_min": 0.2, "out_max": 1.0})
    color = graph.add_node("color_parameter", _at(2, 0), {"name": "paint", "default": (0.55, 0.02, 0.03, 1.0)})
    output = _openpbr(graph, 3, {"specular_roughness": 0.35, "coat_weight": 1.0, "coat_roughness": 0.03, "coat_ior": 1.5})
    graph.connect(sparkle.id, "out", noise.id, "uv")
    graph.connect(noise.id, "out", flakes.id, "x")
    graph.connect(flakes.id, "out", output.id, "base_metalness")
    graph.connect(color.id, "out", output.id, "base_color")
    return graph


def glass() -> MaterialGraph:
    """Green flint glass (OpenPBR Surface): full transmission, smooth, IOR 1.52, tinted by depth absorption, with a
    dense flint's dispersion (Abbe number 20: colour fringes along the edges of what it refracts)."""
    graph = MaterialGraph()
    tint = graph.add_node("color_parameter", _at(0, 0), {"name": "tint", "default": (0.55, 0.85, 0.6, 1.0)})
    output = _openpbr(graph, 1, {"transmission_weight": 1.0, "specular_roughness": 0.0, "specular_ior": 1.52,
                                 "transmission_depth": 1.0, "transmission_dispersion_scale": 1.0,
                                 "transmission_dispersion_abbe_number": 20.0})
    graph.connect(tint.id, "out", output.id, "transmission_color")
    graph.stage = {"background": "environment"}  # what it refracts, seen around it too
    return graph


def honey() -> MaterialGraph:
    """Honey (OpenPBR Surface): a coloured liquid. Fully transmissive and smooth (IOR 1.504), amber by absorption
    over its depth, and clouded by a scattering medium that softens what is seen through it (MaterialX's
    open_pbr_honey)."""
    graph = MaterialGraph()
    amber = graph.add_node("color_parameter", _at(0, 0), {"name": "amber", "default": (0.83, 0.4, 0.04, 1.0)})
    output = _openpbr(graph, 1, {"transmission_weight": 1.0, "specular_roughness": 0.0, "specular_ior": 1.504,
                                 "transmission_depth": 2.0, "transmission_scatter": (0.9, 0.9, 0.9, 1.0)})
    graph.connect(amber.id, "out", output.id, "transmission_color")
    graph.stage = {"background": "environment"}  # what it refracts, seen around it too
    return graph


def velvet() -> MaterialGraph:
    """Velvet (OpenPBR Surface): a dark, rough base under a bright fuzz layer that glows at grazing angles."""
    graph = MaterialGraph()
    sheen = graph.add_node("color_parameter", _at(0, 0), {"name": "sheen", "default": (0.85, 0.25, 0.45, 1.0)})
    output = _openpbr(graph, 1, {"base_color": (0.12, 0.01, 0.04, 1.0), "specular_roughness": 0.8, "fuzz_weight": 1.0,
                                 "fuzz_roughness": 0.4})
    graph.connect(sheen.id, "out", output.id, "fuzz_color")
    return graph


def jade() -> MaterialGraph:
    """Jade (OpenPBR Surface): translucent green stone. A dense scattering medium (transmission 0.6, scatter
    1 per 0.3 scene units) that absorbs red and blue over its depth lets light through, soft and deep green where
    thick, over a saturated green subsurface that takes the key light; a polished, sharp specular (IOR 1.66)."""
    graph = MaterialGraph()
    stone = graph.add_node("color_parameter", _at(0, 0), {"name": "jade", "default": (0.25, 0.7, 0.5, 1.0)})
    output = _openpbr(graph, 1, {"base_color": (0.06, 0.3, 0.16, 1.0), "subsurface_weight": 1.0,
                                 "subsurface_color": (0.1, 0.5, 0.28, 1.0), "subsurface_radius": 1.0,
                                 "subsurface_radius_scale": (0.3, 1.0, 0.6, 1.0), "transmission_weight": 0.6,
                                 "transmission_depth": 0.3, "transmission_scatter": (1.0, 1.0, 1.0, 1.0),
                                 "specular_roughness": 0.06, "specular_ior": 1.66})
    graph.connect(stone.id, "out", output.id, "transmission_color")
    return graph


def soap_bubble() -> MaterialGraph:
    """Soap bubble (OpenPBR Surface): a thin-walled, fully transmissive sphere of no IOR of its own (specular IOR
    1: air on both sides, so the wall itself neither reflects nor bends), coloured only by its soap film (IOR
    1.33) whose thickness swirls over the surface (warped 3D noise, 150 to 850 nm: the range of vivid
    interference colours). Seen against the environment it shows (the stage's background), it is nearly
    invisible but for the film's iridescent reflections, strongest towards the rim."""
    graph = MaterialGraph()
    position = graph.add_node("object_position", _at(0, 1))
    swirl = graph.add_node("domain_warp_3d", _at(1, 1), {"scale": 1.2, "strength": 0.6})
    noise = graph.add_node("fractal_noise_3d", _at(2, 1), {"scale": 1.5, "octaves": 3, "basis": "gradient"})
    thickness = graph.add_node("remap", _at(3, 1), {"in_min": 0.3, "in_max": 0.7, "out_min": 0.15, "out_max": 0.85, "clamp": True})
    output = _openpbr(graph, 4, {"specular_roughness": 0.0, "specular_ior": 1.0, "transmission_weight": 1.0,
                                 "thin_film_weight": 1.0, "thin_film_ior": 1.33, "geometry_thin_walled": True})
    graph.connect(position.id, "out", swirl.id, "position")
    graph.connect(swirl.id, "out", noise.id, "position")
    graph.connect(noise.id, "out", thickness.id, "x")
    graph.connect(thickness.id, "out", output.id, "thin_film_thickness")
    # A thin wall shows the environment straight through: the background must be that environment, or the
    # bubble reads as a dark ball on a flat colour.
    graph.stage = {"background": "environment"}
    return graph


def brushed_aluminium() -> MaterialGraph:
    """Brushed aluminium (OpenPBR Surface): an anisotropic metal, its highlight stretched along the tangent,
    edge-tinted by the specular colour (F82)."""
    graph = MaterialGraph()
    metal = graph.add_node("color_parameter", _at(0, 0), {"name": "aluminium", "default": (0.91, 0.92, 0.92, 1.0)})
    output = _openpbr(graph, 1, {"base_metalness": 1.0, "specular_color": (0.97, 0.98, 0.99, 1.0), "specular_roughness": 0.35,
                                 "specular_roughness_anisotropy": 0.85})
    graph.connect(metal.id, "out", output.id, "base_color")
    return graph


def lacquered_wood() -> MaterialGraph:
    """Lacquered wood (Surface Output with glTF's clearcoat): streaked, warm grain under a rough base, sealed by a
    smooth clear lacquer that mirrors the room (KHR_materials_clearcoat in glTF)."""
    graph = MaterialGraph()
    stretch = graph.add_node("tiling_offset", _at(0, 0), {"tiling": (1.5, 24.0)})
    grain = graph.add_node("fractal_noise", _at(1, 0), {"scale": 3.0, "octaves": 4})
    tone = graph.add_node("color_ramp", _at(2, 0), {
        "stops": ((0.0, 0.16, 0.06, 0.02, 1.0), (0.45, 0.42, 0.2, 0.08, 1.0), (0.7, 0.55, 0.3, 0.12, 1.0),
                  (1.0, 0.3, 0.13, 0.04, 1.0)),
    })
    output = graph.add_node("surface_output", _at(3, 0), {"roughness": 0.6, "clearcoat": 1.0, "clearcoat_roughness": 0.04})
    graph.connect(stretch.id, "out", grain.id, "uv")
    graph.connect(grain.id, "out", tone.id, "factor")
    graph.connect(tone.id, "color", output.id, "base_color")
    return graph


# Texture-space examples ------------------------------------------------------------------------------
#
# Made as Substance Designer artists make materials: masks and heights rendered into Texture Buffers over the
# UV square, read by filters that look at their neighbours (flood fill, bevel, slope blur, curvature,
# occlusion, tile sampler), then sampled by a per-point material. Buffers are 512², enough for the preview's
# sphere (two repeats around it) and cheap enough for the tests.

TEXTURE_SPACE_RESOLUTION = "512"


def _buffer(graph: MaterialGraph, position: tuple[float, float], texture_format: str = "16-bit") -> Node:
    return graph.add_node("texture_buffer", position, {"resolution": TEXTURE_SPACE_RESOLUTION, "format": texture_format})


def _read(graph: MaterialGraph, position: tuple[float, float], source: Node, uv: Node | None = None,
          port: str = "out") -> Node:
    """A Texture Sample of `source`'s texture (at `uv`'s coordinates when given)."""
    sample = graph.add_node("sample_texture", position)
    graph.connect(source.id, port, sample.id, "texture")
    if uv is not None:
        graph.connect(uv.id, "out", sample.id, "uv")
    return sample


def _relief(graph: MaterialGraph, position: tuple[float, float], height: Node, uv: Node, intensity: float) -> Node:
    """Height to Normal of `height`, read at `uv` through a Normal Map: the world normal for a Surface Output."""
    column, row = position
    bump = graph.add_node("height_to_normal", (column, row), {"intensity": intensity})
    graph.connect(height.id, "out", bump.id, "height")
    normal_texture = _read(graph, (column + COLUMN_WIDTH, row), bump, uv)
    normal = graph.add_node("normal_map", (column + 2 * COLUMN_WIDTH, row))
    graph.connect(normal_texture.id, "rgb", normal.id, "tangent_normal")
    return normal


def stone_wall() -> MaterialGraph:
    """A dry stone wall (Surface Output) made the texture-space way: irregular stones (warped bricks) told apart by Flood Fill and
    raised to random heights, bevelled, weathered by Slope Blur; Curvature wears their edges pale and rough."""
    graph = MaterialGraph()
    uv = graph.add_node("texcoord", _at(0, 0))
    wobble = graph.add_node("fractal_noise", _at(0, 1), {"scale": 6.0, "octaves": 3})
    shift = graph.add_node("multiply", _at(1, 1), {"b": 0.03})
    warped = graph.add_node("add", _at(1, 0))
    stones = graph.add_node("bricks", _at(2, 0), {"count": (5.0, 9.0), "row_offset": 0.43, "mortar": 0.022,
                                                  "softness": 0.004})
    mask = _buffer(graph, _at(3, 2), "8-bit")  # below: Bricks is wider than a column
    regions = graph.add_node("flood_fill", _at(4, 0))
    random_height = graph.add_node("flood_fill_to_grayscale", _at(5, 0), {"seed": 7})
    bevel = graph.add_node("bevel", _at(4, 2), {"width": 0.014, "smoothness": 0.5, "corner": "round", "format": "16-bit"})
    grain = graph.add_node("fractal_noise", _at(0, 4), {"scale": 24.0, "octaves": 5, "basis": "gradient"})
    grain_buffer = _buffer(graph, _at(1, 4))
    variation = graph.add_node("float_parameter", _at(5, 2), {"name": "height_variation", "default": 0.5,
                                                              "minimum": 0.0, "maximum": 1.0})
    # height = bevel x (1 - variation + variation x random grey) + grain / 8
    bevel_texel = _read(graph, _at(6, 2), bevel)
    random_texel = _read(graph, _at(6, 0), random_height)
    grain_texel = _read(graph, _at(6, 4), grain_buffer)
    per_stone = graph.add_node("mix", _at(7, 0), {"a": 1.0})
    raised = graph.add_node("multiply", _at(8, 0))
    grain_depth = graph.add_node("multiply", _at(7, 4), {"b": 0.025})
    rough_height = graph.add_node("add", _at(9, 0))
    height = _buffer(graph, _at(10, 0))
    weathered = graph.add_node("slope_blur", _at(11, 0), {"intensity": 0.12, "samples": "8", "mode": "min"})
    smoothed = graph.add_node("blur", _at(12, 0), {"radius": 0.004})
    curvature = graph.add_node("curvature", _at(13, 0), {"radius": 0.008, "intensity": 6.0})
    wear_scan = graph.add_node("histogram_scan", _at(14, 0), {"position": 0.16, "contrast": 0.6})
    tiling = graph.add_node("transform_uv", _at(13, 3), {"tiling": (2.0, 1.0)})
    wear = _read(graph, _at(15, 0), wear_scan, tiling)
    height_texel = _read(graph, _at(15, 2), smoothed, tiling)
    stone_tone = _read(graph, _at(15, 4), random_height, tiling)
    stone_colour = graph.add_node("color_ramp", _at(16, 4), {"stops": (
        (0.0, 0.12, 0.11, 0.1, 1.0), (0.4, 0.27, 0.23, 0.18, 1.0), (0.75, 0.4, 0.33, 0.24, 1.0),
        (1.0, 0.2, 0.21, 0.23, 1.0))})
    grain_tone = _read(graph, _at(16, 5), grain_buffer, tiling)
    speckle = graph.add_node("remap", _at(17, 5), {"out_min": 0.6, "out_max": 1.4})
    speckled = graph.add_node("multiply", _at(17, 4))
    mortar = graph.add_node("smoothstep", _at(16, 2), {"edge0": 0.01, "edge1": 0.06})
    mortar_colour = graph.add_node("constant_color", _at(16, 0), {"value": (0.15, 0.14, 0.13, 1.0)})
    laid = graph.add_node("mix", _at(17, 2))
    worn_colour = graph.add_node("constant_color", _at(17, 0), {"value": (0.55, 0.51, 0.45, 1.0)})
    worn = graph.add_node("mix", _at(18, 0))
    tint = graph.add_node("float_parameter", _at(18, 3), {"name": "tint", "default": 1.0, "minimum": 0.0,
                                                          "maximum": 2.0})
    tinted = graph.add_node("multiply", _at(19, 0))
    roughness = graph.add_node("mix", _at(19, 2), {"a": 0.78, "b": 0.95})
    normal = _relief(graph, _at(16, 6), smoothed, tiling, 0.04)
    output = graph.add_node("surface_output", _at(20, 0), {"metallic": 0.0})
    graph.connect(uv.id, "out", wobble.id, "uv")
    graph.connect(wobble.id, "out", shift.id, "a")
    graph.connect(uv.id, "out", warped.id, "a")
    graph.connect(shift.id, "out", warped.id, "b")
    graph.connect(warped.id, "out", stones.id, "uv")
    graph.connect(stones.id, "mask", mask.id, "input")
    graph.connect(mask.id, "out", regions.id, "mask")
    graph.connect(regions.id, "out", random_height.id, "regions")
    graph.connect(mask.id, "out", bevel.id, "mask")
    graph.connect(grain.id, "out", grain_buffer.id, "input")
    graph.connect(variation.id, "out", per_stone.id, "t")
    graph.connect(random_texel.id, "r", per_stone.id, "b")
    graph.connect(bevel_texel.id, "r", raised.id, "a")
    graph.connect(per_stone.id, "out", raised.id, "b")
    graph.connect(grain_texel.id, "r", grain_depth.id, "a")
    graph.connect(raised.id, "out", rough_height.id, "a")
    graph.connect(grain_depth.id, "out", rough_height.id, "b")
    graph.connect(rough_height.id, "out", height.id, "input")
    graph.connect(height.id, "out", weathered.id, "input")
    graph.connect(grain_buffer.id, "out", weathered.id, "slope")
    graph.connect(weathered.id, "out", smoothed.id, "image")
    graph.connect(smoothed.id, "out", curvature.id, "height")
    graph.connect(curvature.id, "out", wear_scan.id, "input")
    graph.connect(stone_tone.id, "r", stone_colour.id, "factor")
    graph.connect(height_texel.id, "r", mortar.id, "x")
    graph.connect(grain_tone.id, "r", speckle.id, "x")
    graph.connect(laid.id, "out", speckled.id, "a")
    graph.connect(speckle.id, "out", speckled.id, "b")
    graph.connect(mortar_colour.id, "out", laid.id, "a")
    graph.connect(stone_colour.id, "color", laid.id, "b")
    graph.connect(mortar.id, "out", laid.id, "t")
    graph.connect(worn_colour.id, "out", worn.id, "b")
    graph.connect(speckled.id, "out", worn.id, "a")
    graph.connect(wear.id, "r", worn.id, "t")
    graph.connect(worn.id, "out", tinted.id, "a")
    graph.connect(tint.id, "out", tinted.id, "b")
    graph.connect(wear.id, "r", roughness.id, "t")
    graph.connect(tinted.id, "out", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(normal.id, "normal_out", output.id, "normal")
    return graph


def rusted_metal() -> MaterialGraph:
    """Painted steel plates gone to rust (Surface Output), made the texture-space way: Curvature of the plates' height chips the
    paint off their edges to bare metal, Ambient Occlusion of it puts rust in the seams and dents, and a noise
    varies the rust from dark brown to orange."""
    graph = MaterialGraph()
    plates = graph.add_node("bricks", _at(0, 0), {"count": (2.0, 3.0), "row_offset": 0.0, "mortar": 0.012,
                                                  "softness": 0.002})
    plate_mask = _buffer(graph, _at(1, 2), "8-bit")  # below: Bricks is wider than a column
    bevel = graph.add_node("bevel", _at(2, 0), {"width": 0.012, "smoothness": 0.8, "corner": "round", "format": "16-bit"})
    dents = graph.add_node("fractal_noise", _at(0, 3), {"scale": 5.0, "octaves": 6, "basis": "gradient"})
    dent_buffer = _buffer(graph, _at(1, 4))
    bevel_texel = _read(graph, _at(3, 0), bevel)
    dent_texel = _read(graph, _at(3, 3), dent_buffer)
    dent_depth = graph.add_node("multiply", _at(4, 3), {"b": 0.15})
    pits = graph.add_node("fractal_noise", _at(0, 5), {"scale": 48.0, "octaves": 3, "basis": "voronoi"})
    pit_buffer = _buffer(graph, _at(1, 6), "8-bit")
    pit_texel = _read(graph, _at(3, 5), pit_buffer)
    pit_depth = graph.add_node("multiply", _at(4, 5), {"b": 0.06})
    pitted = graph.add_node("add", _at(5, 3))
    summed = graph.add_node("add", _at(5, 0))
    height = _buffer(graph, _at(6, 0))
    curvature = graph.add_node("curvature", _at(7, 0), {"radius": 0.004, "intensity": 14.0})
    occlusion = graph.add_node("ambient_occlusion", _at(7, 2), {"radius": 0.03, "depth": 0.15, "intensity": 1.6,
                                                                "directions": 8, "steps": 6})
    uv = graph.add_node("texcoord", _at(8, 5))
    tiling = graph.add_node("transform_uv", _at(9, 5), {"tiling": (2.0, 1.0)})
    edges = _read(graph, _at(9, 0), curvature, tiling)
    cavities = _read(graph, _at(9, 2), occlusion, tiling)
    breakup = graph.add_node("fractal_noise", _at(9, 7), {"scale": 14.0, "octaves": 5})
    # Chips: convex edges (curvature above mid-grey), broken up by a noise.
    chip_breakup = graph.add_node("multiply", _at(10, 7), {"b": 0.3})
    chip_amount = graph.add_node("add", _at(10, 0))
    chips = graph.add_node("smoothstep", _at(11, 0), {"edge0": 0.8, "edge1": 0.9})
    # Rust: where the occlusion is dark, also broken up by the noise.
    exposure = graph.add_node("one_minus", _at(10, 2))
    rust_breakup = graph.add_node("multiply", _at(10, 9), {"b": 0.8})
    rust_amount = graph.add_node("add", _at(11, 2))
    rust = graph.add_node("smoothstep", _at(12, 2), {"edge0": 0.5, "edge1": 0.68})
    rust_tone = graph.add_node("fractal_noise", _at(10, 8), {"scale": 30.0, "octaves": 4, "basis": "gradient"})
    rust_colour = graph.add_node("color_ramp", _at(11, 8), {"stops": (
        (0.0, 0.12, 0.05, 0.03, 1.0), (0.45, 0.3, 0.11, 0.04, 1.0), (0.7, 0.55, 0.22, 0.07, 1.0),
        (1.0, 0.42, 0.2, 0.1, 1.0))})
    paint = graph.add_node("color_parameter", _at(10, 4), {"name": "paint", "default": (0.07, 0.15, 0.17, 1.0)})
    steel = graph.add_node("constant_color", _at(11, 5), {"value": (0.56, 0.57, 0.58, 1.0)})
    chipped = graph.add_node("mix", _at(12, 0))
    rusted = graph.add_node("mix", _at(13, 0))
    metal = graph.add_node("mix", _at(13, 3), {"a": 0.0, "b": 1.0})
    bare = graph.add_node("multiply", _at(14, 3))
    unrusted = graph.add_node("one_minus", _at(13, 5))
    paint_roughness = graph.add_node("mix", _at(13, 6), {"a": 0.42, "b": 0.3})
    roughness = graph.add_node("mix", _at(14, 6), {"b": 0.88})
    normal = _relief(graph, _at(12, 10), height, tiling, 0.03)
    output = graph.add_node("surface_output", _at(15, 0))
    graph.connect(plates.id, "mask", plate_mask.id, "input")
    graph.connect(plate_mask.id, "out", bevel.id, "mask")
    graph.connect(dents.id, "out", dent_buffer.id, "input")
    graph.connect(dent_texel.id, "r", dent_depth.id, "a")
    graph.connect(bevel_texel.id, "r", summed.id, "a")
    graph.connect(pits.id, "out", pit_buffer.id, "input")
    graph.connect(pit_texel.id, "r", pit_depth.id, "a")
    graph.connect(dent_depth.id, "out", pitted.id, "a")
    graph.connect(pit_depth.id, "out", pitted.id, "b")
    graph.connect(pitted.id, "out", summed.id, "b")
    graph.connect(summed.id, "out", height.id, "input")
    graph.connect(height.id, "out", curvature.id, "height")
    graph.connect(height.id, "out", occlusion.id, "height")
    graph.connect(uv.id, "out", tiling.id, "uv")
    graph.connect(tiling.id, "out", breakup.id, "uv")
    graph.connect(tiling.id, "out", rust_tone.id, "uv")
    graph.connect(edges.id, "r", chip_amount.id, "a")
    graph.connect(breakup.id, "out", chip_breakup.id, "a")
    graph.connect(chip_breakup.id, "out", chip_amount.id, "b")
    graph.connect(chip_amount.id, "out", chips.id, "x")
    graph.connect(cavities.id, "r", exposure.id, "x")
    graph.connect(exposure.id, "out", rust_amount.id, "a")
    graph.connect(breakup.id, "out", rust_breakup.id, "a")
    graph.connect(rust_breakup.id, "out", rust_amount.id, "b")
    graph.connect(rust_amount.id, "out", rust.id, "x")
    graph.connect(rust_tone.id, "out", rust_colour.id, "factor")
    graph.connect(paint.id, "out", chipped.id, "a")
    graph.connect(steel.id, "out", chipped.id, "b")
    graph.connect(chips.id, "out", chipped.id, "t")
    graph.connect(chipped.id, "out", rusted.id, "a")
    graph.connect(rust_colour.id, "color", rusted.id, "b")
    graph.connect(rust.id, "out", rusted.id, "t")
    graph.connect(chips.id, "out", metal.id, "t")
    graph.connect(rust.id, "out", unrusted.id, "x")
    graph.connect(metal.id, "out", bare.id, "a")
    graph.connect(unrusted.id, "out", bare.id, "b")
    graph.connect(chips.id, "out", paint_roughness.id, "t")
    graph.connect(paint_roughness.id, "out", roughness.id, "a")
    graph.connect(rust.id, "out", roughness.id, "t")
    graph.connect(rusted.id, "out", output.id, "base_color")
    graph.connect(bare.id, "out", output.id, "metallic")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(cavities.id, "r", output.id, "ambient_occlusion")
    graph.connect(normal.id, "normal_out", output.id, "normal")
    return graph


def wet_cobblestones() -> MaterialGraph:
    """A wet cobblestone street (Surface Output), made the texture-space way: Voronoi cells told apart by Flood Fill, domed by
    Bevel to random heights; rain pools where the blurred height is low (puddles: dark, mirror-smooth, flat) and
    darkens the rest."""
    graph = MaterialGraph()
    cells = graph.add_node("voronoi", _at(0, 0), {"scale": 9.0, "jitter": 0.8})
    gaps = graph.add_node("smoothstep", _at(1, 0), {"edge0": 0.012, "edge1": 0.03})
    cobble_mask = _buffer(graph, _at(2, 0), "8-bit")
    regions = graph.add_node("flood_fill", _at(3, 0))
    random_height = graph.add_node("flood_fill_to_grayscale", _at(4, 0), {"seed": 3})
    domes = graph.add_node("bevel", _at(3, 2), {"width": 0.025, "smoothness": 1.0, "corner": "round", "format": "16-bit"})
    grain = graph.add_node("fractal_noise", _at(0, 4), {"scale": 40.0, "octaves": 4, "basis": "gradient"})
    grain_buffer = _buffer(graph, _at(1, 4), "8-bit")
    dome_texel = _read(graph, _at(5, 2), domes)
    random_texel = _read(graph, _at(5, 0), random_height)
    grain_texel = _read(graph, _at(5, 4), grain_buffer)
    per_stone = graph.add_node("remap", _at(6, 0), {"out_min": 0.65, "out_max": 1.0})
    raised = graph.add_node("multiply", _at(7, 0))
    grain_depth = graph.add_node("multiply", _at(6, 4), {"b": 0.03})
    summed = graph.add_node("add", _at(8, 0))
    height = _buffer(graph, _at(9, 0))
    worn_smooth = graph.add_node("blur", _at(10, 0), {"radius": 0.005})
    pooled = graph.add_node("blur", _at(10, 2), {"radius": 0.02})
    uv = graph.add_node("texcoord", _at(10, 5))
    tiling = graph.add_node("transform_uv", _at(11, 5), {"tiling": (2.0, 1.0)})
    water_height = _read(graph, _at(11, 2), pooled, tiling)
    stone_height = _read(graph, _at(11, 0), worn_smooth, tiling)
    stone_tone = _read(graph, _at(11, 7), random_height, tiling)
    # Water stands where the smoothed ground is below a level that a broad noise raises and lowers.
    level_noise = graph.add_node("fractal_noise", _at(11, 9), {"scale": 3.0, "octaves": 3})
    rain = graph.add_node("float_parameter", _at(11, 11), {"name": "water_level", "default": 0.55, "minimum": 0.0,
                                                           "maximum": 1.0})
    pools = graph.add_node("smoothstep", _at(12, 10), {"edge0": 0.55, "edge1": 0.65})
    level = graph.add_node("multiply", _at(12, 9))
    depth = graph.add_node("subtract", _at(13, 2))
    puddle = graph.add_node("smoothstep", _at(14, 2), {"edge0": 0.0, "edge1": 0.05})
    stone_colour = graph.add_node("color_ramp", _at(12, 7), {"stops": (
        (0.0, 0.12, 0.12, 0.12, 1.0), (0.5, 0.24, 0.22, 0.2, 1.0), (1.0, 0.32, 0.27, 0.22, 1.0))})
    joint = graph.add_node("smoothstep", _at(12, 0), {"edge0": 0.02, "edge1": 0.12})
    joint_colour = graph.add_node("constant_color", _at(12, 4), {"value": (0.09, 0.08, 0.07, 1.0)})
    laid = graph.add_node("mix", _at(13, 0))
    wet = graph.add_node("multiply", _at(14, 0), {"b": 0.55})
    water_colour = graph.add_node("constant_color", _at(14, 4), {"value": (0.05, 0.05, 0.05, 1.0)})
    soaked = graph.add_node("mix", _at(15, 0))
    roughness = graph.add_node("mix", _at(15, 3), {"a": 0.45, "b": 0.03})
    relief = _relief(graph, _at(12, 13), worn_smooth, tiling, 0.025)
    calm = graph.add_node("mix", _at(16, 5))
    world_normal = graph.add_node("normal", _at(15, 7))
    normal = graph.add_node("normalize", _at(17, 5))
    output = graph.add_node("surface_output", _at(18, 0))
    graph.connect(cells.id, "edge", gaps.id, "x")
    graph.connect(gaps.id, "out", cobble_mask.id, "input")
    graph.connect(cobble_mask.id, "out", regions.id, "mask")
    graph.connect(regions.id, "out", random_height.id, "regions")
    graph.connect(cobble_mask.id, "out", domes.id, "mask")
    graph.connect(grain.id, "out", grain_buffer.id, "input")
    graph.connect(random_texel.id, "r", per_stone.id, "x")
    graph.connect(dome_texel.id, "r", raised.id, "a")
    graph.connect(per_stone.id, "out", raised.id, "b")
    graph.connect(grain_texel.id, "r", grain_depth.id, "a")
    graph.connect(raised.id, "out", summed.id, "a")
    graph.connect(grain_depth.id, "out", summed.id, "b")
    graph.connect(summed.id, "out", height.id, "input")
    graph.connect(height.id, "out", worn_smooth.id, "image")
    graph.connect(height.id, "out", pooled.id, "image")
    graph.connect(uv.id, "out", tiling.id, "uv")
    graph.connect(tiling.id, "out", level_noise.id, "uv")
    graph.connect(level_noise.id, "out", pools.id, "x")
    graph.connect(pools.id, "out", level.id, "a")
    graph.connect(rain.id, "out", level.id, "b")
    graph.connect(level.id, "out", depth.id, "a")
    graph.connect(water_height.id, "r", depth.id, "b")
    graph.connect(depth.id, "out", puddle.id, "x")
    graph.connect(stone_tone.id, "r", stone_colour.id, "factor")
    graph.connect(stone_height.id, "r", joint.id, "x")
    graph.connect(joint_colour.id, "out", laid.id, "a")
    graph.connect(stone_colour.id, "color", laid.id, "b")
    graph.connect(joint.id, "out", laid.id, "t")
    graph.connect(water_colour.id, "out", soaked.id, "b")
    graph.connect(laid.id, "out", wet.id, "a")
    graph.connect(wet.id, "out", soaked.id, "a")
    graph.connect(puddle.id, "out", soaked.id, "t")
    graph.connect(puddle.id, "out", roughness.id, "t")
    graph.connect(relief.id, "normal_out", calm.id, "a")
    graph.connect(world_normal.id, "out", calm.id, "b")
    graph.connect(puddle.id, "out", calm.id, "t")
    graph.connect(calm.id, "out", normal.id, "vector")
    graph.connect(soaked.id, "out", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(normal.id, "out", output.id, "normal")
    return graph


#: The pebbles' Tile Sampler (the shapes, and again per point for each pebble's shade).
PEBBLES = {"x_amount": 9, "y_amount": 9, "shape": "brick", "size": 0.95, "scale_random": 0.3, "rotation_random": 1.0,
           "position_random": 0.5, "seed": 11}


def scattered_pebbles() -> MaterialGraph:
    """River pebbles scattered on sand (Surface Output) by the Tile Sampler (random size, rotation, offset and shade per pebble),
    rounded by Blur into domes, shaded by Ambient Occlusion where they sit in the sand."""
    graph = MaterialGraph()
    scatter = graph.add_node("tile_sampler", _at(0, 0), PEBBLES)
    shapes = _buffer(graph, _at(1, 2), "8-bit")  # below: the Tile Sampler is wider than a column
    softened = graph.add_node("blur", _at(2, 0), {"radius": 0.05})
    oval = graph.add_node("histogram_scan", _at(3, 0), {"position": 0.42, "contrast": 0.9})
    rounded = graph.add_node("blur", _at(4, 0), {"radius": 0.02, "format": "16-bit"})
    sand = graph.add_node("fractal_noise", _at(0, 6), {"scale": 60.0, "octaves": 4, "basis": "gradient"})
    sand_buffer = _buffer(graph, _at(1, 6), "8-bit")
    dome_texel = _read(graph, _at(3, 0), rounded)
    sand_texel = _read(graph, _at(3, 6), sand_buffer)
    sand_depth = graph.add_node("multiply", _at(4, 6), {"b": 0.04})
    summed = graph.add_node("add", _at(5, 0))
    height = _buffer(graph, _at(6, 0))
    occlusion = graph.add_node("ambient_occlusion", _at(7, 2), {"radius": 0.02, "depth": 0.04, "intensity": 1.5,
                                                                "directions": 8, "steps": 6})
    uv = graph.add_node("texcoord", _at(7, 5))
    tiling = graph.add_node("transform_uv", _at(8, 5), {"tiling": (2.0, 1.0)})
    pebble_height = _read(graph, _at(8, 0), height, tiling)
    contact = _read(graph, _at(8, 2), occlusion, tiling)
    shade = graph.add_node("tile_sampler", _at(8, 7), PEBBLES)
    pebble_colour = graph.add_node("color_ramp", _at(9, 9), {"stops": (
        (0.0, 0.14, 0.13, 0.13, 1.0), (0.3, 0.33, 0.28, 0.22, 1.0), (0.55, 0.45, 0.42, 0.38, 1.0),
        (0.8, 0.3, 0.19, 0.13, 1.0), (1.0, 0.55, 0.52, 0.47, 1.0))})
    sand_tone = _read(graph, _at(9, 11), sand_buffer, tiling)
    sand_colour = graph.add_node("color_ramp", _at(10, 11), {"stops": (
        (0.0, 0.3, 0.25, 0.18, 1.0), (1.0, 0.5, 0.42, 0.31, 1.0))})
    on_pebble = graph.add_node("smoothstep", _at(9, 0), {"edge0": 0.3, "edge1": 0.5})
    laid = graph.add_node("mix", _at(11, 0))
    shaded = graph.add_node("multiply", _at(12, 0))
    roughness = graph.add_node("mix", _at(12, 3), {"a": 0.95, "b": 0.7})
    normal = _relief(graph, _at(10, 12), height, tiling, 0.02)
    output = graph.add_node("surface_output", _at(13, 0))
    graph.connect(scatter.id, "pattern", shapes.id, "input")
    graph.connect(shapes.id, "out", softened.id, "image")
    graph.connect(softened.id, "out", oval.id, "input")
    graph.connect(oval.id, "out", rounded.id, "image")
    graph.connect(sand.id, "out", sand_buffer.id, "input")
    graph.connect(dome_texel.id, "r", summed.id, "a")
    graph.connect(sand_texel.id, "r", sand_depth.id, "a")
    graph.connect(sand_depth.id, "out", summed.id, "b")
    graph.connect(summed.id, "out", height.id, "input")
    graph.connect(height.id, "out", occlusion.id, "height")
    graph.connect(uv.id, "out", tiling.id, "uv")
    graph.connect(tiling.id, "out", shade.id, "uv")
    graph.connect(shade.id, "grey", pebble_colour.id, "factor")
    graph.connect(sand_tone.id, "r", sand_colour.id, "factor")
    graph.connect(pebble_height.id, "r", on_pebble.id, "x")
    graph.connect(sand_colour.id, "color", laid.id, "a")
    graph.connect(pebble_colour.id, "color", laid.id, "b")
    graph.connect(on_pebble.id, "out", laid.id, "t")
    graph.connect(laid.id, "out", shaded.id, "a")
    graph.connect(contact.id, "r", shaded.id, "b")
    graph.connect(on_pebble.id, "out", roughness.id, "t")
    graph.connect(shaded.id, "out", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(contact.id, "r", output.id, "ambient_occlusion")
    graph.connect(normal.id, "normal_out", output.id, "normal")
    return graph


EXAMPLE_GRAPHS: dict[str, Callable[[], MaterialGraph]] = {
    "textured": _laid_out(textured),
    "animated": _laid_out(animated),
    "procedural_noise": _laid_out(procedural_noise),
    "lit_blinn_phong": _laid_out(lit_blinn_phong),
    "alpha_clip": _laid_out(alpha_clip),
    "compare_and_branch": _laid_out(compare_and_branch),
    "stylised_lava": _laid_out(stylised_lava),
    "triplanar_rock": _laid_out(triplanar_rock),
    "tiled_floor": _laid_out(tiled_floor),
    "toon_shading": _laid_out(toon_shading),
    "painted_metal": _laid_out(painted_metal),
    "brushed_metal": _laid_out(brushed_metal),
    "polished_gold": _laid_out(polished_gold),
    "rough_plastic": _laid_out(rough_plastic),
    "glazed_ceramic": _laid_out(glazed_ceramic),
    "material_chart": _laid_out(material_chart),
    "grouped_rock": _laid_out(grouped_rock),
    "custom_posterize": _laid_out(custom_posterize),
    "car_paint": _laid_out(car_paint),
    "glass": _laid_out(glass),
    "honey": _laid_out(honey),
    "velvet": _laid_out(velvet),
    "jade": _laid_out(jade),
    "soap_bubble": _laid_out(soap_bubble),
    "brushed_aluminium": _laid_out(brushed_aluminium),
    "lacquered_wood": _laid_out(lacquered_wood),
    "stone_wall": _laid_out(stone_wall),
    "rusted_metal": _laid_out(rusted_metal),
    "wet_cobblestones": _laid_out(wet_cobblestones),
    "scattered_pebbles": _laid_out(scattered_pebbles),
}


def example_description(name: str) -> str:
    """One paragraph for people (the Open Example menu's tips): the docstring of the example's graph builder
    ("" for a file without one)."""
    build = EXAMPLE_GRAPHS.get(name)
    return " ".join((build.__doc__ or "").split()) if build is not None else ""


def example_text(name: str) -> str:
    """The document text the example `name` is generated as."""
    return save_text(EXAMPLE_GRAPHS[name]())


def write_examples(directory: Path | None = None) -> list[Path]:
    """Regenerate every example file (default: the source tree's resources/examples)."""
    target = directory if directory is not None else Path(__file__).resolve().parents[2] / "resources" / "examples"
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in EXAMPLE_GRAPHS:
        path = target / f"{name}.vpl"
        path.write_bytes(example_text(name).encode("utf-8"))
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in write_examples():
        print(written_path)
