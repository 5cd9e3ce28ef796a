"""The example materials shipped with the editor, and the code that generates them.

Each example is a graph built in code here (`EXAMPLE_GRAPHS`); the checked-in
files under `resources/examples/<name>.vpl` are exactly `save_text` of those
graphs (`write_examples` regenerates them, and a test checks they are in
sync). The files ship inside the installed package as
`app/material/examples/` (a link to `resources/examples` in the source tree)
and are read through `importlib.resources`, so nothing depends on the
working directory.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from app.material.document import LoadedDocument, load_text, save_text
from app.material.graph import MaterialGraph

EXAMPLES_PACKAGE = "app.material"
EXAMPLES_DIRECTORY = "examples"
DEFAULT_EXAMPLE = "lit_blinn_phong"


def _examples_root() -> Traversable:
    return resources.files(EXAMPLES_PACKAGE).joinpath(EXAMPLES_DIRECTORY)


def example_names() -> list[str]:
    """Names of the shipped examples (file stems), sorted."""
    root = _examples_root()
    if not root.is_dir():
        return []
    return sorted(entry.name[: -len(".vpl")] for entry in root.iterdir() if entry.name.endswith(".vpl"))


def example_path(name: str) -> Path:
    """The example's file. KeyError for an unknown name."""
    if name not in example_names():
        raise KeyError(f"no example material named {name!r}")
    entry = _examples_root().joinpath(f"{name}.vpl")
    return Path(str(entry))


def load_example(name: str) -> LoadedDocument:
    """Open a shipped example as a document (label: its file name)."""
    entry = _examples_root().joinpath(f"{name}.vpl")
    if name not in example_names():
        return LoadedDocument(message=f"no example material named {name!r}", label=f"{name}.vpl")
    return load_text(entry.read_bytes(), label=f"{name}.vpl")


# The example graphs ---------------------------------------------------------------------------
#
# Columns of 240 units left to right, rows of 140 units: roughly how an artist lays them out.


def _at(column: int, row: float) -> tuple[float, float]:
    return (column * 240.0, row * 140.0)


def textured() -> MaterialGraph:
    """A tiled texture lit by a Lambert term, with a little ambient light."""
    graph = MaterialGraph()
    texture = graph.add_node("texture_parameter", _at(0, 0), {"name": "albedo"})
    tiling = graph.add_node("tiling_offset", _at(0, 1), {"tiling": (2.0, 2.0)})
    sample = graph.add_node("sample_texture", _at(1, 0))
    lambert = graph.add_node("lambert", _at(1, 2))
    ambient = graph.add_node("float_parameter", _at(1, 3), {"name": "ambient", "default": 0.2})
    lit = graph.add_node("add", _at(2, 2))
    shade = graph.add_node("multiply", _at(3, 0))
    output = graph.add_node("material_output", _at(4, 0))
    graph.connect(texture.id, "out", sample.id, "texture")
    graph.connect(tiling.id, "out", sample.id, "uv")
    graph.connect(lambert.id, "out", lit.id, "a")
    graph.connect(ambient.id, "out", lit.id, "b")
    graph.connect(sample.id, "rgba", shade.id, "a")
    graph.connect(lit.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    # The frame's rectangle encloses its members with a margin on every side,
    # so the drawn frame (which NodeGraphQt drags nodes with) agrees with them.
    graph.add_frame("Texture", (-20.0, -42.0), (440.0, 320.0), [texture.id, tiling.id, sample.id])
    return graph


def animated() -> MaterialGraph:
    """A scrolling checker whose emissive glow pulses with time."""
    graph = MaterialGraph()
    panner = graph.add_node("panner", _at(0, 0), {"speed": (0.05, 0.02)})
    checker = graph.add_node("checker", _at(1, 0), {"scale": 6.0, "color_a": (0.15, 0.3, 0.6, 1.0)})
    time = graph.add_node("time", _at(0, 2))
    speed = graph.add_node("float_parameter", _at(0, 3), {"name": "pulse_speed", "default": 3.0, "maximum": 10.0})
    phase = graph.add_node("multiply", _at(1, 2))
    wave = graph.add_node("sin", _at(2, 2))
    positive = graph.add_node("remap", _at(3, 2), {"in_min": -1.0, "in_max": 1.0, "out_min": 0.0, "out_max": 1.0})
    glow_color = graph.add_node("color_parameter", _at(3, 3), {"name": "glow", "default": (0.6, 0.25, 0.05, 1.0)})
    glow = graph.add_node("multiply", _at(4, 2))
    lambert = graph.add_node("lambert", _at(1, 1))
    shade = graph.add_node("multiply", _at(2, 0))
    output = graph.add_node("material_output", _at(5, 0))
    graph.connect(panner.id, "out", checker.id, "uv")
    graph.connect(checker.id, "out", shade.id, "a")
    graph.connect(lambert.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    graph.connect(time.id, "out", phase.id, "a")
    graph.connect(speed.id, "out", phase.id, "b")
    graph.connect(phase.id, "out", wave.id, "x")
    graph.connect(wave.id, "out", positive.id, "x")
    graph.connect(positive.id, "out", glow.id, "a")
    graph.connect(glow_color.id, "out", glow.id, "b")
    graph.connect(glow.id, "out", output.id, "emissive")
    return graph


def procedural_noise() -> MaterialGraph:
    """Fractal noise blending two colours, like marble or clouds."""
    graph = MaterialGraph()
    noise = graph.add_node("fractal_noise", _at(0, 0), {"octaves": 6, "scale": 5.0})
    contrast = graph.add_node("smoothstep", _at(1, 0), {"edge0": 0.3, "edge1": 0.7})
    dark = graph.add_node("color_parameter", _at(1, 1), {"name": "dark", "default": (0.08, 0.1, 0.25, 1.0)})
    light = graph.add_node("color_parameter", _at(1, 2), {"name": "light", "default": (0.9, 0.92, 1.0, 1.0)})
    blend = graph.add_node("mix", _at(2, 0))
    lambert = graph.add_node("lambert", _at(2, 2))
    wrap = graph.add_node("remap", _at(3, 2), {"out_min": 0.35, "out_max": 1.0})
    shade = graph.add_node("multiply", _at(4, 0))
    output = graph.add_node("material_output", _at(5, 0))
    graph.connect(noise.id, "out", contrast.id, "x")
    graph.connect(dark.id, "out", blend.id, "a")
    graph.connect(light.id, "out", blend.id, "b")
    graph.connect(contrast.id, "out", blend.id, "t")
    graph.connect(lambert.id, "out", wrap.id, "x")
    graph.connect(blend.id, "out", shade.id, "a")
    graph.connect(wrap.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    return graph


def lit_blinn_phong() -> MaterialGraph:
    """Plastic: diffuse colour, Blinn-Phong highlight and a Fresnel rim."""
    graph = MaterialGraph()
    color = graph.add_node("color_parameter", _at(0, 0), {"name": "base_color", "default": (0.75, 0.12, 0.1, 1.0)})
    lambert = graph.add_node("lambert", _at(0, 1))
    diffuse = graph.add_node("multiply", _at(1, 0))
    shininess = graph.add_node("float_parameter", _at(0, 2), {"name": "shininess", "default": 48.0, "minimum": 1.0, "maximum": 256.0})
    specular = graph.add_node("blinn_phong", _at(1, 2))
    highlight = graph.add_node("add", _at(2, 0))
    fresnel = graph.add_node("fresnel", _at(1, 3), {"power": 4.0})
    rim_color = graph.add_node("color_parameter", _at(1, 4), {"name": "rim_color", "default": (0.3, 0.5, 1.0, 1.0)})
    rim = graph.add_node("multiply", _at(2, 3))
    output = graph.add_node("material_output", _at(3, 0))
    graph.connect(color.id, "out", diffuse.id, "a")
    graph.connect(lambert.id, "out", diffuse.id, "b")
    graph.connect(shininess.id, "out", specular.id, "shininess")
    graph.connect(diffuse.id, "out", highlight.id, "a")
    graph.connect(specular.id, "out", highlight.id, "b")
    graph.connect(highlight.id, "out", output.id, "base_color")
    graph.connect(fresnel.id, "out", rim.id, "a")
    graph.connect(rim_color.id, "out", rim.id, "b")
    graph.connect(rim.id, "out", output.id, "emissive")
    return graph


def alpha_clip() -> MaterialGraph:
    """Holes cut by noise: opacity from value noise, fragments below the threshold discarded."""
    graph = MaterialGraph()
    noise = graph.add_node("value_noise", _at(0, 0), {"scale": 12.0})
    threshold = graph.add_node("float_parameter", _at(0, 1), {"name": "clip_threshold", "default": 0.45})
    color = graph.add_node("color_parameter", _at(0, 2), {"name": "leaf_color", "default": (0.2, 0.6, 0.15, 1.0)})
    lambert = graph.add_node("lambert", _at(0, 3))
    shade = graph.add_node("multiply", _at(1, 2))
    output = graph.add_node("material_output", _at(2, 0))
    graph.connect(noise.id, "out", output.id, "opacity")
    graph.connect(threshold.id, "out", output.id, "alpha_clip")
    graph.connect(color.id, "out", shade.id, "a")
    graph.connect(lambert.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    return graph


def compare_and_branch() -> MaterialGraph:
    """Two materials split by height: an If node branches on the world-space y coordinate."""
    graph = MaterialGraph()
    position = graph.add_node("world_position", _at(0, 0))
    split = graph.add_node("split", _at(1, 0))
    height = graph.add_node("float_parameter", _at(1, 1), {"name": "split_height", "default": 0.0, "minimum": -1.0, "maximum": 1.0})
    upper = graph.add_node("color_parameter", _at(1, 2), {"name": "upper", "default": (0.95, 0.95, 0.98, 1.0)})
    checker = graph.add_node("checker", _at(1, 3), {"scale": 10.0})
    branch = graph.add_node("if", _at(2, 0), {"operator": ">"})
    lambert = graph.add_node("lambert", _at(2, 2))
    shade = graph.add_node("multiply", _at(3, 0))
    output = graph.add_node("material_output", _at(4, 0))
    graph.connect(position.id, "out", split.id, "vector")
    graph.connect(split.id, "y", branch.id, "a")
    graph.connect(height.id, "out", branch.id, "b")
    graph.connect(upper.id, "out", branch.id, "if_true")
    graph.connect(checker.id, "out", branch.id, "if_false")
    graph.connect(branch.id, "out", shade.id, "a")
    graph.connect(lambert.id, "out", shade.id, "b")
    graph.connect(shade.id, "out", output.id, "base_color")
    return graph


EXAMPLE_GRAPHS: dict[str, Callable[[], MaterialGraph]] = {
    "textured": textured,
    "animated": animated,
    "procedural_noise": procedural_noise,
    "lit_blinn_phong": lit_blinn_phong,
    "alpha_clip": alpha_clip,
    "compare_and_branch": compare_and_branch,
}


def example_text(name: str) -> str:
    """The document text the example `name` is generated as."""
    return save_text(EXAMPLE_GRAPHS[name]())


def write_examples(directory: Path | None = None) -> list[Path]:
    """Regenerate every example file (default: the source tree's resources/examples)."""
    target = directory if directory is not None else Path(__file__).resolve().parents[2] / "resources" / "examples"
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in EXAMPLE_GRAPHS:
        path = target / f"{name}.vpl"
        path.write_bytes(example_text(name).encode("utf-8"))
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in write_examples():
        print(written_path)
