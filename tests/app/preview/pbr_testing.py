"""Shared helpers of the PBR and IBL renderer tests: a renderer on the desktop or ES context, materials built
on it, surface values read back per pixel, the default sphere's pixels and a white furnace over them, an
environment prefiltered through the run's cache, a scene lit by a prepared environment alone, and a shown
preview widget on its render thread with a draft policy."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.environment import Environment
from app.preview.ibl_assets import IblCache, PrefilterJob, PreparedEnvironment
from app.preview.preview_state import environment_maps
from app.preview.render_thread import DraftPolicy, RenderThread
from app.preview.renderer import Renderer
from app.preview.widget import PreviewWidget
from app.session.artifacts import refined_maker
from vpl_core.backends.glsl import compile as compile_glsl

#: The session's desktop 4.2 core and ES 3.2 contexts (tests/conftest.py).
CONTEXTS = ["current_gl", "current_gles"]


def renderer_on(request, fixture: str) -> tuple[Renderer, str]:
    """A renderer on the context fixture `fixture`, released at teardown, and the target it runs."""
    gl = request.getfixturevalue(fixture)
    renderer = Renderer()
    request.addfinalizer(lambda: (gl.make_current(), renderer.release()))
    return renderer, "es320" if gl.is_es else "glsl420"


def build(renderer: Renderer, graph: MaterialGraph, target: str) -> None:
    """Lower `graph`, compile it for `target`, build it (with its refined variant's maker) and set its
    parameters' defaults."""
    result = lower(graph)
    assert result.ok, result.diagnostics
    renderer.build_program(compile_glsl(result.verified, target=target), refined=refined_maker(graph, target))
    for spec in result.parameters:
        if spec.default is not None and not isinstance(spec.default, str):
            renderer.set_parameter(spec.name, spec.default)


def surface_value(renderer: Renderer, target: str, node_type: str, size: int) -> np.ndarray:
    """A surface value per pixel (world position, normal, ...): an Unlit Output writing the node's output,
    read back as floats (height, width, 3)."""
    graph = MaterialGraph()
    value = graph.add_node(node_type)
    output = graph.add_node("material_output")
    graph.connect(value.id, "out", output.id, "base_color")
    build(renderer, graph, target)
    return renderer.render_linear(size, size)[:, :, :3].astype(np.float64)


def shader_normals(renderer: Renderer, target: str, size: int) -> np.ndarray:
    """The shader's unit normal per pixel (the interpolated one, not the default sphere's exact normal),
    (height, width, 3)."""
    normals = surface_value(renderer, target, "normal", size)
    unit: np.ndarray = normals / np.maximum(np.linalg.norm(normals, axis=2, keepdims=True), 1e-9)
    return unit


def prefiltered(source: str | Environment) -> PreparedEnvironment:
    """`source` (a bundled environment's name or an `Environment`) prefiltered through the run's shared cache
    (`VPL_CACHE_DIR`, tests/conftest.py): each environment is prefiltered once per run, then read from the cache
    (bit for bit the arrays stored). The cache itself, empty or filled, is tested by test_ibl_assets.py."""
    return PrefilterJob(source, cache=IblCache()).run()


def environment_lit(renderer: Renderer, prepared: PreparedEnvironment, rotation: float | None = None,
                    intensity: float | None = None) -> None:
    """Light the scene by the prepared environment alone (no key light), with its split-sum table, turned by
    `rotation` and scaled by `intensity` (None: as they are)."""
    renderer.set_light(intensity=0.0)
    renderer.set_environment_maps(environment_maps(prepared))
    renderer.set_brdf_table(prepared.brdf_lut)
    renderer.set_environment_settings(rotation, intensity)


def shown_preview(qtbot: Any, size: tuple[int, int], policy: DraftPolicy | None) -> tuple[PreviewWidget, RenderThread]:
    """A preview widget of `size`, shown and exposed, on its render thread (the caller unsets
    RENDER_THREAD_VARIABLE) drawing drafts by `policy` (None: never)."""
    widget = PreviewWidget()
    widget.resize(*size)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    thread = widget._thread
    assert thread is not None
    thread.set_draft_policy(policy)
    return widget, thread


def output_material(type_name: str, properties: Mapping[str, object]) -> MaterialGraph:
    """A material of one output node (`surface_output`, `openpbr_surface`) with these properties."""
    graph = MaterialGraph()
    graph.add_node(type_name, (0.0, 0.0), dict(properties))
    return graph


def sphere_pixels(renderer: Renderer, target: str, size: int, facing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mask of the default sphere's pixels well inside its silhouette, N·V above `facing`; unit normals; unit
    view directions), (height, width) and (height, width, 3)."""
    positions = surface_value(renderer, target, "world_position", size)
    covered = np.abs(np.linalg.norm(positions, axis=2) - 1.0) < 1e-3
    normals = positions / np.maximum(np.linalg.norm(positions, axis=2, keepdims=True), 1e-9)
    view = np.asarray(renderer.camera.position, dtype=np.float64) - positions
    view /= np.maximum(np.linalg.norm(view, axis=2, keepdims=True), 1e-9)
    return covered & (np.einsum("ijk,ijk->ij", normals, view) > facing), normals, view


def white_furnace(renderer: Renderer, target: str, size: int, output_type: str,
                  cases: Mapping[str, Mapping[str, object]], facing: float,
                  white: Callable[[Renderer], None]) -> dict[str, np.ndarray]:
    """Case -> the linear radiance (n, 3) of the sphere's inner pixels (`sphere_pixels`) in a white furnace: no
    key light, `white` lights the scene uniformly at radiance 1 (a uniform environment, a white ambient), the
    material one `output_type` node with the case's properties. Every value is finite."""
    renderer.set_light(intensity=0.0)
    inner, _, _ = sphere_pixels(renderer, target, size, facing)
    white(renderer)
    figures = {}
    for case, properties in cases.items():
        build(renderer, output_material(output_type, properties), target)
        values = renderer.render_linear(size, size)[inner][:, :3].astype(np.float64)
        assert np.isfinite(values).all(), case
        figures[case] = values
    return figures
