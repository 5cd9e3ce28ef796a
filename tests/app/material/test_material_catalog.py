"""The node catalog: shape of every node type, and every node type lowers, verifies and compiles.

Each node type is lowered in several type combinations (its defaults,
fixed inputs connected, and each dynamic width 1-4 and colour), published,
compiled to GLSL 4.20, and the GLSL checked by glslangValidator (compile
and link).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from material_testing import build_case, glslang_check, node_cases

from app.material.catalog import CATEGORIES, NODE_TYPES, PROPERTY_KINDS, categories, node_type
from app.material.lowering import lower
from app.material.types import Constraint, PortType

REQUIRED_NODE_TYPES = {
    # Inputs
    "constant_float", "constant_vec2", "constant_vec3", "constant_vec4", "constant_color",
    "float_parameter", "vector_parameter", "color_parameter", "texture_parameter",
    "time", "texcoord", "world_position", "normal", "view_direction",
    # Math
    "add", "subtract", "multiply", "divide", "one_minus", "negate", "abs", "min", "max", "clamp",
    "saturate", "mix", "power", "sqrt", "floor", "fract", "mod", "sin", "cos", "step", "smoothstep", "remap",
    # Vector
    "compose", "split", "swizzle", "dot", "cross", "length", "normalize", "reflect",
    # Texture
    "sample_texture", "tiling_offset", "panner",
    # Logic
    "if", "select",
    # Procedural
    "checker", "value_noise", "fractal_noise",
    # Lighting
    "lambert", "blinn_phong", "fresnel",
    # Output
    "material_output",
}  # fmt: skip


def test_catalog_has_at_least_45_node_types_including_the_required_ones() -> None:
    assert len(NODE_TYPES) >= 45
    assert set(NODE_TYPES) >= REQUIRED_NODE_TYPES


@pytest.mark.parametrize("type_name", sorted(NODE_TYPES))
def test_node_type_is_well_formed(type_name: str) -> None:
    spec = node_type(type_name)
    assert spec.type_name == type_name
    assert spec.category in CATEGORIES
    assert spec.display_name.strip()
    assert spec.description.strip() and "\n" not in spec.description and len(spec.description) <= 100
    assert spec.notes.strip(), "lowering notes feed docs/material-nodes.md"
    names = [port.name for port in spec.inputs] + [port.name for port in spec.outputs]
    assert len({port.name for port in spec.inputs}) == len(spec.inputs)
    assert len({port.name for port in spec.outputs}) == len(spec.outputs)
    for port in spec.inputs + spec.outputs:
        assert isinstance(port.type, (PortType, Constraint))
    for prop in spec.properties:
        assert prop.kind in PROPERTY_KINDS
        if prop.kind == "enum":
            assert prop.default in prop.choices
    assert names or type_name == "material_output"
    assert callable(spec.lower)


def test_categories_group_every_node_type_in_palette_order() -> None:
    grouped = categories()
    assert list(grouped) == [name for name in CATEGORIES if name in grouped]
    assert sorted(t.type_name for types in grouped.values() for t in types) == sorted(NODE_TYPES)


def test_unknown_node_type_lookup_raises_key_error() -> None:
    with pytest.raises(KeyError):
        node_type("no_such_node")


CASES = node_cases()


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_every_node_type_lowers_verifies_and_compiles(case, glslang_validator: str, tmp_path: Path) -> None:
    graph, node_id = build_case(case)
    result = lower(graph)
    assert [d for d in result.diagnostics if d.severity == "error"] == [], result.diagnostics
    assert result.module is not None and result.verified is not None and result.artifact is not None
    assert result.text.startswith("(module 1")
    # A float constant is an operand, and Split of a float passes its input through: no instructions.
    if case.id not in ("constant_float-defaults", "split-dynamic-1"):
        assert node_id in set(result.provenance.values()), "the node under test emitted nothing"
    glslang_check(glslang_validator, tmp_path, "material", result.artifact.vertex_code, result.artifact.fragment_code)


def test_cases_cover_every_node_type_and_every_dynamic_width() -> None:
    covered = {case.type_name for case in CASES}
    assert covered == set(NODE_TYPES)
    dynamic_types = {name for name, spec in NODE_TYPES.items() if any(isinstance(port.type, Constraint) for port in spec.inputs)}
    for name in dynamic_types:
        widths = {case.dynamic for case in CASES if case.type_name == name}
        assert {1, 2, 3, 4, "color"} <= widths, name
