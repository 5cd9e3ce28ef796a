"""Function bodies: declarations, values, storage references, instructions, terminators.

Implements the non-data-flow rules of spec 5.1 (register declarations), 5
(operands and constants), 6 and 6.1 (root binding, derived paths,
permissions), 7 (instruction typing, calls and built-ins) and 8
(terminators). The data-flow layer (`dataflow.py`) runs afterwards and
relies on everything here: every register used is declared with its type,
every reference binds to a slot of its namespace with the slot's type and
has an acyclic, well-typed path, every block has a terminator whose targets
are blocks of the same function, every call names a same-stage function
with matching arguments (or a valid built-in), and discard appears only in
fragment-stage functions.

Blame: a problem with one value (an undeclared register, a constant out of
range, a bad reference path) names that value object as the subject, with
the instruction as innermost context; a typing rule across operands names
the instruction or terminator. When the offending slot holds no IR value at
all (None, a string), the holder is the subject.

Assumes the stage scope was checked first (`structure.py`): the interface,
the uniforms and every function header (name, return type, parameters,
block list) of the stage are well formed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
from vpl_core.ir.module import Block, Direction, Function, InterfaceVariable, Stage, StageKind, Uniform
from vpl_core.ir.type_rules import (
    binary_result_type,
    binary_type_error,
    construct_type_error,
    describe_type,
    swizzle_result_type,
    types_equal,
)
from vpl_core.ir.types import (
    BOOL,
    INT,
    ArrayType,
    RecordType,
    ScalarKind,
    ScalarType,
    Type,
    VoidType,
)
from vpl_core.ir.values import (
    INT32_MAX,
    INT32_MIN,
    ConstantValue,
    IndexReferenceValue,
    MemberReferenceValue,
    ReferenceValue,
    RegisterValue,
    StorageKind,
    is_float32,
)
from vpl_core.verify.errors import (
    InstructionRule,
    ObjectRule,
    ReferenceRule,
    TerminatorRule,
    ValueRule,
    VerificationError,
    VerifierRule,
    short_repr,
)
from vpl_core.verify.well_formed_types import TypeChecker

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DERIVED_CLASSES = (MemberReferenceValue, IndexReferenceValue)
_IR_VALUE_CLASSES = (RegisterValue, ConstantValue, ReferenceValue)


# The scopes below are plain slotted classes rather than dataclasses: they
# are private to one run, and a dataclass's generated methods are compiled
# at import, part of `vpl check`'s start-up.


class FunctionSignature:
    """A function header as the stage check accepted it."""

    __slots__ = ("blocks", "parameters", "return_type")

    def __init__(self, parameters: tuple[ReferenceValue, ...], return_type: Type, blocks: tuple[Block, ...]) -> None:
        self.parameters = parameters
        self.return_type = return_type
        self.blocks = blocks


class ModuleScope:
    __slots__ = ("types", "uniforms")

    def __init__(self, uniforms: tuple[Uniform, ...], types: TypeChecker) -> None:
        self.uniforms = uniforms
        self.types = types


class StageScope:
    __slots__ = ("float32_values", "interface", "judgements", "kind", "signatures", "stage")

    def __init__(
        self,
        stage: Stage,
        kind: StageKind,
        interface: tuple[InterfaceVariable, ...],
        signatures: dict[int, FunctionSignature],  # by id() of the Function: identity, not equality
    ) -> None:
        self.stage = stage
        self.kind = kind
        self.interface = interface
        self.signatures = signatures
        # Typing judgements of this run by operation and operand type objects
        # (identities: `_judgement`); a module repeats a few combinations many times.
        self.judgements: dict[tuple[Any, ...], tuple[Any, tuple[Type, ...]]] = {}
        # Float constant values already found to be finite binary32 values in this run.
        self.float32_values: set[float] = set()


def as_sequence(value: object, what: str, subject: Any, context: Sequence[Any]) -> tuple[Any, ...]:
    """A list field as a tuple snapshot; anything but a list or tuple is malformed."""
    if not isinstance(value, (list, tuple)):
        raise VerificationError(ObjectRule.NOT_A_LIST, f"{what} is not a list", subject, context)
    return tuple(value)


def _blame(value: object, context: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """Subject and context for a problem with `value` found inside `context`."""
    if isinstance(value, _IR_VALUE_CLASSES):
        return value, context
    return context[-1], context[:-1]


def _fail(kind: VerifierRule, message: str, value: object, context: tuple[Any, ...]) -> VerificationError:
    subject, outer = _blame(value, context)
    return VerificationError(kind, message, subject, outer)


_ROLES: dict[tuple[str, int, int], str] = {}


def _role(text: str, position: int = -1, operation: BinaryOperator | Builtin | None = None) -> str:
    """An operand's role in diagnostics ("left operand of add", "argument 1 of mix"), built once per spelling.

    Every operand check takes its role, but only a failing one shows it:
    formatting it afresh (with an enum's slow `value`) for each operand cost
    more than most checks themselves. The key holds the operation's
    identity: enum members hash through a Python-level `__hash__`.
    """
    key = (text, position, id(operation))
    role = _ROLES.get(key)
    if role is None:
        words = [text] if position < 0 else [text, str(position)]
        if isinstance(operation, BinaryOperator):
            words.append(operation.value)
        elif isinstance(operation, Builtin):
            words += ["of", operation.value]
        role = " ".join(words)
        if position < 64:  # bounded: a forged call can have any number of operands
            _ROLES[key] = role
    return role


def _is_int_scalar(value_type: Type) -> bool:
    return types_equal(value_type, INT)


class FunctionChecker:
    """Checks one function body; one instance per function per run."""

    def __init__(self, module: ModuleScope, stage: StageScope, function: Function) -> None:
        self.module = module
        self.stage = stage
        self.function = function
        self.signature = stage.signatures[id(function)]
        self.types = module.types
        self.accepted_types = module.types.accepted
        self.name = function.name
        self.block_ids = frozenset(id(block) for block in self.signature.blocks)
        self.registers: dict[int, Type] = {}
        # Reference paths already checked in this function, by identity: a module read without positions
        # shares one object per spelled path (`reader._SharingReader`). What a path's check depends on (the
        # registers declared so far, the parameters, the uniforms, the stage's interface) only grows while
        # a function is checked, so a path found valid once stays valid. The entry keeps the object alive.
        self.references: dict[int, tuple[ReferenceValue, ReferenceValue, Type]] = {}

    def check(self) -> None:
        for position, block in enumerate(self.signature.blocks):
            self._check_block(block, is_entry=position == 0)

    def _check_block(self, block: Block, is_entry: bool) -> None:
        function_context = (self.stage.stage, self.function)
        instructions = as_sequence(block.instructions, "block instruction list", block, function_context)
        context = (*function_context, block)
        in_prefix = is_entry
        handlers = _HANDLERS
        for instruction in instructions:
            handler = handlers.get(type(instruction))
            if handler is not None:  # `_check_instruction`'s common case, inline
                in_prefix = False
                handler(self, instruction, context)
                continue
            if isinstance(instruction, DeclareLocalInstruction):
                if not in_prefix:
                    raise VerificationError(
                        ValueRule.DECLARATION_NOT_IN_PREFIX,
                        "register declarations must form a prefix of the entry block", instruction, context
                    )
                self._declare(instruction, context)
                continue
            in_prefix = False
            self._check_instruction(instruction, context)
        self._check_terminator(block, context)

    # Registers, constants, operands ------------------------------------------------------

    def _declare(self, declaration: DeclareLocalInstruction, context: tuple[Any, ...]) -> None:
        register = declaration.register
        declared_type = declaration.type
        if type(register) is RegisterValue and register.type is declared_type:
            # The common case (a lowered material declares a register per value, of a few type objects the
            # reader shares): a new non-negative index, with the declaration's own type object, already found
            # well-formed and not void. Exactly what the checks below accept, without their messages.
            index = register.index
            if (
                type(index) is int
                and index >= 0
                and id(declared_type) in self.accepted_types
                and type(declared_type) is not VoidType
                and index not in self.registers
            ):
                self.registers[index] = declared_type
                return
        inner = (*context, declaration)
        if type(register) is not RegisterValue:
            raise _fail(ValueRule.NOT_A_REGISTER, "a declaration needs a register", register, inner)
        index = self._register_index(register, inner)
        declared = self.types.check_value_type(declaration.type, declaration, context, f"register r{index}")
        # The reader and the builder give the register its declaration's type object: checked just above.
        own = declared if register.type is declared else self.types.check_value_type(register.type, register, inner, f"register r{index}")
        if own is not declared and not types_equal(own, declared):
            raise VerificationError(
                ValueRule.REGISTER_TYPE,
                f"register r{index} has type {describe_type(own)} but is declared as {describe_type(declared)}",
                declaration,
                context,
            )
        if index in self.registers:
            raise VerificationError(ValueRule.DECLARED_TWICE, f"register r{index} is declared twice", declaration, context)
        self.registers[index] = declared

    @staticmethod
    def _register_index(register: RegisterValue, context: tuple[Any, ...]) -> int:
        index = register.index
        if type(index) is not int or index < 0:
            raise VerificationError(
                ValueRule.REGISTER_INDEX, f"register index must be a nonnegative integer, got {short_repr(index)}", register, context
            )
        return index

    def _register(self, register: object, context: tuple[Any, ...], role: str) -> Type:
        """A register use: declared, with exactly its declared type."""
        if type(register) is not RegisterValue:
            if register is None:
                raise _fail(ObjectRule.MISSING, f"{role} is missing", register, context)
            raise _fail(ValueRule.NOT_A_REGISTER, f"{role} must be a register, got {type(register).__name__}", register, context)
        index = self._register_index(register, context)
        declared = self.registers.get(index)
        if declared is not None and register.type is declared:
            # The common case (the reader and the builder reuse the declared type object):
            # the declaration's type was checked when the declaration was.
            return declared
        own = self.types.check_value_type(register.type, register, context, f"register r{index}")
        if declared is None:
            raise VerificationError(ValueRule.UNDECLARED_REGISTER, f"register r{index} is not declared", register, context)
        if not types_equal(own, declared):
            raise VerificationError(
                ValueRule.REGISTER_TYPE,
                f"register r{index} is used as {describe_type(own)} but declared as {describe_type(declared)}",
                register,
                context,
            )
        return declared

    def _constant(self, constant: ConstantValue, context: tuple[Any, ...]) -> Type:
        constant_type = self.types.check_type(constant.type, constant, context, "constant")
        if not isinstance(constant_type, ScalarType):
            raise VerificationError(
                ValueRule.CONSTANT_TYPE, f"constants must have a scalar type, got {describe_type(constant_type)}", constant, context
            )
        value = constant.value
        kind = constant_type.kind
        if kind is ScalarKind.BOOL:
            valid = type(value) is bool
            expected = "True or False"
        elif kind is ScalarKind.INT:
            valid = isinstance(value, int) and not isinstance(value, bool) and INT32_MIN <= value <= INT32_MAX
            expected = "a signed 32-bit integer"
        else:
            known = self.stage.float32_values
            valid = isinstance(value, float) and (value in known or is_float32(value))
            if valid:
                known.add(value)
            expected = "a finite binary32 value"
        if not valid:
            raise VerificationError(
                ValueRule.CONSTANT_VALUE, f"{kind.value} constant must be {expected}, got {short_repr(value)}", constant, context
            )
        return constant_type

    def _operand(self, value: object, context: tuple[Any, ...], role: str) -> Type:
        """A computation operand (spec 5): a register or a scalar constant, never a reference."""
        if type(value) is RegisterValue:
            index = value.index
            if type(index) is int:  # the common case of `_register`, inline: a declared register with its declared type
                declared = self.registers.get(index)
                if declared is not None and value.type is declared:
                    return declared
            return self._register(value, context, role)
        if type(value) is ConstantValue:
            return self._constant(value, context)
        if isinstance(value, ReferenceValue):
            raise VerificationError(
                ValueRule.REFERENCE_OPERAND,
                f"{role} must be a register or constant, not a storage reference (load it first)", value, context
            )
        if value is None:
            raise _fail(ObjectRule.MISSING, f"{role} is missing", value, context)
        raise _fail(ValueRule.NOT_AN_OPERAND, f"{role} must be a register or constant, got {type(value).__name__}", value, context)

    # Storage references ---------------------------------------------------------------------

    def _reference(self, reference: object, context: tuple[Any, ...], role: str) -> tuple[ReferenceValue, Type]:
        """A load/store path (spec 6, 6.1); returns its root and the selected stored type."""
        checked = self.references.get(id(reference))
        if checked is not None and checked[0] is reference:
            return checked[1], checked[2]
        if not isinstance(reference, ReferenceValue):
            if isinstance(reference, RegisterValue):
                raise _fail(ReferenceRule.NOT_A_REFERENCE, f"{role} must be a storage reference, not a register", reference, context)
            if isinstance(reference, ConstantValue):
                raise _fail(ReferenceRule.NOT_A_REFERENCE, f"{role} must be a storage reference, not a constant", reference, context)
            if reference is None:
                raise _fail(ObjectRule.MISSING, f"{role} is missing", reference, context)
            raise _fail(
                ReferenceRule.NOT_A_REFERENCE, f"{role} must be a storage reference, got {type(reference).__name__}", reference, context
            )

        # Walk to the root without recursion; a forged path may be cyclic.
        chain: list[ReferenceValue] = []
        seen: set[int] = set()
        current: object = reference
        while type(current) in _DERIVED_CLASSES:
            if id(current) in seen:
                raise VerificationError(ReferenceRule.CYCLIC_PATH, "reference path is cyclic", current, context)
            seen.add(id(current))
            assert isinstance(current, ReferenceValue)
            chain.append(current)
            current = current.base  # type: ignore[attr-defined]  # the loop's `type(current) in _DERIVED_CLASSES` admits only member and index references
        if type(current) is not ReferenceValue:
            if isinstance(current, ReferenceValue):
                raise VerificationError(ObjectRule.UNKNOWN_CLASS, f"unknown reference class {type(current).__name__}", current, context)
            holder = chain[-1] if chain else reference
            raise VerificationError(ReferenceRule.NO_BASE, "derived reference has no base reference", holder, context)
        assert isinstance(current, ReferenceValue)
        root = current
        stored = self._root(root, context)
        for derived in reversed(chain):
            stored = self._derived(derived, stored, context)
        self.references[id(reference)] = (reference, root, stored)
        return root, stored

    def _root(self, root: ReferenceValue, context: tuple[Any, ...]) -> Type:
        kind = root.storage_kind
        if not isinstance(kind, StorageKind):
            raise VerificationError(ObjectRule.INVALID_ENUM, "reference has no valid storage kind", root, context)
        if not kind.is_root:
            raise VerificationError(
                ReferenceRule.ROOT_STORAGE_KIND, f"a root reference cannot have storage kind {kind.value}", root, context
            )
        slot = root.slot
        if type(slot) is not int or slot < 0:
            raise VerificationError(
                ReferenceRule.SLOT, f"reference slot must be a nonnegative integer, got {short_repr(slot)}", root, context
            )
        own = self.types.check_value_type(root.type, root, context, f"{kind.value} reference")
        if kind is StorageKind.LOCAL:
            bound = self.registers.get(slot)
            if bound is None:
                raise VerificationError(ReferenceRule.UNDECLARED_LOCAL, f"local reference names undeclared register r{slot}", root, context)
            slot_name = f"register r{slot}"
        elif kind is StorageKind.PARAMETER:
            parameters = self.signature.parameters
            if slot >= len(parameters):
                raise VerificationError(
                    ReferenceRule.SLOT_OUT_OF_RANGE,
                    f"parameter reference slot {slot} is out of range: {self.name!r} has {len(parameters)} parameters",
                    root,
                    context,
                )
            bound = parameters[slot].type
            slot_name = f"parameter {slot}"
        elif kind is StorageKind.UNIFORM:
            uniforms = self.module.uniforms
            if slot >= len(uniforms):
                raise VerificationError(
                    ReferenceRule.SLOT_OUT_OF_RANGE,
                    f"uniform reference slot {slot} is out of range: the module has {len(uniforms)} uniforms",
                    root,
                    context,
                )
            bound = uniforms[slot].type
            slot_name = f"uniform {uniforms[slot].name!r}"
        else:
            interface = self.stage.interface
            if slot >= len(interface):
                raise VerificationError(
                    ReferenceRule.SLOT_OUT_OF_RANGE,
                    f"stage reference slot {slot} is out of range: the {self.stage.kind.value} stage has "
                    f"{len(interface)} interface variables",
                    root,
                    context,
                )
            bound = interface[slot].type
            slot_name = f"interface variable {interface[slot].name!r}"
        if not types_equal(own, bound):
            raise VerificationError(
                ReferenceRule.ROOT_TYPE,
                f"{kind.value} reference has type {describe_type(own)} but {slot_name} has {describe_type(bound)}",
                root,
                context,
            )
        return bound

    def _derived(self, derived: ReferenceValue, base_type: Type, context: tuple[Any, ...]) -> Type:
        is_member = type(derived) is MemberReferenceValue
        expected_kind = StorageKind.MEMBER if is_member else StorageKind.INDEX
        label = "member reference" if is_member else "index reference"
        if derived.storage_kind is not expected_kind:
            got = getattr(derived.storage_kind, "value", short_repr(derived.storage_kind))
            raise VerificationError(
                ReferenceRule.DERIVED_STORAGE_KIND, f"{label} must have storage kind {expected_kind.value}, got {got}", derived, context
            )
        if type(derived.slot) is not int or derived.slot != 0:
            raise VerificationError(
                ReferenceRule.DERIVED_SLOT, f"{label} must have slot 0, got {short_repr(derived.slot)}", derived, context
            )
        own = self.types.check_value_type(derived.type, derived, context, label)
        if isinstance(derived, MemberReferenceValue):
            field_name = derived.field_name
            if not isinstance(field_name, str):
                raise VerificationError(ReferenceRule.MEMBER_FIELD_NAME, "member reference needs a field name", derived, context)
            if not isinstance(base_type, RecordType):
                raise VerificationError(
                    ReferenceRule.MEMBER_OF_NON_RECORD,
                    f"member reference needs record storage, got {describe_type(base_type)}", derived, context
                )
            field = base_type.field_named(field_name)
            if field is None:
                raise VerificationError(
                    ReferenceRule.UNKNOWN_FIELD, f"record {base_type.name!r} has no field {field_name!r}", derived, context
                )
            selected = field.type
        else:
            assert isinstance(derived, IndexReferenceValue)
            if not isinstance(base_type, ArrayType):
                raise VerificationError(
                    ReferenceRule.INDEX_OF_NON_ARRAY,
                    f"index reference needs array storage, got {describe_type(base_type)}", derived, context
                )
            index_type = self._operand(derived.index, (*context, derived), "index")
            self._check_index(derived.index, index_type, base_type, (*context, derived))
            selected = base_type.element
        if not types_equal(own, selected):
            raise VerificationError(
                ReferenceRule.DERIVED_TYPE, f"{label} has type {describe_type(own)} but selects {describe_type(selected)}", derived, context
            )
        return selected

    @staticmethod
    def _check_index(index: object, index_type: Type, array: ArrayType, context: tuple[Any, ...]) -> None:
        if not _is_int_scalar(index_type):
            raise _fail(ValueRule.INDEX_TYPE, f"index must be an int scalar, got {describe_type(index_type)}", index, context)
        if isinstance(index, ConstantValue) and not 0 <= index.value < array.count:
            raise _fail(
                ValueRule.CONSTANT_INDEX_BOUNDS, f"constant index {index.value} is out of bounds for {describe_type(array)}", index, context
            )

    def _is_writable(self, root: ReferenceValue) -> bool:
        kind = root.storage_kind
        if kind in (StorageKind.LOCAL, StorageKind.PARAMETER):
            return True
        if kind is StorageKind.STAGE:
            return self.stage.interface[root.slot].direction is Direction.OUT
        return False

    # Instructions ---------------------------------------------------------------------------

    def _judgement(self, operation: object, operand_types: list[Type], judge: Callable[[], Any]) -> Any:
        """`judge()`, the typing rule of `operation` on these operand types, remembered for this run.

        Typing rules are pure functions of the operation and the operand types
        (and the stage, which the memo belongs to). The key holds the types'
        identities, not their values, so it never compares or hashes a type
        graph; the memo keeps the types alive so that no identity is reused.
        """
        key = (id(operation), *map(id, operand_types))  # operations are enum members or a constant: permanent
        memo = self.stage.judgements
        known = memo.get(key)
        if known is None:
            known = (judge(), tuple(operand_types))
            memo[key] = known
        return known[0]

    def _check_instruction(self, instruction: object, context: tuple[Any, ...]) -> None:
        handler = _HANDLERS.get(type(instruction))
        if handler is None:
            handler = next(
                (candidate for cls, candidate in _HANDLERS.items() if isinstance(instruction, cls)), None
            )
        if handler is None:
            if isinstance(instruction, Instruction):
                raise VerificationError(ObjectRule.UNKNOWN_CLASS, f"unknown instruction {type(instruction).__name__}", instruction, context)
            if instruction is None:
                raise VerificationError(ObjectRule.MISSING, "block holds a missing instruction (None)", context[-1], context[:-1])
            raise VerificationError(
                ObjectRule.WRONG_CLASS, f"block holds a non-instruction object {type(instruction).__name__}", context[-1], context[:-1]
            )
        handler(self, instruction, context)

    def _result(self, instruction: Any, context: tuple[Any, ...], what: str) -> Type:
        result = instruction.result
        if type(result) is RegisterValue and type(result.index) is int:
            # `_register`'s common case, inline: a declared register with its declared type.
            declared = self.registers.get(result.index)
            if declared is not None and result.type is declared:
                return declared
        if result is None:
            raise VerificationError(InstructionRule.NO_RESULT, f"{what} needs a result register", instruction, context)
        return self._register(result, (*context, instruction), "result")

    def _copy(self, instruction: CopyInstruction, context: tuple[Any, ...]) -> None:
        result = self._result(instruction, context, "copy")
        source = self._operand(instruction.source, (*context, instruction), "copy source")
        if source is not result and not types_equal(source, result):
            raise VerificationError(
                InstructionRule.RESULT_TYPE,
                f"copy needs a source of exactly the result type, got {describe_type(source)} "
                f"for a {describe_type(result)} result",
                instruction,
                context,
            )

    def _load(self, instruction: LoadInstruction, context: tuple[Any, ...]) -> None:
        result = self._result(instruction, context, "load")
        _, stored = self._reference(instruction.source, (*context, instruction), "load source")
        if stored is not result and not types_equal(stored, result):
            raise VerificationError(
                InstructionRule.RESULT_TYPE,
                f"load of {describe_type(stored)} storage needs a result of that type, got {describe_type(result)}",
                instruction,
                context,
            )

    def _store(self, instruction: StoreInstruction, context: tuple[Any, ...]) -> None:
        inner = (*context, instruction)
        root, stored = self._reference(instruction.target, inner, "store target")
        if not self._is_writable(root):
            where = "uniform storage" if root.storage_kind is StorageKind.UNIFORM else "a stage input"
            raise VerificationError(ReferenceRule.READ_ONLY, f"cannot store to {where}: it is read-only", instruction.target, inner)
        value = self._operand(instruction.value, inner, "stored value")
        if not types_equal(value, stored):
            raise VerificationError(
                InstructionRule.STORE_TYPE,
                f"store to {describe_type(stored)} storage needs exactly that type, got {describe_type(value)}",
                instruction,
                context,
            )

    def _binary(self, instruction: BinaryInstruction, context: tuple[Any, ...]) -> None:
        result = self._result(instruction, context, "binary instruction")
        operator = instruction.operator
        if not isinstance(operator, BinaryOperator):
            raise VerificationError(ObjectRule.INVALID_ENUM, "binary instruction has no valid operator", instruction, context)
        inner = (*context, instruction)
        lhs = self._operand(instruction.lhs, inner, _role("left operand of", -1, operator))
        rhs = self._operand(instruction.rhs, inner, _role("right operand of", -1, operator))
        error, expected = self._judgement(operator, [lhs, rhs], lambda: _binary_judgement(operator, lhs, rhs))
        if error is not None:
            raise VerificationError(InstructionRule.BINARY_OPERANDS, error, instruction, context)
        if result is not expected and not types_equal(result, expected):
            raise VerificationError(
                InstructionRule.RESULT_TYPE,
                f"binary {operator.value} produces {describe_type(expected)}, got a {describe_type(result)} result",
                instruction,
                context,
            )

    def _construct(self, instruction: ConstructInstruction, context: tuple[Any, ...]) -> None:
        result = self._result(instruction, context, "construct")
        target = self.types.check_type(instruction.type, instruction, context, "constructed type")
        if result is not target and not types_equal(result, target):
            raise VerificationError(
                InstructionRule.RESULT_TYPE,
                f"construct of {describe_type(target)} needs a result of that type, got {describe_type(result)}",
                instruction,
                context,
            )
        arguments = as_sequence(instruction.arguments, "construct operand list", instruction, context)
        inner = (*context, instruction)
        argument_types = [
            self._operand(argument, inner, _role("construct operand", position))
            for position, argument in enumerate(arguments)
        ]
        error = self._judgement(_CONSTRUCT, [target, *argument_types], lambda: construct_type_error(target, argument_types))
        if error is not None:
            raise VerificationError(InstructionRule.CONSTRUCT_OPERANDS, error, instruction, context)

    def _call(self, instruction: CallInstruction, context: tuple[Any, ...]) -> None:
        builtin = instruction.builtin
        if not isinstance(builtin, Builtin):
            raise VerificationError(ObjectRule.INVALID_ENUM, "call has no valid built-in selector", instruction, context)
        arguments = as_sequence(instruction.arguments, "call argument list", instruction, context)
        inner = (*context, instruction)
        if builtin is Builtin.NONE:
            self._function_call(instruction, arguments, context)
            return
        if instruction.callee is not None:
            raise VerificationError(
                InstructionRule.BUILTIN_WITH_CALLEE, f"built-in {builtin.value} call cannot name a callee function", instruction, context
            )
        argument_types = [
            self._operand(argument, inner, _role("argument", position, builtin))
            for position, argument in enumerate(arguments)
        ]
        expected = self._judgement(builtin, argument_types, lambda: _check_builtin_call(builtin, argument_types, self.stage.kind))
        if not isinstance(expected, Type):  # a BuiltinCallProblem
            raise VerificationError(expected.kind, expected.message, instruction, context)
        if instruction.result is None:
            raise VerificationError(
                InstructionRule.NO_RESULT,
                f"built-in {builtin.value} needs a result register of type {describe_type(expected)}",
                instruction,
                context,
            )
        result = self._register(instruction.result, inner, "result")
        if result is not expected and not types_equal(result, expected):
            raise VerificationError(
                InstructionRule.RESULT_TYPE,
                f"built-in {builtin.value} returns {describe_type(expected)}, got a {describe_type(result)} result",
                instruction,
                context,
            )

    def _function_call(self, instruction: CallInstruction, arguments: tuple[Any, ...], context: tuple[Any, ...]) -> None:
        callee = instruction.callee
        if callee is None:
            raise VerificationError(InstructionRule.NO_CALLEE, "function call needs a callee", instruction, context)
        if not isinstance(callee, Function):
            raise VerificationError(ObjectRule.WRONG_CLASS, f"callee is not a function, got {type(callee).__name__}", instruction, context)
        signature = self.stage.signatures.get(id(callee))
        if signature is None:
            raise VerificationError(
                InstructionRule.CALLEE_OTHER_STAGE,
                f"callee {short_repr(callee.name)} is not a function of the {self.stage.kind.value} stage",
                instruction,
                context,
            )
        name = callee.name
        parameters = signature.parameters
        if len(arguments) != len(parameters):
            raise VerificationError(
                InstructionRule.CALL_ARITY,
                f"call of {name!r} needs {len(parameters)} arguments, got {len(arguments)}", instruction, context
            )
        inner = (*context, instruction)
        for position, (argument, parameter) in enumerate(zip(arguments, parameters)):
            argument_type = self._operand(argument, inner, f"argument {position} of {name!r}")
            if not types_equal(argument_type, parameter.type):
                raise VerificationError(
                    InstructionRule.CALL_ARGUMENT_TYPE,
                    f"argument {position} of {name!r} must be {describe_type(parameter.type)}, "
                    f"got {describe_type(argument_type)}",
                    instruction,
                    context,
                )
        return_type = signature.return_type
        if isinstance(return_type, VoidType):
            if instruction.result is not None:
                raise VerificationError(
                    InstructionRule.VOID_CALL_RESULT, f"call of void function {name!r} cannot have a result register", instruction, context
                )
            return
        if instruction.result is None:
            raise VerificationError(
                InstructionRule.NO_RESULT,
                f"call of {name!r} needs a result register of type {describe_type(return_type)}", instruction, context
            )
        result = self._register(instruction.result, inner, "result")
        if not types_equal(result, return_type):
            raise VerificationError(
                InstructionRule.RESULT_TYPE,
                f"call of {name!r} returns {describe_type(return_type)}, got a {describe_type(result)} result",
                instruction,
                context,
            )

    def _swizzle(self, instruction: SwizzleInstruction, context: tuple[Any, ...]) -> None:
        result = self._result(instruction, context, "swizzle")
        source = self._operand(instruction.source, (*context, instruction), "swizzle source")
        expected = swizzle_result_type(source, instruction.pattern)
        if isinstance(expected, str):
            raise VerificationError(InstructionRule.SWIZZLE, expected, instruction, context)
        if result is not expected and not types_equal(result, expected):
            raise VerificationError(
                InstructionRule.RESULT_TYPE,
                f"swizzle {instruction.pattern!r} produces {describe_type(expected)}, "
                f"got a {describe_type(result)} result",
                instruction,
                context,
            )

    def _member(self, instruction: MemberInstruction, context: tuple[Any, ...]) -> None:
        result = self._result(instruction, context, "member")
        source = self._operand(instruction.source, (*context, instruction), "member source")
        if not isinstance(source, RecordType):
            raise VerificationError(
                InstructionRule.MEMBER_OF_NON_RECORD, f"member needs a record value, got {describe_type(source)}", instruction, context
            )
        field_name = instruction.field_name
        if not isinstance(field_name, str):
            raise VerificationError(InstructionRule.MEMBER_FIELD_NAME, "member needs a field name", instruction, context)
        field = source.field_named(field_name)
        if field is None:
            raise VerificationError(
                InstructionRule.UNKNOWN_FIELD, f"record {source.name!r} has no field {field_name!r}", instruction, context
            )
        if result is not field.type and not types_equal(result, field.type):
            raise VerificationError(
                InstructionRule.RESULT_TYPE,
                f"member {field_name!r} has type {describe_type(field.type)}, got a {describe_type(result)} result",
                instruction,
                context,
            )

    def _index(self, instruction: IndexInstruction, context: tuple[Any, ...]) -> None:
        result = self._result(instruction, context, "index")
        inner = (*context, instruction)
        source = self._operand(instruction.source, inner, "index source")
        index_type = self._operand(instruction.index, inner, "index")
        if not isinstance(source, ArrayType):
            raise VerificationError(
                InstructionRule.INDEX_OF_NON_ARRAY, f"index needs an array value, got {describe_type(source)}", instruction, context
            )
        self._check_index(instruction.index, index_type, source, inner)
        if not types_equal(result, source.element):
            raise VerificationError(
                InstructionRule.RESULT_TYPE,
                f"element of {describe_type(source)} has type {describe_type(source.element)}, "
                f"got a {describe_type(result)} result",
                instruction,
                context,
            )

    # Terminators ----------------------------------------------------------------------------

    def _check_terminator(self, block: Block, context: tuple[Any, ...]) -> None:
        terminator = block.terminator
        if terminator is None:
            raise VerificationError(TerminatorRule.MISSING, "block has no terminator", block, context[:-1])
        inner = (*context, terminator)
        if isinstance(terminator, BranchTerminator):
            self._target(terminator.target, terminator, context, "branch target")
        elif isinstance(terminator, ConditionalBranchTerminator):
            condition = self._operand(terminator.condition, inner, "branch condition")
            if not types_equal(condition, BOOL):
                raise VerificationError(
                    TerminatorRule.CONDITION_TYPE,
                    f"branch condition must be a bool scalar, got {describe_type(condition)}", terminator, context
                )
            self._target(terminator.true_target, terminator, context, "true target")
            self._target(terminator.false_target, terminator, context, "false target")
        elif isinstance(terminator, ReturnTerminator):
            self._return(terminator, context)
        elif isinstance(terminator, DiscardTerminator):
            if self.stage.kind is not StageKind.FRAGMENT:
                raise VerificationError(
                    TerminatorRule.DISCARD_OUTSIDE_FRAGMENT,
                    f"discard is only allowed in the fragment stage, not in {self.stage.kind.value} "
                    f"function {self.name!r}",
                    terminator,
                    context,
                )
        elif isinstance(terminator, Terminator):
            raise VerificationError(ObjectRule.UNKNOWN_CLASS, f"unknown terminator {type(terminator).__name__}", terminator, context)
        else:
            raise VerificationError(
                ObjectRule.WRONG_CLASS, f"block terminator is not a terminator, got {type(terminator).__name__}", block, context[:-1]
            )

    def _target(self, target: object, terminator: Terminator, context: tuple[Any, ...], role: str) -> None:
        if not isinstance(target, Block):
            raise VerificationError(TerminatorRule.TARGET_NOT_BLOCK, f"{role} is not a block", terminator, context)
        if id(target) not in self.block_ids:
            raise VerificationError(
                TerminatorRule.TARGET_OTHER_FUNCTION, f"{role} is not a block of function {self.name!r}", terminator, context
            )

    def _return(self, terminator: ReturnTerminator, context: tuple[Any, ...]) -> None:
        return_type = self.signature.return_type
        value = terminator.value
        if isinstance(return_type, VoidType):
            if value is not None:
                raise VerificationError(
                    TerminatorRule.VOID_RETURN_VALUE, f"void function {self.name!r} cannot return a value", terminator, context
                )
            return
        if value is None:
            raise VerificationError(
                TerminatorRule.MISSING_RETURN_VALUE,
                f"function {self.name!r} must return a {describe_type(return_type)} value", terminator, context
            )
        value_type = self._operand(value, (*context, terminator), "return value")
        if not types_equal(value_type, return_type):
            raise VerificationError(
                TerminatorRule.RETURN_TYPE,
                f"function {self.name!r} must return exactly {describe_type(return_type)}, "
                f"got {describe_type(value_type)}",
                terminator,
                context,
            )


def _check_builtin_call(builtin: Builtin, argument_types: list[Type], stage_kind: StageKind) -> Any:
    """`builtins.check_builtin_call`, imported when the first built-in call is checked.

    The signature tables cost a noticeable part of `vpl check`'s start-up,
    and many modules call no built-in at all.
    """
    from vpl_core.verify.builtins import check_builtin_call

    return check_builtin_call(builtin, argument_types, stage_kind)


_CONSTRUCT = "construct"  # the construct rule's key in `StageScope.judgements`


def _binary_judgement(operator: BinaryOperator, lhs: Type, rhs: Type) -> tuple[str | None, Type | None]:
    """(why the operands are not in the 7.1 table, else None; the result type when they are)."""
    error = binary_type_error(operator, lhs, rhs)
    return error, (None if error is not None else binary_result_type(operator, lhs, rhs))


if TYPE_CHECKING:
    _Handler = Callable[[FunctionChecker, Any, tuple[Any, ...]], None]

_HANDLERS: dict[type, _Handler] = {
    CopyInstruction: FunctionChecker._copy,
    LoadInstruction: FunctionChecker._load,
    StoreInstruction: FunctionChecker._store,
    BinaryInstruction: FunctionChecker._binary,
    ConstructInstruction: FunctionChecker._construct,
    CallInstruction: FunctionChecker._call,
    SwizzleInstruction: FunctionChecker._swizzle,
    MemberInstruction: FunctionChecker._member,
    IndexInstruction: FunctionChecker._index,
}
