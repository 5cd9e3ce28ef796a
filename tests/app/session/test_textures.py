"""Texture files without Qt: formats (8/16-bit PNG, HDR, EXR, ...), paths relative to the document, problems."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import numpy as np
import OpenImageIO as oiio  # noqa: N813 - the library's own alias
import pytest
from bounded import python_child

from app.material.document import load_file, save_file
from app.material.graph import MaterialGraph
from app.session import EditorSession
from app.session.recovery import RecoveryStore
from app.session.textures import (
    SUPPORTED_EXTENSIONS,
    TextureCache,
    TextureLoadError,
    load_texture,
    rebase_texture_path,
    resolve_texture_path,
    stored_texture_path,
)


def write_png16(path: Path, pixels: np.ndarray) -> None:
    """A 16-bit RGB(A) PNG written from the PNG specification (no image library involved)."""
    height, width, channels = pixels.shape
    colour_type = {1: 0, 3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + pixels[row].astype(">u2").tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 16, colour_type, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_image(path: Path, pixels: np.ndarray, data_format: str) -> None:
    output = oiio.ImageOutput.create(str(path))
    assert output is not None, oiio.geterror()
    height, width, channels = pixels.shape
    assert output.open(str(path), oiio.ImageSpec(width, height, channels, data_format)), output.geterror()
    assert output.write_image(pixels), output.geterror()
    output.close()


def test_sixteen_bit_png_keeps_every_bit(tmp_path: Path) -> None:
    levels = (np.arange(4 * 5 * 3).reshape(4, 5, 3) * 1021 % 65536).astype(np.uint16)
    path = tmp_path / "height.png"
    write_png16(path, levels)
    image = load_texture(path)
    assert image.high_precision and image.pixels.shape == (4, 5, 4)
    np.testing.assert_array_equal(np.rint(image.pixels[:, :, :3] * 65535.0).astype(np.uint16), levels)
    assert (image.pixels[:, :, 3] == 1.0).all()


@pytest.mark.parametrize(("name", "data_format", "channels"), [("sky.hdr", "float", 3), ("data.exr", "half", 4),
                                                               ("data32.exr", "float", 1)])
def test_hdr_and_exr_values_come_back_unclamped(tmp_path: Path, name: str, data_format: str, channels: int) -> None:
    values = np.linspace(0.0, 40.0, 6 * 7 * channels, dtype=np.float32).reshape(6, 7, channels)
    path = tmp_path / name
    write_image(path, values, data_format)
    image = load_texture(path)
    assert image.high_precision and image.pixels.shape == (6, 7, 4)
    expected = np.repeat(values, 3, axis=2) if channels == 1 else values[:, :, :3]
    # Radiance HDR stores 8-bit mantissas with a shared exponent (about 1% relative); half floats 11 bits.
    tolerance = 0.01 if name.endswith(".hdr") else 1e-3
    np.testing.assert_allclose(image.pixels[:, :, :3], expected, rtol=tolerance, atol=tolerance)
    assert image.pixels.max() > 30.0


def test_eight_bit_images_stay_eight_bit_and_top_row_first(tmp_path: Path) -> None:
    pixels = np.zeros((2, 3, 3), np.uint8)
    pixels[0] = (255, 0, 0)  # top row red
    pixels[1] = (0, 0, 255)
    for name in ("rows.png", "rows.tga", "rows.bmp", "rows.tif"):
        write_image(tmp_path / name, pixels, "uint8")
        image = load_texture(tmp_path / name)
        assert image.pixels.dtype == np.uint8 and image.pixels.shape == (2, 3, 4), name
        assert tuple(image.pixels[0, 0]) == (255, 0, 0, 255) and tuple(image.pixels[1, 2]) == (0, 0, 255, 255), name


def test_grey_images_become_rgb(tmp_path: Path) -> None:
    write_image(tmp_path / "grey.png", np.full((2, 2, 1), 77, np.uint8), "uint8")
    assert tuple(load_texture(tmp_path / "grey.png").pixels[1, 1]) == (77, 77, 77, 255)


@pytest.mark.parametrize(("content", "name", "reason"), [
    (None, "missing.png", "no such file"),
    (b"not an image at all", "broken.png", "cannot read the image"),
    (b"#?RADIANCE\n", "truncated.hdr", "cannot read the image"),
    (b"data", "notes.txt", "not a supported image format"),
])
def test_unusable_files_say_why(tmp_path: Path, content: bytes | None, name: str, reason: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(TextureLoadError, match=reason):
        load_texture(path)


def test_the_supported_formats_are_listed() -> None:
    assert {".png", ".jpg", ".exr", ".hdr", ".tga", ".tif"} <= set(SUPPORTED_EXTENSIONS)


def test_paths_relative_to_the_document(tmp_path: Path) -> None:
    document_dir = tmp_path / "materials"
    textures = tmp_path / "textures"
    assert stored_texture_path(textures / "wood.png", document_dir) == "../textures/wood.png"
    assert stored_texture_path(document_dir / "maps" / "wood.png", document_dir) == "maps/wood.png"
    assert stored_texture_path(textures / "wood.png", None) == str(textures / "wood.png")  # never saved: absolute
    assert resolve_texture_path("../textures/wood.png", document_dir) == textures / "wood.png"
    assert resolve_texture_path("maps\\wood.png", document_dir) == document_dir / "maps" / "wood.png"
    assert resolve_texture_path(str(textures / "wood.png"), document_dir) == textures / "wood.png"
    assert rebase_texture_path("maps/wood.png", document_dir, tmp_path) == "materials/maps/wood.png"
    assert rebase_texture_path(str(textures / "a.png"), None, tmp_path) == "textures/a.png"
    assert rebase_texture_path("maps/wood.png", document_dir, None) == "maps/wood.png"


def test_the_cache_reads_a_file_again_only_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    write_image(path, np.zeros((2, 2, 3), np.uint8), "uint8")
    cache = TextureCache()
    first = cache.get(path)
    assert cache.get(path) is first and cache.reads == 1
    write_image(path, np.full((2, 2, 3), 9, np.uint8), "uint8")
    stamp = path.stat().st_mtime_ns + 10_000_000
    os.utime(path, ns=(stamp, stamp))
    assert cache.get(path) is not first and cache.reads == 2


def _textured_graph(image: str) -> MaterialGraph:
    graph = MaterialGraph()
    texture = graph.add_node("texture_parameter", (0, 0), {"name": "albedo", "image": image})
    sample = graph.add_node("sample_texture", (200, 0))
    output = graph.add_node("material_output", (400, 0))
    graph.connect(texture.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgba", output.id, "base_color")
    return graph


def test_a_document_finds_its_textures_from_any_working_directory(tmp_path: Path, monkeypatch) -> None:
    project = tmp_path / "project"
    (project / "maps").mkdir(parents=True)
    write_image(project / "maps" / "albedo.png", np.full((2, 2, 3), 200, np.uint8), "uint8")
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    session.open_graph(_textured_graph("maps/albedo.png"), project / "wood.vpl", "wood.vpl")
    monkeypatch.chdir(tmp_path)  # another working directory
    result = session.lower()
    assert result is not None and result.ok
    image = session.textures.images["albedo"]
    assert image is not None and image.path == project / "maps" / "albedo.png"
    assert session.textures.problems == []


def test_a_missing_texture_is_a_diagnostic_on_its_node(tmp_path: Path) -> None:
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    seen: list[dict] = []
    session.textures.changed.connect(seen.append)
    session.open_graph(_textured_graph("gone.png"), tmp_path / "m.vpl", "m.vpl")
    session.lower()
    (problem,) = session.textures.problems
    assert problem.node_id == "n1" and problem.category == "texture" and "gone.png: no such file" in problem.message
    assert problem in session.diagnostics
    assert session.textures.images == {"albedo": None} and seen
    # Fixing the file clears it at the next look.
    write_image(tmp_path / "gone.png", np.zeros((1, 1, 3), np.uint8), "uint8")
    graph = session.graph.copy()
    graph.nodes["n1"].position = (1.0, 1.0)
    session.update_graph(graph)
    assert session.textures.problems == [] and session.textures.images["albedo"] is not None


def test_saving_elsewhere_keeps_relative_textures_pointing_at_the_same_files(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write_image(project / "albedo.png", np.zeros((1, 1, 3), np.uint8), "uint8")
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    rewritten: list[MaterialGraph] = []
    session.graph_rewritten.connect(rewritten.append)
    session.open_graph(_textured_graph("albedo.png"), project / "m.vpl", "m.vpl")
    session.lower()
    (tmp_path / "elsewhere").mkdir()
    session.save(tmp_path / "elsewhere" / "m.vpl")
    assert session.graph.nodes["n1"].properties["image"] == "../project/albedo.png"
    assert rewritten and rewritten[0].nodes["n1"].properties["image"] == "../project/albedo.png"
    assert not session.is_modified
    session.lower()
    assert session.textures.problems == []


def test_an_untitled_document_stores_absolute_paths_and_saving_makes_them_relative(tmp_path: Path) -> None:
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    chosen = tmp_path / "maps" / "a.png"
    assert session.textures.reference(chosen) == str(chosen)
    session.open_graph(_textured_graph(str(chosen)), None, "untitled")
    session.save(tmp_path / "m.vpl")
    assert session.graph.nodes["n1"].properties["image"] == "maps/a.png"
    assert session.textures.reference(chosen) == "maps/a.png"


def test_a_texture_path_longer_than_the_platform_allows_is_a_diagnostic(tmp_path: Path) -> None:
    stored = "maps/" + "t" * 300 + ".png"  # one name over 255 bytes: the platform refuses it (ENAMETOOLONG)
    document = tmp_path / "long.vpl"
    (tmp_path / "maps").mkdir()
    save_file(document, _textured_graph(stored))
    loaded = load_file(document)
    assert loaded.graph is not None, loaded.message
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    session.open_graph(loaded.graph, document, document.name)
    session.lower()
    (problem,) = session.textures.problems
    assert problem.node_id == "n1" and "longer than this system allows" in problem.message
    assert session.textures.images == {"albedo": None}


def test_an_image_with_too_many_pixels_is_refused_from_its_header(tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    header = struct.pack(">IIBBBBB", 16000, 16000, 8, 2, 0, 0, 0)  # 256 million pixels, sides within the limit
    body = zlib.compress(b"\x00" * 100)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b""))
    with pytest.raises(TextureLoadError, match=r"16000x16000 has more than \d+ pixels"):
        load_texture(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_named_like_an_image_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.png")
    # In a child process: OpenImageIO opening a FIFO blocks while holding the interpreter.
    child = python_child(f"""
from pathlib import Path
from app.session.textures import TextureLoadError, load_texture
try:
    load_texture(Path({str(tmp_path / "pipe.png")!r}))
except TextureLoadError as error:
    print(error)
""")
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == f"{tmp_path / 'pipe.png'}: a pipe (FIFO), not a regular file"
