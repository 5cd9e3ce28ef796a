"""Texture-space passes on the CPU interpreter: Blur and Height to Normal against numpy references, the plan's
fingerprints, and the refusals (docs/texture-space.md).

Buffers are 256^2 (the smallest resolution) and blurs narrow (4 taps a side) to keep the interpreter quick.
Arrays from `run_plan_cpu` have their first row at v = 1; the references work on them as they are (a wrap-around
operation does not care which way the rows run, and the Sobel's v axis is flipped where it matters).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from material_testing import glslang_check

from app.material import (
    catalog,  # noqa: F401 - registers the node types
    pass_planner,
)
from app.material import texture_passes as tp
from app.material.connections import can_connect
from app.material.document import load_text
from app.material.graph import Connection, MaterialGraph, Node
from app.material.groups import GroupingError, group_nodes
from app.material.lowering import PreviewOutputs, lower, lowering_equivalent
from app.material.node_types import NodeDiagnostic
from app.material.nodes.texture_space import blur_taps
from app.preview.cpu_passes import buffer_texture, pass_textures, run_plan_cpu
from app.preview.cpu_renderer import CpuRenderer
from vpl_core.interp.texture import sample

SIZE = 256
SAVED_IN_GROUPS = Path(__file__).resolve().parents[2] / "data" / "saved" / "texture_buffers_in_groups.vpl"


def _material(pattern: str = "white_noise", **buffer: object) -> tuple[MaterialGraph, Node, Node]:
    """Unlit output <- (filter goes here) ... <- Texture Buffer <- a pattern over the UV square."""
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    source = graph.add_node(pattern, properties={"scale": 32.0})
    properties = {"resolution": str(SIZE), "format": "float", **buffer}
    node = graph.add_node("texture_buffer", properties=properties)
    graph.connect(source.id, "out", node.id, "input")
    return graph, output, node


def _smooth_height(graph: MaterialGraph) -> Node:
    """h(u, v) = 0.5 + 0.25 sin(2 pi u) + 0.15 sin(4 pi v) in a float buffer: smooth and periodic on the square."""
    uv = graph.add_node("texcoord")
    frequencies = graph.add_node("constant_vec2", properties={"value": (2.0 * math.pi, 4.0 * math.pi)})
    scaled = graph.add_node("multiply")
    graph.connect(uv.id, "out", scaled.id, "a")
    graph.connect(frequencies.id, "out", scaled.id, "b")
    sine = graph.add_node("sin")
    graph.connect(scaled.id, "out", sine.id, "x")
    amplitudes = graph.add_node("constant_vec2", properties={"value": (0.25, 0.15)})
    weighted = graph.add_node("dot")
    graph.connect(sine.id, "out", weighted.id, "a")
    graph.connect(amplitudes.id, "out", weighted.id, "b")
    height = graph.add_node("add", properties={"b": 0.5})
    graph.connect(weighted.id, "out", height.id, "a")
    buffer = graph.add_node("texture_buffer", properties={"resolution": str(SIZE), "format": "float"})
    graph.connect(height.id, "out", buffer.id, "input")
    return buffer


def _filter(graph: MaterialGraph, output: Node, source: Node, type_name: str, port: str, **properties: object) -> Node:
    node = graph.add_node(type_name, properties=dict(properties))
    graph.connect(source.id, "out", node.id, port)
    graph.connect(node.id, "out", output.id, "base_color")
    return node


def _run(graph: MaterialGraph) -> tuple[tp.PassPlan, dict[str, np.ndarray]]:
    plan = pass_planner.plan_passes(graph)
    assert plan.ok, plan.diagnostics
    material = lower(graph)
    assert material.ok, material.diagnostics
    return plan, run_plan_cpu(plan)


def _gaussian(radius: float) -> tuple[np.ndarray, np.ndarray]:
    """The documented taps: whole-texel offsets -T..T, weights exp(-x^2 / 2 sigma^2) normalised, sigma = radius N / 3."""
    taps = blur_taps(radius, SIZE)
    offsets = np.arange(-taps, taps + 1)
    sigma = radius * SIZE / 3.0
    weights = np.exp(-0.5 * (offsets / sigma) ** 2)
    return offsets, weights / weights.sum()


def _convolve_2d(image: np.ndarray, offsets: np.ndarray, weights: np.ndarray, wrap: bool) -> np.ndarray:
    """A direct 2D convolution with the outer product of the 1D weights (not separable passes): wrap-around, or
    edge texels repeated."""
    taps = int(offsets.max())
    padded = np.pad(image, ((taps, taps), (taps, taps), (0, 0)), mode="wrap" if wrap else "edge")
    result = np.zeros_like(image)
    for dy, wy in zip(offsets, weights):
        for dx, wx in zip(offsets, weights):
            result += wy * wx * padded[taps + dy: taps + dy + SIZE, taps + dx: taps + dx + SIZE]
    return result


def test_blur_matches_a_direct_convolution_with_wraparound_and_tiles() -> None:
    graph, output, buffer = _material()
    radius = 0.012  # sigma ~1 texel, 4 taps a side
    blur = _filter(graph, output, buffer, "blur", "image", radius=radius)
    plan, buffers = _run(graph)
    assert [each.key for each in plan.passes] == [buffer.id, f"{blur.id}/horizontal", blur.id]
    source = buffers[buffer.id].astype(np.float64)
    assert source[..., 0].std() > 0.2  # white noise in 8-texel cells: sharp edges to blur
    result = buffers[blur.id].astype(np.float64)
    offsets, weights = _gaussian(radius)
    reference = _convolve_2d(source, offsets, weights, wrap=True)
    # Float buffers: binary32 sums of 9 + 9 taps.
    assert np.abs(result - reference).max() < 2e-5
    # The borders read the opposite side: the result tiles (first/last rows and columns as exact as the rest).
    for border in (result[0] - reference[0], result[-1] - reference[-1], result[:, 0] - reference[:, 0]):
        assert np.abs(border).max() < 2e-5
    assert np.abs(result - source).max() > 0.1  # it did blur
    # Against the untruncated Gaussian (periodic, by FFT): the truncation at 4 sigma is invisible.
    frequencies = np.fft.fftfreq(SIZE)
    sigma = radius * SIZE / 3.0
    exact = np.exp(-2.0 * (math.pi * sigma) ** 2 * (frequencies[:, None] ** 2 + frequencies[None, :] ** 2))
    reference_fft = np.real(np.fft.ifft2(np.fft.fft2(source, axes=(0, 1)) * exact[..., None], axes=(0, 1)))
    assert np.abs(result - reference_fft).max() < 5e-3


def test_blur_with_clamp_and_8_bit_buffers() -> None:
    graph, output, buffer = _material(format="8-bit", tiling="clamp")
    radius = 0.012
    blur = _filter(graph, output, buffer, "blur", "image", radius=radius)
    plan, buffers = _run(graph)
    blurred = plan.pass_for(blur.id)
    assert blurred is not None and blurred.spec == tp.BufferSpec(SIZE, "8-bit", "clamp", False)  # inherited
    intermediate = plan.pass_for(f"{blur.id}/horizontal")
    assert intermediate is not None and intermediate.spec.format == "16-bit"
    source = buffers[buffer.id].astype(np.float64)
    assert np.all(np.abs(source * 255.0 - np.rint(source * 255.0)) < 1e-4)  # 8-bit texels
    offsets, weights = _gaussian(radius)
    reference = _convolve_2d(source, offsets, weights, wrap=False)
    # 8-bit output: rounding (half a step) plus the 16-bit intermediate's rounding (2^-11 relative).
    assert np.abs(buffers[blur.id] - reference).max() < 1.0 / 255.0
    wrapped = _convolve_2d(source, offsets, weights, wrap=True)
    assert np.abs(buffers[blur.id] - wrapped)[:4].max() > 0.05  # clamp is not wrap at the border


def _sobel(height: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sobel derivatives per texel with wrap-around, along u (columns) and v (rows run from v = 1 down)."""
    def at(du: int, dv: int) -> np.ndarray:
        return np.roll(height, (dv, -du), axis=(0, 1))  # at(du, dv)[r, c] = height at column c + du, v + dv

    dh_du = (at(1, -1) + 2 * at(1, 0) + at(1, 1) - at(-1, -1) - 2 * at(-1, 0) - at(-1, 1)) / 8.0
    dh_dv = (at(-1, 1) + 2 * at(0, 1) + at(1, 1) - at(-1, -1) - 2 * at(0, -1) - at(1, -1)) / 8.0
    return dh_du, dh_dv


def _normals(dh_du: np.ndarray, dh_dv: np.ndarray, intensity: float) -> np.ndarray:
    """n = normalize(-intensity dh/du, -intensity dh/dv, 1), derivatives per UV unit (per texel times N)."""
    n = np.stack([-intensity * dh_du * SIZE, -intensity * dh_dv * SIZE, np.ones_like(dh_du)], axis=-1)
    unit: np.ndarray = n / np.linalg.norm(n, axis=-1, keepdims=True)
    return unit


def test_height_to_normal_matches_a_sobel_with_wraparound() -> None:
    graph, output, buffer = _material()
    intensity = 0.02
    normal = _filter(graph, output, buffer, "height_to_normal", "height", intensity=intensity, encoding="linear")
    _, buffers = _run(graph)
    reference = _normals(*_sobel(buffers[buffer.id][..., 0].astype(np.float64)), intensity)
    result = buffers[normal.id]
    assert np.abs(result[..., :3] - reference).max() < 1e-5
    assert np.all(result[..., 3] == 1.0)
    assert reference[..., :2].std() > 0.1  # noise cells' edges tilt the normals


def test_height_to_normal_of_a_smooth_height_matches_central_differences() -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    buffer = _smooth_height(graph)
    intensity = 0.05
    normal = _filter(graph, output, buffer, "height_to_normal", "height", intensity=intensity)
    _, buffers = _run(graph)
    height = buffers[buffer.id][..., 0].astype(np.float64)
    # Central differences with wrap-around (per texel); rows run from v = 1 down, so v grows towards row - 1.
    dh_du = (np.roll(height, -1, axis=1) - np.roll(height, 1, axis=1)) / 2.0
    dh_dv = (np.roll(height, 1, axis=0) - np.roll(height, -1, axis=0)) / 2.0
    reference = _normals(dh_du, dh_dv, intensity)
    decoded = buffers[normal.id][..., :3].astype(np.float64) * 2.0 - 1.0  # encoded: n * 0.5 + 0.5
    # h = f(u) + g(v): the Sobel's smoothing across is exact, so only float rounding remains.
    assert np.abs(decoded - reference).max() < 1e-4
    # And the analytic normal within the central differences' truncation (h''' dx^2 / 6).
    u = (np.arange(SIZE) + 0.5) / SIZE
    v = 1.0 - (np.arange(SIZE) + 0.5) / SIZE
    analytic_u = np.broadcast_to(0.25 * 2 * math.pi * np.cos(2 * math.pi * u)[None, :], (SIZE, SIZE)) / SIZE
    analytic_v = np.broadcast_to(0.15 * 4 * math.pi * np.cos(4 * math.pi * v)[:, None], (SIZE, SIZE)) / SIZE
    assert np.abs(decoded - _normals(analytic_u, analytic_v, intensity)).max() < 2e-3
    # The encoded normal map tiles: its first and last columns differ as little as any neighbouring columns.
    columns = np.abs(np.diff(decoded, axis=1)).max()
    assert np.abs(decoded[:, 0] - decoded[:, -1]).max() <= columns * 1.01


def test_a_buffer_read_by_a_value_input_is_sampled_at_the_mesh_uv() -> None:
    graph, output, buffer = _material()
    graph.connect(buffer.id, "out", output.id, "base_color")
    material = lower(graph)
    assert material.ok, material.diagnostics
    plan = pass_planner.plan_passes(graph)
    uniforms = {uniform.name for uniform in material.module.uniforms} if material.module is not None else set()
    assert tp.pass_sampler_name(buffer.id) in uniforms
    assert [reader.uniform for reader in plan.material_inputs] == [tp.pass_sampler_name(buffer.id)]
    assert "white_noise" not in material.text  # nothing upstream of the buffer reaches the material module
    assert not any(spec.name.startswith(tp.PASS_UNIFORM_PREFIX) for spec in material.parameters)
    textures = pass_textures(plan, {buffer.id: np.zeros((SIZE, SIZE, 4), np.float32)})
    assert list(textures) == [tp.pass_sampler_name(buffer.id)]


def test_fingerprints_say_what_an_edit_changes() -> None:
    graph, output, buffer = _material()
    parameter = graph.add_node("float_parameter", properties={"name": "scale", "default": 32.0})
    pattern = graph.connection_into(buffer.id, "input")
    assert pattern is not None
    graph.connect(parameter.id, "out", pattern.source_node, "scale")
    blur = _filter(graph, output, buffer, "blur", "image", radius=0.012)
    before = {each.key: each for each in pass_planner.plan_passes(graph).passes}
    assert [spec.name for spec in before[buffer.id].parameters] == ["scale"]  # the parameter's own name

    radius_edit = graph.copy()
    radius_edit.nodes[blur.id].properties["radius"] = 0.013  # same tap bucket: a uniform edit
    after = {each.key: each for each in pass_planner.plan_passes(radius_edit).passes}
    assert after[buffer.id].content_fingerprint == before[buffer.id].content_fingerprint
    for key in (f"{blur.id}/horizontal", blur.id):
        assert after[key].code_fingerprint == before[key].code_fingerprint  # no relink
        assert after[key].value_fingerprint != before[key].value_fingerprint
        assert after[key].content_fingerprint != before[key].content_fingerprint

    wide = graph.copy()
    wide.nodes[blur.id].properties["radius"] = 0.1  # more taps: new code
    assert {each.key: each for each in pass_planner.plan_passes(wide).passes}[blur.id].code_fingerprint != before[blur.id].code_fingerprint

    parameter_edit = graph.copy()
    parameter_edit.nodes[parameter.id].properties["default"] = 16.0
    edited = {each.key: each for each in pass_planner.plan_passes(parameter_edit).passes}
    assert edited[buffer.id].code_fingerprint == before[buffer.id].code_fingerprint
    assert edited[buffer.id].value_fingerprint != before[buffer.id].value_fingerprint
    assert edited[blur.id].code_fingerprint == before[blur.id].code_fingerprint
    assert edited[blur.id].content_fingerprint != before[blur.id].content_fingerprint  # downstream renders again


def test_the_document_format_keeps_the_new_nodes() -> None:
    graph, output, buffer = _material(tiling="clamp", mipmaps=True)
    blur = _filter(graph, output, buffer, "blur", "image", radius=0.05, resolution="512")
    loaded = MaterialGraph.from_dict(graph.to_dict())
    assert loaded == graph
    plans = [pass_planner.plan_passes(each) for each in (graph, loaded)]
    assert [each.code_fingerprint for each in plans[0].passes] == [each.code_fingerprint for each in plans[1].passes]
    spec = plans[1].pass_for(blur.id)
    assert spec is not None and spec.spec == tp.BufferSpec(512, "float", "clamp", True)


# Refusals --------------------------------------------------------------------------------------


def _errors_by_node(diagnostics: list[NodeDiagnostic]) -> dict[str | None, list[str]]:
    found: dict[str | None, list[str]] = {}
    for diagnostic in diagnostics:
        if diagnostic.severity == "error":
            found.setdefault(diagnostic.node_id, []).append(diagnostic.message)
    return found


def test_a_buffer_reading_itself_is_refused() -> None:
    graph, output, buffer = _material()
    sample = graph.add_node("sample_texture")
    graph.connections = [c for c in graph.connections if c.target_node != buffer.id]
    graph.connections += [Connection(buffer.id, "out", sample.id, "texture"), Connection(sample.id, "rgba", buffer.id, "input")]
    healthy = graph.add_node("texture_buffer", properties={"resolution": "256"})
    graph.connect(buffer.id, "out", output.id, "base_color")
    plan = pass_planner.plan_passes(graph)
    errors = _errors_by_node(plan.diagnostics)
    assert "reads its own output" in " ".join(errors[buffer.id])
    assert set(errors) == {buffer.id}
    assert plan.pass_for(healthy.id) is not None and plan.pass_for(buffer.id) is None
    assert buffer.id in _errors_by_node(lower(graph).diagnostics)


def test_buffers_in_a_cycle_are_refused() -> None:
    graph, output, first = _material()
    second = graph.add_node("texture_buffer", properties={"resolution": "256"})
    graph.connections = [c for c in graph.connections if c.target_node != first.id]
    graph.connections += [Connection(first.id, "out", second.id, "input"), Connection(second.id, "out", first.id, "input")]
    graph.connect(second.id, "out", output.id, "base_color")
    errors = _errors_by_node(pass_planner.plan_passes(graph).diagnostics)
    assert {first.id, second.id} <= set(errors)
    assert all("cycle" in " ".join(errors[node_id]) for node_id in (first.id, second.id))


@pytest.mark.parametrize("feed", ["constant", "texture_parameter", "unconnected"])
def test_a_filter_fed_something_else_than_a_buffer_is_refused(feed: str) -> None:
    graph, output, buffer = _material()
    blur = graph.add_node("blur")
    graph.connect(blur.id, "out", output.id, "base_color")
    if feed == "constant":
        constant = graph.add_node("constant_float")
        graph.connections.append(Connection(constant.id, "out", blur.id, "image"))  # the editor refuses the drag
    elif feed == "texture_parameter":
        texture = graph.add_node("texture_parameter")
        graph.connect(texture.id, "out", blur.id, "image")
    material = lower(graph)
    errors = _errors_by_node(material.diagnostics)
    assert set(errors) == {blur.id}, material.diagnostics
    message = " ".join(errors[blur.id])
    expected = {"constant": "type mismatch", "texture_parameter": "not a texture-space node",
                "unconnected": "needs a texture"}[feed]
    assert expected in message
    plan = pass_planner.plan_passes(graph)
    assert blur.id in _errors_by_node(plan.diagnostics)
    assert plan.pass_for(buffer.id) is not None  # the buffer's own pass is still planned


def test_buffers_beyond_the_memory_budget_are_refused_naming_the_node() -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    big = {"resolution": "4096", "format": "float", "mipmaps": True}
    buffers = [graph.add_node("texture_buffer", properties=dict(big)) for _ in range(4)]
    mix = graph.add_node("add")
    graph.connect(buffers[0].id, "out", mix.id, "a")
    graph.connect(buffers[3].id, "out", mix.id, "b")
    graph.connect(mix.id, "out", output.id, "base_color")
    each = tp.BufferSpec(4096, "float", "tile", True).memory_bytes
    assert each == sum(4 ** level for level in range(13)) * 16  # 4096^2 .. 1^2 texels of 16 bytes
    plan = pass_planner.plan_passes(graph)
    refused = [diagnostic for diagnostic in plan.diagnostics if "budget" in diagnostic.message]
    assert [diagnostic.node_id for diagnostic in refused] == [buffers[3].id]
    assert "1365 MiB" in refused[0].message and "1024 MiB" in refused[0].message
    assert [each.key for each in plan.passes] == [node.id for node in buffers[:3]]
    assert plan.memory_bytes == 3 * each <= tp.MEMORY_BUDGET_BYTES


def test_grouping_refuses_texture_space_nodes_and_names_them() -> None:
    graph, output, buffer = _material()
    blur = _filter(graph, output, buffer, "blur", "image", radius=0.01)
    sample = graph.add_node("sample_texture")
    graph.connect(blur.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgba", output.id, "base_color")
    before = graph.copy()
    # The textures stay inside the selection, so the buffer and the filter would go into the group: refused.
    with pytest.raises(GroupingError) as refusal:
        group_nodes(graph, None, [buffer.id, blur.id, sample.id])
    assert f"Texture Buffer {buffer.id}" in str(refusal.value) and f"Blur {blur.id}" in str(refusal.value)
    assert "cannot sit inside a group" in str(refusal.value)
    assert graph == before
    # A buffer whose texture leaves the selection stays outside, as any texture node: the rest is grouped.
    source = next(node_id for node_id, node in graph.nodes.items() if node.type_name == "white_noise")
    edit = group_nodes(graph, None, [source, buffer.id])
    body = edit.document.functions[edit.function_id].body
    assert [node.type_name for node in body.nodes.values() if not node.type_name.startswith("group_")] == ["white_noise"]
    assert buffer.id in edit.document.nodes
    assert pass_planner.plan_passes(edit.document).ok


def test_a_file_with_buffers_inside_groups_names_their_group_nodes() -> None:
    """A saved document with a Texture Buffer in a group (n8, "Buffered noise") and one in a group inside a
    group (n10, "Outer" calls "Inner buffer"): both group nodes are refused, naming the node and the group
    that holds it; grouping them again is refused too."""
    document = load_text(SAVED_IN_GROUPS.read_bytes()).graph
    assert document is not None
    errors = _errors_by_node(pass_planner.plan_passes(document).diagnostics)
    assert {node_id for node_id in errors if node_id is not None} == {"n8", "n10"}
    assert "(n3)" in errors["n8"][0] and "cannot sit inside a group" in errors["n8"][0]
    assert "n6, in group 'Inner buffer'" in errors["n10"][0]
    assert {"n8", "n10"} <= set(_errors_by_node(lower(document).diagnostics))
    with pytest.raises(GroupingError, match=r"Outer n10 \(it holds n6\)"):
        group_nodes(document, None, ["n10"])


def test_a_parameter_may_not_take_a_pass_uniform_name() -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    parameter = graph.add_node("float_parameter", properties={"name": tp.PASS_UNIFORM_PREFIX + "x"})
    graph.connect(parameter.id, "out", output.id, "opacity")
    assert "reserved" in " ".join(_errors_by_node(lower(graph).diagnostics)[parameter.id])


def test_every_pass_module_passes_glslang(glslang_validator: str, tmp_path: Path) -> None:
    """The pass modules' GLSL (buffer and both filters, every internal pass) is valid for the reference compiler."""
    graph, output, buffer = _material(mipmaps=True)
    blur = _filter(graph, output, buffer, "blur", "image", radius=0.2)  # 64 spread taps a side
    normal = graph.add_node("height_to_normal", properties={"convention": "directx"})
    graph.connect(blur.id, "out", normal.id, "height")
    graph.connect(normal.id, "out", output.id, "emissive")
    plan = pass_planner.plan_passes(graph)
    assert plan.ok, plan.diagnostics
    assert len(plan.passes) == 4
    for position, each in enumerate(plan.passes):
        glslang_check(glslang_validator, tmp_path, f"pass{position}", each.artifact.vertex_code, each.artifact.fragment_code)
    material = lower(graph)
    assert material.ok and material.artifact is not None, material.diagnostics
    glslang_check(glslang_validator, tmp_path, "material", material.artifact.vertex_code, material.artifact.fragment_code)


def test_buffer_orientation_and_live_values() -> None:
    """A buffer of texcoord holds (u, v) at texel centres, first row at v = 1, and samples back as (u, v); with
    `live`, a constant upstream of a buffer is a hidden uniform: an edit keeps the code, changes the values."""
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    uv = graph.add_node("texcoord")
    offset = graph.add_node("constant_vec2", properties={"value": (0.0, 0.0)})
    shifted = graph.add_node("add")
    graph.connect(uv.id, "out", shifted.id, "a")
    graph.connect(offset.id, "out", shifted.id, "b")
    buffer = graph.add_node("texture_buffer", properties={"resolution": str(SIZE), "format": "float"})
    graph.connect(shifted.id, "out", buffer.id, "input")
    graph.connect(buffer.id, "out", output.id, "base_color")
    live = frozenset({(offset.id, "value")})
    plan = pass_planner.plan_passes(graph, live=live)
    image = run_plan_cpu(plan)[buffer.id]
    centres = (np.arange(SIZE) + 0.5) / SIZE
    assert np.allclose(image[0, :, 0], centres) and np.allclose(image[:, 0, 1], centres[::-1])
    assert np.all(image[..., 2] == 0.0) and np.all(image[..., 3] == 1.0)  # vec2 stored as (x, y, 0, 1)
    texture = buffer_texture(image, plan.passes[0].spec)
    at = np.array([0.3, 0.8])
    sampled = sample(texture, at[:1], at[1:], np.zeros(1))
    assert np.allclose(sampled[0, :2], at, atol=1e-6)

    edited = graph.copy()
    edited.nodes[offset.id].properties["value"] = (0.25, 0.0)
    again = pass_planner.plan_passes(edited, live=live)
    assert again.passes[0].code_fingerprint == plan.passes[0].code_fingerprint
    assert again.passes[0].value_fingerprint != plan.passes[0].value_fingerprint
    moved = run_plan_cpu(again)[buffer.id]
    assert np.allclose(moved[0, :, 0], centres + 0.25)


def test_the_editor_refuses_to_feed_a_filter_anything_but_a_pass_node() -> None:
    graph, _, buffer = _material()
    blur = graph.add_node("blur")
    texture = graph.add_node("texture_parameter")
    allowed, reason = can_connect(graph, texture.id, "out", blur.id, "image")
    assert not allowed and "Texture Buffer" in reason
    assert can_connect(graph, buffer.id, "out", blur.id, "image") == (True, "")
    normal = graph.add_node("height_to_normal")
    assert can_connect(graph, blur.id, "out", normal.id, "height") == (True, "")
    assert can_connect(graph, texture.id, "out", graph.add_node("sample_texture").id, "texture") == (True, "")


def test_a_material_reading_a_buffer_renders_as_reading_the_sub_graph_directly() -> None:
    """The CPU preview with the pass's buffer bound (`CpuRenderer.set_pass_textures`) draws what the same
    material draws without the buffer: (u, v, 0) read back bilinearly at the mesh's UVs. Clamp to edge: within
    half a texel of the border the buffer holds the edge texel's centre, so the tolerance is 0.5 / N there."""
    def material(buffered: bool) -> tuple[MaterialGraph, Node | None]:
        graph = MaterialGraph()
        output = graph.add_node("material_output")
        uv = graph.add_node("split")
        graph.connect(graph.add_node("texcoord").id, "out", uv.id, "vector")
        colour = graph.add_node("compose", properties={"size": 3})
        graph.connect(uv.id, "x", colour.id, "x")
        graph.connect(uv.id, "y", colour.id, "y")
        if not buffered:
            graph.connect(colour.id, "out", output.id, "base_color")
            return graph, None
        buffer = graph.add_node("texture_buffer", properties={"resolution": str(SIZE), "format": "float", "tiling": "clamp"})
        graph.connect(colour.id, "out", buffer.id, "input")
        graph.connect(buffer.id, "out", output.id, "base_color")
        return graph, buffer

    images = []
    for buffered in (False, True):
        graph, buffer = material(buffered)
        result = lower(graph)
        assert result.ok and result.verified is not None, result.diagnostics
        renderer = CpuRenderer()
        renderer.set_mesh("plane")
        renderer.set_program(result.verified)
        if buffer is not None:
            plan = pass_planner.plan_passes(graph)
            renderer.set_pass_textures(pass_textures(plan, run_plan_cpu(plan)))
        images.append(renderer.render_linear(64, 64))
    direct, through_buffer = images
    covered = np.abs(direct[..., :2] - through_buffer[..., :2]).max(axis=-1)
    assert direct[..., :2].std() > 0.1  # the plane shows a range of UVs
    assert covered.max() < 0.5 / SIZE + 1e-4


def test_a_filter_with_several_outputs_and_internal_passes() -> None:
    """The authoring API end to end with a throwaway filter: a half-resolution intermediate, two outputs named
    by their passes, a colour value uniform, reading an earlier pass by name."""
    from dataclasses import replace

    from app.material.node_types import NODE_TYPES, PortSpec, PropertySpec
    from app.material.port_types import PortType
    from vpl_core.ir.types import vec
    from vpl_core.ir.values import Operand

    def half(ctx: tp.PassContext) -> Operand:
        return ctx.sample("image", ctx.uv)

    def tinted(ctx: tp.PassContext) -> Operand:
        return ctx.fn.multiply(ctx.sample("half", ctx.uv), ctx.value("tint"))

    def inverted(ctx: tp.PassContext) -> Operand:
        fn = ctx.fn
        return fn.subtract(fn.construct(vec(4), fn.f(1.0)), ctx.sample_offset("image", 1, 0))

    name = "test_toy_filter"
    tp.define_filter(
        name, "Toy", "A test filter.", inputs=[PortSpec("image", PortType.TEXTURE, None)],
        properties=[PropertySpec("tint", "color", (0.5, 1.0, 0.25, 1.0))], outputs=("tinted", "inverted"),
        passes=lambda setup: [
            tp.FilterPass("half", half, spec=lambda spec: replace(spec, resolution=spec.resolution // 2), reads=("image",)),
            tp.FilterPass("tint", tinted, output="tinted", reads=("half",)),
            tp.FilterPass("invert", inverted, reads=("image",)),
        ])
    try:
        graph, output, buffer = _material(pattern="checker")
        toy = graph.add_node(name)
        graph.connect(buffer.id, "out", toy.id, "image")
        graph.connect(toy.id, "inverted", output.id, "base_color")
        graph.connect(toy.id, "tinted", output.id, "emissive")
        plan, buffers = _run(graph)
        assert [each.key for each in plan.passes] == [buffer.id, f"{toy.id}/half", toy.id, f"{toy.id}:inverted"]
        assert plan.outputs[(toy.id, "tinted")] == toy.id and plan.outputs[(toy.id, "inverted")] == f"{toy.id}:inverted"
        assert plan.pass_for(f"{toy.id}/half").spec.resolution == SIZE // 2  # type: ignore[union-attr]
        source = buffers[buffer.id]
        boxed = (source[::2, ::2] + source[1::2, ::2] + source[::2, 1::2] + source[1::2, 1::2]) / 4.0
        assert np.allclose(buffers[f"{toy.id}/half"], boxed, atol=1e-6)  # bilinear between 4 texels
        coloured = buffers[toy.id]
        assert coloured.shape == source.shape  # the output's spec: the main input's
        assert np.allclose(coloured[..., 0], 0.5 * coloured[..., 1], atol=1e-6)
        assert np.allclose(coloured[..., 2], 0.25 * coloured[..., 1], atol=1e-6)
        assert abs(float(coloured[..., 1].mean()) - float(boxed[..., 1].mean())) < 1e-3
        assert np.allclose(buffers[f"{toy.id}:inverted"], 1.0 - np.roll(source, -1, axis=1), atol=1e-6)
        assert {reader.key for reader in plan.material_inputs} == {toy.id, f"{toy.id}:inverted", buffer.id}
    finally:
        NODE_TYPES.pop(name, None)
        tp.FILTERS.pop(name, None)


def test_the_material_declares_only_the_samplers_it_reads() -> None:
    graph, output, buffer = _material()
    blur = _filter(graph, output, buffer, "blur", "image")
    normal = graph.add_node("height_to_normal")
    graph.connect(blur.id, "out", normal.id, "height")
    material = lower(graph)
    assert material.module is not None and material.ok
    samplers = [uniform.name for uniform in material.module.uniforms if tp.is_pass_uniform(uniform.name)]
    assert samplers == [tp.pass_sampler_name(blur.id)]  # not the buffer's, which only the blur reads
    thumbnails = lower(graph, PreviewOutputs(((buffer.id, "out"), (blur.id, "out"), (normal.id, "out"))))
    assert thumbnails.ok and thumbnails.preview_ports == ((buffer.id, "out"), (blur.id, "out"), (normal.id, "out"))


def test_a_texture_parameter_inside_a_buffer_reads_its_image() -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    texture = graph.add_node("texture_parameter", properties={"name": "albedo", "color_space": "linear"})
    sample = graph.add_node("sample_texture")
    graph.connect(texture.id, "out", sample.id, "texture")
    buffer = graph.add_node("texture_buffer", properties={"resolution": str(SIZE), "format": "float"})
    graph.connect(sample.id, "rgba", buffer.id, "input")
    graph.connect(buffer.id, "out", output.id, "base_color")
    plan = pass_planner.plan_passes(graph)
    assert [spec.name for spec in plan.passes[0].parameters] == ["albedo"]
    image = np.zeros((SIZE, SIZE, 4), np.uint8)
    image[..., 0], image[..., 3] = np.arange(SIZE, dtype=np.uint8)[None, :], 255  # red ramp along u
    result = run_plan_cpu(plan, images={"albedo": image})[buffer.id]
    assert np.allclose(result[..., 0], image[..., 0] / 255.0, atol=1e-6)  # texel for texel (same size)
    checker = run_plan_cpu(plan)[buffer.id]  # no image: the checker, as the preview shows
    assert set(np.round(np.unique(checker[..., 0]) * 255).astype(int)) == {64, 214}


def test_a_parameter_drives_a_filter_value_without_relinking() -> None:
    graph, output, buffer = _material()
    normal = _filter(graph, output, buffer, "height_to_normal", "height", intensity=0.02)
    by_property = run_plan_cpu(pass_planner.plan_passes(graph))[normal.id]
    depth = graph.add_node("float_parameter", properties={"name": "depth", "default": 0.5})
    graph.connect(depth.id, "out", normal.id, "intensity")
    material = lower(graph)
    assert material.ok and [spec.name for spec in material.parameters] == ["depth"]  # in the panel
    plan = pass_planner.plan_passes(graph)
    assert [spec.name for spec in plan.passes[-1].parameters] == ["depth"]
    driven = run_plan_cpu(plan, {"depth": 0.02})[normal.id]
    assert np.abs(driven - by_property).max() < 1e-6
    assert np.abs(run_plan_cpu(plan)[normal.id] - by_property).max() > 0.1  # the node's default: 0.5
    edited = graph.copy()
    edited.nodes[depth.id].properties["default"] = 0.1
    again = pass_planner.plan_passes(edited)
    assert [each.code_fingerprint for each in again.passes] == [each.code_fingerprint for each in plan.passes]
    assert again.passes[-1].content_fingerprint != plan.passes[-1].content_fingerprint

    # A driven blur radius takes the widest kernel; radius edits then never relink.
    blur = graph.add_node("blur")
    graph.connect(buffer.id, "out", blur.id, "image")
    softness = graph.add_node("float_parameter", properties={"name": "softness", "default": 0.01})
    graph.connect(softness.id, "out", blur.id, "radius")
    blurred = pass_planner.plan_passes(graph).pass_for(blur.id)
    assert blurred is not None and [spec.name for spec in blurred.parameters] == ["softness"]
    assert blurred.text.count("texture_lod") == 2 * 64 + 1

    constant = graph.add_node("constant_float")
    assert not can_connect(graph, constant.id, "out", normal.id, "intensity")[0]
    graph.connections = [c for c in graph.connections if c.target_port != "intensity"]
    graph.connections.append(Connection(constant.id, "out", normal.id, "intensity"))  # a file may hold it
    errors = _errors_by_node(pass_planner.plan_passes(graph).diagnostics)
    assert "not a Float, Vector or Colour Parameter" in " ".join(errors[normal.id])


def test_refresh_values_matches_a_new_plan_after_a_parameter_edit() -> None:
    graph, output, buffer = _material()
    parameter = graph.add_node("float_parameter", properties={"name": "scale", "default": 32.0})
    pattern = graph.connection_into(buffer.id, "input")
    assert pattern is not None
    graph.connect(parameter.id, "out", pattern.source_node, "scale")
    _filter(graph, output, buffer, "blur", "image", radius=0.012)
    plan = pass_planner.plan_passes(graph)
    edited = graph.copy()
    edited.nodes[parameter.id].properties["default"] = 16.0
    assert lowering_equivalent(graph, edited)
    refreshed, fresh = pass_planner.refresh_values(plan, edited), pass_planner.plan_passes(edited)
    for mine, theirs, before in zip(refreshed.passes, fresh.passes, plan.passes):
        assert (mine.key, mine.value_fingerprint, mine.content_fingerprint) == (
            theirs.key, theirs.value_fingerprint, theirs.content_fingerprint)
        assert mine.content_fingerprint != before.content_fingerprint and mine.verified is before.verified


def test_a_buffer_may_sample_a_filter_of_another_buffer() -> None:
    """A Texture Buffer whose sub-graph reads a filter through a Texture Sample (blur(h) x 2 + h, combined per
    texel, as layered heights are built) renders after that filter, from its result: texel for texel the
    same arithmetic on the two buffers the CPU run made (the filter's own texture input stays a pass input)."""
    graph, output, buffer = _material()
    blur = graph.add_node("blur", properties={"radius": 0.012})
    graph.connect(buffer.id, "out", blur.id, "image")
    blurred = graph.add_node("sample_texture")
    plain = graph.add_node("sample_texture")
    graph.connect(blur.id, "out", blurred.id, "texture")
    graph.connect(buffer.id, "out", plain.id, "texture")
    doubled = graph.add_node("multiply", properties={"b": 2.0})
    graph.connect(blurred.id, "r", doubled.id, "a")
    summed = graph.add_node("add")
    graph.connect(doubled.id, "out", summed.id, "a")
    graph.connect(plain.id, "r", summed.id, "b")
    layered = graph.add_node("texture_buffer", properties={"resolution": str(SIZE), "format": "float"})
    graph.connect(summed.id, "out", layered.id, "input")
    graph.connect(layered.id, "out", output.id, "base_color")
    plan, buffers = _run(graph)
    assert plan.diagnostics == []
    keys = [each.key for each in plan.passes]
    assert keys.index(layered.id) > keys.index(blur.id)
    expected = 2.0 * buffers[blur.id][..., 0] + buffers[buffer.id][..., 0]
    assert np.abs(buffers[layered.id][..., 0] - expected).max() < 1e-5
    assert np.abs(buffers[blur.id][..., 0] - buffers[buffer.id][..., 0]).max() > 0.1  # the blur is in it
