"""Test support: stored images of the independent reference renderers, each with its provenance.

MaterialX's GLSL renderer (tests/mtlx_reference.py) and the Khronos glTF
Sample Viewer (tests/sample_viewer.py) draw the same image for the same
input on every run, and on llvmpipe or SwiftShader they are most of their
tests' time. Their images are stored under `tests/data/reference_renders/`
as 8-bit PNG (what the comparisons consume: sRGB-encoded 8-bit values), and
the numpy Monte Carlo estimates of the rough-metal sweep
(tests/app/preview/test_rough_metals.py: seeded, so equal on every run) as
float64 `.npy` arrays, each with a JSON manifest beside it: the renderer and its version, the settings
and a SHA-256 of every input the renderer reads (document text, textures,
environment, mesh, camera; the estimator's source, the sampled points). A test uses a stored image only when the
manifest equals the provenance of what it would render now; otherwise it
fails naming `REGENERATE` (never a skip, never a silent live render).

With the environment variable `VPL_STORE_REFERENCES=1` the tests render each
image whose stored copy is missing or stale for real and store it. Tests that
re-render cheap cases for real keep the stored set honest (docs/testing.md,
"Stored reference renders").
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "tests" / "data" / "reference_renders"
#: The one command that renders the missing and stale stored images for real (serially: `-n 0`).
REGENERATE = ("VPL_STORE_REFERENCES=1 xvfb-run -a .venv/bin/python -m pytest -n 0 -p no:cacheprovider "
              "tests/app/export/test_mtlx_reference.py tests/app/export/test_gltf_sample_viewer.py "
              "tests/app/preview/test_rough_metals.py")


def storing() -> bool:
    """Whether this run renders missing or stale reference images for real and stores them."""
    return os.environ.get("VPL_STORE_REFERENCES", "") not in ("", "0")


def digest(parts: Iterable[bytes | str]) -> str:
    """SHA-256 over `parts`, each length-prefixed so that no two different sequences hash alike."""
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()


def array_bytes(array: np.ndarray) -> bytes:
    """An array's dtype, shape and contents as bytes (for `digest`)."""
    contiguous = np.ascontiguousarray(array)
    return f"{contiguous.dtype.str}{contiguous.shape}".encode() + contiguous.tobytes()


def _paths(folder: str, key: str, suffix: str = ".png") -> tuple[Path, Path]:
    return STORE / folder / f"{key}{suffix}", STORE / folder / f"{key}.json"


def stored_provenance(folder: str, key: str) -> dict[str, Any] | None:
    """The manifest stored for `key`, or None."""
    manifest = _paths(folder, key)[1]
    if not manifest.is_file():
        return None
    provenance: dict[str, Any] = json.loads(manifest.read_text())
    return provenance


def mismatch(folder: str, key: str, provenance: dict[str, Any], suffix: str = ".png") -> str | None:
    """Why the stored image (`suffix` ".png") or array (".npy") of `key` cannot stand for a render with `provenance`
    (None when it can)."""
    image, _manifest = _paths(folder, key, suffix)
    stored = stored_provenance(folder, key)
    if stored is None or not image.is_file():
        return f"no stored reference {image.relative_to(ROOT)}"
    differing = sorted(name for name in {*stored, *provenance} if stored.get(name) != provenance.get(name))
    if differing:
        changes = "; ".join(f"{name}: stored {stored.get(name)!r}, now {provenance.get(name)!r}" for name in differing)
        return f"the stored reference {image.relative_to(ROOT)} is stale ({changes})"
    return None


def load(folder: str, key: str, provenance: dict[str, Any]) -> np.ndarray:
    """The stored 8-bit image of `key` as (h, w, 4) uint8 (opaque alpha for an RGB one), failing unless its
    manifest equals `provenance`."""
    from sample_viewer import decode_png

    problem = mismatch(folder, key, provenance)
    assert problem is None, f"{problem}: regenerate with\n    {REGENERATE}"
    return decode_png(_paths(folder, key)[0].read_bytes())


def save(folder: str, key: str, image: np.ndarray, provenance: dict[str, Any]) -> None:
    """Store `image` (8-bit values, (h, w, 3 or 4)) as `key`'s PNG, with `provenance` as its manifest."""
    from sample_viewer import png_bytes

    values = np.asarray(image)
    assert values.min() >= 0 and values.max() <= 255 and np.array_equal(values, np.round(values)), "not 8-bit values"
    png, manifest = _paths(folder, key)
    png.parent.mkdir(parents=True, exist_ok=True)
    png.write_bytes(png_bytes(values.astype(np.uint8)))
    manifest.write_text(json.dumps(provenance, indent=1, sort_keys=True) + "\n")


def load_array(folder: str, key: str, provenance: dict[str, Any]) -> np.ndarray:
    """The stored array of `key`, failing unless its manifest equals `provenance`."""
    problem = mismatch(folder, key, provenance, ".npy")
    assert problem is None, f"{problem}: regenerate with\n    {REGENERATE}"
    array: np.ndarray = np.load(_paths(folder, key, ".npy")[0], allow_pickle=False)
    return array


def save_array(folder: str, key: str, array: np.ndarray, provenance: dict[str, Any]) -> None:
    """Store `array` as `key`'s `.npy` (exact: float64 as computed), with `provenance` as its manifest."""
    data, manifest = _paths(folder, key, ".npy")
    data.parent.mkdir(parents=True, exist_ok=True)
    np.save(data, np.asarray(array), allow_pickle=False)
    manifest.write_text(json.dumps(provenance, indent=1, sort_keys=True) + "\n")
