"""A builder API for making VPL modules in code (used by the material lowering and tests).

The builder only constructs objects; it checks nothing the verifier checks.
`FunctionBuilder` allocates registers (declared in the entry block's
prefix), creates blocks, and appends instructions at an insertion block.
Result-producing emitters allocate a fresh register when no `result` is given
and return the destination register.

Declarations and the entry block's body: a register declared after code was
emitted into the entry block must still go before that code (spec 5: the
declarations are the block's prefix). Inserting each one there moves the
whole body, which is quadratic for a function that declares as it emits (a
material lowering: n declarations interleaved with n instructions). A
builder made with `defer_declarations=True` keeps its declarations aside and
splices them into place once, in `finish()`; until then the function is
incomplete. Without the flag every declaration is inserted at once, as
before, and `finish()` does nothing.

Example::

    module = Module()
    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    main = fragment.function("main", VOID, entry=True)
    value = main.construct(vec(4), main.f(0.0), main.f(1.0), main.f(0.0), main.f(1.0))
    main.store(color, value)
    main.ret()
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from vpl_core.ir.instructions import (
    BinaryInstruction,
    BinaryOperator,
    BranchTerminator,
    Builtin,
    CallInstruction,
    ConditionalBranchTerminator,
    ConstructInstruction,
    CopyInstruction,
    DeclareLocalInstruction,
    DiscardTerminator,
    IndexInstruction,
    Instruction,
    LoadInstruction,
    MemberInstruction,
    ReturnTerminator,
    StoreInstruction,
    SwizzleInstruction,
    Terminator,
)
from vpl_core.ir.module import (
    Block,
    Direction,
    Function,
    InterfaceVariable,
    Module,
    Semantic,
    Stage,
    Uniform,
    UniformKind,
)
from vpl_core.ir.type_rules import binary_result_type
from vpl_core.ir.types import VOID, ArrayType, Field, RecordType, ScalarType, Type, VectorType, vec
from vpl_core.ir.values import (
    ConstantValue,
    IndexReferenceValue,
    MemberReferenceValue,
    Operand,
    ReferenceValue,
    RegisterValue,
    StorageKind,
)


def record(name: str, fields: Iterable[tuple[str, Type]]) -> RecordType:
    """A new record declaration (a distinct nominal type every call)."""
    return RecordType(name, [Field(field_name, field_type) for field_name, field_type in fields])


def add_uniform(module: Module, name: str, type: Type) -> ReferenceValue:
    """Append a uniform of the kind its type implies and return its root reference."""
    if isinstance(type, RecordType):
        kind = UniformKind.RECORD
    elif isinstance(type, ArrayType):
        kind = UniformKind.ARRAY
    else:
        kind = UniformKind.SCALAR
    module.uniforms.append(Uniform(kind, name, type))
    return ReferenceValue(StorageKind.UNIFORM, len(module.uniforms) - 1, type)


def member(base: ReferenceValue, field_name: str) -> MemberReferenceValue:
    """A member reference whose type is looked up in the base's record type."""
    base_type = base.type
    if not isinstance(base_type, RecordType):
        raise TypeError(f"member reference needs record storage, not {base_type}")
    selected = base_type.field_named(field_name)
    if selected is None:
        raise KeyError(f"record {base_type.name!r} has no field {field_name!r}")
    return MemberReferenceValue.create(base, field_name, selected.type)


def element(base: ReferenceValue, index: Operand | int) -> IndexReferenceValue:
    """An index reference whose type is the base array's element type."""
    base_type = base.type
    if not isinstance(base_type, ArrayType):
        raise TypeError(f"index reference needs array storage, not {base_type}")
    if isinstance(index, int):
        index = ConstantValue.of_int(index)
    return IndexReferenceValue.create(base, index, base_type.element)


class StageBuilder:
    """Adds interface variables and functions to a stage."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage

    def _interface(
        self, direction: Direction, name: str, type: Type, location: int, semantic: Semantic
    ) -> ReferenceValue:
        self.stage.interface.append(InterfaceVariable(direction, name, type, location, semantic))
        return ReferenceValue(StorageKind.STAGE, len(self.stage.interface) - 1, type)

    def input(
        self, name: str, type: Type, location: int = -1, semantic: Semantic = Semantic.NONE
    ) -> ReferenceValue:
        return self._interface(Direction.IN, name, type, location, semantic)

    def output(
        self, name: str, type: Type, location: int = -1, semantic: Semantic = Semantic.NONE
    ) -> ReferenceValue:
        return self._interface(Direction.OUT, name, type, location, semantic)

    def function(
        self,
        name: str,
        return_type: Type = VOID,
        parameters: Sequence[Type] = (),
        entry: bool = False,
    ) -> FunctionBuilder:
        function = Function(
            name,
            return_type,
            [ReferenceValue(StorageKind.PARAMETER, slot, type) for slot, type in enumerate(parameters)],
        )
        self.stage.functions.append(function)
        if entry:
            self.stage.entry = function
        return FunctionBuilder(function)


class FunctionBuilder:
    """Builds one function: registers, blocks and instructions at an insertion point."""

    def __init__(self, function: Function, *, defer_declarations: bool = False) -> None:
        self.function = function
        if not function.blocks:
            function.blocks.append(Block())
        self.entry = function.blocks[0]
        self.block: Block = self.entry
        self._declared = sum(
            1 for instruction in self.entry.instructions if isinstance(instruction, DeclareLocalInstruction)
        )
        self._next_register = 0
        for instruction in self.entry.instructions:
            if isinstance(instruction, DeclareLocalInstruction):
                self._next_register = max(self._next_register, instruction.register.index + 1)
        #: Declarations not yet in the entry block (None: each is inserted at once; see the module docstring).
        self._pending: list[Instruction] | None = [] if defer_declarations else None
        #: The declaration the last `register` call made (builders that track provenance record it).
        self.last_declaration: DeclareLocalInstruction | None = None

    # Registers, parameters, blocks ------------------------------------------------------

    def register(self, type: Type, index: int | None = None) -> RegisterValue:
        """Declare a register (in the entry block's declaration prefix; deferred ones at `finish`)."""
        if index is None:
            index = self._next_register
        self._next_register = max(self._next_register, index + 1)
        register = RegisterValue(index, type)
        declaration = DeclareLocalInstruction(register, type)
        self.last_declaration = declaration
        if self._pending is not None:
            self._pending.append(declaration)
        else:
            self.entry.instructions.insert(self._declared, declaration)
            self._declared += 1
        return register

    def finish(self) -> Function:
        """Put the deferred declarations in place, in one splice (idempotent); returns the function.

        Registers declared after a `finish` are deferred again until the next one.
        """
        if self._pending:
            self.entry.instructions[self._declared:self._declared] = self._pending
            self._declared += len(self._pending)
            self._pending = []
        return self.function

    def parameter(self, slot: int) -> ReferenceValue:
        return self.function.parameters[slot]

    def new_block(self) -> Block:
        block = Block()
        self.function.blocks.append(block)
        return block

    def position_at(self, block: Block) -> None:
        self.block = block

    @property
    def is_terminated(self) -> bool:
        return self.block.terminator is not None

    # Constants --------------------------------------------------------------------------

    @staticmethod
    def f(value: float) -> ConstantValue:
        return ConstantValue.of_float(value)

    @staticmethod
    def i(value: int) -> ConstantValue:
        return ConstantValue.of_int(value)

    @staticmethod
    def b(value: bool) -> ConstantValue:
        return ConstantValue.of_bool(value)

    # Instructions -----------------------------------------------------------------------

    def emit(self, instruction: Instruction) -> Instruction:
        self.block.instructions.append(instruction)
        return instruction

    def _destination(self, type: Type, result: RegisterValue | None) -> RegisterValue:
        return result if result is not None else self.register(type)

    def copy(self, source: Operand, result: RegisterValue | None = None) -> RegisterValue:
        destination = self._destination(source.type, result)
        self.emit(CopyInstruction(destination, source))
        return destination

    def load(self, source: ReferenceValue, result: RegisterValue | None = None) -> RegisterValue:
        destination = self._destination(source.type, result)
        self.emit(LoadInstruction(destination, source))
        return destination

    def store(self, target: ReferenceValue, value: Operand) -> None:
        self.emit(StoreInstruction(target, value))

    def binary(
        self,
        operator: BinaryOperator,
        lhs: Operand,
        rhs: Operand,
        result_type: Type | None = None,
        result: RegisterValue | None = None,
    ) -> RegisterValue:
        """Emit a binary instruction; the result type defaults to the operator's typing rule."""
        if result is None:
            if result_type is None:
                result_type = binary_result_type(operator, lhs.type, rhs.type)
                if result_type is None:
                    raise TypeError(f"{operator.value} is not defined for {lhs.type} and {rhs.type}")
            result = self.register(result_type)
        self.emit(BinaryInstruction(result, operator, lhs, rhs))
        return result

    def add(self, lhs: Operand, rhs: Operand, result: RegisterValue | None = None) -> RegisterValue:
        return self.binary(BinaryOperator.ADD, lhs, rhs, result=result)

    def subtract(self, lhs: Operand, rhs: Operand, result: RegisterValue | None = None) -> RegisterValue:
        return self.binary(BinaryOperator.SUBTRACT, lhs, rhs, result=result)

    def multiply(self, lhs: Operand, rhs: Operand, result: RegisterValue | None = None) -> RegisterValue:
        return self.binary(BinaryOperator.MULTIPLY, lhs, rhs, result=result)

    def divide(self, lhs: Operand, rhs: Operand, result: RegisterValue | None = None) -> RegisterValue:
        return self.binary(BinaryOperator.DIVIDE, lhs, rhs, result=result)

    def construct(self, type: Type, *arguments: Operand, result: RegisterValue | None = None) -> RegisterValue:
        destination = self._destination(type, result)
        self.emit(ConstructInstruction(destination, type, list(arguments)))
        return destination

    def call(
        self, callee: Function, *arguments: Operand, result: RegisterValue | None = None
    ) -> RegisterValue | None:
        destination = None
        if not callee.return_type.is_void:
            destination = self._destination(callee.return_type, result)
        self.emit(CallInstruction(destination, callee, Builtin.NONE, list(arguments)))
        return destination

    def call_builtin(
        self, builtin: Builtin, result_type: Type, *arguments: Operand, result: RegisterValue | None = None
    ) -> RegisterValue:
        destination = self._destination(result_type, result)
        self.emit(CallInstruction(destination, None, builtin, list(arguments)))
        return destination

    def texture(self, sampler: Operand, coordinates: Operand, result: RegisterValue | None = None) -> RegisterValue:
        return self.call_builtin(Builtin.TEXTURE, vec(4), sampler, coordinates, result=result)

    def swizzle(self, source: Operand, pattern: str, result: RegisterValue | None = None) -> RegisterValue:
        if result is None:
            kind = source.type.kind  # type: ignore[attr-defined]  # a vector source: the verifier checks it
            result_type: Type = ScalarType(kind) if len(pattern) == 1 else VectorType(kind, len(pattern))
            result = self.register(result_type)
        self.emit(SwizzleInstruction(result, source, pattern))
        return result

    def member(self, source: Operand, field_name: str, result: RegisterValue | None = None) -> RegisterValue:
        if result is None:
            record_type = source.type
            assert isinstance(record_type, RecordType)
            selected = record_type.field_named(field_name)
            assert selected is not None, field_name
            result = self.register(selected.type)
        self.emit(MemberInstruction(result, source, field_name))
        return result

    def index(self, source: Operand, index: Operand, result: RegisterValue | None = None) -> RegisterValue:
        if result is None:
            array_type = source.type
            assert isinstance(array_type, ArrayType)
            result = self.register(array_type.element)
        self.emit(IndexInstruction(result, source, index))
        return result

    # Terminators ------------------------------------------------------------------------

    def terminate(self, terminator: Terminator) -> None:
        self.block.terminator = terminator

    def branch(self, target: Block) -> None:
        self.terminate(BranchTerminator(target))

    def branch_if(self, condition: Operand, true_target: Block, false_target: Block) -> None:
        self.terminate(ConditionalBranchTerminator(condition, true_target, false_target))

    def ret(self, value: Operand | None = None) -> None:
        self.terminate(ReturnTerminator(value))

    def discard(self) -> None:
        self.terminate(DiscardTerminator())
