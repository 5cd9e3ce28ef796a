"""Curvature, Ambient Occlusion, Edge Detect, Texture Levels, Histogram Scan and Histogram Range on the CPU
interpreter, against the numpy references of tests/analysis_filter_reference.py.

Each plan is the product's (tests/analysis_filter_graphs.py): Texture Buffers rendered from a procedural
sub-graph, the filters reading them, every pass lowered, verified and run by `run_plan_cpu`. The references
read the input buffers the plan rendered and are compared on every texel, the tile borders included, where a
tiling buffer must be read across the edge. Resolution 256 (the smallest a buffer has).

Tolerances: a float buffer holds binary32 results of binary32 arithmetic, so the outputs agree with the
binary64 references within 2e-5 (1e-4 for the levels' pow); an 8-bit buffer rounds to 1/255, so within half
a step plus that.
"""

from __future__ import annotations

import numpy as np
import pytest
from analysis_filter_graphs import (
    CURVATURE,
    EDGES,
    FILTERS,
    OCCLUSION,
    SIZE,
    FilterRun,
    border,
    node,
    noise_height,
    periodic_height,
)
from analysis_filter_reference import ambient_occlusion, curvature, edge_detect, histogram_scan

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.pass_planner import plan_passes
from app.preview.cpu_passes import run_plan_cpu


@pytest.fixture(scope="module")
def tiled() -> FilterRun:
    """Tiling 8-bit buffers of a periodic height (the buffers artists use)."""
    return FilterRun(periodic_height, "8-bit", "tile").run_cpu()


@pytest.fixture(scope="module")
def clamped() -> FilterRun:
    """Clamped float buffers of a noise that does not tile."""
    return FilterRun(noise_height, "float", "clamp").run_cpu()


@pytest.mark.parametrize("name", FILTERS)
@pytest.mark.parametrize("which", ["tiled", "clamped"])
def test_filter_matches_its_reference_on_every_texel(name: str, which: str, request: pytest.FixtureRequest) -> None:
    run: FilterRun = request.getfixturevalue(which)
    got = run.image(run.filters[name])
    want = run.expected(name)
    tolerance = run.tolerance(name, 1e-4 if name == "texture_levels" else 2e-5)
    error = np.abs(got - want)
    edges = border(got)
    assert error[edges].max() <= tolerance, f"{name} at the tile border: {error[edges].max():.2e}"
    assert error.max() <= tolerance, f"{name}: worst {error.max():.2e} at {np.unravel_index(error.argmax(), error.shape)}"
    # The output does something: not a flat image (a filter reduced to a constant would pass a loose check).
    assert np.ptp(got[..., :3]) > 0.2, name


@pytest.mark.parametrize("name", ["curvature", "ambient_occlusion", "edge_detect"])
def test_the_border_check_tells_tile_from_clamp(name: str, clamped: FilterRun) -> None:
    """On the clamped run, the tiling reference differs at the border: the border comparison above would catch a
    filter that read the wrong side of the edge."""
    height = clamped.grey(clamped.height)
    mask = clamped.grey(clamped.mask)
    wrapped = {
        "curvature": lambda: curvature(height, CURVATURE["intensity"], CURVATURE["radius"], "tile"),
        "ambient_occlusion": lambda: ambient_occlusion(height, OCCLUSION["radius"], OCCLUSION["depth"],
                                                       OCCLUSION["intensity"], int(OCCLUSION["directions"]),
                                                       int(OCCLUSION["steps"]), "tile"),
        "edge_detect": lambda: edge_detect(mask, EDGES["threshold"], EDGES["width"], EDGES["softness"], "tile"),
    }[name]()
    got = clamped.grey(clamped.filters[name])
    assert np.abs(got - wrapped)[border(got)].max() > 0.05


@pytest.mark.parametrize("name", ["curvature", "ambient_occlusion", "edge_detect", "histogram_scan"])
def test_filters_of_a_tiling_buffer_tile_seamlessly(name: str, tiled: FilterRun) -> None:
    """The height repeats every 128 texels; a filter that reads across the edges keeps that period, so the
    texture joins its neighbour copy without a seam (the comparison crosses the edge: roll by half)."""
    got = tiled.grey(tiled.filters[name])
    half = SIZE // 2
    for axis in (0, 1):
        assert np.abs(got - np.roll(got, half, axis=axis)).max() <= 2.0 / 255.0, (name, axis)
    # The seam texels, explicitly: the last column next to the first as the next copy places it.
    seam = np.abs(got[:, -1] - got[:, 0]).max()
    inside = np.abs(got[:, half - 1] - got[:, half]).max()
    assert abs(seam - inside) <= 2.0 / 255.0


def test_levels_leaves_the_other_channels_alone(tiled: FilterRun) -> None:
    got = tiled.image(tiled.filters["texture_levels"])
    colour = tiled.image(tiled.colour)
    assert np.array_equal(got[..., [0, 2, 3]], colour[..., [0, 2, 3]])
    assert np.abs(got[..., 1] - colour[..., 1]).max() > 0.1


def test_histogram_scan_extremes_follow_substance() -> None:
    """Position 0 is black and 1 white whatever the contrast; contrast 1 thresholds at 1 − position."""
    values = np.linspace(0.0, 1.0, 101)
    for contrast in (0.0, 0.5, 1.0):
        assert histogram_scan(values, 0.0, contrast).max() == 0.0
        assert histogram_scan(values, 1.0, contrast).min() == 1.0
    assert np.array_equal(histogram_scan(values, 0.5, 0.0), values)
    between = (np.arange(100) + 0.5) / 100.0  # none exactly on the threshold
    threshold = histogram_scan(between, 0.3, 1.0)
    assert set(np.unique(threshold)) == {0.0, 1.0} and between[threshold.argmax()] == pytest.approx(0.705)


@pytest.mark.parametrize("name,port", [("curvature", "height"), ("ambient_occlusion", "height"),
                                       ("edge_detect", "mask"), ("texture_levels", "input"),
                                       ("histogram_scan", "input"), ("histogram_range", "input")])
@pytest.mark.parametrize("feed", ["texture_parameter", "constant", "unconnected"])
def test_a_filter_not_fed_a_buffer_is_refused_by_name(name: str, port: str, feed: str) -> None:
    graph = MaterialGraph()
    filtered = node(graph, name)
    if feed == "texture_parameter":
        parameter = node(graph, "texture_parameter")
        graph.connect(parameter, "out", filtered, port)
    elif feed == "constant":
        constant = node(graph, "constant_float", value=0.5)
        graph.connect(constant, "out", filtered, port)
    output = node(graph, "surface_output")
    sample = node(graph, "sample_texture")
    graph.connect(filtered, "out", sample, "texture")
    graph.connect(sample, "rgb", output, "base_color")
    plan = plan_passes(graph)
    assert not plan.ok
    assert [d.node_id for d in plan.errors] == [filtered], plan.diagnostics
    assert f"'{port}'" in plan.errors[0].message
    assert not plan.passes  # nothing else was run
    result = lower(graph)
    assert not result.ok
    assert filtered in {d.node_id for d in result.errors}, result.diagnostics


def test_a_float_parameter_drives_histogram_scan_without_new_code() -> None:
    """Position fed by a Float Parameter: the pass reads the parameter's uniform, so another value re-renders
    with the same module (the same code fingerprint) and the reference of that value."""
    graph = MaterialGraph()
    height = node(graph, "gradient_noise", scale=5.0)
    buffer = node(graph, "texture_buffer", resolution="256", format="float", tiling="tile")
    graph.connect(height, "out", buffer, "input")
    wear = node(graph, "float_parameter", name="wear", default=0.5, minimum=0.0, maximum=1.0)
    scan = node(graph, "histogram_scan", contrast=0.6)
    graph.connect(buffer, "out", scan, "input")
    graph.connect(wear, "out", scan, "position")
    plan = plan_passes(graph)
    assert plan.ok, plan.diagnostics
    scanned = plan.pass_for(plan.outputs[(scan, "out")])
    assert scanned is not None and "wear" in {spec.name for spec in scanned.parameters}
    for position in (0.3, 0.7):
        buffers = run_plan_cpu(plan, {"wear": position})
        source = np.asarray(buffers[plan.outputs[(buffer, "out")]], dtype=np.float64)[..., 0]
        got = np.asarray(buffers[scanned.key], dtype=np.float64)[..., 0]
        assert np.abs(got - histogram_scan(source, position, 0.6)).max() <= 2e-5, position
