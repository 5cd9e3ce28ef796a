"""The Khronos glTF Sample Viewer's renderer as a test harness: one frame of a `.glb`, read back as pixels.

The engine is the npm package `@khronosgroup/gltf-viewer` (the Khronos glTF
Sample Renderer, the engine of the Sample Viewer), pinned and installed by
scripts/bootstrap.sh into `.venv/node`; it is test-only (the editor never
loads it). `render(glb, size)` serves a small page on 127.0.0.1 (the
bundled ES module, the `.glb`, the preview's environment as `.hdr`), opens
it in headless Chromium (WebGL 2 on SwiftShader, tests/headless_chromium.py)
and gets the canvas back.

The frame matches the editor's default preview view (docs/preview.md,
"Default view"): camera on +z at `DEFAULT_DISTANCE` looking at the origin,
45° vertical field of view. Light: the environment alone (no punctual
lights; the engine prefilters the panorama at load, GGX, Charlie and
Lambertian). No tone mapping: the engine's `NONE` clamps and encodes with
a 1/2.2 gamma, which `render` turns back to linear and re-encodes with the
sRGB curve, as the preview's `none` tone mapper writes its pixels.

The engine package carries no `lut_sheen_E.png` (its Sample Viewer front
end ships it): `sheen_albedo_table` computes the same table, the directional
albedo of the engine's own sheen BRDF (Charlie distribution, the Estevez and
Kulla visibility), so KHR_materials_sheen's layering works as in the viewer.

`stored_frames` gives the frames from the stored renders
(tests/reference_store.py): a frame depends on its `.glb`, the environment,
the engine and its settings, the page's parameters and Chromium (its
SwiftShader), all in each stored frame's manifest.
"""

from __future__ import annotations

import base64
import functools
import http.server
import json
import math
import struct
import subprocess
import sys
import threading
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import reference_store
from headless_chromium import chromium, chromium_page

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / ".venv" / "node" / "node_modules" / "@khronosgroup" / "gltf-viewer"
ENGINE_VERSION = "1.1.0"
PAGE = Path(__file__).with_name("sample_viewer_page.html")

#: The engine's environment rotation (degrees about +y) that puts the editor's equirect convention on it: the
#: editor reads u = 0.5 + atan2(x, -z) / 2π, the engine u = 0.5 + atan2(z, x) / 2π before its rotation (a quarter
#: turn apart). Of 0, 90 (the engine's default), 180 and 270, 270 matches: painted metal 6.6 steps, 20 to 24 else
#: (measured with 256 Lambertian samples; 4.2 with the engine's 2048).
ENVIRONMENT_ROTATION = 270.0


#: What the harness lowers in the engine's load-time prefiltering (its `iblSampler`), which is most of the run on
#: software WebGL (SwiftShader under a shared CPU): the engine's value -> the harness's. Both tables (split-sum and
#: Charlie) are smooth and read bilinearly, so 128² is enough; the engine picks each sample's source mip from its
#: pdf (filtered importance sampling), so fewer samples blur a little more instead of adding noise. The Lambertian
#: map keeps the engine's 2048 samples: with 256 its blur brightens a smooth plastic's diffuse by about 3 8-bit
#: levels against a Monte Carlo estimate (docs/interchange.md); fewer GGX samples cost about 1 level on a smooth
#: gold and a seventh of the load.
ENGINE_SETTINGS = {
    "this.lutResolution = 1024;": "this.lutResolution = 128;",
    "this.ggxSampleCount = 1024;": "this.ggxSampleCount = 128;",
}

#: The settings of the page that checks on every run that the installed engine and Chromium still draw what they
#: drew when the frames were stored (a frame of its own, stored with these settings in its provenance): the
#: prefiltering at a fraction of `ENGINE_SETTINGS`' work, which was nearly all of that page's CPU. What it proves does
#: not depend on the settings: the engine's code, its shaders and SwiftShader draw bit for bit as before.
HONESTY_SETTINGS = {
    "this.lutResolution = 1024;": "this.lutResolution = 32;",
    "this.ggxSampleCount = 1024;": "this.ggxSampleCount = 16;",
    "this.lambertianSampleCount = 2048;": "this.lambertianSampleCount = 64;",
    "this.textureSize = 256;": "this.textureSize = 64;",
}


def engine_bundle(source: bytes, settings: dict[str, str] | None = None) -> bytes:
    """The engine's ES module as served, with `settings` (default `ENGINE_SETTINGS`) applied (nothing else changes)."""
    text = source.decode("utf-8")
    for original, lowered in (ENGINE_SETTINGS if settings is None else settings).items():
        assert text.count(original) == 1, f"the engine's iblSampler changed ({original}): review ENGINE_SETTINGS"
        text = text.replace(original, lowered)
    return text.encode("utf-8")


def engine_path() -> Path | None:
    """The installed engine's bundle directory, or None when scripts/bootstrap.sh has not installed it."""
    package = ENGINE / "package.json"
    if not package.is_file() or json.loads(package.read_text())["version"] != ENGINE_VERSION:
        return None
    return ENGINE / "dist"


def png_bytes(image: np.ndarray) -> bytes:
    """An 8-bit greyscale (h, w) or RGB/RGBA (h, w, 3|4) array as PNG bytes (top row first)."""
    image = np.ascontiguousarray(image, dtype=np.uint8)
    height, width = image.shape[:2]
    channels = 1 if image.ndim == 2 else image.shape[2]
    colour_type = {1: 0, 3: 2, 4: 6}[channels]
    rows = image.reshape(height, width * channels)
    raw = b"".join(b"\0" + row.tobytes() for row in rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def decode_png(data: bytes) -> np.ndarray:
    """A PNG (8-bit RGB or RGBA, not interlaced, as Chromium's toDataURL writes) as an (h, w, 4) uint8 array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat, header = 8, b"", b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour_type in (2, 6) and interlace == 0, (depth, colour_type, interlace)
    channels = 4 if colour_type == 6 else 3
    stride = width * channels
    raw = zlib.decompress(idat)
    out = np.zeros((height, stride), dtype=np.int32)
    previous = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], np.frombuffer(raw[start + 1 : start + 1 + stride], dtype=np.uint8).astype(np.int32)
        row = np.zeros(stride, dtype=np.int32)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + previous) & 0xFF
        else:
            for x in range(stride):
                left = row[x - channels] if x >= channels else 0
                up = previous[x]
                if kind == 1:
                    predictor = left
                elif kind == 3:
                    predictor = (left + up) // 2
                else:
                    up_left = previous[x - channels] if x >= channels else 0
                    estimate = left + up - up_left
                    pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - up_left)
                    predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
                row[x] = (line[x] + predictor) & 0xFF
        out[y] = row
        previous = row
    image = out.reshape(height, width, channels).astype(np.uint8)
    if channels == 3:
        image = np.concatenate([image, np.full((height, width, 1), 255, np.uint8)], axis=2)
    return image


def sheen_albedo_table(size: int = 32, samples: int = 96) -> np.ndarray:
    """E(N·V, sheen roughness) of the engine's sheen BRDF, 8-bit, (roughness rows, N·V columns).

    The engine's punctual sheen: D_Charlie with alpha = roughness², V_Sheen (Estevez and Kulla's lambda fit);
    E = ∫ D V (N·L) dω over the hemisphere, integrated on a midpoint grid in (cos θ, φ).
    """

    def helper(x: np.ndarray, alpha: float) -> np.ndarray:
        t = (1.0 - alpha) ** 2
        a, b, c = 21.5473 + (25.3245 - 21.5473) * t, 3.82987 + (3.32435 - 3.82987) * t, 0.19823 + (0.16801 - 0.19823) * t
        d, e = -1.97760 + (-1.27393 + 1.97760) * t, -4.32054 + (-4.85967 + 4.32054) * t
        return np.asarray(a / (1.0 + b * np.power(x, c)) + d * x + e)

    def lam(cos_theta: np.ndarray, alpha: float) -> np.ndarray:
        cos_theta = np.abs(cos_theta)
        low = np.exp(helper(cos_theta, alpha))
        high = np.exp(2.0 * helper(np.asarray(0.5), alpha) - helper(1.0 - cos_theta, alpha))
        return np.asarray(np.where(cos_theta < 0.5, low, high))

    mu_l = (np.arange(samples) + 0.5) / samples
    phi = (np.arange(2 * samples) + 0.5) / (2 * samples) * 2.0 * math.pi
    ml, ph = np.meshgrid(mu_l, phi, indexing="ij")
    sl = np.sqrt(1.0 - ml * ml)
    table = np.zeros((size, size))
    for j in range(size):
        roughness = max((j + 0.5) / size, 1e-6)
        alpha = roughness * roughness
        for i in range(size):
            mu_v = (i + 0.5) / size
            sv = math.sqrt(1.0 - mu_v * mu_v)
            half = np.stack([sl * np.cos(ph) + sv, sl * np.sin(ph), ml + mu_v])
            n_h = half[2] / np.linalg.norm(half, axis=0)
            sin2 = np.maximum(1.0 - n_h * n_h, 0.0)
            distribution = (2.0 + 1.0 / alpha) * np.power(sin2, 0.5 / alpha) / (2.0 * math.pi)
            visibility = np.clip(1.0 / ((1.0 + lam(np.asarray(mu_v), alpha) + lam(ml, alpha)) * (4.0 * mu_v * ml)), 0.0, 1.0)
            integrand = distribution * visibility * ml
            table[j, i] = integrand.mean() * 2.0 * math.pi  # dω = dcosθ dφ over [0, 1] x [0, 2π)
    return np.clip(np.round(table * 255.0), 0, 255).astype(np.uint8)


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _PageServer

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        files = self.server.files
        if path in ("/", "/index.html"):
            body, kind = PAGE.read_bytes(), "text/html"
        elif path in files:
            body, kind = files[path]
        elif path.startswith("/viewer/") and ".." not in path:
            file = self.server.engine / path[len("/viewer/") :]
            if not file.is_file():
                self.send_error(404)
                return
            body = file.read_bytes()
            if file.name == "gltf-viewer.module.js":
                body = engine_bundle(body, self.server.settings)
            kind = {".js": "text/javascript", ".wasm": "application/wasm"}.get(file.suffix, "application/octet-stream")
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        message = json.loads(self.rfile.read(length).decode("utf-8"))
        self.send_response(204)
        self.end_headers()
        if self.path == "/progress":
            self.server.progress.append((message["step"], round(message["time"] / 1000.0, 1)))
            print(f"sample viewer page: {self.server.progress[-1]}", file=sys.stderr, flush=True)
        elif not self.server.done.is_set():  # the first report counts (a late rejection may post again)
            self.server.result = message
            self.server.done.set()

    def log_message(self, *_: Any) -> None:
        pass


class _PageServer(http.server.ThreadingHTTPServer):
    def __init__(self, engine: Path, files: dict[str, tuple[bytes, str]], settings: dict[str, str]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.engine = engine
        self.files = files
        self.settings = settings
        self.result: Any = None
        self.progress: list[tuple[str, float]] = []  # (step, seconds since the page started)
        self.done = threading.Event()


_SHEEN_TABLE: bytes | None = None


def _sheen_table_png() -> bytes:
    global _SHEEN_TABLE
    if _SHEEN_TABLE is None:
        _SHEEN_TABLE = png_bytes(sheen_albedo_table())
    return _SHEEN_TABLE


def gamma_to_srgb(pixels: np.ndarray) -> np.ndarray:
    """8-bit values encoded with the engine's 1/2.2 gamma, re-encoded with the sRGB curve (8-bit)."""
    linear = np.power(pixels.astype(np.float64) / 255.0, 2.2)
    encoded = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.power(linear, 1.0 / 2.4) - 0.055)
    return np.clip(np.round(encoded * 255.0), 0, 255).astype(np.uint8)


#: Where the stored frames live, under tests/data/reference_renders/.
STORE_FOLDER = "sample_viewer"


@functools.cache
def chromium_version() -> str:
    """Chromium's own version line (its SwiftShader draws the frames)."""
    executable = chromium()
    assert executable is not None, "chromium not found (Debian package chromium, installed by scripts/bootstrap.sh)"
    done = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=60)
    return done.stdout.strip()


def page_parameters(size: int, *, distance: float, field_of_view: float, clear: tuple[int, int, int] = (0, 0, 0),
                    environment_rotation: float = ENVIRONMENT_ROTATION) -> dict[str, Any]:
    """The page's parameters for frames of `size` (`render`'s), without the models."""
    return {
        "width": size,
        "height": size,
        "yfov": math.radians(field_of_view),
        "yaw": 0.0,
        "pitch": 0.0,
        "distance": distance,
        "target": [0.0, 0.0, 0.0],
        "znear": 0.05,
        "zfar": 100.0,
        "clear": [*clear, 255],
        "environment_rotation": environment_rotation,
        "frames": 3,
    }


def provenance(glb: Path, environment: Path, parameters: dict[str, Any],
               engine_settings: dict[str, str] | None = None) -> dict[str, Any]:
    """What the engine's frame of `glb` depends on: the engine, its settings, Chromium, the page's parameters and
    a SHA-256 of the inputs (the `.glb`, the environment, the sheen table)."""
    return {"renderer": f"@khronosgroup/gltf-viewer {ENGINE_VERSION} in {chromium_version()}",
            "engine_settings": dict(ENGINE_SETTINGS if engine_settings is None else engine_settings), "page": parameters, "environment": environment.name,
            "inputs_sha256": reference_store.digest([*glb_content(glb.read_bytes()), environment.read_bytes(),
                                                     _sheen_table_png(), PAGE.read_bytes()])}


def glb_content(data: bytes) -> list[bytes | str]:
    """What a binary glTF's rendering depends on, as parts for `reference_store.digest`: its JSON without byte
    offsets and lengths, then each buffer view in order, an embedded image by its decoded pixels and every chunk
    but the compressed data (`png_content`).

    The same baked pixels compress to other bytes on another machine (the PNG encoder's output is not fixed
    across builds and CPUs, where the pixels are), and every later buffer view's offset moves with them: the
    stored frames must not go stale for bytes the engine decodes to the same image.
    """
    from app.preview.mesh_import import _glb_chunks  # the editor's own GLB reader (glTF 2.0 section 4.4)

    text, stored = _glb_chunks(data, "a stored frame's .glb")
    document = json.loads(text)
    binary = stored or b""
    views = document.get("bufferViews", [])
    images = {image["bufferView"] for image in document.get("images", []) if "bufferView" in image}
    parts: list[bytes | str] = []
    for index, view in enumerate(views):
        start = view.pop("byteOffset", 0)
        body = binary[start : start + view.pop("byteLength")]
        parts.extend(png_content(body) if index in images else [body])
    for buffer in document.get("buffers", []):
        buffer.pop("byteLength", None)
    return [json.dumps(document, sort_keys=True), *parts]


def png_content(data: bytes) -> list[bytes]:
    """A PNG's chunks but its compressed image data (type and contents: header, colour chunks...), then its decoded
    pixels (Pillow), for `glb_content`."""
    import io

    from PIL import Image

    assert data[:8] == b"\x89PNG\r\n\x1a\n", "an embedded image that is not a PNG"
    parts, position = [], 8
    while position < len(data):
        (length,) = struct.unpack_from(">I", data, position)
        kind = data[position + 4 : position + 8]
        if kind != b"IDAT":
            parts.append(kind + data[position + 8 : position + 8 + length])
        position += 12 + length
    with Image.open(io.BytesIO(data)) as image:
        parts.append(image.mode.encode() + reference_store.array_bytes(np.asarray(image)))
    return parts


def store_key(label: str) -> str:
    """The name of a labelled case's stored frame (`STORE_FOLDER`): its PNG and manifest."""
    return label.replace(" ", "_")


def stored_frames(glbs: dict[str, Path], size: int, environment: Path, *, distance: float,
                  field_of_view: float, engine_settings: dict[str, str] | None = None) -> dict[str, np.ndarray]:
    """`render`'s frame of each labelled `.glb` (with `engine_settings`, default `ENGINE_SETTINGS`) from the stored
    renders (key: the label).

    Missing or stale stored frames fail, listing them with the command that regenerates them; under
    `VPL_STORE_REFERENCES=1` they are rendered for real in one page and stored instead.
    """
    parameters = page_parameters(size, distance=distance, field_of_view=field_of_view)
    expected = {label: provenance(glb, environment, parameters, engine_settings) for label, glb in glbs.items()}
    keys = {label: store_key(label) for label in glbs}
    problems = {label: problem for label in glbs
                if (problem := reference_store.mismatch(STORE_FOLDER, keys[label], expected[label])) is not None}
    if problems and reference_store.storing():
        images, report = render([glbs[label] for label in problems], size, environment, distance=distance,
                                field_of_view=field_of_view, engine_settings=engine_settings)
        print(f"Sample Viewer: {report['renderer']}; steps {report['steps']}")
        for label, image in zip(problems, images):
            reference_store.save(STORE_FOLDER, keys[label], image, expected[label])
        problems = {}
    assert not problems, "\n".join(problems.values()) + f"\nregenerate with\n    {reference_store.REGENERATE}"
    return {label: reference_store.load(STORE_FOLDER, keys[label], expected[label]) for label in glbs}


def render(
    glbs: list[Path],
    size: int,
    environment: Path,
    *,
    distance: float,
    field_of_view: float,
    clear: tuple[int, int, int] = (0, 0, 0),
    environment_rotation: float = ENVIRONMENT_ROTATION,
    timeout: float = 1800.0,
    engine_settings: dict[str, str] | None = None,
) -> tuple[list[np.ndarray], dict[str, Any]]:
    """One frame per `.glb` (size x size RGBA uint8, top row first, sRGB-encoded) in the engine, and the page's report.

    One page loads the environment once (the engine's prefiltering is most of the time on software WebGL) and
    draws every model. `environment` is a Radiance `.hdr` panorama; the camera is on +z at `distance`, looking at
    the origin with `field_of_view` degrees vertically. The report has the WebGL renderer, each frame's camera
    (position, target) and the page's steps with their times. The environment is also drawn as the background.
    `engine_settings` (default `ENGINE_SETTINGS`) is applied to the engine's bundle.
    """
    engine = engine_path()
    assert engine is not None, f"@khronosgroup/gltf-viewer {ENGINE_VERSION} not installed (scripts/bootstrap.sh)"
    params = {**page_parameters(size, distance=distance, field_of_view=field_of_view, clear=clear,
                                environment_rotation=environment_rotation),
              "models": [f"/model{index}.glb" for index in range(len(glbs))]}
    files = {
        "/params.json": (json.dumps(params).encode(), "application/json"),
        "/environment.hdr": (environment.read_bytes(), "application/octet-stream"),
        "/lut_sheen_E.png": (_sheen_table_png(), "image/png"),
    }
    for index, glb in enumerate(glbs):
        files[f"/model{index}.glb"] = (glb.read_bytes(), "model/gltf-binary")
    server = _PageServer(engine, files, ENGINE_SETTINGS if engine_settings is None else engine_settings)
    with chromium_page(server, profile_prefix="vpl-sample-viewer-") as chromium_said:
        if not server.done.wait(timeout):
            raise AssertionError(
                f"the page posted no frames in {timeout} s (steps: {server.progress}); Chromium said:\n{chromium_said()}"
            )
        result = dict(server.result)
        if "error" in result:
            raise AssertionError(f"the Sample Viewer page failed: {result['error']}\nChromium said:\n{chromium_said()}")
    images = []
    result["cameras"] = []
    for frame in result.pop("frames"):
        image = decode_png(base64.b64decode(frame.pop("png").split(",", 1)[1]))
        image[:, :, :3] = gamma_to_srgb(image[:, :, :3])
        images.append(image)
        result["cameras"].append(frame)  # the user camera's position and target as the engine drew
    result["steps"] = list(server.progress)
    return images, result
