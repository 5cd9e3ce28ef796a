"""The Surface Output's glTF extension inputs: neutral values emit no code, each one on emits its lobe.

The zero-cost guarantee is checked over every shipped example and every bundled MaterialX import case:
lowering them with every extension input set to its neutral value gives the same GLSL as lowering them as
they are, and switching one on changes it. (When the extensions were added, the GLSL of all of them was
compared with the one the Surface Output produced before: identical.)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from material_testing import glslang_check

from app.material.graph import MaterialGraph
from app.material.lowering import lower

#: Extension input -> a value that switches it on.
ON: dict[str, object] = {
    "clearcoat": 0.5, "sheen_color": (0.5, 0.4, 0.3, 1.0), "transmission": 0.5, "ior": 1.8, "iridescence": 0.5,
    "anisotropy_strength": 0.5,
}
#: Extension inputs and their neutral values (unconnected: no code).
NEUTRAL: dict[str, object] = {
    "clearcoat": 0.0, "clearcoat_roughness": 0.0, "sheen_color": (0.0, 0.0, 0.0, 1.0), "sheen_roughness": 0.0,
    "transmission": 0.0, "thickness": 0.0, "attenuation_color": (1.0, 1.0, 1.0, 1.0), "attenuation_distance": 0.0,
    "dispersion": 0.0,
    "ior": 1.5, "iridescence": 0.0, "iridescence_ior": 1.3, "iridescence_thickness": 400.0,
    "anisotropy_strength": 0.0, "anisotropy_rotation": 0.0,
}
ROOT = Path(__file__).resolve().parents[3]


def _code(graph: MaterialGraph) -> str:
    result = lower(graph)
    assert result.ok, result.diagnostics
    assert result.artifact is not None
    return str(result.artifact.vertex_code) + str(result.artifact.fragment_code)


def _surface(properties: Mapping[str, object]) -> str:
    graph = MaterialGraph()
    graph.add_node("surface_output", (0.0, 0.0), dict(properties))
    return _code(graph)


def _value(value: object) -> object:
    return tuple(float(c) for c in value[:3]) if isinstance(value, (tuple, list)) else float(value)  # type: ignore[arg-type]


def _graphs() -> list[tuple[str, MaterialGraph]]:
    from app.export.mtlx_import import import_mtlx
    from app.material.examples import EXAMPLE_GRAPHS, example_names

    # The shipped files' graphs (test_material_examples.py), without reading and checking each file.
    graphs = [(name, EXAMPLE_GRAPHS[name]()) for name in example_names()]
    for path in sorted((ROOT / "tests/data/materialx/Materials").rglob("*.mtlx")):
        graphs.append((path.name, import_mtlx(path).graph))
    return graphs


def test_examples_and_import_cases_emit_no_extension_code() -> None:
    surfaces = 0
    for name, graph in _graphs():
        outputs = [node for node in graph.nodes.values() if node.type_name == "surface_output"]
        if not outputs or any(_value(node.properties.get(key, value)) != _value(value)
                              for node in outputs for key, value in NEUTRAL.items()):
            continue  # no Surface Output, or one that uses an extension (lacquered_wood)
        surfaces += 1
        code = _code(graph)
        for node in outputs:
            node.properties.update(NEUTRAL)
        assert _code(graph) == code, name
        outputs[0].properties["clearcoat"] = 0.25
        assert _code(graph) != code, name
    assert surfaces >= 10


@pytest.mark.parametrize("name", sorted(ON))
def test_an_extension_emits_code_only_when_on(name: str) -> None:
    off = _surface({})
    assert _surface(NEUTRAL) == off
    assert _surface({name: NEUTRAL[name]}) == off
    on = _surface({name: ON[name]})
    assert on != off and len(set(on.splitlines()) - set(off.splitlines())) > 5, name


def test_dispersion_emits_code_only_through_a_volume() -> None:
    """Dispersion spreads the refraction through a volume: with no transmission, no thickness or dispersion 0 the
    code is the one without it; on, it adds the two other channels' refracted lookups."""
    glass = {"transmission": 1.0, "thickness": 0.5}
    off = _surface(glass)
    assert _surface({**glass, "dispersion": 0.0}) == off
    assert _surface({"transmission": 1.0, "dispersion": 1.0}) == _surface({"transmission": 1.0})
    assert _surface({"dispersion": 1.0}) == _surface({})
    on = _surface({**glass, "dispersion": 1.0})
    assert on != off and on.count("refract(") == 3 * off.count("refract(") > 0


def test_a_connected_zero_clearcoat_keeps_its_layer() -> None:
    graph = MaterialGraph()
    output = graph.add_node("surface_output", (0.0, 0.0))
    zero = graph.add_node("constant_float", (-200.0, 0.0), {"value": 0.0})
    graph.connect(zero.id, "out", output.id, "clearcoat")
    assert len(_code(graph)) > len(_surface({}))


def test_every_extension_on_compiles_for_glslang(glslang_validator: str, tmp_path: Path) -> None:
    graph = MaterialGraph()
    graph.add_node("surface_output", (0.0, 0.0), {**ON, "thickness": 0.5, "attenuation_distance": 1.0, "dispersion": 0.8,
                                                   "attenuation_color": (0.8, 0.5, 0.2, 1.0), "metallic": 0.3})
    result = lower(graph)
    assert result.ok and result.artifact is not None, result.diagnostics
    glslang_check(glslang_validator, tmp_path, "surface_extensions", result.artifact.vertex_code, result.artifact.fragment_code)
