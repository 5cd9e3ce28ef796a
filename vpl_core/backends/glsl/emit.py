"""Writing one GLSL stage (spec 12.1-12.3) from a verified, restriction-checked module.

Layout of every stage, in this order: `#version`, the profile's precision
statements, struct definitions for every record the module uses (the same
list in both stages, so uniform struct types match at link time), uniform
declarations (all uniforms in both stages; std140 blocks for records,
plain uniforms otherwise), this stage's interface declarations in slot
order, a prototype for every function, the function definitions in list
order, and `void main()` calling the selected entry.

Inside a function every non-sampler register is a typed local declared at
the top, every instruction is one assignment or call statement over
generated names and literals (operands are never nested expressions, so no
operator precedence can change a VPL operation), and the body's control
flow comes from `dispatch.lower_body`. Sampler registers are never declared:
each use is spelled as the uniform or parameter it aliases
(`restrictions.SamplerAliases`).

Every line is written together with its origin (`source_map.Origin`: the
instruction, terminator, function, uniform or interface variable it was
written for, or preamble), so `write_stage` returns the stage's source map
with its code.
"""

from __future__ import annotations

from vpl_core.backends.glsl import dispatch, names
from vpl_core.backends.glsl.dispatch import INDENT
from vpl_core.backends.glsl.literals import constant_literal, is_negative_spelling
from vpl_core.backends.glsl.locations import StageInterface
from vpl_core.backends.glsl.profiles import Profile
from vpl_core.backends.glsl.restrictions import SamplerAliases
from vpl_core.backends.glsl.source_map import PREAMBLE, LineKind, Origin, StageSourceMap, TaggedLine, tagged
from vpl_core.diagnostics import StructuralPath
from vpl_core.ir.instructions import (
    BinaryInstruction,
    BinaryOperator,
    Builtin,
    CallInstruction,
    ConditionalBranchTerminator,
    ConstructInstruction,
    CopyInstruction,
    DeclareLocalInstruction,
    IndexInstruction,
    Instruction,
    LoadInstruction,
    MemberInstruction,
    ReturnTerminator,
    StoreInstruction,
    SwizzleInstruction,
)
from vpl_core.ir.module import Block, Direction, Function, Module, Stage, StageKind
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
    ConstantValue,
    IndexReferenceValue,
    MemberReferenceValue,
    Operand,
    ReferenceSpellings,
    ReferenceValue,
    RegisterValue,
    StorageKind,
)
from vpl_core.records import Record

# typing.TYPE_CHECKING without importing typing at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

_OPERATORS: dict[BinaryOperator, str] = {
    BinaryOperator.ADD: "+",
    BinaryOperator.SUBTRACT: "-",
    BinaryOperator.MULTIPLY: "*",
    BinaryOperator.DIVIDE: "/",
    BinaryOperator.EQUAL: "==",
    BinaryOperator.NOT_EQUAL: "!=",
    BinaryOperator.LESS: "<",
    BinaryOperator.LESS_EQUAL: "<=",
    BinaryOperator.GREATER: ">",
    BinaryOperator.GREATER_EQUAL: ">=",
}
# The same by the member's identity: an enum member as a key is hashed by Python code, once per lookup.
_OPERATOR_TEXT: dict[int, str] = {id(operator): text for operator, text in _OPERATORS.items()}

#: Built-ins that are plain GLSL function calls with the same operand order.
#: GLSL 4.20 and ESSL 3.00 both have every one of these.
_BUILTIN_FUNCTIONS: dict[Builtin, str] = {
    Builtin.TEXTURE: "texture",
    Builtin.TEXTURE_LOD: "textureLod",
    Builtin.ABS: "abs",
    Builtin.SIGN: "sign",
    Builtin.FLOOR: "floor",
    Builtin.CEIL: "ceil",
    Builtin.FRACT: "fract",
    Builtin.TRUNC: "trunc",
    Builtin.ROUND_EVEN: "roundEven",
    Builtin.SQRT: "sqrt",
    Builtin.INVERSESQRT: "inversesqrt",
    Builtin.EXP: "exp",
    Builtin.EXP2: "exp2",
    Builtin.LOG: "log",
    Builtin.LOG2: "log2",
    Builtin.SIN: "sin",
    Builtin.COS: "cos",
    Builtin.TAN: "tan",
    Builtin.ASIN: "asin",
    Builtin.ACOS: "acos",
    Builtin.ATAN: "atan",
    Builtin.ATAN2: "atan",  # GLSL's two-operand atan(y, x)
    Builtin.RADIANS: "radians",
    Builtin.DEGREES: "degrees",
    Builtin.POW: "pow",
    Builtin.MOD: "mod",
    Builtin.MIN: "min",
    Builtin.MAX: "max",
    Builtin.STEP: "step",
    Builtin.CLAMP: "clamp",
    Builtin.MIX: "mix",  # with a bool (vector) selector GLSL's mix selects, as VPL's does
    Builtin.SMOOTHSTEP: "smoothstep",
    Builtin.DOT: "dot",
    Builtin.CROSS: "cross",
    Builtin.LENGTH: "length",
    Builtin.DISTANCE: "distance",
    Builtin.NORMALIZE: "normalize",
    Builtin.REFLECT: "reflect",
    Builtin.REFRACT: "refract",
    Builtin.DFDX: "dFdx",
    Builtin.DFDY: "dFdy",
    Builtin.FWIDTH: "fwidth",
}
_BUILTIN_FUNCTION_NAMES: dict[int, str] = {id(builtin): name for builtin, name in _BUILTIN_FUNCTIONS.items()}


class ModuleContext(Record):
    """Everything the stage writers share: names, locations, bindings, sampler aliases."""

    __slots__ = ("block_bindings", "interfaces", "module", "profile", "records", "samplers")

    def __init__(self, module: Module, profile: Profile, records: names.RecordNames, interfaces: dict[StageKind, StageInterface], block_bindings: dict[int, int], samplers: SamplerAliases) -> None:
        self.module: Final = module
        self.profile: Final = profile
        self.records: Final = records
        self.interfaces: Final = interfaces
        self.block_bindings: Final = block_bindings  # uniform slot of a record uniform -> binding point
        self.samplers: Final = samplers


# Types -----------------------------------------------------------------------------------


def _scalar_name(kind: ScalarKind) -> str:
    # Compared by identity: an enum member as a dictionary key is hashed by Python code, once per use.
    if kind is ScalarKind.FLOAT:
        return "float"
    if kind is ScalarKind.INT:
        return "int"
    if kind is ScalarKind.BOOL:
        return "bool"
    raise AssertionError(f"no GLSL spelling for scalar kind {kind!r}")


def base_type_name(value_type: Type, records: names.RecordNames) -> str:
    """The GLSL name of a non-array type."""
    if isinstance(value_type, ScalarType):
        return _scalar_name(value_type.kind)
    if isinstance(value_type, VectorType):
        kind = value_type.kind
        prefix = "" if kind is ScalarKind.FLOAT else "i" if kind is ScalarKind.INT else "b" if kind is ScalarKind.BOOL else None
        if prefix is None:
            raise AssertionError(f"no GLSL spelling for vector kind {kind!r}")
        return f"{prefix}vec{value_type.size}"
    if isinstance(value_type, MatrixType):
        # VPL gives rows then columns; GLSL's matCxR gives columns then rows.
        if value_type.rows == value_type.columns:
            return f"mat{value_type.columns}"
        return f"mat{value_type.columns}x{value_type.rows}"
    if isinstance(value_type, SamplerType):
        return value_type.kind
    if isinstance(value_type, RecordType):
        return records.name(value_type)
    if isinstance(value_type, VoidType):
        return "void"
    raise AssertionError(f"no GLSL spelling for {value_type!r}")


def type_name(value_type: Type, records: names.RecordNames) -> str:
    """The GLSL type as used by constructors and return types (`float[3]`)."""
    if isinstance(value_type, ArrayType):
        return f"{base_type_name(value_type.element, records)}[{value_type.count}]"
    return base_type_name(value_type, records)


def declaration(value_type: Type, name: str, records: names.RecordNames) -> str:
    """`T name` or `T name[N]`."""
    if isinstance(value_type, ArrayType):
        return f"{base_type_name(value_type.element, records)} {name}[{value_type.count}]"
    return f"{base_type_name(value_type, records)} {name}"


def _contains_array(value_type: Type) -> bool:
    if isinstance(value_type, ArrayType):
        return True
    if isinstance(value_type, RecordType):
        return any(_contains_array(field.type) for field in value_type.fields)
    return False


def zero_value(value_type: Type, records: names.RecordNames) -> str:
    """A constant expression of the type (for the unreachable dispatch fallback)."""
    if isinstance(value_type, ScalarType):
        return {ScalarKind.FLOAT: "0.0", ScalarKind.INT: "0", ScalarKind.BOOL: "false"}[value_type.kind]
    if isinstance(value_type, (VectorType, MatrixType)):
        element = value_type.kind if isinstance(value_type, VectorType) else ScalarKind.FLOAT
        return f"{base_type_name(value_type, records)}({zero_value(ScalarType(element), records)})"
    if isinstance(value_type, ArrayType):
        element_zero = zero_value(value_type.element, records)
        return f"{type_name(value_type, records)}({', '.join([element_zero] * value_type.count)})"
    if isinstance(value_type, RecordType):
        fields = ", ".join(zero_value(field.type, records) for field in value_type.fields)
        return f"{records.name(value_type)}({fields})"
    raise AssertionError(f"no zero value for {value_type!r}")


# Module-level declarations ---------------------------------------------------------------


def _struct_definitions(context: ModuleContext) -> list[TaggedLine]:
    lines: list[str] = []
    for record in context.records.records:
        lines.append(f"struct {context.records.name(record)} {{")
        for position, field in enumerate(record.fields):
            lines.append(f"{INDENT}{declaration(field.type, names.field_name(position), context.records)};")
        lines.append("};")
    return tagged(lines, PREAMBLE)


def _uniform_declarations(context: ModuleContext) -> list[TaggedLine]:
    lines: list[TaggedLine] = []
    for slot, uniform in enumerate(context.module.uniforms):
        origin = Origin(LineKind.DECLARATION, ("uniforms", slot))
        if isinstance(uniform.type, RecordType):
            qualifiers = "std140"
            if context.profile.block_binding_qualifier:
                qualifiers += f", binding = {context.block_bindings[slot]}"
            lines.append((f"layout({qualifiers}) uniform {names.block_name(slot)} {{", origin))
            for position, field in enumerate(uniform.type.fields):
                lines.append((f"{INDENT}{declaration(field.type, names.field_name(position), context.records)};", origin))
            lines.append((f"}} {names.uniform_name(slot)};", origin))
        else:
            lines.append((f"uniform {declaration(uniform.type, names.uniform_name(slot), context.records)};", origin))
    return lines


def _interface_declarations(context: ModuleContext, stage: Stage) -> list[TaggedLine]:
    lines: list[TaggedLine] = []
    for assignment in context.interfaces[stage.kind].assignments:
        if assignment.builtin:
            continue
        variable = assignment.variable
        is_varying = (stage.kind is StageKind.VERTEX) is (variable.direction is Direction.OUT)
        qualifiers: list[str] = []
        if not is_varying or context.profile.varying_location_qualifier:
            qualifiers.append(f"layout(location = {assignment.location})")
        if assignment.flat:
            qualifiers.append("flat")
        qualifiers.append("in" if variable.direction is Direction.IN else "out")
        origin = Origin(LineKind.DECLARATION, (stage.kind.value, "interface", assignment.slot))
        lines.append((f"{' '.join(qualifiers)} {declaration(variable.type, assignment.gl_name, context.records)};", origin))
    return lines


def _signature(context: ModuleContext, stage: Stage, position: int, function: Function) -> str:
    parameters = ", ".join(
        declaration(parameter.type, names.parameter_name(slot), context.records)
        for slot, parameter in enumerate(function.parameters)
    )
    return_type = type_name(function.return_type, context.records)
    return f"{return_type} {names.function_name(stage.kind, position)}({parameters})"


def write_stage(context: ModuleContext, stage: Stage) -> tuple[str, StageSourceMap]:
    """The complete GLSL source of one stage and its source map."""
    stage_path: StructuralPath = (stage.kind.value, "functions")
    sections: list[list[TaggedLine]] = [
        tagged([context.profile.version_line, *context.profile.precision_statements], PREAMBLE),
        _struct_definitions(context),
        _uniform_declarations(context),
        _interface_declarations(context, stage),
        [(f"{_signature(context, stage, position, function)};", Origin(LineKind.FUNCTION, (*stage_path, position)))
         for position, function in enumerate(stage.functions)],
    ]
    # One position map per stage, shared by every function's writer: calls
    # look their callee up in it (rebuilding it per function was quadratic).
    function_positions = {id(function): position for position, function in enumerate(stage.functions)}
    for position, function in enumerate(stage.functions):
        writer = FunctionWriter(context, stage, function, function_positions)
        function_path = (*stage_path, position)
        frame = Origin(LineKind.FUNCTION, function_path)
        sections.append(
            [(f"{_signature(context, stage, position, function)} {{", frame), *writer.body(function_path), ("}", frame)]
        )
    entry_position = function_positions[id(stage.entry)]
    sections.append(tagged(["void main() {", f"{INDENT}{names.function_name(stage.kind, entry_position)}();", "}"],
                           Origin(LineKind.MAIN, (*stage_path, entry_position))))
    lines: list[TaggedLine] = []
    for section in sections:
        if not section:
            continue
        if lines:
            lines.append(("", PREAMBLE))  # the empty line between sections (in no range)
        lines.extend(section)
    return "\n".join(text for text, _ in lines) + "\n", StageSourceMap.from_lines(lines)


# Functions -------------------------------------------------------------------------------


class FunctionWriter:
    """Statements of one function; implements `dispatch.BlockWriter`."""

    def __init__(
        self, context: ModuleContext, stage: Stage, function: Function, function_positions: dict[int, int]
    ) -> None:
        self.context = context
        self.stage = stage
        self.function = function
        self.records = context.records
        self.function_positions = function_positions  # id(function) -> list position in the stage
        self.sampler_roots = context.samplers.roots.get(function, {})
        self.register_names: dict[int, str] = {}  # register index -> GLSL name, spelled once per function
        # Reference paths spelled in this function, once each.
        self.reference_spellings = ReferenceSpellings()

    # Whole body --------------------------------------------------------------------------

    def body(self, function_path: StructuralPath) -> list[TaggedLine]:
        """The body's lines: register declarations (each tagged with its declaring instruction), then the code."""
        lines: list[TaggedLine] = []
        entry_path = (*function_path, "blocks", 0, "instructions")
        register_names = self.register_names
        # A lowered material declares a register per value, of a handful of types (the reader shares one
        # object per spelled type): each type's `T ` / `[N]` spelled once per function, by identity.
        spellings: dict[int, tuple[str, str, Type]] = {}
        instruction_kind = LineKind.INSTRUCTION
        for position, instruction in enumerate(self.function.blocks[0].instructions):
            if type(instruction) is not DeclareLocalInstruction and not isinstance(instruction, DeclareLocalInstruction):
                break
            value_type = instruction.type
            spelling = spellings.get(id(value_type))
            if spelling is None:
                if isinstance(value_type, SamplerType):
                    spelling = ("", "", value_type)
                elif isinstance(value_type, ArrayType):
                    spelling = (f"{INDENT}{base_type_name(value_type.element, self.records)} ",
                                f"[{value_type.count}];", value_type)
                else:
                    spelling = (f"{INDENT}{base_type_name(value_type, self.records)} ", ";", value_type)
                spellings[id(value_type)] = spelling  # the type is kept in the value: its id stays its own
            if not spelling[0]:
                continue  # a sampler: a static alias, never a GLSL local (spec 12.4)
            index = instruction.register.index
            name = register_names.get(index)
            if name is None:
                name = register_names[index] = names.register_name(index)
            lines.append((f"{spelling[0]}{name}{spelling[1]}", Origin(instruction_kind, (*entry_path, position))))
        lines.extend(dispatch.lower_body(self.function, self, function_path))
        return lines

    # dispatch.BlockWriter ----------------------------------------------------------------

    def block_statements(self, block: Block, block_path: StructuralPath) -> list[TaggedLine]:
        lines: list[TaggedLine] = []
        instructions_path = (*block_path, "instructions")
        instruction_kind = LineKind.INSTRUCTION
        statement_of = self.statement
        for position, instruction in enumerate(block.instructions):
            if type(instruction) is DeclareLocalInstruction:
                continue  # declared at the top of the body (`body`)
            statement = statement_of(instruction)
            if statement is not None:
                lines.append((statement, Origin(instruction_kind, (*instructions_path, position))))
        return lines

    def condition(self, terminator: ConditionalBranchTerminator) -> str:
        return self.operand(terminator.condition)

    def return_statement(self, terminator: ReturnTerminator) -> str:
        if terminator.value is None:
            return "return;"
        return f"return {self.operand(terminator.value)};"

    def fallback_return(self) -> list[str]:
        """The unreachable return statement(s) after a non-void dispatch loop or straight-line discard."""
        return_type = self.function.return_type
        if isinstance(return_type, VoidType):
            return []
        if _contains_array(return_type):
            # A constant would spell every element, and lengths go up to 2^31-1:
            # return an unassigned local instead; the statement never runs.
            return [
                f"{declaration(return_type, names.FALLBACK_VALUE, self.records)};",
                f"return {names.FALLBACK_VALUE};",
            ]
        return [f"return {zero_value(return_type, self.records)};"]

    # Operands and references -------------------------------------------------------------

    def operand(self, operand: Operand, operator_operand: bool = False) -> str:
        """A register name, sampler alias or literal; negative literals parenthesized as operator operands."""
        if type(operand) is RegisterValue and type(operand.type) is not SamplerType:
            # The common case, a value register: its name, spelled once per function.
            name = self.register_names.get(operand.index)
            if name is None:
                name = self.register_names[operand.index] = names.register_name(operand.index)
            return name
        if isinstance(operand, RegisterValue):
            if isinstance(operand.type, SamplerType):
                return self.root(self.sampler_roots[operand.index])
            return names.register_name(operand.index)
        assert isinstance(operand, ConstantValue)
        text = constant_literal(operand)
        if operator_operand and is_negative_spelling(text):
            return f"({text})"
        return text

    def root(self, reference: ReferenceValue) -> str:
        kind = reference.storage_kind
        if kind is StorageKind.LOCAL:
            if isinstance(reference.type, SamplerType):
                return self.root(self.sampler_roots[reference.slot])
            return names.register_name(reference.slot)
        if kind is StorageKind.PARAMETER:
            return names.parameter_name(reference.slot)
        if kind is StorageKind.UNIFORM:
            return names.uniform_name(reference.slot)
        if kind is StorageKind.STAGE:
            return self.context.interfaces[self.stage.kind].for_slot(reference.slot).gl_name
        raise AssertionError(f"not a root reference: {reference!r}")

    def reference(self, reference: ReferenceValue) -> str:
        """The l-value / r-value path of root or derived storage."""
        return self.reference_spellings.text(reference, self._spell_reference)

    def _spell_reference(self, reference: ReferenceValue) -> str:
        selectors: list[str] = []
        current = reference
        while isinstance(current, (MemberReferenceValue, IndexReferenceValue)):
            base_type = current.base.type
            if isinstance(current, MemberReferenceValue):
                assert isinstance(base_type, RecordType)
                selectors.append(f".{names.field_name(base_type.field_index(current.field_name))}")
            else:
                selectors.append(f"[{self.operand(current.index)}]")
            current = current.base
        return self.root(current) + "".join(reversed(selectors))

    def _is_block_uniform(self, reference: ReferenceValue) -> bool:
        return (
            reference.storage_kind is StorageKind.UNIFORM
            and isinstance(self.context.module.uniforms[reference.slot].type, RecordType)
        )

    def load_value(self, reference: ReferenceValue) -> str:
        if self._is_block_uniform(reference):
            # An interface-block instance is not a struct value: build one from its members.
            record = reference.type
            assert isinstance(record, RecordType)
            block = names.uniform_name(reference.slot)
            members = ", ".join(f"{block}.{names.field_name(position)}" for position in range(len(record.fields)))
            return f"{self.records.name(record)}({members})"
        return self.reference(reference)

    # Instructions ------------------------------------------------------------------------

    def statement(self, instruction: Instruction) -> str | None:
        """One GLSL statement, or None for instructions that only define sampler aliases."""
        if isinstance(instruction, DeclareLocalInstruction):
            return None
        result = getattr(instruction, "result", None)
        if isinstance(result, RegisterValue) and isinstance(result.type, SamplerType):
            return None  # sampler alias definition (load/copy); uses substitute the root
        if isinstance(instruction, StoreInstruction):
            if isinstance(instruction.target.type, SamplerType):
                return None  # whole-local sampler store: an alias definition too
            return f"{self.reference(instruction.target)} = {self.operand(instruction.value)};"
        value = self.value(instruction)
        if result is None:
            return f"{value};"
        name = self.register_names.get(result.index)
        if name is None:
            name = self.register_names[result.index] = names.register_name(result.index)
        return f"{name} = {value};"

    def value(self, instruction: Instruction) -> str:
        if isinstance(instruction, CopyInstruction):
            return self.operand(instruction.source)
        if isinstance(instruction, LoadInstruction):
            return self.load_value(instruction.source)
        if isinstance(instruction, BinaryInstruction):
            lhs = self.operand(instruction.lhs, operator_operand=True)
            rhs = self.operand(instruction.rhs, operator_operand=True)
            return f"{lhs} {_OPERATOR_TEXT[id(instruction.operator)]} {rhs}"
        if isinstance(instruction, ConstructInstruction):
            arguments = ", ".join(self.operand(argument) for argument in instruction.arguments)
            return f"{type_name(instruction.type, self.records)}({arguments})"
        if isinstance(instruction, SwizzleInstruction):
            return f"{self.operand(instruction.source)}.{instruction.pattern}"
        if isinstance(instruction, MemberInstruction):
            record = instruction.source.type
            assert isinstance(record, RecordType)
            return f"{self.operand(instruction.source)}.{names.field_name(record.field_index(instruction.field_name))}"
        if isinstance(instruction, IndexInstruction):
            return f"{self.operand(instruction.source)}[{self.operand(instruction.index)}]"
        if isinstance(instruction, CallInstruction):
            return self.call(instruction)
        raise AssertionError(f"no GLSL lowering for {instruction!r}")

    def call(self, instruction: CallInstruction) -> str:
        arguments = [self.operand(argument) for argument in instruction.arguments]
        builtin = instruction.builtin
        if builtin is Builtin.NONE:
            assert instruction.callee is not None
            position = self.function_positions[id(instruction.callee)]
            return f"{names.function_name(self.stage.kind, position)}({', '.join(arguments)})"
        function_name = _BUILTIN_FUNCTION_NAMES.get(id(builtin))
        if function_name is not None:
            return f"{function_name}({', '.join(arguments)})"
        operator_operands = [self.operand(argument, operator_operand=True) for argument in instruction.arguments]
        if builtin is Builtin.NEGATE:
            return f"-{operator_operands[0]}"
        if builtin is Builtin.LOGICAL_NOT:
            return f"!{operator_operands[0]}"
        if builtin is Builtin.LOGICAL_AND:
            return f"{operator_operands[0]} && {operator_operands[1]}"
        if builtin is Builtin.LOGICAL_OR:
            return f"{operator_operands[0]} || {operator_operands[1]}"
        if builtin is Builtin.SELECT:
            return f"{operator_operands[0]} ? {operator_operands[1]} : {operator_operands[2]}"
        if builtin is Builtin.FLOAT_TO_INT:
            assert instruction.result is not None
            return f"{type_name(instruction.result.type, self.records)}({arguments[0]})"
        raise AssertionError(f"no GLSL lowering for built-in {builtin!r}")
