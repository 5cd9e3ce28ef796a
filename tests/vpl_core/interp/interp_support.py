"""Small helpers for the interpreter's own tests: module texts around a fragment body, one-call rendering."""

from __future__ import annotations

from typing import Any

import numpy as np

from vpl_core.interp import Program, RenderResult, fullscreen_mesh, render
from vpl_core.publish import VerifiedModule

BASE_TYPES = """
    (type Void void) (type Bool bool) (type Int int) (type Float float)
    (type Vec2 vector float 2) (type Vec3 vector float 3) (type Vec4 vector float 4)
    (type IVec2 vector int 2) (type IVec4 vector int 4) (type Sampler sampler2D)"""


def fragment_module(registers: str, body: str, *, types: str = "", uniforms: str = "", functions: str = "",
                    outputs: str = "", blocks: str = "") -> str:
    """A module whose vertex stage passes the position through and whose fragment entry runs `body`.

    The fragment stage has `frag_coord` (Position) and `color` (vec4,
    location 0); `body` is the entry block's instructions (it must end in a
    terminator), `blocks` more blocks of the entry.
    """
    return f"""(module 1
  (extensions "math")
  (types {BASE_TYPES} {types})
  (uniforms {uniforms})
  (vertex vmain
    (interface (in position "position" Vec3 0 none) (in texcoord "texcoord" Vec2 2 texcoord)
               (out clip "clip" Vec4 -1 position) (out uv "uv" Vec2 -1 texcoord))
    (functions (function vmain "vertex_main" Void (parameters) (registers (register r0 Vec3) (register r1 Vec4) (register r2 Vec2))
      (block entry (load r0 (stage position)) (construct r1 r0 (float 1.0)) (store (stage clip) r1)
                   (load r2 (stage texcoord)) (store (stage uv) r2) (return)))))
  (fragment fmain
    (interface (in frag_coord "frag_coord" Vec4 -1 position) (in uv "uv" Vec2 -1 texcoord)
               (out color "color" Vec4 0 fragment_color) {outputs})
    (functions
      (function fmain "fragment_main" Void (parameters) (registers {registers})
        (block entry {body}) {blocks})
      {functions})))"""


def run(text: str, width: int = 4, height: int = 4, *, uniforms: dict[str, Any] | None = None, tracked: bool = False,
        depth_test: bool = False) -> RenderResult:
    program = Program.from_verified(VerifiedModule.from_text(text, "test.vpl"))
    return render(program, fullscreen_mesh(), width, height, uniforms=uniforms, tracked=tracked, depth_test=depth_test)


def color(text: str, width: int = 4, height: int = 4, **options: Any) -> np.ndarray:
    """The colour output, (height, width, 4), top row first."""
    return run(text, width, height, **options).color
