"""One sample engine host process (tools/engine_host.py) that draws many exports, each in a fresh context.

    python tests/engine_host_runner.py        # then one JSON request per line on stdin

The tests of the engine export compare the host's picture of every example with the preview's. A
process per picture would pay Python's, numpy's and PyOpenGL's start-up (and the driver's) each time;
this runner pays it once for the module.
Each request still gets what a new host process would: a new EGL context (fresh GL state, nothing
bound, nothing left from the previous material), destroyed after its picture. It calls only the host's
own `create_context` and `render` and writes what the host's `--out` and `--raw` write, so the picture
is the host's.

A request is `{"export": ".../STEM.json", "width": W, "height": H, "variant": NAME or null,
"raw": ".../pixels.npy", "out": ".../picture.png"}`; the answer is one line, `ok` or `error: ...`
with the traceback's text (JSON-escaped), after which the runner reads the next request.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")  # before OpenGL is imported, as the host's own main does

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import engine_host


def _draw(request: dict) -> None:
    from OpenGL import EGL

    context = engine_host.create_context()
    try:
        pixels = engine_host.render(Path(request["export"]), request["width"], request["height"], request["variant"])
    finally:
        display, surface = EGL.eglGetCurrentDisplay(), EGL.eglGetCurrentSurface(EGL.EGL_DRAW)
        EGL.eglMakeCurrent(display, EGL.EGL_NO_SURFACE, EGL.EGL_NO_SURFACE, EGL.EGL_NO_CONTEXT)
        EGL.eglDestroyContext(display, context)
        EGL.eglDestroySurface(display, surface)
    engine_host.write_png(Path(request["out"]), pixels)
    np.save(request["raw"], pixels)


def main() -> int:
    for line in sys.stdin:
        try:
            _draw(json.loads(line))
            answer = "ok"
        except Exception:  # noqa: BLE001 - every failure goes back to the test, which shows it
            answer = "error: " + json.dumps(traceback.format_exc())
        print(answer, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
