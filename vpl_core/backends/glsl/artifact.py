"""The program artifact (spec 12.1): code and reflection, immutable.

This is the contract between the GLSL backend and its hosts (the preview,
`vpl compile`, the export). Code strings carry no terminator; hosts upload
them with explicit byte lengths. `gl_name` is the exact GLSL name; for
native name queries a host appends one zero byte (`gl_name_bytes`).
`source_map` ties each line of code to the structural path of the module
object it was written for (`source_map.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vpl_core.backends.glsl.source_map import SourceMap
from vpl_core.ir.module import Direction, Semantic, UniformKind
from vpl_core.ir.types import Type

# typing.TYPE_CHECKING without importing typing at run time (about 3 ms of every `vpl compile`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class UniformBinding:
    """Where a module uniform lives in the GLSL program (reflection for hosts)."""

    name: str                 # logical (display) name from the module
    gl_name: str              # exact GLSL name: vpl_u<slot> (or the block instance for records)
    type: Type
    slot: int                 # position in the module's uniform list
    location: int             # resolved location, -1 where GL assigns it (blocks, driver-assigned)
    kind: UniformKind
    block_binding: int = -1   # std140 block binding point, -1 for non-blocks
    block_name: str | None = None  # vpl_Block<slot> for record uniforms
    block_size: int = -1      # std140 data size in bytes (GL_UNIFORM_BLOCK_DATA_SIZE), -1 for non-blocks

    @property
    def gl_name_bytes(self) -> bytes:
        return self.gl_name.encode("ascii") + b"\0"


@dataclass(frozen=True)
class InterfaceBinding:
    """Where a stage interface variable lives in the GLSL program (reflection for hosts)."""

    name: str
    gl_name: str              # vpl_attribute<loc> / vpl_varying<loc> / vpl_output<loc> / gl_Position / gl_FragCoord
    type: Type
    slot: int                 # position in the stage's interface list
    location: int             # resolved location, -1 for Position
    direction: Direction
    semantic: Semantic

    @property
    def gl_name_bytes(self) -> bytes:
        return self.gl_name.encode("ascii") + b"\0"


@dataclass(frozen=True)
class ProgramArtifact:
    """A compiled program: both stages' GLSL, the reflection of its bindings and the source map."""

    target: str               # "glsl420", later "es300" / "es320"
    version: int              # 420, 300, 320
    vertex_code: str
    fragment_code: str
    uniforms: tuple[UniformBinding, ...]
    vertex_interface: tuple[InterfaceBinding, ...]
    fragment_interface: tuple[InterfaceBinding, ...]
    fragment_color_output: str        # GLSL name of the primary fragment colour output
    fragment_color_location: int
    extra: tuple[tuple[str, Any], ...] = field(default=())
    #: Which module object every line of `vertex_code` and `fragment_code` was written for (source_map.py).
    source_map: SourceMap = field(default=SourceMap())
    #: The `VerifiedModule` this was compiled from (set by `compile`; None for `generate` on a bare module).
    #: Hosts that run the module themselves (the CPU preview, `vpl_core.interp`) take it from here.
    source: Any = field(default=None, compare=False, repr=False)

    def uniform(self, name: str) -> UniformBinding | None:
        for binding in self.uniforms:
            if binding.name == name:
                return binding
        return None
