"""Target restrictions (spec 12.4) and the profile-specific ones of the ES targets.

These run after target-neutral verification, on a verified module, and
raise `TargetError` with the offending object as the diagnostic subject:

- types: empty records, arrays of arrays, samplers inside arrays or records,
  array lengths beyond 2^31-1 (subject: the uniform, interface variable,
  function or register declaration that uses the type);
- interfaces: no bool or opaque leaves anywhere; vertex inputs numeric
  scalars, vectors or float matrices; varyings numeric aggregates; fragment
  outputs numeric scalars/vectors or 1-D arrays of them (ES 3.x adds:
  varyings may not be arrays of records or records containing arrays or
  records);
- samplers: a sampler register is a static alias, not a GLSL local. Every
  used sampler register has exactly one definition (load, copy or
  whole-local store) whose chain ends at a sampler uniform or sampler
  parameter; functions do not return samplers; sampler parameters are not
  written;
- ES: fragment output arrays are indexed only by constants;
- es300 (the WebGL 2 target): every function reaches a return or discard
  from its entry block; otherwise its dispatch loop has no exit, which
  ANGLE rejects ("Infinite loop detected").

`check_module` returns the sampler alias table the emitter substitutes.
"""

from __future__ import annotations

from collections.abc import Iterator

from vpl_core.backends.glsl.dispatch import reachable_blocks
from vpl_core.backends.glsl.errors import ControlFlowRule, SamplerRule, TargetInterfaceRule, TargetTypeRule
from vpl_core.backends.glsl.profiles import Profile
from vpl_core.diagnostics import TargetError
from vpl_core.ir.instructions import (
    CallInstruction,
    CopyInstruction,
    DeclareLocalInstruction,
    DiscardTerminator,
    Instruction,
    LoadInstruction,
    ReturnTerminator,
    StoreInstruction,
)
from vpl_core.ir.module import Direction, Function, InterfaceVariable, Module, Semantic, Stage, StageKind
from vpl_core.ir.types import (
    ArrayType,
    MatrixType,
    RecordType,
    SamplerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
)
from vpl_core.ir.values import (
    ConstantValue,
    IndexReferenceValue,
    MemberReferenceValue,
    ReferenceValue,
    RegisterValue,
    StorageKind,
)
from vpl_core.records import Record

# typing.TYPE_CHECKING without importing typing at run time (about 3 ms of every `vpl compile`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

#: Largest array length GLSL can declare (a signed GL integer).
MAX_ARRAY_LENGTH = 2**31 - 1


class SamplerAliases(Record):
    """For each function, the sampler registers and the root each one aliases.

    The root is a UNIFORM or PARAMETER reference; the emitter spells a use of
    the register as that root's GLSL name.
    """

    __slots__ = ("roots",)

    def __init__(self, roots: dict[Function, dict[int, ReferenceValue]]) -> None:
        self.roots: Final = roots

    def root(self, function: Function, register: int) -> ReferenceValue:
        return self.roots[function][register]


def check_module(module: Module, profile: Profile) -> SamplerAliases:
    """Raise TargetError for the first unsupported construct; return the sampler aliases."""
    _check_declared_types(module)
    for stage in module.stages:
        _check_interface(stage, profile)
    aliases = {function: _sampler_aliases(function) for _, function in module.functions()}
    if profile.constant_fragment_output_indices:
        _check_fragment_output_indices(module.fragment, profile)
    if profile.rejects_endless_functions:
        for stage, function in module.functions():
            _check_function_ends(stage, function, profile)
    return SamplerAliases(aliases)


def _check_function_ends(stage: Stage, function: Function, profile: Profile) -> None:
    """The function can finish: some block reachable from its entry returns or discards."""
    if any(isinstance(block.terminator, (ReturnTerminator, DiscardTerminator)) for block in reachable_blocks(function)):
        return
    role = "entry point" if function is stage.entry else "function"
    who = (f"{profile.target} (the WebGL 2 target) rejects" if profile.target == "es300"
           else "a preview refuses, as es300 (the WebGL 2 target) does,")
    raise TargetError(
        ControlFlowRule.ENDLESS_FUNCTION,
        f"{stage.kind.value} {role} {function.name!r} never finishes: no return or discard is reachable from "
        f"its entry block, and {who} the endless loop it would compile to (ANGLE: \"Infinite loop detected\")",
        subject=function,
    )


# Types ---------------------------------------------------------------------------------


def _declarations(module: Module, checked: set[int]) -> Iterator[tuple[Any, Type, str]]:
    """Every (subject, type, description) through which a type enters the module, but those of a register
    declaration whose type object is in `checked` (ids of types already found supported)."""
    for uniform in module.uniforms:
        yield uniform, uniform.type, f"uniform {uniform.name!r}"
    for stage in module.stages:
        for variable in stage.interface:
            yield variable, variable.type, f"{stage.kind.value} interface variable {variable.name!r}"
        for function in stage.functions:
            where = f"function {function.name!r} ({stage.kind.value} stage)"
            yield function, function.return_type, f"the return type of {where}"
            for slot, parameter in enumerate(function.parameters):
                yield function, parameter.type, f"parameter {slot} of {where}"
            for block in function.blocks:
                for instruction in block.instructions:
                    # A lowered material declares a register per value, of a few shared type objects: each
                    # is checked (and its description spelled) once, at its first declaration.
                    if (type(instruction) is DeclareLocalInstruction or isinstance(instruction, DeclareLocalInstruction)) \
                            and id(instruction.type) not in checked:
                        yield instruction, instruction.type, f"register r{instruction.register.index} of {where}"


def _check_declared_types(module: Module) -> None:
    # The check depends on the type alone (the subject and description only name it in the diagnostic), so a
    # type object that passed passes again: the first failing declaration fails as before. The module keeps
    # its type objects alive, so their ids stay theirs.
    checked: set[int] = set()
    for subject, value_type, description in _declarations(module, checked):
        _check_type(value_type, subject, description)
        checked.add(id(value_type))
    for stage, function in module.functions():
        if isinstance(function.return_type, SamplerType):
            raise TargetError(
                TargetTypeRule.SAMPLER_RETURN,
                f"the return type of function {function.name!r} ({stage.kind.value} stage) is a sampler; "
                f"GLSL functions cannot return samplers",
                subject=function,
            )


def _check_type(root_type: Type, subject: Any, description: str) -> None:
    """Empty records, arrays of arrays, contained samplers and oversize arrays, anywhere in the type."""
    seen: set[int] = set()
    stack: list[tuple[Type, bool]] = [(root_type, False)]
    while stack:
        value_type, inside_aggregate = stack.pop()
        if isinstance(value_type, ArrayType):
            if value_type.count > MAX_ARRAY_LENGTH:
                raise TargetError(
                    TargetTypeRule.ARRAY_LENGTH,
                    f"{description} has an array of length {value_type.count}; GLSL array lengths are "
                    f"at most {MAX_ARRAY_LENGTH}",
                    subject=subject,
                )
            if isinstance(value_type.element, ArrayType):
                raise TargetError(
                    TargetTypeRule.ARRAY_OF_ARRAYS,
                    f"{description} has an array of arrays; the GLSL target supports only "
                    f"one-dimensional arrays",
                    subject=subject,
                )
            stack.append((value_type.element, True))
        elif isinstance(value_type, RecordType):
            if id(value_type) in seen:
                continue
            seen.add(id(value_type))
            if not value_type.fields:
                raise TargetError(
                    TargetTypeRule.EMPTY_RECORD,
                    f"{description} uses the empty record {value_type.name!r}; GLSL structs need at least one member",
                    subject=subject,
                )
            for field in value_type.fields:
                stack.append((field.type, True))
        elif isinstance(value_type, SamplerType) and inside_aggregate:
            raise TargetError(
                TargetTypeRule.NESTED_SAMPLER,
                f"{description} has a sampler inside an array or record; the GLSL target supports "
                f"samplers only as whole uniforms, parameters and registers",
                subject=subject,
            )


# Interfaces ----------------------------------------------------------------------------


def _leaves(value_type: Type) -> Iterator[Type]:
    if isinstance(value_type, ArrayType):
        yield from _leaves(value_type.element)
    elif isinstance(value_type, RecordType):
        for field in value_type.fields:
            yield from _leaves(field.type)
    else:
        yield value_type


def _is_numeric_scalar_or_vector(value_type: Type) -> bool:
    return isinstance(value_type, (ScalarType, VectorType)) and value_type.kind is not ScalarKind.BOOL


def _check_interface(stage: Stage, profile: Profile) -> None:
    for variable in stage.interface:
        if variable.semantic is Semantic.POSITION:
            continue  # a built-in vec4 (the verifier checks its type)
        role = _role(stage, variable)
        for leaf in _leaves(variable.type):
            if isinstance(leaf, (ScalarType, VectorType)) and leaf.kind is ScalarKind.BOOL:
                raise TargetError(
                    TargetInterfaceRule.BOOL,
                    f"{role} {variable.name!r} has a bool type; GLSL interfaces cannot carry bool values",
                    subject=variable,
                )
            if isinstance(leaf, SamplerType):
                raise TargetError(
                    TargetInterfaceRule.SAMPLER,
                    f"{role} {variable.name!r} has an opaque sampler type; GLSL interfaces cannot carry samplers",
                    subject=variable,
                )
        value_type = variable.type
        if role == "vertex attribute":
            if not (_is_numeric_scalar_or_vector(value_type) or isinstance(value_type, MatrixType)):
                raise TargetError(
                    TargetInterfaceRule.VERTEX_INPUT_SHAPE,
                    f"vertex attribute {variable.name!r} must be a numeric scalar, vector or float matrix "
                    f"(GLSL vertex inputs cannot be arrays or records)",
                    subject=variable,
                )
        elif role == "fragment output":
            element = value_type.element if isinstance(value_type, ArrayType) else value_type
            if not _is_numeric_scalar_or_vector(element):
                raise TargetError(
                    TargetInterfaceRule.FRAGMENT_OUTPUT_SHAPE,
                    f"fragment output {variable.name!r} must be a numeric scalar or vector, or a "
                    f"one-dimensional array of them (GLSL fragment outputs cannot be matrices or records)",
                    subject=variable,
                )
        elif profile.flat_varying_records_only:
            _check_es_varying(variable, role, profile)


def _role(stage: Stage, variable: InterfaceVariable) -> str:
    if stage.kind is StageKind.VERTEX:
        return "vertex attribute" if variable.direction is Direction.IN else "vertex output"
    return "fragment input" if variable.direction is Direction.IN else "fragment output"


def _check_es_varying(variable: InterfaceVariable, role: str, profile: Profile) -> None:
    value_type = variable.type
    if isinstance(value_type, ArrayType) and isinstance(value_type.element, RecordType):
        raise TargetError(
            TargetInterfaceRule.VARYING_ARRAY_OF_RECORDS,
            f"{role} {variable.name!r} is an array of records, which {profile.target} varyings cannot be",
            subject=variable,
        )
    if isinstance(value_type, RecordType):
        for field in value_type.fields:
            if isinstance(field.type, (ArrayType, RecordType)):
                kind = "an array" if isinstance(field.type, ArrayType) else "a record"
                raise TargetError(
                    TargetInterfaceRule.VARYING_NESTED_AGGREGATE,
                    f"{role} {variable.name!r} is a record with {kind} field {field.name!r}, which "
                    f"{profile.target} varyings cannot contain",
                    subject=variable,
                )


# Samplers ------------------------------------------------------------------------------


def _is_sampler(value: object) -> bool:
    return isinstance(getattr(value, "type", None), SamplerType)


def _declares_sampler_registers(function: Function) -> bool:
    for instruction in function.blocks[0].instructions if function.blocks else ():
        if not isinstance(instruction, DeclareLocalInstruction):
            return False
        if isinstance(instruction.type, SamplerType):
            return True
    return False


def _sampler_aliases(function: Function) -> dict[int, ReferenceValue]:
    """Check the sampler alias rule in one function; map each used sampler register to its root."""
    if not _declares_sampler_registers(function):
        # Every sampler value lives in a declared register (verified module), so
        # without one nothing below can apply: most functions skip the scan.
        return {}
    definitions: dict[int, list[tuple[Instruction, ReferenceValue | None, int | None]]] = {}
    uses: dict[int, Any] = {}  # register -> first using object (for the diagnostic subject)

    def note_use(register: RegisterValue, user: Any) -> None:
        if isinstance(register.type, SamplerType):
            uses.setdefault(register.index, user)

    for block in function.blocks:
        for instruction in block.instructions:
            if isinstance(instruction, DeclareLocalInstruction):
                continue
            for operand in instruction.operands():
                if isinstance(operand, RegisterValue):
                    note_use(operand, instruction)
            if isinstance(instruction, LoadInstruction):
                source = instruction.source
                if source.storage_kind is StorageKind.LOCAL and _is_sampler(source):
                    uses.setdefault(source.slot, instruction)
                if _is_sampler(instruction.result):
                    definitions.setdefault(instruction.result.index, []).append(
                        (instruction, source if source.storage_kind is not StorageKind.LOCAL else None,
                         source.slot if source.storage_kind is StorageKind.LOCAL else None)
                    )
            elif isinstance(instruction, CopyInstruction):
                if _is_sampler(instruction.result):
                    copied = instruction.source
                    definitions.setdefault(instruction.result.index, []).append(
                        (instruction, None, copied.index if isinstance(copied, RegisterValue) else None)
                    )
            elif isinstance(instruction, StoreInstruction):
                target = instruction.target
                if _is_sampler(target):
                    if target.storage_kind is StorageKind.PARAMETER:
                        raise TargetError(
                            SamplerRule.PARAMETER_WRITTEN,
                            f"function {function.name!r} writes sampler parameter {target.slot}; sampler "
                            f"parameters are read-only aliases in GLSL",
                            subject=instruction,
                        )
                    if target.storage_kind is StorageKind.LOCAL:
                        value = instruction.value
                        definitions.setdefault(target.slot, []).append(
                            (instruction, None, value.index if isinstance(value, RegisterValue) else None)
                        )
            elif isinstance(instruction, CallInstruction) and _is_sampler(instruction.result):
                raise TargetError(
                    SamplerRule.FROM_CALL,
                    f"function {function.name!r} assigns a sampler register from a call; sampler "
                    f"registers can only alias a sampler uniform or parameter",
                    subject=instruction,
                )
        terminator = block.terminator
        if terminator is not None:
            for operand in terminator.operands():
                if isinstance(operand, RegisterValue) and isinstance(operand.type, SamplerType):
                    raise TargetError(
                        SamplerRule.RETURNED,
                        f"function {function.name!r} returns a sampler; GLSL functions cannot return samplers",
                        subject=terminator,
                    )

    roots: dict[int, ReferenceValue] = {}
    for register in sorted(uses):
        chain: list[int] = []
        current = register
        while True:
            if current in roots:
                root = roots[current]
                break
            if current in chain:
                raise TargetError(
                    SamplerRule.COPY_CYCLE,
                    f"sampler register r{register} of function {function.name!r} is defined through a "
                    f"cycle of copies ({' -> '.join(f'r{index}' for index in chain + [current])}); it must "
                    f"alias a sampler uniform or parameter",
                    subject=uses[register],
                )
            chain.append(current)
            found = definitions.get(current, [])
            if len(found) != 1:
                subject = found[1][0] if len(found) > 1 else uses.get(current, uses[register])
                count = "no definition" if not found else f"{len(found)} definitions"
                raise TargetError(
                    SamplerRule.DEFINITION_COUNT,
                    f"sampler register r{current} of function {function.name!r} has {count}; a used "
                    f"sampler register must have exactly one load, copy or store defining it as an alias "
                    f"of a sampler uniform or parameter",
                    subject=subject,
                )
            instruction, root_reference, next_register = found[0]
            if root_reference is not None:
                if root_reference.storage_kind not in (StorageKind.UNIFORM, StorageKind.PARAMETER):
                    raise TargetError(
                        SamplerRule.NOT_FROM_SAMPLER_ROOT,
                        f"sampler register r{current} of function {function.name!r} is loaded from "
                        f"{root_reference.storage_kind.value} storage; it must alias a sampler uniform or parameter",
                        subject=instruction,
                    )
                root = root_reference
                break
            if next_register is None:
                raise TargetError(
                    SamplerRule.NOT_FROM_REGISTER,
                    f"sampler register r{current} of function {function.name!r} is not defined from a register",
                    subject=instruction,
                )
            current = next_register
        for index in chain:
            roots[index] = root
    return roots


# ES: fragment output indices ---------------------------------------------------------------


def _check_fragment_output_indices(stage: Stage, profile: Profile) -> None:
    def constant_indexed(reference: ReferenceValue) -> ReferenceValue | None:
        """The first dynamically indexed stage-output path component, if any."""
        current: ReferenceValue = reference
        offending: ReferenceValue | None = None
        while isinstance(current, (MemberReferenceValue, IndexReferenceValue)):
            if isinstance(current, IndexReferenceValue) and not isinstance(current.index, ConstantValue):
                offending = current
            current = current.base
        if current.storage_kind is StorageKind.STAGE and offending is not None:
            variable = stage.interface[current.slot]
            if variable.direction is Direction.OUT:
                return offending
        return None

    for function in stage.functions:
        for block in function.blocks:
            for instruction in block.instructions:
                reference = None
                if isinstance(instruction, LoadInstruction):
                    reference = instruction.source
                elif isinstance(instruction, StoreInstruction):
                    reference = instruction.target
                if reference is not None and constant_indexed(reference) is not None:
                    raise TargetError(
                        TargetInterfaceRule.DYNAMIC_OUTPUT_INDEX,
                        f"function {function.name!r} indexes a fragment output array with a register; "
                        f"{profile.target} allows only constant fragment output indices",
                        subject=instruction,
                    )
