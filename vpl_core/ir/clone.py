"""Structural copies of modules: what `VerifiedModule.materialize` hands out (spec 11).

`clone_module(module)` returns a module that shares no mutable object with
`module`: every container (module, uniform, interface variable, stage,
function, block, instruction, terminator, argument list) and every record
declaration (`RecordType`, `Field`) is new. Immutable descriptors are shared
where they cannot reach a record: scalar, vector, matrix and sampler types,
arrays of those, registers, constants and references of such types (frozen
records, interchangeable by value; `vpl_core.ir.paths` never depends on
descriptor identity). Anything that names a record is rebuilt, so that the
copy's records are its own objects and nominal identity (one declaration,
one object) holds inside the copy as it held in the original.

Links keep their targets inside the copy: calls name the copy's functions,
branches the copy's blocks, stage entries the copy's functions. Lists keep
their order, so structural paths are the same in both.

The copy is not verified: a caller that hands it out verifies it (the
publication does).

`clone_function` copies one function out of its module into another (the
material editor's Custom Code node moves a checked function into the
material's module): record types it names can be mapped to records of the
destination, so nominal identity holds there. Cost is one pass over the module, linear in its size;
nothing recurses on input structure except types, whose depth the reader
and writer bound (128 dependency edges).
"""

from __future__ import annotations

from collections.abc import Mapping

from vpl_core.ir.instructions import (
    BinaryInstruction,
    BranchTerminator,
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
from vpl_core.ir.module import Block, Function, InterfaceVariable, Module, Stage, Uniform
from vpl_core.ir.types import ArrayType, Field, RecordType, Type
from vpl_core.ir.values import IndexReferenceValue, MemberReferenceValue, ReferenceValue, RegisterValue


def clone_module(module: Module) -> Module:
    """A structural copy of `module` sharing no mutable object with it (see the module docstring).

    Meant for verified modules: links that leave their stage or function
    (which the verifier rejects) are kept pointing at the original objects.
    """
    return _Cloner().module(module)


def clone_function(function: Function, name: str | None = None, records: Mapping[int, Type] | None = None) -> Function:
    """A structural copy of one function, for another module (renamed to `name` when given).

    `records` maps `id()` of record types the function uses to the types
    the copy uses instead (records not listed are copied). Blocks and
    instructions are new; calls to other functions keep their callee (a
    caller moving a function must make sure those exist where it goes), a
    recursive call names the copy. Storage references keep their slots:
    parameters and locals are the function's own, uniform and stage
    references would name the destination's, so callers check them first.
    """
    cloner = _Cloner()
    for original_id, replacement in (records or {}).items():
        cloner.types[original_id] = replacement
    copy = Function(
        function.name if name is None else name,
        cloner.type(function.return_type),
        [cloner.reference(parameter) for parameter in function.parameters],
    )
    cloner.functions[id(function)] = copy
    for block in function.blocks:
        block_copy = Block()
        cloner.blocks[id(block)] = block_copy
        copy.blocks.append(block_copy)
    for block in function.blocks:
        block_copy = cloner.blocks[id(block)]
        block_copy.instructions = [cloner.instruction(instruction) for instruction in block.instructions]
        block_copy.terminator = None if block.terminator is None else cloner.terminator(block.terminator)
    return copy


class _Cloner:
    def __init__(self) -> None:
        # id(original) -> copy. The originals stay alive for the whole clone
        # (the source module holds them), so no id is reused meanwhile.
        self.types: dict[int, Type] = {}
        self.functions: dict[int, Function] = {}
        self.blocks: dict[int, Block] = {}

    # Types -------------------------------------------------------------------------------

    def type(self, value_type: Type) -> Type:
        known = self.types.get(id(value_type))
        if known is not None:
            return known
        if isinstance(value_type, RecordType):
            # Registered before its fields, so that a (verifier-rejected) recursive
            # record still copies instead of recursing forever.
            copy: Type = RecordType(value_type.name, [])
            self.types[id(value_type)] = copy
            copy.fields.extend(Field(field.name, self.type(field.type)) for field in value_type.fields)  # type: ignore[attr-defined]  # a RecordType, built just above
            return copy
        if isinstance(value_type, ArrayType):
            element = self.type(value_type.element)
            copy = value_type if element is value_type.element else ArrayType(element, value_type.count)
        else:
            copy = value_type  # void, scalars, vectors, matrices, samplers: immutable values
        self.types[id(value_type)] = copy
        return copy

    # Values ------------------------------------------------------------------------------

    def register(self, register: RegisterValue) -> RegisterValue:
        copied = self.type(register.type)
        return register if copied is register.type else RegisterValue(register.index, copied)

    def operand(self, operand: object) -> object:
        if type(operand) is RegisterValue:
            return self.register(operand)
        return operand  # constants are scalars; anything else is passed through for the verifier

    def reference(self, reference: ReferenceValue) -> ReferenceValue:
        copied = self.type(reference.type)
        if isinstance(reference, MemberReferenceValue):
            base = self.reference(reference.base)
            if base is reference.base and copied is reference.type:
                return reference
            return MemberReferenceValue(reference.storage_kind, reference.slot, copied, base, reference.field_name)
        if isinstance(reference, IndexReferenceValue):
            base = self.reference(reference.base)
            index = self.operand(reference.index)
            if base is reference.base and index is reference.index and copied is reference.type:
                return reference
            return IndexReferenceValue(reference.storage_kind, reference.slot, copied, base, index)  # type: ignore[arg-type]  # an index reference's copied index is an operand like the original's
        if copied is reference.type:
            return reference
        return ReferenceValue(reference.storage_kind, reference.slot, copied)

    # Containers --------------------------------------------------------------------------

    def module(self, module: Module) -> Module:
        copy = Module()
        copy.uniforms = [Uniform(uniform.kind, uniform.name, self.type(uniform.type)) for uniform in module.uniforms]
        copy.vertex = self.stage(module.vertex)
        copy.fragment = self.stage(module.fragment)
        return copy

    def stage(self, stage: Stage) -> Stage:
        copy = Stage(stage.kind)
        copy.interface = [
            InterfaceVariable(variable.direction, variable.name, self.type(variable.type), variable.location, variable.semantic)
            for variable in stage.interface
        ]
        # Headers first, so that calls and entries can name any function of the stage.
        for function in stage.functions:
            function_copy = Function(
                function.name,
                self.type(function.return_type),
                [self.reference(parameter) for parameter in function.parameters],
            )
            self.functions[id(function)] = function_copy
            copy.functions.append(function_copy)
            for block in function.blocks:
                block_copy = Block()
                self.blocks[id(block)] = block_copy
                function_copy.blocks.append(block_copy)
        for function in stage.functions:
            for block in function.blocks:
                block_copy = self.blocks[id(block)]
                block_copy.instructions = [self.instruction(instruction) for instruction in block.instructions]
                block_copy.terminator = None if block.terminator is None else self.terminator(block.terminator)
        copy.entry = None if stage.entry is None else self.functions.get(id(stage.entry), stage.entry)
        return copy

    def instruction(self, instruction: Instruction) -> Instruction:
        kind = type(instruction)
        operand = self.operand
        if kind is BinaryInstruction:
            return BinaryInstruction(
                self.register(instruction.result), instruction.operator, operand(instruction.lhs), operand(instruction.rhs)  # type: ignore[attr-defined,arg-type]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
            )
        if kind is CallInstruction:
            result = instruction.result  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
            callee = instruction.callee  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
            return CallInstruction(
                None if result is None else self.register(result),
                None if callee is None else self.functions.get(id(callee), callee),
                instruction.builtin,  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
                [operand(argument) for argument in instruction.arguments],  # type: ignore[attr-defined,misc]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
            )
        if kind is CopyInstruction:
            return CopyInstruction(self.register(instruction.result), operand(instruction.source))  # type: ignore[attr-defined,arg-type]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
        if kind is LoadInstruction:
            return LoadInstruction(self.register(instruction.result), self.reference(instruction.source))  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
        if kind is StoreInstruction:
            return StoreInstruction(self.reference(instruction.target), operand(instruction.value))  # type: ignore[attr-defined,arg-type]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
        if kind is ConstructInstruction:
            return ConstructInstruction(
                self.register(instruction.result),  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
                self.type(instruction.type),  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
                [operand(argument) for argument in instruction.arguments],  # type: ignore[attr-defined,misc]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
            )
        if kind is SwizzleInstruction:
            return SwizzleInstruction(self.register(instruction.result), operand(instruction.source), instruction.pattern)  # type: ignore[attr-defined,arg-type]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
        if kind is MemberInstruction:
            return MemberInstruction(
                self.register(instruction.result), operand(instruction.source), instruction.field_name  # type: ignore[attr-defined,arg-type]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
            )
        if kind is IndexInstruction:
            return IndexInstruction(
                self.register(instruction.result), operand(instruction.source), operand(instruction.index)  # type: ignore[attr-defined,arg-type]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
            )
        if kind is DeclareLocalInstruction:
            return DeclareLocalInstruction(self.register(instruction.register), self.type(instruction.type))  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
        raise TypeError(f"cannot copy instruction {instruction!r}")

    def terminator(self, terminator: Terminator) -> Terminator:
        kind = type(terminator)
        if kind is BranchTerminator:
            return BranchTerminator(self._block(terminator.target))  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
        if kind is ConditionalBranchTerminator:
            return ConditionalBranchTerminator(
                self.operand(terminator.condition),  # type: ignore[attr-defined,arg-type]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
                self._block(terminator.true_target),  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
                self._block(terminator.false_target),  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
            )
        if kind is ReturnTerminator:
            value = terminator.value  # type: ignore[attr-defined]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
            return ReturnTerminator(None if value is None else self.operand(value))  # type: ignore[arg-type]  # exact-class dispatch on `kind`/`type(...)` above, which mypy does not narrow
        if kind is DiscardTerminator:
            return DiscardTerminator()
        raise TypeError(f"cannot copy terminator {terminator!r}")

    def _block(self, block: Block) -> Block:
        return self.blocks.get(id(block), block)

