"""Shared helpers of the PBR and IBL renderer tests: a renderer on the desktop or ES context, materials built
on it, surface values read back per pixel."""

from __future__ import annotations

import numpy as np

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.renderer import Renderer
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
    """Lower `graph`, compile it for `target`, build it and set its parameters' defaults."""
    result = lower(graph)
    assert result.ok, result.diagnostics
    renderer.build_program(compile_glsl(result.verified, target=target))
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
