"""The Custom Code node: typed inputs and outputs, and a body written as VPL instructions.

The artist declares the node's inputs and outputs (name and port type) and
writes the *body of a VPL function* in the text format (docs/file-format.md
and docs/vpl-language.md describe it; the math extension is on): a
`(registers ...)` form, then one or more blocks. Inputs are the function's
parameters, read with `(load rN (parameter NAME))`; the function returns
its output with `(return rN)`, or, with several outputs, a value of the
record type `Outputs` (one field per output, in order) built with
`(construct rN ...)`. The type ids `Bool`, `Int`, `Float`, `Vec2`-`Vec4`,
`IVec2`-`IVec4`, `BVec2`-`BVec4`, `Mat2`-`Mat4`, `Sampler2D` (and
`Outputs`) are declared for it. The function's own id is `custom`.

There is no way around the verifier, and no GLSL: the body is checked by
reading it inside a small module (`check`): lexical, syntactic and
semantic (verifier) errors come back at their line and column *in the
body*, and a recursive call (`(call rN custom ...)`) is refused by the
verifier as VPL forbids recursion (spec 6.3). The body may only use its
parameters and registers: storage of the surrounding module (uniforms,
stage inputs and outputs) is refused with its position. The checked
function is then copied into the material's module (`vpl_core.ir.clone`)
as the helper `custom_<name>`, and the node lowers to a call of it, so
every target gets it through the one verified path.

Results are cached per (ports, code): the editor checks as the artist
types, and the lowering checks again at no cost.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.material.group_names import VALUE_KINDS, port_name_problem, slug, unique, zero_value
from app.material.node_types import LoweringFailure, NodeType, PortSpec, PropertySpec, Scope, register, register_dynamic
from app.material.port_types import PortType
from vpl_core.backends.glsl.dispatch import reachable_blocks
from vpl_core.diagnostics import Category, Diagnostic, VplError
from vpl_core.ir.builder import record
from vpl_core.ir.clone import clone_function
from vpl_core.ir.instructions import DiscardTerminator, LoadInstruction, ReturnTerminator, StoreInstruction
from vpl_core.ir.module import Function, Module
from vpl_core.ir.types import RecordType
from vpl_core.ir.values import ReferenceValue, StorageKind

if TYPE_CHECKING:
    from app.material.graph import Node
    from app.material.lowering import NodeContext

CUSTOM_CODE_TYPE = "custom_code"
CATEGORY = "Utility"
FUNCTION_ID = "custom"
OUTPUTS_TYPE_ID = "Outputs"

#: The VPL type id the body uses for each port type.
TYPE_IDS: dict[PortType, str] = {
    PortType.FLOAT: "Float",
    PortType.VEC2: "Vec2",
    PortType.VEC3: "Vec3",
    PortType.VEC4: "Vec4",
    PortType.COLOR: "Vec4",
    PortType.BOOL: "Bool",
    PortType.TEXTURE: "Sampler2D",
}
_TYPE_DECLARATIONS = (
    "(type Void void) (type Bool bool) (type Int int) (type Float float) (type Sampler2D sampler2D)\n"
    "    (type Vec2 vector float 2) (type Vec3 vector float 3) (type Vec4 vector float 4)\n"
    "    (type IVec2 vector int 2) (type IVec3 vector int 3) (type IVec4 vector int 4)\n"
    "    (type BVec2 vector bool 2) (type BVec3 vector bool 3) (type BVec4 vector bool 4)\n"
    "    (type Mat2 matrix 2 2) (type Mat3 matrix 3 3) (type Mat4 matrix 4 4)"
)

DEFAULT_INPUTS: tuple[tuple[str, str], ...] = (("color", "color"), ("amount", "float"))
DEFAULT_OUTPUTS: tuple[tuple[str, str], ...] = (("out", "color"),)
DEFAULT_CODE = """\
(registers (register r0 Vec4) (register r1 Float) (register r2 Vec3) (register r3 Float))
(block entry
  (load r0 (parameter color))
  (load r1 (parameter amount))
  (swizzle r2 r0 "xyz")
  (multiply r2 r2 r1)
  (swizzle r3 r0 "w")
  (construct r0 r2 r3)
  (return r0))
"""


@dataclass(frozen=True)
class CodeDiagnostic:
    """A problem of a Custom Code body: one-based line and column in the body, the message, the rule."""

    line: int
    column: int
    message: str
    kind: str = ""

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


@dataclass(frozen=True)
class CheckedCode:
    """`check`'s answer: the verified function (in its own small module), or the problems."""

    function: Function | None
    outputs_record: RecordType | None
    diagnostics: tuple[CodeDiagnostic, ...]

    @property
    def ok(self) -> bool:
        return self.function is not None and not self.diagnostics


# Declared ports --------------------------------------------------------------------------------


def read_ports(value: Any, outputs: bool) -> list[tuple[str, PortType]] | str:
    """A stored port list as (name, type) pairs, or why it cannot be used."""
    if not isinstance(value, (list, tuple)):
        return "the ports are a list of (name, type) pairs"
    ports: list[tuple[str, PortType]] = []
    for entry in value:
        if not isinstance(entry, (list, tuple)) or len(entry) != 2 or not all(isinstance(item, str) for item in entry):
            return "each port is a (name, type) pair"
        name, type_name = entry
        problem = port_name_problem(name, (port[0] for port in ports))
        if problem is not None:
            return f"{'output' if outputs else 'input'} {problem}"
        if name in RESERVED_PORT_NAMES:
            return f"'{name}' is the name of one of the node's own properties: choose another port name"
        try:
            port_type = PortType(type_name)
        except ValueError:
            return f"'{type_name}' is not a port type ({', '.join(member.value for member in PortType)})"
        if outputs and port_type is PortType.TEXTURE:
            return f"output '{name}' cannot be a texture: a VPL function cannot return a sampler"
        ports.append((name, port_type))
    return ports


def _ports(node: Node) -> tuple[list[tuple[str, PortType]], list[tuple[str, PortType]]] | str:
    inputs = read_ports(node.properties.get("inputs", DEFAULT_INPUTS), outputs=False)
    if isinstance(inputs, str):
        return inputs
    outputs = read_ports(node.properties.get("outputs", DEFAULT_OUTPUTS), outputs=True)
    if isinstance(outputs, str):
        return outputs
    clash = {name for name, _ in inputs} & {name for name, _ in outputs}
    if clash:
        return f"'{sorted(clash)[0]}' names both an input and an output"
    return inputs, outputs


def _properties() -> list[PropertySpec]:
    return [
        PropertySpec("name", "string", "custom"),
        PropertySpec("inputs", "ports", DEFAULT_INPUTS),
        PropertySpec("outputs", "ports", DEFAULT_OUTPUTS),
        PropertySpec("code", "code", DEFAULT_CODE),
    ]


#: The node's own properties: no port may take these names (an input's value is a property of its name).
RESERVED_PORT_NAMES = frozenset({"name", "inputs", "outputs", "code"})


def _port_default(port_type: PortType) -> Any:
    return None if port_type is PortType.TEXTURE else zero_value(port_type)


def _value_properties(inputs: tuple[tuple[str, PortType], ...]) -> list[PropertySpec]:
    """One property per value input: what the input reads while unconnected (as a group node's inputs)."""
    return [PropertySpec(name, VALUE_KINDS[port_type], _port_default(port_type))
            for name, port_type in inputs if port_type in VALUE_KINDS]


@functools.lru_cache(maxsize=256)
def _node_type(inputs: tuple[tuple[str, PortType], ...], outputs: tuple[tuple[str, PortType], ...]) -> NodeType:
    return NodeType(
        CUSTOM_CODE_TYPE,
        "Custom Code",
        CATEGORY,
        "VPL instructions you write, with typed inputs and outputs; checked by the VPL verifier.",
        inputs=[PortSpec(name, port_type, _port_default(port_type)) for name, port_type in inputs],
        outputs=[PortSpec(name, port_type) for name, port_type in outputs],
        properties=[*_properties(), *_value_properties(inputs)],
        lower=_lower,
        resolve=_resolve_code,
        notes=(
            "The body is checked inside a small module (reader and verifier, errors at their line), copied into "
            "the material's module as the helper `custom_<name>` and called; no GLSL is ever written by hand."
        ),
    )


def _resolve_code(node: Node, _inputs: dict[str, PortType], _used: frozenset[str]) -> dict[str, PortType] | str:
    """Type resolution checks the body too, so a node whose code does not check blocks what it feeds."""
    checked = check(node.properties)
    if checked.ok:
        return {}
    return "; ".join(str(problem) for problem in checked.diagnostics)


def _resolve(node: Node, _scope: Scope) -> NodeType | str:
    ports = _ports(node)
    if isinstance(ports, str):
        return ports
    return _node_type(tuple(ports[0]), tuple(ports[1]))


def _default_type() -> NodeType:
    inputs = read_ports(DEFAULT_INPUTS, outputs=False)
    outputs = read_ports(DEFAULT_OUTPUTS, outputs=True)
    assert not isinstance(inputs, str) and not isinstance(outputs, str)
    return _node_type(tuple(inputs), tuple(outputs))


# Checking a body -------------------------------------------------------------------------------


def wrapper(inputs: list[tuple[str, PortType]], outputs: list[tuple[str, PortType]], code: str) -> tuple[str, int]:
    """The module a body is read in, and the line of that text where the body's first line is."""
    if len(outputs) == 1:
        return_type = TYPE_IDS[outputs[0][1]]
    elif outputs:
        return_type = OUTPUTS_TYPE_ID
    else:
        return_type = "Void"
    record_line = ""
    if len(outputs) > 1:
        fields = " ".join(f'(field "{name}" {TYPE_IDS[port_type]})' for name, port_type in outputs)
        record_line = f"\n    (type {OUTPUTS_TYPE_ID} record \"outputs\" {fields})"
    parameters = " ".join(f"(parameter {name} {TYPE_IDS[port_type]})" for name, port_type in inputs)
    head = (
        "(module 1\n"
        '  (extensions "math")\n'
        f"  (types\n    {_TYPE_DECLARATIONS}{record_line})\n"
        "  (uniforms)\n"
        "  (vertex vertex_entry\n"
        '    (interface (out clip "clip" Vec4 -1 position))\n'
        '    (functions (function vertex_entry "vertex_entry" Void (parameters) (registers (register r0 Vec4))\n'
        "      (block entry (construct r0 (float 0.0)) (store (stage clip) r0) (return)))))\n"
        "  (fragment fragment_entry\n"
        '    (interface (out color "color" Vec4 0 fragment_color))\n'
        "    (functions\n"
        '      (function fragment_entry "fragment_entry" Void (parameters) (registers (register r0 Vec4))\n'
        "        (block entry (construct r0 (float 0.0)) (store (stage color) r0) (return)))\n"
        f'      (function {FUNCTION_ID} "{FUNCTION_ID}" {return_type}\n'
        f"        (parameters {parameters})\n"
    )
    first_line = head.count("\n") + 1
    return head + code + ("" if code.endswith("\n") else "\n") + "))))\n", first_line


def _in_body(diagnostic: Diagnostic, first_line: int, body_lines: int) -> tuple[int, int]:
    """The diagnostic's (line, column) in the body (clamped to it: the wrapper's own text is never meant)."""
    if diagnostic.line is None:
        return 1, 1
    line = diagnostic.line - first_line + 1
    if line < 1:
        return 1, 1
    if line > body_lines:
        return max(body_lines, 1), 1
    return line, diagnostic.column or 1


@functools.lru_cache(maxsize=256)
def _check(inputs: tuple[tuple[str, PortType], ...], outputs: tuple[tuple[str, PortType], ...], code: str) -> CheckedCode:
    from vpl_core.text.reader import read_located

    text, first_line = wrapper(list(inputs), list(outputs), code)
    body_lines = max(code.count("\n") + (0 if code.endswith("\n") else 1), 1)
    try:
        module, locator = read_located(text, label="custom code")
    except VplError as error:
        line, column = _in_body(error.diagnostic, first_line, body_lines)
        kind = error.diagnostic.kind
        return CheckedCode(None, None, (CodeDiagnostic(line, column, error.diagnostic.message, str(kind or "")),))
    function = _custom_function(module)
    problems: list[CodeDiagnostic] = []
    for block in function.blocks:
        for instruction in block.instructions:
            for reference in _references(instruction):
                storage = reference.root.storage_kind
                if storage in (StorageKind.STAGE, StorageKind.UNIFORM):
                    where = "stage inputs and outputs" if storage is StorageKind.STAGE else "uniforms"
                    located = locator.locate(Diagnostic(Category.SEMANTIC, ""), instruction)
                    line, column = _in_body(located, first_line, body_lines)
                    problems.append(CodeDiagnostic(line, column, f"custom code cannot use {where}: read your inputs with "
                                                   "(load rN (parameter NAME)) and return your outputs"))
    if not any(isinstance(block.terminator, (ReturnTerminator, DiscardTerminator)) for block in reachable_blocks(function)):
        # An endless loop: llvmpipe draws garbage and other drivers lose the context; es300 refuses it.
        located = locator.locate(Diagnostic(Category.SEMANTIC, ""), function.blocks[0])
        line, column = _in_body(located, first_line, body_lines)
        problems.append(CodeDiagnostic(line, column, "the code never finishes: no return is reachable from its entry "
                                       "block (an endless loop); the preview refuses it, as the ES 3.00 (WebGL 2) target does"))
    if problems:
        return CheckedCode(None, None, tuple(problems))
    outputs_record = function.return_type if isinstance(function.return_type, RecordType) else None
    return CheckedCode(function, outputs_record, ())


def _custom_function(module: Module) -> Function:
    return next(function for function in module.fragment.functions if function.name == FUNCTION_ID)


def _references(instruction: object) -> list[ReferenceValue]:
    if isinstance(instruction, LoadInstruction):
        return [instruction.source]
    if isinstance(instruction, StoreInstruction):
        return [instruction.target]
    return []


def check(properties: dict[str, Any]) -> CheckedCode:
    """Check a Custom Code node's body against its declared ports (cached; never raises)."""
    inputs = read_ports(properties.get("inputs", DEFAULT_INPUTS), outputs=False)
    outputs = read_ports(properties.get("outputs", DEFAULT_OUTPUTS), outputs=True)
    if isinstance(inputs, str) or isinstance(outputs, str):
        message = inputs if isinstance(inputs, str) else str(outputs)
        return CheckedCode(None, None, (CodeDiagnostic(1, 1, message),))
    code = properties.get("code", DEFAULT_CODE)
    if not isinstance(code, str):
        return CheckedCode(None, None, (CodeDiagnostic(1, 1, "the code is text"),))
    return _check(tuple(inputs), tuple(outputs), code)


# Lowering --------------------------------------------------------------------------------------


def helper_name(node: Node) -> str:
    """The helper's name in the material: `custom_` and the node's name as an identifier."""
    name = node.properties.get("name")
    return "custom_" + slug(name if isinstance(name, str) else "", "code")


def _lower(ctx: NodeContext) -> None:
    checked = check(ctx.node.properties)
    if not checked.ok or checked.function is None:
        raise LoweringFailure("; ".join(str(problem) for problem in checked.diagnostics) or "the code does not check")
    lowering = ctx.lowering
    # One helper per node: the function and the record it returns are copied into the material's module.
    key = f"custom:{id(lowering.graph)}:{ctx.node.id}"
    function = lowering.helpers.get(key)
    if function is None:
        types: dict[int, Any] = {}
        if checked.outputs_record is not None:
            types[id(checked.outputs_record)] = record(f"{helper_name(ctx.node)}_outputs",
                                                        [(f.name, f.type) for f in checked.outputs_record.fields])
        taken = {existing.name for existing in lowering.module.fragment.functions}
        function = clone_function(checked.function, unique(helper_name(ctx.node), taken), types)
        lowering.module.fragment.functions.append(function)
        lowering.helpers[key] = function
        lowering.record(function)
        for block in function.blocks:
            lowering.record(block)
            for instruction in block.instructions:
                lowering.record(instruction)
            lowering.record(block.terminator)
    fn = ctx.fn
    node_type = ctx.node_type
    called = fn.call(function, *(ctx.input(port.name) for port in node_type.inputs))
    if called is None:
        return
    if len(node_type.outputs) == 1:
        ctx.set_output(node_type.outputs[0].name, called)
        return
    for port in node_type.outputs:
        if ctx.output_used(port.name):
            ctx.set_output(port.name, fn.member(called, port.name))


register(_default_type())
register_dynamic(CUSTOM_CODE_TYPE, _resolve)
