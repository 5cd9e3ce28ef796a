"""The physically based examples: Surface Output, their textures (generated, shipped), reopened and re-saved equal."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from app.material.document import load_text, save_text
from app.material.examples import (
    DEFAULT_EXAMPLE,
    EXAMPLE_GRAPHS,
    TEXTURES_DIRECTORY,
    example_description,
    example_path,
    load_example,
)

ROOT = Path(__file__).resolve().parents[3]
#: The node library's examples that are physically based in spirit end in the Surface Output too.
LIBRARY_EXAMPLES = ["stylised_lava", "triplanar_rock", "tiled_floor", "stone_wall", "rusted_metal", "wet_cobblestones",
                    "scattered_pebbles"]
PBR_EXAMPLES = ["painted_metal", "brushed_metal", "polished_gold", "rough_plastic", "glazed_ceramic", "material_chart",
                *LIBRARY_EXAMPLES]


def _make_textures():
    spec = importlib.util.spec_from_file_location("make_textures", ROOT / "tools" / "make_textures.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", PBR_EXAMPLES)
def test_pbr_example_uses_the_surface_output_and_resaves_equal(name: str) -> None:
    assert name in EXAMPLE_GRAPHS
    loaded = load_example(name)
    assert loaded.graph is not None and not loaded.read_only
    assert [node.type_name for node in loaded.graph.nodes.values()].count("surface_output") == 1
    assert "material_output" not in {node.type_name for node in loaded.graph.nodes.values()}
    # Reopened and saved again: the same bytes.
    text = example_path(name).read_text(encoding="utf-8")
    assert save_text(load_text(text.encode("utf-8")).graph) == text


@pytest.mark.parametrize("name", LIBRARY_EXAMPLES)
def test_library_examples_give_the_surface_more_than_a_colour(name: str) -> None:
    # Lit by the environment, a pattern should also drive how rough the surface is and its relief.
    graph = EXAMPLE_GRAPHS[name]()
    output = next(node for node in graph.nodes.values() if node.type_name == "surface_output")
    driven = {connection.target_port for connection in graph.connections if connection.target_node == output.id}
    assert {"base_color", "roughness", "normal"} <= driven
    assert "(Surface Output)" in example_description(name)


def test_toon_shading_stays_unlit_on_purpose_and_says_so() -> None:
    types = {node.type_name for node in EXAMPLE_GRAPHS["toon_shading"]().nodes.values()}
    assert "material_output" in types and "surface_output" not in types
    assert "unlit on purpose" in example_description("toon_shading")


def test_the_editor_opens_on_a_physically_based_material() -> None:
    types = {node.type_name for node in load_example(DEFAULT_EXAMPLE).graph.nodes.values()}
    assert "surface_output" in types and "texture_parameter" in types


def test_painted_metal_is_textures_orm_and_a_normal_map_in_about_eight_nodes() -> None:
    graph = EXAMPLE_GRAPHS["painted_metal"]()
    assert len(graph.nodes) <= 10
    spaces = {node.properties["name"]: node.properties["color_space"] for node in graph.nodes.values() if node.type_name == "texture_parameter"}
    assert spaces == {"albedo": "srgb", "orm": "linear", "normal_map": "linear"}
    types = {node.type_name for node in graph.nodes.values()}
    assert {"orm_unpack", "normal_map", "surface_output"} <= types


def _referenced_images() -> set[str]:
    images = set()
    for build in EXAMPLE_GRAPHS.values():
        for node in build().nodes.values():
            if node.type_name == "texture_parameter" and node.properties.get("image"):
                images.add(node.properties["image"])
    return images


def test_every_texture_an_example_names_is_shipped_beside_it() -> None:
    images = _referenced_images()
    assert images
    for image in images:
        assert image.startswith(f"{TEXTURES_DIRECTORY}/") and not Path(image).is_absolute()
        assert (ROOT / "resources" / "examples" / image).is_file(), image
        assert (example_path("painted_metal").parent / image).is_file(), image  # through the package's link


def test_the_textures_are_what_the_generator_makes(tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    _make_textures().generate(tmp_path, 512)
    generated = sorted(path.name for path in tmp_path.glob("*.png"))
    checked_in = ROOT / "resources" / "examples" / TEXTURES_DIRECTORY
    assert generated == sorted(path.name for path in checked_in.glob("*.png"))

    def pixels(path: Path) -> np.ndarray:
        image = QImage(str(path)).convertToFormat(QImage.Format.Format_RGB888)
        assert not image.isNull(), path
        return np.array(image.constBits(), dtype=np.uint8)[: image.sizeInBytes()].copy()

    for name in generated:
        assert (pixels(tmp_path / name) == pixels(checked_in / name)).all(), f"run tools/make_textures.py to regenerate {name}"


def test_a_built_package_ships_the_example_textures(built_package: Path) -> None:
    for image in _referenced_images():
        assert (built_package / "app" / "material" / "examples" / image).is_file(), image
