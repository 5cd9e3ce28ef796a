"""VPL instructions (spec 5.1, 7) and terminators (spec 8).

Plain mutable data: a builder or reader creates them, the verifier checks
them and never changes them. Each class's docstring states its typing rule;
the verifier (`vpl_core.verify`) is the executable form of those rules.
"""

from __future__ import annotations

import enum

from vpl_core.ir.types import Type
from vpl_core.ir.values import Operand, ReferenceValue, RegisterValue
from vpl_core.records import record as _record

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vpl_core.ir.module import Block, Function


class BinaryOperator(enum.Enum):
    """Arithmetic and comparison operators; the value is the text spelling."""

    ADD = "add"
    SUBTRACT = "subtract"
    MULTIPLY = "multiply"
    DIVIDE = "divide"
    EQUAL = "equal"
    NOT_EQUAL = "not_equal"
    LESS = "less"
    LESS_EQUAL = "less_equal"
    GREATER = "greater"
    GREATER_EQUAL = "greater_equal"

    @property
    def is_arithmetic(self) -> bool:
        return self in ARITHMETIC_OPERATORS

    @property
    def is_comparison(self) -> bool:
        return not self.is_arithmetic


_BUILTIN_ARITY: dict[str, int] = {
    "none": 0,
    "texture": 2,
    **dict.fromkeys(("atan2", "pow", "mod", "min", "max", "step", "dot", "cross", "distance", "reflect", "logical_and", "logical_or"), 2),
    **dict.fromkeys(("clamp", "mix", "smoothstep", "refract", "select", "texture_lod"), 3),
}

ARITHMETIC_OPERATORS = frozenset(
    {BinaryOperator.ADD, BinaryOperator.SUBTRACT, BinaryOperator.MULTIPLY, BinaryOperator.DIVIDE}
)


class Builtin(enum.Enum):
    """Built-in call selectors; the value is the text spelling.

    NONE marks a call of a module function. TEXTURE is VPL 1's only built-in
    (spec 7.3). Every other member belongs to the `math` extension
    (docs/vpl-math-extension.md) and needs `(extensions "math")` in text.
    """

    NONE = "none"
    TEXTURE = "texture"
    ABS = "abs"
    SIGN = "sign"
    FLOOR = "floor"
    CEIL = "ceil"
    FRACT = "fract"
    TRUNC = "trunc"
    ROUND_EVEN = "round_even"
    SQRT = "sqrt"
    INVERSESQRT = "inversesqrt"
    EXP = "exp"
    EXP2 = "exp2"
    LOG = "log"
    LOG2 = "log2"
    SIN = "sin"
    COS = "cos"
    TAN = "tan"
    ASIN = "asin"
    ACOS = "acos"
    ATAN = "atan"
    RADIANS = "radians"
    DEGREES = "degrees"
    NEGATE = "negate"
    ATAN2 = "atan2"
    POW = "pow"
    MOD = "mod"
    MIN = "min"
    MAX = "max"
    STEP = "step"
    CLAMP = "clamp"
    MIX = "mix"
    SMOOTHSTEP = "smoothstep"
    DOT = "dot"
    CROSS = "cross"
    LENGTH = "length"
    DISTANCE = "distance"
    NORMALIZE = "normalize"
    REFLECT = "reflect"
    REFRACT = "refract"
    SELECT = "select"
    LOGICAL_AND = "logical_and"
    LOGICAL_OR = "logical_or"
    LOGICAL_NOT = "logical_not"
    FLOAT_TO_INT = "float_to_int"
    DFDX = "dfdx"
    DFDY = "dfdy"
    FWIDTH = "fwidth"
    TEXTURE_LOD = "texture_lod"

    @property
    def arity(self) -> int:
        """The number of operands the built-in takes (its text form's operand count)."""
        return _BUILTIN_ARITY.get(self._value_, 1)  # `_value_`: the enum's `value` property is slow

    @property
    def extension(self) -> str | None:
        """The extension that provides this built-in, None for VPL 1's own."""
        return None if self in (Builtin.NONE, Builtin.TEXTURE) else "math"


# The instructions and terminators are `record`s (`vpl_core.records`: fields,
# `repr` and `replace` as a dataclass's, no method compiled at import) and
# write their `__init__` out.
# They keep their fields in slots (`slots=True`, and the bases' empty
# `__slots__`): a module holds one object per instruction, and without an
# instance dictionary each is one allocation of about half the size, which
# the reader, the copy and every pass over the instructions touch.

#: The default of the list fields' written `__init__`: a new empty list each time, as `field(default_factory=list)`
#: gives (None passed explicitly stays None: malformed input the verifier reports).
_NEW_LIST: Any = object()


class Instruction:
    """Base class of instructions. Every instruction has `result`: the destination register or None."""

    __slots__ = ()

    def operands(self) -> list[Operand]:
        """The computation operands this instruction reads (not storage paths)."""
        return []


@_record(eq=False, slots=True)
class DeclareLocalInstruction(Instruction):
    """Declares `register` with `type` (which must equal `register.type`).

    Declarations form a prefix of the function's entry block; they assign
    nothing and compute nothing.
    """

    register: RegisterValue
    type: Type

    def __init__(self, register: RegisterValue, type: Type) -> None:
        self.register = register
        self.type = type

    @property
    def result(self) -> None:
        return None


@_record(eq=False, slots=True)
class CopyInstruction(Instruction):
    """`result = source`; the source has exactly the result's type."""

    result: RegisterValue
    source: Operand

    def __init__(self, result: RegisterValue, source: Operand) -> None:
        self.result = result
        self.source = source

    def operands(self) -> list[Operand]:
        return [self.source]


@_record(eq=False, slots=True)
class LoadInstruction(Instruction):
    """`result = *source`; root or derived storage of exactly the result's type."""

    result: RegisterValue
    source: ReferenceValue

    def __init__(self, result: RegisterValue, source: ReferenceValue) -> None:
        self.result = result
        self.source = source


@_record(eq=False, slots=True)
class StoreInstruction(Instruction):
    """`*target = value`; writable storage, value of exactly the target's type."""

    target: ReferenceValue
    value: Operand

    def __init__(self, target: ReferenceValue, value: Operand) -> None:
        self.target = target
        self.value = value

    @property
    def result(self) -> None:
        return None

    def operands(self) -> list[Operand]:
        return [self.value]


@_record(eq=False, slots=True)
class BinaryInstruction(Instruction):
    """`result = lhs OP rhs` following the operand table of spec 7.1."""

    result: RegisterValue
    operator: BinaryOperator
    lhs: Operand
    rhs: Operand

    def __init__(self, result: RegisterValue, operator: BinaryOperator, lhs: Operand, rhs: Operand) -> None:
        self.result = result
        self.operator = operator
        self.lhs = lhs
        self.rhs = rhs

    def operands(self) -> list[Operand]:
        return [self.lhs, self.rhs]


@_record(eq=False, slots=True)
class CallInstruction(Instruction):
    """Call of a same-stage function (`builtin` NONE) or of a built-in (`callee` None).

    Arguments match the callee's parameters (or the built-in's signature);
    a non-void callee needs a result of its return type, a void one none.
    """

    result: RegisterValue | None
    callee: Function | None
    builtin: Builtin
    arguments: list[Operand]

    def __init__(self, result: RegisterValue | None, callee: Function | None, builtin: Builtin, arguments: list[Operand] = _NEW_LIST) -> None:
        self.result = result
        self.callee = callee
        self.builtin = builtin
        self.arguments = [] if arguments is _NEW_LIST else arguments

    def operands(self) -> list[Operand]:
        return list(self.arguments)


@_record(eq=False, slots=True)
class ConstructInstruction(Instruction):
    """Construct a value of `type` (equal to the result's type) from components (spec 7.2)."""

    result: RegisterValue
    type: Type
    arguments: list[Operand]

    def __init__(self, result: RegisterValue, type: Type, arguments: list[Operand] = _NEW_LIST) -> None:
        self.result = result
        self.type = type
        self.arguments = [] if arguments is _NEW_LIST else arguments

    def operands(self) -> list[Operand]:
        return list(self.arguments)


@_record(eq=False, slots=True)
class SwizzleInstruction(Instruction):
    """Select 1-4 `xyzw` components of a vector, in pattern order (repeats allowed)."""

    result: RegisterValue
    source: Operand
    pattern: str

    def __init__(self, result: RegisterValue, source: Operand, pattern: str) -> None:
        self.result = result
        self.source = source
        self.pattern = pattern

    def operands(self) -> list[Operand]:
        return [self.source]


@_record(eq=False, slots=True)
class MemberInstruction(Instruction):
    """Extract an existing field of a record value, with the field's declared type."""

    result: RegisterValue
    source: Operand
    field_name: str

    def __init__(self, result: RegisterValue, source: Operand, field_name: str) -> None:
        self.result = result
        self.source = source
        self.field_name = field_name

    def operands(self) -> list[Operand]:
        return [self.source]


@_record(eq=False, slots=True)
class IndexInstruction(Instruction):
    """Extract an array element with an integer scalar index; constant indices in bounds."""

    result: RegisterValue
    source: Operand
    index: Operand

    def __init__(self, result: RegisterValue, source: Operand, index: Operand) -> None:
        self.result = result
        self.source = source
        self.index = index

    def operands(self) -> list[Operand]:
        return [self.source, self.index]


class Terminator:
    """Base class of block terminators."""

    __slots__ = ()

    def successors(self) -> list[Block]:
        return []

    def operands(self) -> list[Operand]:
        return []


@_record(eq=False, slots=True)
class BranchTerminator(Terminator):
    """Transfer to `target`, a block of the same function."""

    target: Block

    def __init__(self, target: Block) -> None:
        self.target = target

    def successors(self) -> list[Block]:
        return [self.target]


@_record(eq=False, slots=True)
class ConditionalBranchTerminator(Terminator):
    """Test a bool scalar and transfer to one of two same-function blocks."""

    condition: Operand
    true_target: Block
    false_target: Block

    def __init__(self, condition: Operand, true_target: Block, false_target: Block) -> None:
        self.condition = condition
        self.true_target = true_target
        self.false_target = false_target

    def successors(self) -> list[Block]:
        return [self.true_target, self.false_target]

    def operands(self) -> list[Operand]:
        return [self.condition]


@_record(eq=False, slots=True)
class ReturnTerminator(Terminator):
    """Finish the function: no value for void functions, an exactly matching one otherwise."""

    value: Operand | None = None

    def __init__(self, value: Operand | None = None) -> None:
        self.value = value

    def operands(self) -> list[Operand]:
        return [] if self.value is None else [self.value]


@_record(eq=False, slots=True)
class DiscardTerminator(Terminator):
    """Abandon the fragment invocation; fragment stages only."""


AnyInstruction = (
    DeclareLocalInstruction
    | CopyInstruction
    | LoadInstruction
    | StoreInstruction
    | BinaryInstruction
    | CallInstruction
    | ConstructInstruction
    | SwizzleInstruction
    | MemberInstruction
    | IndexInstruction
)
