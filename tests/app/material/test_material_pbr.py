"""The Surface Output and the PBR nodes as lowered VPL: helpers, outputs, host samplers, colour space, targets."""

from __future__ import annotations

from pathlib import Path

import pytest
from material_testing import glslang_check

from app.material.graph import MaterialGraph
from app.material.lowering import OUTPUT_NODE_TYPE, lower
from app.material.parameters import specs_from_module
from app.material.scene import HOST_SAMPLERS, RESERVED_UNIFORM_NAMES
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.ir.instructions import CallInstruction
from vpl_core.ir.module import Direction, Semantic


def _textured_surface(color_space: str, output: str = "surface_output") -> MaterialGraph:
    graph = MaterialGraph()
    image = graph.add_node("texture_parameter", properties={"name": "albedo", "color_space": color_space})
    sample = graph.add_node("sample_texture")
    out = graph.add_node(output)
    graph.connect(image.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgba", out.id, "base_color")
    return graph


def _helper_calls(result) -> set[str]:
    return {
        instruction.callee.name
        for _, function in result.module.functions()
        for block in function.blocks
        for instruction in block.instructions
        if isinstance(instruction, CallInstruction) and instruction.callee is not None
    }


def test_new_materials_get_a_surface_output() -> None:
    assert OUTPUT_NODE_TYPE == "surface_output"


def test_the_surface_output_is_gltf_helpers_writing_radiance() -> None:
    result = lower(_textured_surface("srgb"))
    assert result.ok, result.diagnostics
    functions = {function.name for function in result.module.fragment.functions}
    assert {"gltf_brdf", "ggx_distribution", "smith_visibility", "schlick_weight", "environment_light", "equirect_uv",
            "srgb_to_linear"} <= functions
    assert {"gltf_brdf", "environment_light", "srgb_to_linear"} <= _helper_calls(result)
    outputs = [v for v in result.module.fragment.interface if v.direction is Direction.OUT]
    assert [(v.name, v.location, v.semantic) for v in outputs] == [("radiance", 0, Semantic.FRAGMENT_COLOR)]
    uniforms = [uniform.name for uniform in result.module.uniforms]
    # The live program binds the split-sum maps; only the refined variant reads the environment's sampling table.
    assert set(HOST_SAMPLERS) - set(uniforms) == {"environment_sampling"}
    refined = lower(_textured_surface("srgb"), refined=True)
    assert refined.ok, refined.diagnostics
    assert set(HOST_SAMPLERS) <= {uniform.name for uniform in refined.module.uniforms}
    # The host's samplers are not material parameters.
    assert [spec.name for spec in result.parameters] == ["albedo"]
    assert [spec.name for spec in specs_from_module(result.module)] == ["albedo"]
    assert "(function" in result.text and '"gltf_brdf"' in result.text  # visible in the VPL tab


@pytest.mark.parametrize("target", ["glsl420", "es300", "es320"])
def test_the_surface_output_compiles_for_every_target(target: str, glslang_validator: str, tmp_path: Path) -> None:
    result = lower(_textured_surface("srgb"))
    artifact = compile_glsl(result.verified, target=target)
    glslang_check(glslang_validator, tmp_path, f"surface-{target}", artifact.vertex_code, artifact.fragment_code)


def test_srgb_textures_decode_only_where_the_material_works_in_linear_light() -> None:
    assert "srgb_to_linear" in _helper_calls(lower(_textured_surface("srgb")))
    assert "srgb_to_linear" not in _helper_calls(lower(_textured_surface("linear")))
    assert "srgb_to_linear" not in _helper_calls(lower(_textured_surface("srgb", "material_output")))


def test_the_unlit_output_writes_a_display_colour() -> None:
    result = lower(_textured_surface("srgb", "material_output"))
    outputs = [v.name for v in result.module.fragment.interface if v.direction is Direction.OUT]
    assert outputs == ["color"]
    assert not set(HOST_SAMPLERS) & {uniform.name for uniform in result.module.uniforms}


@pytest.mark.parametrize("name", sorted(RESERVED_UNIFORM_NAMES))
def test_reserved_names_cannot_be_parameters(name: str) -> None:
    graph = MaterialGraph()
    parameter = graph.add_node("float_parameter", properties={"name": name})
    output = graph.add_node("surface_output")
    graph.connect(parameter.id, "out", output.id, "roughness")
    result = lower(graph)
    assert not result.ok
    assert any(d.node_id == parameter.id and "reserved" in d.message for d in result.diagnostics)


def test_one_output_node_of_either_kind() -> None:
    graph = MaterialGraph()
    first = graph.add_node("surface_output")
    second = graph.add_node("material_output")
    result = lower(graph)
    assert result.ok  # the extra one is a warning on it, not an error
    assert any(d.node_id == second.id and "one output node" in d.message for d in result.diagnostics)
    assert first.id != second.id


def test_a_surface_output_without_tangent_use_declares_no_tangent_input() -> None:
    result = lower(_textured_surface("srgb"))
    assert "tangent" not in {v.name for v in result.module.vertex.interface}
    assert 3 not in {b.location for b in result.artifact.vertex_interface if b.direction is Direction.IN}
