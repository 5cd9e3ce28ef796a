"""Directional / Non-Uniform / Slope Blur, Directional Warp, Warp and the Tile Sampler against numpy references.

The passes run on the CPU interpreter (`run_plan_cpu`) at 256 x 256 (the
smallest buffer) and are compared with `tests/filters_b_reference.py`,
which evaluates each node's published formula in binary64 from the very
input buffers the plan rendered (so the comparison is of the filter alone).
Tolerance 2e-4 everywhere (binary32 against binary64 on values of order
1: positions, weights and the bilinear filter; measured at most 1.6e-5).
A walk of many steps (Slope Blur) can compound binary32 rounding where it
crosses a sharp edge of its input; this scene's does not. Every comparison
covers the border rows and columns, where the filters read across the
wrap-around: a match there with a reference that wraps is what makes the
result tile.

Execution is a few seconds of numpy per graph, so it is marked `slow`; the
plan-only checks (verification, diagnostics, fingerprints) are fast.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import filters_b_reference as reference
import numpy as np
import pytest

from app.material import catalog  # noqa: F401 - registers the node types before the graph module loads
from app.material.graph import Connection, MaterialGraph, Node
from app.material.lowering import lower
from app.material.pass_planner import plan_passes
from app.preview.cpu_passes import run_plan_cpu

SIZE = 256
TOLERANCE = 2e-4

TILES: dict[str, Any] = {"x_amount": 6, "y_amount": 6, "shape": "disc", "size": 0.9, "scale_random": 0.5,
                         "rotation": 15.0, "rotation_random": 1.0, "position_random": 0.3, "luminance_random": 0.5,
                         "seed": 7}


def _buffer(node_id: str, **properties: Any) -> Node:
    return Node(node_id, "texture_buffer", {"resolution": str(SIZE), "format": "float", **properties})


def _scene(filters: dict[str, tuple[str, dict[str, Any], dict[str, str]]], tiling: str = "tile",
           buffer_format: str = "float") -> MaterialGraph:
    """Two buffers and the given filters: `colors` (a Tile Sampler's random colours: sharp edges) and `height`
    (sin(4 pi u) + sin(6 pi v) scaled into 0..1: smooth; both tile). Each filter: (type, properties,
    {input port: buffer id})."""
    nodes = {
        "tiles": Node("tiles", "tile_sampler", dict(TILES)),
        "colors": _buffer("colors", tiling=tiling, format=buffer_format),
        "wave_uv": Node("wave_uv", "tiling_offset", {"tiling": (4 * math.pi, 6 * math.pi)}),
        "wave": Node("wave", "sin"),
        "wave_sum": Node("wave_sum", "component_sum"),
        "wave_range": Node("wave_range", "remap", {"in_min": -2.0, "in_max": 2.0}),
        "height": _buffer("height", tiling=tiling, format=buffer_format),
        "out": Node("out", "material_output"),
    }
    connections = [
        Connection("tiles", "color", "colors", "input"),
        Connection("wave_uv", "out", "wave", "x"),
        Connection("wave", "out", "wave_sum", "vector"),
        Connection("wave_sum", "out", "wave_range", "x"),
        Connection("wave_range", "out", "height", "input"),
    ]
    for node_id, (type_name, properties, inputs) in filters.items():
        nodes[node_id] = Node(node_id, type_name, properties)
        connections += [Connection(source, "out", node_id, port) for port, source in inputs.items()]
    first = next(iter(filters))
    connections.append(Connection(first, "out", "out", "base_color"))
    return MaterialGraph(nodes=nodes, connections=connections)


FILTERS: dict[str, tuple[str, dict[str, Any], dict[str, str]]] = {
    "dblur": ("directional_blur", {"angle": 30.0, "intensity": 12.0, "samples": "16"}, {"input": "colors"}),
    "nublur": ("non_uniform_blur", {"intensity": 10.0, "samples": "16"}, {"input": "colors", "blur_map": "height"}),
    "sblur": ("slope_blur", {"intensity": 6.0, "samples": "8"}, {"input": "colors", "slope": "height"}),
    "smin": ("slope_blur", {"intensity": 5.0, "samples": "4", "mode": "min"}, {"input": "colors", "slope": "height"}),
    "smax": ("slope_blur", {"intensity": -5.0, "samples": "4", "mode": "max"}, {"input": "colors", "slope": "height"}),
    "dwarp": ("directional_warp", {"angle": 120.0, "intensity": 20.0}, {"input": "colors", "intensity_map": "height"}),
    "warp": ("warp", {"intensity": 2.0}, {"input": "colors", "gradient": "height"}),
}


def _reference(node_id: str, buffers: dict[str, np.ndarray], tile: bool = True) -> np.ndarray:
    """What filter `node_id` of FILTERS must give, from the rendered inputs (rows flipped: row 0 at v = 0)."""
    colors, height = buffers["colors"][::-1], buffers["height"][::-1]
    if node_id == "dblur":
        return reference.directional_blur(colors, 30.0, 12.0, 16, tile=tile)
    if node_id == "nublur":
        return reference.non_uniform_blur(colors, height, 10.0, 16, tile=tile)
    if node_id == "sblur":
        return reference.slope_blur(colors, height, 6.0, 8, tile=tile)
    if node_id == "smin":
        return reference.slope_blur(colors, height, 5.0, 4, "min", tile=tile)
    if node_id == "smax":
        return reference.slope_blur(colors, height, -5.0, 4, "max", tile=tile)
    if node_id == "dwarp":
        return reference.directional_warp(colors, height, 120.0, 20.0, tile=tile)
    return reference.warp(colors, height, 2.0, tile=tile)


def _run(graph: MaterialGraph) -> dict[str, np.ndarray]:
    plan = plan_passes(graph)
    assert plan.ok, plan.diagnostics
    return run_plan_cpu(plan)


@pytest.fixture(scope="module")
def tiled() -> Iterator[dict[str, np.ndarray]]:
    yield _run(_scene(FILTERS))


def _check(name: str, got: np.ndarray, expected: np.ndarray) -> None:
    error = np.abs(got - expected)
    border = np.concatenate([error[0], error[-1], error[:, 0], error[:, -1]])
    assert error.max() < TOLERANCE, (name, float(error.max()))
    assert border.max() < TOLERANCE, (name, float(border.max()))


# Fast: plans, values, diagnostics ---------------------------------------------------------------


def test_every_filter_is_one_verified_pass_with_its_values_as_uniforms() -> None:
    plan = plan_passes(_scene(FILTERS))
    assert plan.ok, plan.diagnostics
    by_node = {each.node_id: each for each in plan.passes}
    for node_id, (type_name, properties, inputs) in FILTERS.items():
        each = by_node[node_id]
        assert each.verified is not None and each.artifact is not None, type_name
        assert {reader.key for reader in each.inputs} == set(inputs.values()), type_name
        numeric = {name for name, value in properties.items() if isinstance(value, float)}
        assert {name.removeprefix("__pass_value_") for name in each.values} == numeric, type_name
    assert lower(_scene(FILTERS)).ok


def test_a_value_edit_keeps_the_code_and_a_tap_count_changes_it() -> None:
    before = plan_passes(_scene(FILTERS)).pass_for("dblur")
    edited = dict(FILTERS)
    edited["dblur"] = ("directional_blur", {"angle": 75.0, "intensity": 3.0, "samples": "16"}, {"input": "colors"})
    after = plan_passes(_scene(edited)).pass_for("dblur")
    edited["dblur"] = ("directional_blur", {"angle": 30.0, "intensity": 12.0, "samples": "32"}, {"input": "colors"})
    more_taps = plan_passes(_scene(edited)).pass_for("dblur")
    assert before is not None and after is not None and more_taps is not None
    assert after.code_fingerprint == before.code_fingerprint
    assert after.value_fingerprint != before.value_fingerprint
    assert more_taps.code_fingerprint != before.code_fingerprint


def test_a_float_parameter_drives_an_intensity_without_new_code() -> None:
    def driven(default: float) -> MaterialGraph:
        graph = _scene({"warp": FILTERS["warp"]})
        graph.nodes["amount"] = Node("amount", "float_parameter", {"name": "warp_amount", "default": default,
                                                                   "minimum": 0.0, "maximum": 16.0})
        graph.connections.append(Connection("amount", "out", "warp", "intensity"))
        return graph

    first, second = plan_passes(driven(1.0)), plan_passes(driven(3.0))
    assert first.ok and second.ok, first.diagnostics
    one, other = first.pass_for("warp"), second.pass_for("warp")
    assert one is not None and other is not None
    assert "warp_amount" in {spec.name for spec in one.parameters}
    assert one.code_fingerprint == other.code_fingerprint and one.value_fingerprint != other.value_fingerprint
    assert lower(driven(1.0)).ok
    # Anything but a parameter on a value input is refused, naming the filter.
    graph = driven(1.0)
    graph.nodes["amount"] = Node("amount", "constant_float", {"value": 2.0})
    assert any(d.node_id == "warp" and "intensity" in d.message for d in plan_passes(graph).errors)


@pytest.mark.parametrize("node_id", sorted(FILTERS))
def test_an_unconnected_texture_input_is_refused_naming_the_node(node_id: str) -> None:
    type_name, properties, inputs = FILTERS[node_id]
    port = sorted(inputs)[-1]
    graph = _scene({node_id: (type_name, properties, {name: source for name, source in inputs.items() if name != port})})
    plan = plan_passes(graph)
    assert not plan.ok
    assert any(d.node_id == node_id and f"'{port}'" in d.message for d in plan.errors), plan.diagnostics
    assert plan.pass_for("colors") is not None  # nothing else disturbed
    assert any(d.node_id == node_id for d in lower(graph).errors)


def test_a_filter_fed_a_value_is_refused_naming_the_node() -> None:
    graph = _scene({"warp": FILTERS["warp"]})
    graph.nodes["value"] = Node("value", "constant_color", {"value": (0.5, 0.5, 0.5, 1.0)})
    graph.connections = [c for c in graph.connections if c.target_port != "gradient"]
    graph.connections.append(Connection("tiles", "color", "warp", "gradient"))
    plan = plan_passes(graph)
    assert any(d.node_id == "warp" and "'gradient'" in d.message for d in plan.errors), plan.diagnostics
    assert plan.pass_for("height") is not None


def test_the_image_shape_without_an_image_is_refused_naming_the_tile_sampler() -> None:
    graph = _scene({"dblur": FILTERS["dblur"]})
    graph.nodes["tiles"].properties["shape"] = "image"
    plan = plan_passes(graph)
    assert any(d.node_id == "tiles" and "'image'" in d.message for d in plan.errors), plan.diagnostics
    assert plan.pass_for("height") is not None  # nothing else disturbed


# Slow: CPU execution against the references --------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("node_id", sorted(FILTERS))
def test_filter_matches_its_reference_on_the_cpu_interpreter(tiled: dict[str, np.ndarray], node_id: str) -> None:
    expected = _reference(node_id, tiled)
    _check(node_id, tiled[node_id][::-1], expected)
    # The references are not trivial: each filter changed its input.
    assert np.abs(expected - tiled["colors"][::-1]).max() > 0.2


@pytest.mark.slow
def test_filters_of_a_tiling_input_tile_seamlessly(tiled: dict[str, np.ndarray]) -> None:
    assert reference.seam_jump(tiled["colors"]) <= 1.0
    for node_id in FILTERS:
        assert reference.seam_jump(tiled[node_id]) <= 1.0, node_id


@pytest.mark.slow
def test_clamped_8_bit_buffers_are_read_clamped() -> None:
    buffers = _run(_scene({"dwarp": FILTERS["dwarp"]}, tiling="clamp", buffer_format="8-bit"))
    expected = _reference("dwarp", buffers, tile=False)
    # The output is an 8-bit buffer too (the main input's format): rounded to 1/255.
    error = np.abs(buffers["dwarp"][::-1] - expected)
    assert error.max() < 0.5 / 255.0 + TOLERANCE, float(error.max())
    assert np.allclose(buffers["dwarp"] * 255.0, np.rint(buffers["dwarp"] * 255.0), atol=1e-3)
    # Read with wrap-around instead, the borders would differ: the check can fail.
    assert np.abs(_reference("dwarp", buffers, tile=True) - expected).max() > 0.05


@pytest.mark.slow
def test_tile_sampler_matches_its_reference_and_tiles(tiled: dict[str, np.ndarray]) -> None:
    pattern, colors, _ = reference.tile_sampler(SIZE, SIZE, **TILES)
    got = tiled["colors"][::-1]
    error = np.abs(got - colors)
    # Hash and placement are exact; rotation (cos, sin) and the edge ramp are binary32 (measured 1.2e-5).
    assert error.max() < TOLERANCE, float(error.max())
    assert reference.seam_jump(got) <= 1.0
    assert len(np.unique(np.round(got[..., :3].reshape(-1, 3), 3), axis=0)) > 20  # many tiles, many colours
    assert pattern.max() > 0.9 and pattern.min() == 0.0


@pytest.mark.slow
def test_tile_sampler_bricks_and_an_image_shape_match_the_reference() -> None:
    bricks: dict[str, Any] = {"x_amount": 4, "y_amount": 8, "shape": "brick", "size": 0.95, "scale_random": 0.2, "rotation": 0.0,
              "rotation_random": 0.1, "position_random": 0.1, "luminance_random": 0.7, "seed": 40}
    stamps: dict[str, Any] = {"x_amount": 5, "y_amount": 5, "shape": "image", "size": 0.8, "scale_random": 0.3, "rotation": 45.0,
              "rotation_random": 0.5, "position_random": 0.5, "luminance_random": 0.0, "seed": 3}
    graph = MaterialGraph(
        nodes={"bricks": Node("bricks", "tile_sampler", bricks), "brick_buffer": _buffer("brick_buffer"),
               "stamps": Node("stamps", "tile_sampler", stamps), "stamp_buffer": _buffer("stamp_buffer"),
               "out": Node("out", "material_output")},
        connections=[Connection("bricks", "pattern", "brick_buffer", "input"),
                     Connection("brick_buffer", "out", "stamps", "image"),
                     Connection("stamps", "pattern", "stamp_buffer", "input"),
                     Connection("stamp_buffer", "out", "out", "base_color")])
    buffers = _run(graph)
    brick_pattern, _, _ = reference.tile_sampler(SIZE, SIZE, **bricks)
    got = buffers["brick_buffer"][::-1]
    assert np.abs(got - brick_pattern).max() < TOLERANCE
    assert reference.seam_jump(got) <= 1.0
    assert len(np.unique(np.round(got[..., 0], 2))) > 20  # random luminance per brick
    stamp_pattern, _, _ = reference.tile_sampler(SIZE, SIZE, **stamps, image=got)
    stamped = buffers["stamp_buffer"][::-1]
    assert np.abs(stamped - stamp_pattern).max() < TOLERANCE
    assert reference.seam_jump(stamped) <= 1.0
    assert stamped[..., 0].max() > 0.5
