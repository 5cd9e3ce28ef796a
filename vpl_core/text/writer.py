"""The canonical VPL writer (spec 11): a module to deterministic text.

`write` verifies the module, emits canonical text and reads that text back
through the reader (which verifies again) before returning it, so whatever
it returns is a valid module text and ``write(read(write(m))) == write(m)``.
`write_read` also returns the module read back, so that the publication
keeps it instead of parsing the same text again; when the caller has just
read the module from text that already is canonical, that first read is the
read-back.

Canonical ids:

* types ``t0, t1, ...`` in first-discovery order. The traversal visits, in
  order: each uniform's declared type (for an array uniform its element
  type, since the text names the element), then per stage (vertex, then
  fragment) each interface variable's type, then per function its return
  type, its parameter types and its register declaration types. A type is
  numbered when first reached and its components are then visited
  depth-first in pre-order (record fields in order, array element). One
  declaration per `RecordType` object (nominal identity), one per
  structurally equal non-record type. Unused declarations are not kept.
* uniforms ``u<i>``, interface variables ``s<i>``, functions ``f<i>``,
  parameters ``p<i>``, blocks ``b<i>``: list positions. Register numbers
  are preserved (``r<index>``).

Layout: LF line endings, two-space indentation as in the spec examples;
`types`, `uniforms`, `interface` and `functions` put each item on its own
line, `parameters` and `registers` stay on one line with at most two items,
each instruction is one line, closing parentheses gather at the end of the
last line. Strings use double quotes; backslash, double quote and every
control character (C0, DEL, C1) are escaped, controls as ``\\uXXXX``. Floats
use the shortest binary32 round-trip spelling (`floats.format_float32`).

Derived reference paths deeper than `MAX_REFERENCE_DEPTH` (spec 10.2: 120)
and types whose dependency paths exceed the reader's 128 edges cannot be
written; like anything else the writer cannot express, that is a
SemanticError naming the offending object (never a RecursionError, however
deep the in-memory graph).
"""

from __future__ import annotations

import re

from vpl_core.diagnostics import SemanticError
from vpl_core.ir.instructions import (
    BinaryInstruction,
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
from vpl_core.ir.module import Block, Function, Module, Stage, UniformKind
from vpl_core.ir.types import (
    ArrayType,
    MatrixType,
    RecordType,
    SamplerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
    VoidType,
)
from vpl_core.ir.values import (
    INT32_MAX,
    INT32_MIN,
    ConstantValue,
    IndexReferenceValue,
    MemberReferenceValue,
    ReferenceSpellings,
    ReferenceValue,
    RegisterValue,
    StorageKind,
    float32_bits,
)
from vpl_core.text.errors import WriterRule
from vpl_core.text.floats import format_float32
from vpl_core.text.parser import same_tokens
from vpl_core.text.reader import MAX_TYPE_DEPTH, SIZE_MAX, collector_paused, read
from vpl_core.verify import Verifier

# typing.TYPE_CHECKING without importing typing at run time (about 3 ms of every `vpl compile`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_REFERENCE_DEPTH = 120
"""Derived reference selectors per path, so that written forms fit the reader's nesting bound."""

INDENT = "  "
_INLINE_LIST_LIMIT = 2

_NEEDS_ESCAPE = re.compile(r'[\x00-\x1f\x7f-\x9f"\\]')
_SURROGATE = re.compile("[\ud800-\udfff]")


def write(module: Module) -> str:
    """Verify `module` and return its canonical text (read back and verified before returning)."""
    return write_read(module)[0]


def emit(module: Module) -> str:
    """The canonical text of `module`, neither verified before nor read back after.

    Internal to publication (`VerifiedModule.from_unverified_read`), which
    reads the text back through the verifier itself. Raises SemanticError for
    what the format cannot express.
    """
    return _Writer(module).write()


def write_read(module: Module, *, verified: bool = False, source_text: str | None = None) -> tuple[str, Module]:
    """The canonical text of `module` and the verified module read back from it.

    The read-back is what proves the text valid (spec 11); callers that need
    a module of the canonical text (the publication's private snapshot) take
    it instead of reading the text once more.

    `verified=True` skips the verification before writing; only for a module
    the caller has just read or verified and that nothing has mutated since
    (the text is still read back and verified). `source_text`: the decoded
    text `module` was read from; when the canonical text equals it, or
    differs from it only in trivia (`parser.same_tokens`: the same tokens),
    that first read is the read-back (the same forms through the same reader
    and verifier) and `module` itself is returned.
    """
    with collector_paused():  # see collector_paused: the same reasoning holds for writing
        if not verified:
            Verifier().run(module)
        text = _Writer(module).write()
        if source_text is not None and (text == source_text or same_tokens(text, source_text)):
            return text, module
        return text, read(text, label="<canonical text>")


def quote(text: str) -> str:
    """A double-quoted VPL string literal for `text`.

    A lone surrogate (possible in a Python str) is no Unicode scalar value:
    neither UTF-8 nor a \\u escape can carry it (spec 10.1), so it is a
    SemanticError like anything else the format cannot express.
    """
    surrogate = _SURROGATE.search(text)
    if surrogate is not None:
        raise _fail(
            WriterRule.LONE_SURROGATE,
            f"the string {text!r} cannot be written: it contains the lone surrogate"
            f" U+{ord(surrogate.group(0)):04X}, which is not a Unicode scalar value",
            None,
        )
    if _NEEDS_ESCAPE.search(text) is None:
        return f'"{text}"'
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def _escape(match: re.Match[str]) -> str:
    character = match.group(0)
    if character in '"\\':
        return "\\" + character
    return f"\\u{ord(character):04x}"


def _fail(kind: WriterRule, message: str, subject: object) -> SemanticError:
    return SemanticError(kind, message, subject)


class _Writer:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.type_ids: dict[Type, str] = {}
        self.type_order: list[Type] = []
        self.type_depths: dict[int, int] = {}
        # The module's type objects by identity (the module keeps them alive, so their ids stay theirs): a
        # lowered material declares a register per value, of a few shared type objects, and `type_ids` is keyed
        # by value (hashing a type runs Python code). Roots already discovered, and type ids already looked up.
        self.discovered: set[int] = set()
        self.type_ids_by_identity: dict[int, str] = {}
        self.lines: list[str] = []

    # Types -----------------------------------------------------------------------------

    def _check_type_depth(self, root: Type, subject: object) -> None:
        """Reject recursive types and dependency paths the reader would refuse (over MAX_TYPE_DEPTH edges).

        Iterative and memoized by identity, so that even absurdly deep
        in-memory types neither recurse nor get hashed (hashing a nested
        structural type recurses) before they are known to be shallow.
        """
        depths = self.type_depths
        if id(root) in depths:
            return
        on_path: set[int] = set()
        # Frames hold their type's component list, computed once: recomputing it
        # per step made a record of n fields cost O(n^2).
        stack: list[list[Any]] = [[root, _component_types(root), 0]]
        on_path.add(id(root))
        while stack:
            frame = stack[-1]
            value_type, children, next_child = frame
            if next_child < len(children):
                frame[2] = next_child + 1
                child = children[next_child]
                if id(child) in on_path:
                    raise _fail(WriterRule.NOT_EXPRESSIBLE, "a recursive type cannot be written", subject)
                if id(child) not in depths:
                    on_path.add(id(child))
                    stack.append([child, _component_types(child), 0])
                continue
            stack.pop()
            on_path.discard(id(value_type))
            depth = max((depths[id(child)] + 1 for child in children), default=0)
            if depth > MAX_TYPE_DEPTH:
                raise _fail(
                    WriterRule.TYPE_DEPTH,
                    f"a type with a dependency path of {depth} edges cannot be written (at most {MAX_TYPE_DEPTH})",
                    subject,
                )
            depths[id(value_type)] = depth

    def _discover(self, root: Type, subject: object) -> None:
        if id(root) in self.discovered:
            return  # this object, its depth checked and its components numbered
        self._check_type_depth(root, subject)
        # Explicit stack, pre-order: a type is numbered before its components.
        stack = [root]
        while stack:
            value_type = stack.pop()
            if value_type in self.type_ids:
                continue
            self.type_ids[value_type] = f"t{len(self.type_order)}"
            self.type_order.append(value_type)
            if isinstance(value_type, RecordType):
                stack.extend(field.type for field in reversed(value_type.fields))
            elif isinstance(value_type, ArrayType):
                stack.append(value_type.element)
        self.discovered.add(id(root))

    def _discover_module_types(self) -> None:
        for uniform in self.module.uniforms:
            if uniform.kind is UniformKind.ARRAY and isinstance(uniform.type, ArrayType):
                self._discover(uniform.type.element, uniform)
            else:
                self._discover(uniform.type, uniform)
        for stage in self.module.stages:
            for variable in stage.interface:
                self._discover(variable.type, variable)
            for function in stage.functions:
                self._discover(function.return_type, function)
                for parameter in function.parameters:
                    self._discover(parameter.type, function)
                for declaration in _declarations(function):
                    self._discover(declaration.type, declaration)

    def _type_id(self, value_type: Type) -> str:
        type_id = self.type_ids_by_identity.get(id(value_type))
        if type_id is None:
            type_id = self.type_ids_by_identity[id(value_type)] = self.type_ids[value_type]
        return type_id

    def _type_declaration(self, value_type: Type) -> str:
        type_id = self.type_ids[value_type]
        if isinstance(value_type, VoidType):
            shape = "void"
        elif isinstance(value_type, ScalarType):
            shape = value_type.kind.value
        elif isinstance(value_type, SamplerType):
            shape = value_type.kind
        elif isinstance(value_type, VectorType):
            shape = f"vector {value_type.kind.value} {value_type.size}"
        elif isinstance(value_type, MatrixType):
            shape = f"matrix {value_type.rows} {value_type.columns}"
        elif isinstance(value_type, ArrayType):
            shape = f"array {self.type_ids[value_type.element]} {_size(value_type.count, value_type)}"
        elif isinstance(value_type, RecordType):
            fields = "".join(f" (field {quote(field.name)} {self.type_ids[field.type]})" for field in value_type.fields)
            shape = f"record {quote(value_type.name)}{fields}"
        else:
            raise _fail(WriterRule.NOT_EXPRESSIBLE, f"cannot write type {value_type!r}", value_type)
        return f"(type {type_id} {shape})"

    # Layout helpers --------------------------------------------------------------------

    def _list(self, depth: int, head: str, items: list[str], inline_limit: int | None = None) -> None:
        """A list form: inline when short enough, else one item per line."""
        indent = INDENT * depth
        if not items:
            self.lines.append(f"{indent}({head})")
        elif inline_limit is not None and len(items) <= inline_limit:
            self.lines.append(f"{indent}({head} {' '.join(items)})")
        else:
            self.lines.append(f"{indent}({head}")
            inner = INDENT * (depth + 1)
            self.lines.extend(inner + item for item in items)
            self.lines[-1] += ")"

    # Module ----------------------------------------------------------------------------

    def write(self) -> str:
        self._discover_module_types()
        lines = self.lines
        lines.append("(module 1")
        if _uses_math(self.module):
            lines.append(f'{INDENT}(extensions "math")')
        self._list(1, "types", [self._type_declaration(value_type) for value_type in self.type_order])
        uniforms = []
        for slot, uniform in enumerate(self.module.uniforms):
            name = quote(uniform.name)
            if uniform.kind is UniformKind.ARRAY:
                if not isinstance(uniform.type, ArrayType):
                    raise _fail(WriterRule.NOT_EXPRESSIBLE, "an array uniform needs an array type", uniform)
                uniforms.append(
                    f"(array u{slot} {name} {self._type_id(uniform.type.element)} {_size(uniform.type.count, uniform)})"
                )
            else:
                uniforms.append(f"({uniform.kind.value} u{slot} {name} {self._type_id(uniform.type)})")
        self._list(1, "uniforms", uniforms)
        for stage in self.module.stages:
            self._write_stage(stage)
        lines[-1] += ")"
        return "\n".join(lines) + "\n"

    def _write_stage(self, stage: Stage) -> None:
        function_ids = {id(function): f"f{position}" for position, function in enumerate(stage.functions)}
        if stage.entry is None or id(stage.entry) not in function_ids:
            raise _fail(WriterRule.NOT_EXPRESSIBLE, f"the {stage.kind.value} stage has no entry function of its own", stage)
        self.lines.append(f"{INDENT}({stage.kind.value} {function_ids[id(stage.entry)]}")
        interface = [
            f"({variable.direction.value} s{slot} {quote(variable.name)} {self._type_id(variable.type)}"
            f" {_int32(variable.location, variable)} {variable.semantic.value})"
            for slot, variable in enumerate(stage.interface)
        ]
        self._list(2, "interface", interface)
        if not stage.functions:
            self.lines.append(f"{INDENT * 2}(functions)")
        else:
            self.lines.append(f"{INDENT * 2}(functions")
            for position, function in enumerate(stage.functions):
                self._write_function(f"f{position}", function, function_ids)
            self.lines[-1] += ")"
        self.lines[-1] += ")"

    def _write_function(self, function_id: str, function: Function, function_ids: dict[int, str]) -> None:
        depth = 3
        lines = self.lines
        lines.append(
            f"{INDENT * depth}(function {function_id} {quote(function.name)} {self._type_id(function.return_type)}"
        )
        parameters = [
            f"(parameter p{slot} {self._type_id(parameter.type)})" for slot, parameter in enumerate(function.parameters)
        ]
        self._list(depth + 1, "parameters", parameters, _INLINE_LIST_LIMIT)
        declarations = _declarations(function)
        block_ids = {id(block): f"b{position}" for position, block in enumerate(function.blocks)}
        instruction_writer = _InstructionWriter(block_ids, function_ids)
        register_name = instruction_writer._register_name  # spelled once per register number, for its uses too
        type_id = self._type_id
        registers = []
        for declaration in declarations:
            register = declaration.register
            name = register_name(register, declaration) if type(register) is RegisterValue else _register(register, declaration)
            registers.append(f"(register {name} {type_id(declaration.type)})")
        self._list(depth + 1, "registers", registers, _INLINE_LIST_LIMIT)
        if not function.blocks:
            raise _fail(WriterRule.NOT_EXPRESSIBLE, f"function '{function.name}' has no blocks", function)
        block_indent = INDENT * (depth + 1)
        body_indent = INDENT * (depth + 2)
        for position, block in enumerate(function.blocks):
            lines.append(f"{block_indent}(block b{position}")
            instructions = block.instructions[len(declarations) :] if position == 0 else block.instructions
            for instruction in instructions:
                lines.append(body_indent + instruction_writer.instruction(instruction))
            if block.terminator is None:
                raise _fail(WriterRule.NOT_EXPRESSIBLE, "a block has no terminator", block)
            lines.append(body_indent + instruction_writer.terminator(block.terminator) + ")")
        lines[-1] += ")"


def _size(count: object, subject: object) -> int:
    if not isinstance(count, int) or isinstance(count, bool) or not 0 < count <= SIZE_MAX:
        raise _fail(WriterRule.SIZE_RANGE, f"array length {count!r} cannot be written (1 to 2**64-1)", subject)
    return count


def _int32(value: object, subject: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not INT32_MIN <= value <= INT32_MAX:
        raise _fail(WriterRule.NOT_EXPRESSIBLE, f"{value!r} cannot be written as a signed 32-bit integer", subject)
    return value


def _register(register: object, subject: object) -> str:
    index = getattr(register, "index", None)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= SIZE_MAX:
        raise _fail(WriterRule.SIZE_RANGE, f"register number {index!r} cannot be written (0 to 2**64-1)", subject)
    return f"r{index}"


def _component_types(value_type: Type) -> list[Type]:
    """The types a declaration of `value_type` refers to (its dependency edges)."""
    if isinstance(value_type, RecordType):
        return [field.type for field in value_type.fields]
    if isinstance(value_type, ArrayType):
        return [value_type.element]
    return []


def _declarations(function: Function) -> list[DeclareLocalInstruction]:
    """The register declaration prefix of the entry block."""
    if not function.blocks:
        return []
    declarations = []
    for instruction in function.blocks[0].instructions:
        if not isinstance(instruction, DeclareLocalInstruction):
            break
        declarations.append(instruction)
    return declarations


def _uses_math(module: Module) -> bool:
    for _, function in module.functions():
        for block in function.blocks:
            for instruction in block.instructions:
                if isinstance(instruction, CallInstruction) and instruction.builtin.extension == "math":
                    return True
    return False


class _InstructionWriter:
    """Spells instructions, terminators, operands and references of one function."""

    def __init__(self, block_ids: dict[int, str], function_ids: dict[int, str]) -> None:
        self.block_ids = block_ids
        self.function_ids = function_ids
        # Spellings already made: register numbers and float bit patterns
        # repeat, and the shortest round-trip float spelling is costly.
        self.register_names: dict[int, str] = {}
        self.float_texts: dict[int, str] = {}
        self.reference_spellings = ReferenceSpellings()

    def _register_name(self, register: RegisterValue, subject: object) -> str:
        """`_register(register, subject)`, made once per register number."""
        index = register.index
        if type(index) is not int:
            return _register(register, subject)  # not a plain int: checked (and spelled) every time
        name = self.register_names.get(index)
        if name is None:
            name = self.register_names[index] = _register(register, subject)
        return name

    def operand(self, operand: object) -> str:
        if isinstance(operand, RegisterValue):
            return self._register_name(operand, operand)
        if isinstance(operand, ConstantValue) and isinstance(operand.type, ScalarType):
            kind = operand.type.kind
            if kind is ScalarKind.FLOAT:
                try:
                    bits = float32_bits(float(operand.value))
                    text = self.float_texts.get(bits)
                    if text is None:
                        text = self.float_texts[bits] = f"(float {format_float32(bits)})"
                    return text
                except (ValueError, OverflowError, TypeError) as error:
                    raise _fail(WriterRule.NOT_EXPRESSIBLE, f"cannot write float constant {operand.value!r}: {error}", operand) from None
            if kind is ScalarKind.INT:
                return f"(int {_int32(operand.value, operand)})"
            if kind is ScalarKind.BOOL and isinstance(operand.value, bool):
                return f"(bool {'true' if operand.value else 'false'})"
        raise _fail(WriterRule.NOT_EXPRESSIBLE, f"cannot write operand {operand!r}", operand)

    def reference(self, reference: ReferenceValue) -> str:
        return self.reference_spellings.text(reference, self._spell_reference)

    def _spell_reference(self, reference: ReferenceValue) -> str:
        # Walk to the root first (iteratively), then spell inside out.
        path: list[ReferenceValue] = []
        current: object = reference
        while isinstance(current, (MemberReferenceValue, IndexReferenceValue)):
            path.append(current)
            if len(path) > MAX_REFERENCE_DEPTH:
                raise _fail(
                    WriterRule.REFERENCE_DEPTH,
                    f"reference path deeper than {MAX_REFERENCE_DEPTH} selectors cannot be written", reference
                )
            current = current.base
        if not isinstance(current, ReferenceValue):
            raise _fail(WriterRule.NOT_EXPRESSIBLE, f"cannot write reference {reference!r}", reference)
        kind = current.storage_kind
        if kind is StorageKind.LOCAL:
            text = f"(local {_register(RegisterValue(current.slot, current.type), current)})"
        elif kind is StorageKind.PARAMETER:
            text = f"(parameter p{current.slot})"
        elif kind is StorageKind.UNIFORM:
            text = f"(uniform u{current.slot})"
        elif kind is StorageKind.STAGE:
            text = f"(stage s{current.slot})"
        else:
            raise _fail(WriterRule.NOT_EXPRESSIBLE, f"cannot write root reference of kind {kind.value}", current)
        for selector in reversed(path):
            if isinstance(selector, MemberReferenceValue):
                text = f"(member_ref {text} {quote(selector.field_name)})"
            else:
                assert isinstance(selector, IndexReferenceValue)
                text = f"(index_ref {text} {self.operand(selector.index)})"
        return text

    def _destination(self, instruction: Instruction) -> str:
        result = getattr(instruction, "result", None)
        if not isinstance(result, RegisterValue):
            raise _fail(WriterRule.NOT_EXPRESSIBLE, "the instruction needs a destination register", instruction)
        return self._register_name(result, instruction)

    def instruction(self, instruction: Instruction) -> str:
        operand = self.operand
        if isinstance(instruction, CopyInstruction):
            return f"(copy {self._destination(instruction)} {operand(instruction.source)})"
        if isinstance(instruction, LoadInstruction):
            return f"(load {self._destination(instruction)} {self.reference(instruction.source)})"
        if isinstance(instruction, StoreInstruction):
            return f"(store {self.reference(instruction.target)} {operand(instruction.value)})"
        if isinstance(instruction, BinaryInstruction):
            return (
                f"({instruction.operator._value_} {self._destination(instruction)}"  # `_value_`: `value` is a slow property
                f" {operand(instruction.lhs)} {operand(instruction.rhs)})"
            )
        if isinstance(instruction, ConstructInstruction):
            if instruction.result is not None and instruction.type != instruction.result.type:
                raise _fail(WriterRule.NOT_EXPRESSIBLE, "a construct's type must be its destination register's type", instruction)
            arguments = "".join(" " + operand(argument) for argument in instruction.arguments)
            return f"(construct {self._destination(instruction)}{arguments})"
        if isinstance(instruction, CallInstruction):
            return self._call(instruction)
        if isinstance(instruction, SwizzleInstruction):
            return f"(swizzle {self._destination(instruction)} {operand(instruction.source)} {quote(instruction.pattern)})"
        if isinstance(instruction, MemberInstruction):
            return (
                f"(member {self._destination(instruction)} {operand(instruction.source)}"
                f" {quote(instruction.field_name)})"
            )
        if isinstance(instruction, IndexInstruction):
            return f"(index {self._destination(instruction)} {operand(instruction.source)} {operand(instruction.index)})"
        if isinstance(instruction, DeclareLocalInstruction):
            raise _fail(WriterRule.NOT_EXPRESSIBLE, "register declarations belong in the entry block's declaration prefix", instruction)
        raise _fail(WriterRule.NOT_EXPRESSIBLE, f"cannot write instruction {instruction!r}", instruction)

    def _call(self, instruction: CallInstruction) -> str:
        arguments = "".join(" " + self.operand(argument) for argument in instruction.arguments)
        if instruction.builtin is Builtin.NONE:
            if instruction.callee is None or id(instruction.callee) not in self.function_ids:
                raise _fail(WriterRule.NOT_EXPRESSIBLE, "a call must name a function of the same stage", instruction)
            result = "void" if instruction.result is None else self._destination(instruction)
            return f"(call {result} {self.function_ids[id(instruction.callee)]}{arguments})"
        if instruction.callee is not None:
            raise _fail(WriterRule.NOT_EXPRESSIBLE, "a built-in call cannot also name a function", instruction)
        if len(instruction.arguments) != instruction.builtin.arity:
            raise _fail(
                WriterRule.NOT_EXPRESSIBLE,
                f"built-in '{instruction.builtin.value}' takes {instruction.builtin.arity} operands,"
                f" not {len(instruction.arguments)}",
                instruction,
            )
        return f"({instruction.builtin._value_} {self._destination(instruction)}{arguments})"

    def _block(self, block: Block, terminator: Terminator) -> str:
        block_id = self.block_ids.get(id(block))
        if block_id is None:
            raise _fail(WriterRule.NOT_EXPRESSIBLE, "a branch must target a block of the same function", terminator)
        return block_id

    def terminator(self, terminator: Terminator) -> str:
        if isinstance(terminator, BranchTerminator):
            return f"(branch {self._block(terminator.target, terminator)})"
        if isinstance(terminator, ConditionalBranchTerminator):
            return (
                f"(branch_if {self.operand(terminator.condition)} {self._block(terminator.true_target, terminator)}"
                f" {self._block(terminator.false_target, terminator)})"
            )
        if isinstance(terminator, ReturnTerminator):
            if terminator.value is None:
                return "(return)"
            return f"(return {self.operand(terminator.value)})"
        if isinstance(terminator, DiscardTerminator):
            return "(discard)"
        raise _fail(WriterRule.NOT_EXPRESSIBLE, f"cannot write terminator {terminator!r}", terminator)
