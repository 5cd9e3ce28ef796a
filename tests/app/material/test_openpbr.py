"""The OpenPBR Surface output: MaterialX's inputs and defaults, and constant-zero lobes that emit nothing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from material_testing import glslang_check

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.node_types import NODE_TYPES
from app.material.nodes.openpbr import INPUTS, TYPE_NAME
from app.material.nodes.openpbr_shading import LOBE_WEIGHTS

_MX_TYPES = {"float": "float", "color3": "color", "vector3": "vec3", "boolean": "bool"}


def _fragment(properties: Mapping[str, object]) -> str:
    graph = MaterialGraph()
    graph.add_node(TYPE_NAME, (0.0, 0.0), dict(properties))
    result = lower(graph)
    assert result.ok, result.diagnostics
    assert result.artifact is not None
    return str(result.artifact.fragment_code)


def test_inputs_are_materialx_open_pbr_surface_with_its_defaults() -> None:
    import MaterialX as mx  # noqa: N813 - the package's name

    library = mx.createDocument()
    mx.loadLibraries(mx.getDefaultDataLibraryFolders(), mx.getDefaultDataSearchPath(), library)
    definition = library.getNodeDef("ND_open_pbr_surface_surfaceshader")
    theirs = {element.getName(): element for element in definition.getActiveInputs()}
    ours = {name: (port_type, default) for name, port_type, default, _ in INPUTS}
    assert set(ours) == set(theirs)
    node_type = NODE_TYPES[TYPE_NAME]
    assert [port.name for port in node_type.inputs] == [name for name, *_ in INPUTS]
    for name, element in theirs.items():
        port_type, default = ours[name]
        assert port_type.value == _MX_TYPES[element.getType()], name
        if element.getDefaultGeomPropString():
            assert default == {"Nworld": "world_normal", "Tworld": "world_tangent"}[element.getDefaultGeomPropString()], name
            continue
        value = element.getValue()
        if isinstance(value, bool):
            assert default is value, name
        elif isinstance(value, (int, float)):
            assert default == pytest.approx(value), name
        else:
            assert tuple(default)[:3] == pytest.approx(tuple(value.asTuple())), name  # type: ignore[arg-type]


@pytest.mark.parametrize("lobe", sorted(LOBE_WEIGHTS))
def test_a_constant_zero_lobe_emits_no_code(lobe: str) -> None:
    weight = LOBE_WEIGHTS[lobe]
    all_off = dict.fromkeys(LOBE_WEIGHTS.values(), 0.0)
    off = _fragment(all_off)
    assert _fragment({**all_off, weight: 0.0}) == off
    on = _fragment({**all_off, weight: 0.5})
    # The lobe's instructions are the difference: switched on, the fragment stage grows.
    assert len(on.splitlines()) > len(off.splitlines()) + 5, lobe


def test_a_constant_zero_scatter_leaves_the_fragment_as_the_unscattered_medium() -> None:
    """Scatter 0 emits nothing: whatever the scatter anisotropy, the fragment is the Beer-Lambert medium's, byte for
    byte; a scatter switches the medium's instructions on, except on a thin wall (no volume to scatter in)."""
    medium = {"transmission_weight": 1.0, "transmission_color": (0.8, 0.4, 0.1, 1.0), "transmission_depth": 2.0}
    unscattered = _fragment(medium)
    assert _fragment({**medium, "transmission_scatter": (0.0, 0.0, 0.0, 1.0)}) == unscattered
    assert _fragment({**medium, "transmission_scatter_anisotropy": 0.8}) == unscattered
    scattered = _fragment({**medium, "transmission_scatter": (0.9, 0.9, 0.9, 1.0)})
    assert len(scattered.splitlines()) > len(unscattered.splitlines()) + 20
    thin = {**medium, "geometry_thin_walled": True}
    assert _fragment({**thin, "transmission_scatter": (0.9, 0.9, 0.9, 1.0)}) == _fragment(thin)


def test_subsurface_scatter_anisotropy_is_emitted_only_when_not_zero() -> None:
    subsurface = {"subsurface_weight": 1.0}
    isotropic = _fragment(subsurface)
    assert _fragment({**subsurface, "subsurface_scatter_anisotropy": 0.0}) == isotropic
    assert _fragment({**subsurface, "subsurface_scatter_anisotropy": 0.5}) != isotropic


def test_a_connected_zero_weight_keeps_its_lobe() -> None:
    graph = MaterialGraph()
    output = graph.add_node(TYPE_NAME, (0.0, 0.0), {"fuzz_weight": 0.0})
    zero = graph.add_node("constant_float", (-200.0, 0.0), {"value": 0.0})
    graph.connect(zero.id, "out", output.id, "fuzz_weight")
    connected = lower(graph)
    assert connected.ok and connected.artifact is not None
    assert len(connected.artifact.fragment_code) > len(_fragment({"fuzz_weight": 0.0}))


def test_every_lobe_on_compiles_for_glslang(glslang_validator: str, tmp_path: Path) -> None:
    graph = MaterialGraph()
    graph.add_node(TYPE_NAME, (0.0, 0.0), {**dict.fromkeys(LOBE_WEIGHTS.values(), 0.5),
                                           "specular_roughness_anisotropy": 0.5, "coat_roughness_anisotropy": 0.5,
                                           "base_diffuse_roughness": 0.5, "transmission_scatter": (0.5, 0.5, 0.5, 1.0),
                                           "transmission_scatter_anisotropy": 0.5, "subsurface_scatter_anisotropy": 0.5})
    result = lower(graph)
    assert result.ok and result.artifact is not None
    glslang_check(glslang_validator, tmp_path, "openpbr", result.artifact.vertex_code, result.artifact.fragment_code)


#: Each OpenPBR example and the input that makes it what it is named (a lobe's weight, or anisotropy).
OPENPBR_EXAMPLES = {"car_paint": "coat_weight", "glass": "transmission_weight", "honey": "transmission_weight", "velvet": "fuzz_weight",
                    "jade": "subsurface_weight", "soap_bubble": "thin_film_weight",
                    "brushed_aluminium": "specular_roughness_anisotropy"}


@pytest.mark.parametrize("name", sorted(OPENPBR_EXAMPLES))
def test_openpbr_examples_switch_on_the_lobe_they_are_named_for(name: str) -> None:
    from app.material.examples import EXAMPLE_GRAPHS

    graph = EXAMPLE_GRAPHS[name]()
    (output,) = [node for node in graph.nodes.values() if node.type_name == TYPE_NAME]
    assert float(output.properties[OPENPBR_EXAMPLES[name]]) > 0.0
    with_lobe = lower(graph)
    output.properties[OPENPBR_EXAMPLES[name]] = 0.0
    without = lower(graph)
    assert with_lobe.ok and without.ok and with_lobe.artifact is not None and without.artifact is not None
    assert len(with_lobe.artifact.fragment_code) > len(without.artifact.fragment_code)


def test_baked_map_exports_refuse_the_openpbr_surface_by_name() -> None:
    from app.export.surface import ExportError, describe_output, require_channels

    graph = MaterialGraph()
    graph.add_node(TYPE_NAME, (0.0, 0.0))
    with pytest.raises(ExportError, match="export it to glTF"):
        require_channels(describe_output(graph))
