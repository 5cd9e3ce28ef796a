"""A CPU reference interpreter for VPL (docs/interpreter.md).

An independent second implementation of VPL's meaning: it runs a
`VerifiedModule` (never anything else) for many invocations at once with
numpy, in binary32 and int32 arithmetic, through a documented rasteriser,
so that the GLSL backend can be compared with it on arbitrary modules and
materials can be rendered on machines without a GPU.

- `Program.from_verified(verified)`: the module, materialized and prepared;
- `render(program, mesh, width, height, uniforms=..., tracked=...)`: one frame
  (`fullscreen_mesh()` for a full-screen pass, `MeshData` for any mesh);
- `Texture2D`, `SamplerState`: textures and their sampling state;
- `tracked=True`: every value carries the radius within which a conforming
  GLSL implementation's value must lie (`numeric`), for differential tests.

Modules: `lanes` (value layout), `numeric` (arithmetic and precision),
`operations` (instructions and built-ins), `texture` (sampling), `machine`
(control flow, calls, storage), `raster` (rasteriser), `pipeline` (the
frame), `png` (image files).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vpl_core.interp.lanes import InterpreterError, Value
    from vpl_core.interp.machine import Machine, Program, StageResult
    from vpl_core.interp.pipeline import MeshData, RenderResult, fullscreen_mesh, render, to_rgba8
    from vpl_core.interp.texture import Filter, SamplerState, Texture2D, Wrap

#: Public name -> defining module. Loaded on first use, so that `vpl` (whose `run`
#: command lives in `vpl_core.interp.run`) does not import numpy to parse its arguments.
_EXPORTS = {
    "InterpreterError": "lanes", "Value": "lanes",
    "Machine": "machine", "Program": "machine", "StageResult": "machine",
    "MeshData": "pipeline", "RenderResult": "pipeline", "fullscreen_mesh": "pipeline", "render": "pipeline",
    "to_rgba8": "pipeline",
    "Filter": "texture", "SamplerState": "texture", "Texture2D": "texture", "Wrap": "texture",
}  # fmt: skip

__all__ = [
    "Filter", "InterpreterError", "Machine", "MeshData", "Program", "RenderResult", "SamplerState", "StageResult",
    "Texture2D", "Value", "Wrap", "fullscreen_mesh", "render", "to_rgba8",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vpl_core.interp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"vpl_core.interp.{module}"), name)
    globals()[name] = value
    return value
