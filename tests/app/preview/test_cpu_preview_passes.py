"""The CPU preview runs a material's texture passes on the interpreter, as the GL preview runs them on the GPU.

A 256² Texture Buffer holding uv * gain, read by the material on the sphere;
the frame is compared with the interpreter drawing the same material with
the buffer `run_plan_cpu` makes (an independent run). A value downstream of
the buffer runs no pass again; one the buffer reads does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import app.material.catalog  # noqa: F401 - registers every node type
import app.preview.context as context_module
from app.main import main
from app.material.document import save_file
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview import screenshot
from app.preview.context import ENVIRONMENT_VARIABLE, clear_probes
from app.preview.cpu_passes import pass_textures, run_plan_cpu
from app.preview.cpu_preview import CpuPreview
from app.preview.cpu_renderer import CpuRenderer
from app.preview.images import load_image_rgba, qimage_to_rgba
from app.session.pass_programs import PassProgramCache


def uv_buffer_graph() -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("texcoord", node_id="uv")
    graph.add_node("float_parameter", node_id="gain", properties={"name": "gain", "default": 1.0})
    graph.add_node("multiply", node_id="scaled")
    graph.add_node("texture_buffer", node_id="buffer", properties={"resolution": "256", "format": "8-bit"})
    graph.add_node("sample_texture", node_id="read")
    graph.add_node("float_parameter", node_id="tint", properties={"name": "tint", "default": 1.0})
    graph.add_node("multiply", node_id="shade")
    graph.add_node("material_output", node_id="out")
    graph.connect("uv", "out", "scaled", "a")
    graph.connect("gain", "out", "scaled", "b")
    graph.connect("scaled", "out", "buffer", "input")
    graph.connect("buffer", "out", "read", "texture")
    graph.connect("read", "rgba", "shade", "a")
    graph.connect("tint", "out", "shade", "b")
    graph.connect("shade", "out", "out", "base_color")
    return graph


def test_the_cpu_preview_draws_the_buffer_and_runs_it_again_only_when_it_must(qtbot) -> None:
    graph = uv_buffer_graph()
    lowered = lower(graph)
    assert lowered.ok
    passes = PassProgramCache.for_graph(graph).get("glsl420")
    assert passes is not None and passes.ok
    preview = CpuPreview("no OpenGL context (test)")
    qtbot.addWidget(preview)
    preview.resize(64, 64)
    preview.show()
    qtbot.waitExposed(preview)
    values = {"gain": 1.0, "tint": 1.0}
    with qtbot.waitSignal(preview.programReady, timeout=5000):
        preview.set_artifact(lowered.artifact, lowered.parameters, values, passes)
    preview.render_now()
    shown = qimage_to_rgba(preview.grab_preview())
    made = preview._pass_textures_made
    assert made is not None and not preview.error_text

    reference = CpuRenderer()
    reference.set_program(lowered.verified)
    reference.set_values(values)
    reference.set_pass_textures(pass_textures(passes.plan, run_plan_cpu(passes.plan, values)))
    expected = reference.render_image(shown.shape[1], shown.shape[0])
    np.testing.assert_array_equal(shown, expected)
    unbound = CpuRenderer()  # without the buffer the sampler reads the checker: a different image
    unbound.set_program(lowered.verified)
    unbound.set_values(values)
    assert np.abs(unbound.render_image(shown.shape[1], shown.shape[0]).astype(int) - expected.astype(int)).max() > 40

    preview.set_parameter("tint", 0.5)  # downstream of the buffer: the same buffers
    preview.render_now()
    assert preview._pass_textures_made is made
    preview.set_parameter("gain", 0.5)  # the buffer reads it
    preview.render_now()
    assert preview._pass_textures_made is not made
    halved = qimage_to_rgba(preview.grab_preview())
    assert np.abs(halved.astype(int) - shown.astype(int)).max() > 20


@pytest.mark.gl
def test_preview_screenshots_run_the_passes_on_gl_and_on_the_cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--preview-screenshot` of a document with a Texture Buffer: the GL frame and the CPU interpreter's agree,
    and both differ from the frame drawn without the passes (the checker in the buffer's place)."""
    source = tmp_path / "buffer.vpl"
    save_file(source, uv_buffer_graph())

    def shot(name: str) -> np.ndarray:
        png = tmp_path / f"{name}.png"
        assert main([str(source), "--preview-screenshot", str(png), "--size", "48x48"]) == 0
        return load_image_rgba(str(png)).astype(int)

    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    clear_probes()
    gpu = shot("gpu")
    with monkeypatch.context() as patch:
        patch.setattr(screenshot, "document_passes", lambda path: None)
        without = shot("without")
    monkeypatch.setattr(context_module, "create_context", lambda profile: None)
    clear_probes()
    cpu = shot("cpu")
    clear_probes()
    assert (np.abs(gpu - cpu) <= 2).all(axis=-1).mean() >= 0.99
    assert np.abs(gpu - without).max() > 40
