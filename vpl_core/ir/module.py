"""Module containers (spec 3, 6): module, stages, functions, blocks, uniforms, interfaces."""

from __future__ import annotations

import enum
from collections.abc import Iterator

from vpl_core.ir.instructions import Instruction, Terminator
from vpl_core.ir.types import Type
from vpl_core.ir.values import ReferenceValue
from vpl_core.records import record as _record

# typing.TYPE_CHECKING without importing typing at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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


# As the instructions (instructions.py), these are `record`s that write their
# `__init__` out; those with a `repr` of their own have no generated one.

#: The default of the written `__init__`s' list and stage fields: a new empty list or stage each time, as
#: their `default_factory` gives (None passed explicitly stays None: malformed input the verifier reports).
_NEW: Any = object()


@_record(eq=False)
class Uniform:
    """A module uniform: its kind, logical name and type (slot = position in `Module.uniforms`)."""

    kind: UniformKind
    name: str
    type: Type

    def __init__(self, kind: UniformKind, name: str, type: Type) -> None:
        self.kind = kind
        self.name = name
        self.type = type


@_record(eq=False)
class InterfaceVariable:
    """A stage input or output. Location -1 means unspecified."""

    direction: Direction
    name: str
    type: Type
    location: int = -1
    semantic: Semantic = Semantic.NONE

    def __init__(self, direction: Direction, name: str, type: Type, location: int = -1,
                 semantic: Semantic = Semantic.NONE) -> None:
        self.direction = direction
        self.name = name
        self.type = type
        self.location = location
        self.semantic = semantic


@_record(eq=False, repr=False, slots=True)
class Block:
    """Ordered instructions and exactly one terminator (None only while building)."""

    instructions: list[Instruction]
    terminator: Terminator | None = None

    def __init__(self, instructions: list[Instruction] = _NEW, terminator: Terminator | None = None) -> None:
        self.instructions = [] if instructions is _NEW else instructions
        self.terminator = terminator

    def __repr__(self) -> str:
        return f"Block(0x{id(self):x}, {len(self.instructions)} instructions)"


@_record(eq=False, repr=False, slots=True)
class Function:
    """A function; `parameters[i]` is the root PARAMETER reference of slot i.

    The first block is the entry block; register declarations form a prefix
    of it.
    """

    name: str
    return_type: Type
    parameters: list[ReferenceValue]
    blocks: list[Block]

    def __init__(self, name: str, return_type: Type, parameters: list[ReferenceValue] = _NEW,
                 blocks: list[Block] = _NEW) -> None:
        self.name = name
        self.return_type = return_type
        self.parameters = [] if parameters is _NEW else parameters
        self.blocks = [] if blocks is _NEW else blocks

    @property
    def entry_block(self) -> Block | None:
        return self.blocks[0] if self.blocks else None

    def __repr__(self) -> str:
        return f"Function({self.name!r})"


@_record(eq=False, repr=False)
class Stage:
    """One stage: its interface variables, its functions and which of them is the entry point."""

    kind: StageKind
    interface: list[InterfaceVariable]
    functions: list[Function]
    entry: Function | None = None

    def __init__(self, kind: StageKind, interface: list[InterfaceVariable] = _NEW,
                 functions: list[Function] = _NEW, entry: Function | None = None) -> None:
        self.kind = kind
        self.interface = [] if interface is _NEW else interface
        self.functions = [] if functions is _NEW else functions
        self.entry = entry

    def __repr__(self) -> str:
        return f"Stage({self.kind.value})"


@_record(eq=False, repr=False)
class Module:
    """A whole program: the uniforms both stages share, the vertex stage and the fragment stage."""

    uniforms: list[Uniform]
    vertex: Stage
    fragment: Stage

    def __init__(self, uniforms: list[Uniform] = _NEW, vertex: Stage = _NEW,
                 fragment: Stage = _NEW) -> None:
        self.uniforms = [] if uniforms is _NEW else uniforms
        self.vertex = Stage(StageKind.VERTEX) if vertex is _NEW else vertex
        self.fragment = Stage(StageKind.FRAGMENT) if fragment is _NEW else fragment

    @property
    def stages(self) -> tuple[Stage, Stage]:
        return (self.vertex, self.fragment)

    def functions(self) -> Iterator[tuple[Stage, Function]]:
        for stage in self.stages:
            for function in stage.functions:
                yield stage, function

    def __repr__(self) -> str:
        return f"Module(0x{id(self):x})"
