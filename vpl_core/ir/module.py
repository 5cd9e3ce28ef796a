"""Module containers (spec 3, 6): module, stages, functions, blocks, uniforms, interfaces."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field

from vpl_core.ir.instructions import Instruction, Terminator
from vpl_core.ir.types import Type
from vpl_core.ir.values import ReferenceValue


class StageKind(enum.Enum):
    VERTEX = "vertex"
    FRAGMENT = "fragment"


class Direction(enum.Enum):
    IN = "in"
    OUT = "out"


class Semantic(enum.Enum):
    """Interface semantic tags; the value is the text spelling."""

    NONE = "none"
    POSITION = "position"
    COLOR = "color"
    TEXCOORD = "texcoord"
    FRAGMENT_COLOR = "fragment_color"


class UniformKind(enum.Enum):
    """Scalar uniforms carry a value type, record uniforms a record type,
    array uniforms an array type (element type and positive count)."""

    SCALAR = "scalar"
    RECORD = "record"
    ARRAY = "array"


@dataclass(eq=False)
class Uniform:
    """A module uniform: its kind, logical name and type (slot = position in `Module.uniforms`)."""

    kind: UniformKind
    name: str
    type: Type


@dataclass(eq=False)
class InterfaceVariable:
    """A stage input or output. Location -1 means unspecified."""

    direction: Direction
    name: str
    type: Type
    location: int = -1
    semantic: Semantic = Semantic.NONE


@dataclass(eq=False)
class Block:
    """Ordered instructions and exactly one terminator (None only while building)."""

    instructions: list[Instruction] = field(default_factory=list)
    terminator: Terminator | None = None

    def __repr__(self) -> str:
        return f"Block(0x{id(self):x}, {len(self.instructions)} instructions)"


@dataclass(eq=False)
class Function:
    """A function; `parameters[i]` is the root PARAMETER reference of slot i.

    The first block is the entry block; register declarations form a prefix
    of it.
    """

    name: str
    return_type: Type
    parameters: list[ReferenceValue] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)

    @property
    def entry_block(self) -> Block | None:
        return self.blocks[0] if self.blocks else None

    def __repr__(self) -> str:
        return f"Function({self.name!r})"


@dataclass(eq=False)
class Stage:
    """One stage: its interface variables, its functions and which of them is the entry point."""

    kind: StageKind
    interface: list[InterfaceVariable] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    entry: Function | None = None

    def __repr__(self) -> str:
        return f"Stage({self.kind.value})"


@dataclass(eq=False)
class Module:
    """A whole program: the uniforms both stages share, the vertex stage and the fragment stage."""

    uniforms: list[Uniform] = field(default_factory=list)
    vertex: Stage = field(default_factory=lambda: Stage(StageKind.VERTEX))
    fragment: Stage = field(default_factory=lambda: Stage(StageKind.FRAGMENT))

    @property
    def stages(self) -> tuple[Stage, Stage]:
        return (self.vertex, self.fragment)

    def functions(self) -> Iterator[tuple[Stage, Function]]:
        for stage in self.stages:
            for function in stage.functions:
                yield stage, function

    def __repr__(self) -> str:
        return f"Module(0x{id(self):x})"
