"""The node catalog: shape of every node type, and every node type lowers, verifies and compiles.

Each node type is lowered in several type combinations (its defaults,
fixed inputs connected, each dynamic width 1-4 and colour, and every
choice of the enum properties that select different code), published,
compiled to GLSL 4.20, GLSL ES 3.00 and GLSL ES 3.20, and the GLSL checked
by glslangValidator (compile and link; in blocks of cases, glslang_programs.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from glslang_programs import check_programs
from material_testing import NodeCase, build_case, node_cases

from app.material.catalog import NODE_TYPES, categories, node_type
from app.material.lowering import LoweringResult, lower
from app.material.node_types import CATEGORIES, PROPERTY_KINDS
from app.material.port_types import Constraint, PortType
from vpl_core.backends.glsl import compile as compile_glsl

ES_TARGETS = ("es300", "es320")
#: Variants also compiled and validated for the ES targets (every node type has "defaults"; enum
#: choices and the other property variants too): the ES profiles differ from 4.20 in declarations,
#: not in how the operations of one node are spelled, so every width need not be repeated.
ES_VARIANTS = ("defaults", "connected", "dynamic-color")

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


#: Issue 17's list: the procedural family, colour, mapping, math/vector and graph comfort.
REQUIRED_NEW_NODE_TYPES = {
    "gradient_noise", "gradient_noise_3d", "simplex_noise", "simplex_noise_3d", "voronoi", "voronoi_3d",
    "value_noise_3d", "white_noise", "white_noise_3d", "fractal_noise_3d", "domain_warp", "domain_warp_3d",
    "bricks", "hexagons", "stripes", "linear_gradient", "radial_gradient", "polar_coordinates", "rotate_uv", "flipbook",
    "color_ramp", "hsv_adjust", "rgb_to_hsv", "hsv_to_rgb", "brightness_contrast", "levels", "gamma", "desaturate",
    "invert", "posterize", "hue_shift", "blend",
    "triplanar_texture", "triplanar_coordinates", "triplanar_blend", "transform_uv", "parallax_offset",
    "object_position", "object_normal", "screen_position", "camera_distance",
    "tan", "asin", "acos", "atan2", "exp", "log", "sign", "ceil", "trunc", "round", "inverse_sqrt", "distance",
    "refract", "fwidth", "ddx", "ddy", "component_min", "component_max", "vector_rotate", "transform_vector",
    "ping_pong", "wrap", "snap", "reroute",
}  # fmt: skip


def test_catalog_has_at_least_130_node_types_including_the_required_ones() -> None:
    assert len(NODE_TYPES) >= 130
    assert set(NODE_TYPES) >= REQUIRED_NODE_TYPES | REQUIRED_NEW_NODE_TYPES


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
#: Cases lowered and checked by glslangValidator together (glslang_programs.py: one compile for every
#: stage, one link per distinct pair of stage interfaces). A worker of pytest-xdist runs its cases in
#: runs of neighbours, so a block is mostly checked for the cases the worker runs next.
BLOCK = 48


def es_targets(case: NodeCase) -> tuple[str, ...]:
    compiled = case.variant in ES_VARIANTS or ("-" in case.variant and not case.variant.startswith("dynamic"))
    return ES_TARGETS if compiled else ()


@dataclass
class Checked:
    """One case lowered, compiled for its targets and checked by glslangValidator."""

    node_id: str = ""
    result: LoweringResult | None = None
    failure: Exception | None = None  # what lowering or compiling the case raised, re-raised by its test
    glslang: dict[str, list[str]] = field(default_factory=dict)  # target -> glslangValidator's errors


_CHECKED: dict[str, Checked] = {}  # kept across the module fixture's set-ups: a worker may come back to the module


def _check_block(cases: list[NodeCase], validator: str, directory: Path) -> None:
    checked: dict[str, Checked] = {}
    programs: dict[tuple[str, str], tuple[str, str]] = {}
    for case in cases:
        each = checked[case.id] = Checked()
        try:
            graph, each.node_id = build_case(case)
            each.result = lower(graph)
            if each.result.verified is None or each.result.artifact is None:
                continue
            programs[case.id, "glsl420"] = (each.result.artifact.vertex_code, each.result.artifact.fragment_code)
            for target in es_targets(case):
                artifact = compile_glsl(each.result.verified, target=target)
                programs[case.id, target] = (artifact.vertex_code, artifact.fragment_code)
        except Exception as error:  # noqa: BLE001 - the case's own test raises it
            each.failure = error
    named = {f"{case_id} {target}": code for (case_id, target), code in programs.items()}
    errors = check_programs(validator, directory, named)
    for case_id, target in programs:
        checked[case_id].glslang[target] = errors[f"{case_id} {target}"]
    _CHECKED.update(checked)


@pytest.fixture(scope="module")
def checked_case(glslang_validator: str, tmp_path_factory: pytest.TempPathFactory) -> Callable[[NodeCase], Checked]:
    """The checked case, its block lowered and checked when the first of its cases asks."""

    def checked(case: NodeCase) -> Checked:
        if case.id not in _CHECKED:
            start = CASES.index(case) // BLOCK * BLOCK
            _check_block(CASES[start : start + BLOCK], glslang_validator, tmp_path_factory.mktemp("catalog"))
        return _CHECKED[case.id]

    return checked


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_every_node_type_lowers_verifies_and_compiles(case: NodeCase, checked_case: Callable[[NodeCase], Checked]) -> None:
    checked = checked_case(case)
    if checked.failure is not None:
        raise checked.failure
    result, node_id = checked.result, checked.node_id
    assert result is not None
    assert [d for d in result.diagnostics if d.severity == "error"] == [], result.diagnostics
    assert result.module is not None and result.verified is not None and result.artifact is not None
    assert result.text.startswith("(module 1")
    # A float constant is an operand, and Split (or a component reduction) of a float and a Reroute
    # pass their input through: no instructions.
    emits_nothing = case.id in ("constant_float-defaults", "split-dynamic-1", "component_min-dynamic-1",
                                "component_max-dynamic-1", "component_sum-dynamic-1", "transform_vector-source-world")
    if not emits_nothing and case.type_name not in ("math_constant", "reroute"):
        assert node_id in set(result.provenance.values()), "the node under test emitted nothing"
    # GLSL 4.20 and, for the variants in ES_VARIANTS and the property variants, ES 3.00 and 3.20: each
    # program compiled and linked as glslangValidator -l would.
    assert set(checked.glslang) == {"glsl420", *es_targets(case)}
    assert {target: errors for target, errors in checked.glslang.items() if errors} == {}


def test_cases_cover_every_node_type_and_every_dynamic_width() -> None:
    covered = {case.type_name for case in CASES}
    assert covered == set(NODE_TYPES)
    dynamic_types = {name for name, spec in NODE_TYPES.items() if any(isinstance(port.type, Constraint) for port in spec.inputs)}
    for name in dynamic_types:
        widths = {case.dynamic for case in CASES if case.type_name == name}
        assert {1, 2, 3, 4, "color"} <= widths, name


def test_the_catalog_order_does_not_depend_on_what_was_imported_first() -> None:
    """Custom Code registers when its module is imported; a process that imports it before the catalog
    still gets the palette's (and docs/material-nodes.md's) order."""
    import subprocess
    import sys

    program = ("import {first}, app.material.catalog as c; print(' '.join(c.NODE_TYPES))")
    orders = {
        first: subprocess.run([sys.executable, "-c", program.format(first=first)], capture_output=True, text=True,
                              check=True).stdout
        for first in ("app.material.catalog", "app.material.custom_code")
    }
    assert orders["app.material.custom_code"] == orders["app.material.catalog"]
