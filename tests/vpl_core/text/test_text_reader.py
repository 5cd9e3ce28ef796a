"""The reader (spec 10.2, 11): binding forms to IR objects, scopes, limits, extensions, verifier diagnostics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vpl_core.diagnostics import SemanticError, SyntacticError, VplError
from vpl_core.ir import (
    FLOAT,
    INT,
    ArrayType,
    BinaryInstruction,
    BinaryOperator,
    Builtin,
    CallInstruction,
    ConstantValue,
    ConstructInstruction,
    DeclareLocalInstruction,
    IndexReferenceValue,
    LoadInstruction,
    MemberReferenceValue,
    RecordType,
    ReferenceValue,
    RegisterValue,
    StorageKind,
    StoreInstruction,
    UniformKind,
    vec,
)
from vpl_core.text import read, read_file
from vpl_core.text import reader as reader_module
from vpl_core.text.errors import BindingRule, SyntaxRule
from vpl_core.verify import VerificationError
from vpl_core.verify.errors import InternalRule, TypeRule

SPEC_EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "spec"

TYPES = "(type V void) (type C vector float 4) (type I int) (type F float) (type B bool)"


def module_text(
    vertex_body: str = "(construct r0 (float 1.0)) (store (stage p) r0) (return)",
    *,
    types: str = TYPES,
    uniforms: str = "",
    vertex_registers: str = "(register r0 C)",
    vertex_functions: str = "",
    extensions: str = "",
) -> str:
    """A valid module whose vertex entry body (and a few other parts) a test replaces."""
    return f"""(module 1 {extensions}
 (types {types})
 (uniforms {uniforms})
 (vertex main (interface (out p "p" C -1 position))
  (functions (function main "main" V (parameters) (registers {vertex_registers})
   (block entry {vertex_body})) {vertex_functions}))
 (fragment main (interface (out c "c" C 0 fragment_color))
  (functions (function main "main" V (parameters) (registers (register r0 C))
   (block entry (construct r0 (float 1.0)) (store (stage c) r0) (return))))))"""


def test_the_minimal_template_is_valid() -> None:
    read(module_text())


@pytest.mark.parametrize("path", sorted(SPEC_EXAMPLES.glob("*.vpl")), ids=lambda path: path.name)
def test_the_spec_examples_are_read_and_verified(path: Path) -> None:
    module = read_file(path)
    assert module.vertex.entry is module.vertex.functions[0]
    assert module.fragment.entry is module.fragment.functions[0]
    read_file(str(path), strict_v1=True)


def test_loop_and_helper_binds_the_forward_referenced_helper_and_scoped_registers() -> None:
    module = read_file(SPEC_EXAMPLES / "loop-and-helper.vpl")
    entry, helper = module.fragment.functions
    assert helper.name == "increment" and helper.return_type == INT
    assert helper.parameters == [ReferenceValue(StorageKind.PARAMETER, 0, INT)]
    declarations = [instruction for instruction in entry.blocks[0].instructions if isinstance(instruction, DeclareLocalInstruction)]
    assert [(declaration.register.index, str(declaration.type)) for declaration in declarations] == [
        (0, "int"),
        (1, "bool"),
        (2, "float"),
        (3, "vector float 4"),
    ]
    assert entry.blocks[0].instructions[:4] == declarations  # the declaration prefix
    call = entry.blocks[2].instructions[0]
    assert isinstance(call, CallInstruction) and call.callee is helper and call.builtin is Builtin.NONE
    assert call.result == RegisterValue(0, INT) and call.arguments == [RegisterValue(0, INT)]
    branch_if = entry.blocks[1].terminator
    assert branch_if.true_target is entry.blocks[2] and branch_if.false_target is entry.blocks[3]
    # r0 of the helper is its own int register
    load = helper.blocks[0].instructions[1]
    assert isinstance(load, LoadInstruction)
    assert load.source == ReferenceValue(StorageKind.PARAMETER, 0, INT)
    assert load.source is not helper.parameters[0]  # a fresh descriptor per use


def test_nested_aggregate_storage_binds_derived_references_with_selected_types() -> None:
    module = read_file(SPEC_EXAMPLES / "nested-aggregate-storage.vpl")
    entry = module.fragment.entry
    store = next(instruction for instruction in entry.blocks[0].instructions if isinstance(instruction, StoreInstruction))
    member_reference = store.target
    assert isinstance(member_reference, MemberReferenceValue)
    assert member_reference.storage_kind is StorageKind.MEMBER and member_reference.slot == 0
    assert member_reference.field_name == "color" and member_reference.type == vec(4)
    element = member_reference.base
    assert isinstance(element, IndexReferenceValue) and element.storage_kind is StorageKind.INDEX
    cell = element.type
    assert isinstance(cell, RecordType) and cell.name == "Cell"
    assert element.index == RegisterValue(3, INT)
    root = element.base
    assert root == ReferenceValue(StorageKind.LOCAL, 2, ArrayType(cell, 2))
    construct = entry.blocks[0].instructions[5]
    assert isinstance(construct, ConstructInstruction) and construct.type is cell


def test_forward_references_to_types_functions_and_blocks() -> None:
    text = module_text(
        "(construct r0 (float 1.0)) (call void later) (branch finish)) (block finish (store (stage p) r0) (return)",
        types="(type Cs array Cell 2) (type Cell record \"Cell\" (field \"c\" C)) (type V void) (type C vector float 4)",
        vertex_registers="(register r0 C) (register r1 Cs)",
        vertex_functions="(function later \"later\" V (parameters) (registers) (block b (return)))",
    )
    module = read(text)
    entry, later = module.vertex.functions
    assert entry.blocks[0].instructions[-1].callee is later
    assert entry.blocks[0].terminator.target is entry.blocks[1]
    cells = entry.blocks[0].instructions[1].type
    assert isinstance(cells, ArrayType) and isinstance(cells.element, RecordType)


def test_each_kind_of_id_has_its_own_scope() -> None:
    text = module_text(
        "(load r1 (uniform x)) (construct r0 r1 r1 r1 r1) (store (stage p) r0) (branch x)) (block x (call void x r1) (return)",
        types=TYPES + " (type x float)",
        uniforms='(scalar x "x" x)',
        vertex_registers="(register r0 C) (register r1 x)",
        vertex_functions='(function x "x" V (parameters (parameter x F)) (registers) (block x (return)))',
    )
    module = read(text)
    assert module.uniforms[0].type == FLOAT
    entry, helper_x = module.vertex.functions
    assert entry.blocks[1].instructions[0].callee is helper_x


def test_register_ids_compare_by_number_and_names_may_look_like_registers() -> None:
    text = module_text(
        "(construct r000 (float 1.0)) (store (stage p) r0) (branch r1)) (block r1 (return)",
        types=TYPES + " (type r2 int)",
    )
    module = read(text)
    construct = module.vertex.entry.blocks[0].instructions[1]
    assert construct.result == RegisterValue(0, vec(4))


def test_strings_decode_escapes_in_both_quote_styles() -> None:
    text = module_text(types=TYPES + r""" (type R record 'quote\'s' (field "tab\tand\u00e9" I))""")
    module = read(text.replace("(registers (register r0 C))", "(registers (register r0 C) (register r1 R))", 1))
    record = module.vertex.entry.blocks[0].instructions[1].type
    assert record.name == "quote's" and record.fields[0].name == "tab\tand\u00e9"


def test_record_declarations_are_nominal_and_structural_declarations_are_equal() -> None:
    text = module_text(
        types=TYPES + ' (type R1 record "Same" (field "x" I)) (type R2 record "Same" (field "x" I)) (type C2 vector float 4)',
        uniforms='(record a "a" R1) (record b "b" R1) (record c "c" R2) (scalar d "d" C2) (array e "e" R1 3)',
    )
    module = read(text)
    a, b, c, d, e = module.uniforms
    assert a.type is b.type and a.type is not c.type and a.type != c.type
    assert d.type == vec(4) and d.kind is UniformKind.SCALAR
    assert e.kind is UniformKind.ARRAY and e.type == ArrayType(a.type, 3)
    assert [uniform.kind for uniform in (a, b, c)] == [UniformKind.RECORD] * 3


def test_every_binary_operator_and_literal_form() -> None:
    body = " ".join(
        f"({operator.value} r{3 if operator.is_comparison else 1} r1 (int -7))" for operator in BinaryOperator
    )
    text = module_text(
        f"(copy r1 (int 2147483647)) (copy r1 (int -2147483648)) (copy r2 (float -0.0)) (copy r3 (bool false)) {body}"
        " (construct r0 (float 1e-45)) (store (stage p) r0) (return)",
        vertex_registers="(register r0 C) (register r1 I) (register r2 F) (register r3 B)",
    )
    instructions = read(text).vertex.entry.blocks[0].instructions[4:]
    assert [instruction.source for instruction in instructions[:4]] == [
        ConstantValue.of_int(2**31 - 1),
        ConstantValue.of_int(-(2**31)),
        ConstantValue.of_float_bits(0x80000000),
        ConstantValue.of_bool(False),
    ]
    binaries = instructions[4:-2]
    assert [instruction.operator for instruction in binaries] == list(BinaryOperator)
    assert all(isinstance(instruction, BinaryInstruction) for instruction in binaries)
    assert instructions[-2].arguments[0].bits == 1


def test_texture_reads_as_a_builtin_call() -> None:
    text = module_text(
        "(load r1 (uniform s)) (construct r2 (float 0.5)) (texture r0 r1 r2) (store (stage p) r0) (return)",
        types=TYPES + " (type S sampler2D) (type T vector float 2)",
        uniforms='(scalar s "s" S)',
        vertex_registers="(register r0 C) (register r1 S) (register r2 T)",
    )
    texture = read(text).vertex.entry.blocks[0].instructions[5]
    assert isinstance(texture, CallInstruction)
    assert texture.builtin is Builtin.TEXTURE and texture.callee is None and len(texture.arguments) == 2


def test_math_extension_operations_read_as_builtin_calls() -> None:
    text = module_text(
        "(construct r1 (float 0.5)) (sin r1 r1) (mix r1 r1 r1 r1) (construct r0 r1) (store (stage p) r0) (return)",
        extensions='(extensions "math")',
        vertex_registers="(register r0 C) (register r1 F)",
    )
    instructions = read(text).vertex.entry.blocks[0].instructions
    sine, mix = instructions[3], instructions[4]
    assert isinstance(sine, CallInstruction) and sine.builtin is Builtin.SIN and sine.callee is None
    assert mix.builtin is Builtin.MIX and len(mix.arguments) == 3


def test_every_math_builtin_has_a_form_with_its_arity() -> None:
    math_builtins = [builtin for builtin in Builtin if builtin.extension == "math"]
    assert math_builtins
    for builtin in math_builtins:
        operands = " r1" * builtin.arity
        text = module_text(
            f"(construct r1 (float 0.5)) ({builtin.value} r1{operands}) (return)", extensions='(extensions "math")',
            vertex_registers="(register r0 C) (register r1 F)",
        )
        with pytest.raises(VplError) as raised:
            read(text)
        # The form itself is accepted; only typing or output rules (the verifier) may object.
        assert isinstance(raised.value, SemanticError), raised.value
        too_many = text.replace(f"({builtin.value} r1{operands})", f"({builtin.value} r1{operands} r1)")
        with pytest.raises(SyntacticError):
            read(too_many)


def test_strict_mode_accepts_plain_version_1_and_empty_extensions_are_allowed_otherwise() -> None:
    read(module_text(), strict_v1=True)
    read(module_text(extensions="(extensions)"))
    with pytest.raises(SyntacticError) as raised:
        read(module_text(extensions="(extensions)"), strict_v1=True)
    assert raised.value.kind is SyntaxRule.STRICT_V1_EXTENSION


# Limits (spec 10.2) ---------------------------------------------------------------------


def member_chain_text(depth: int) -> str:
    """A valid module loading a float through `depth` nested member references of a uniform."""
    types = [TYPES] + [f'(type R{level} record "R{level}" (field "f" R{level + 1}))' for level in range(depth)]
    types.append(f"(type R{depth} float)")
    path = "(uniform u)"
    for _ in range(depth):
        path = f'(member_ref {path} "f")'
    return module_text(
        f"(load r1 {path}) (construct r0 r1) (store (stage p) r0) (return)",
        types=" ".join(types),
        uniforms='(record u "u" R0)',
        vertex_registers="(register r0 C) (register r1 F)",
    )


def test_forms_and_atoms_may_nest_128_deep() -> None:
    # module, vertex, functions, function, block, load: 6 levels; 120 member_ref levels;
    # the root form (uniform u) is level 127 and its atom u level 128.
    module = read(member_chain_text(120))
    load = module.vertex.entry.blocks[0].instructions[2]
    depth = 0
    reference = load.source
    while isinstance(reference, MemberReferenceValue):
        depth += 1
        reference = reference.base
    assert depth == 120 and reference.storage_kind is StorageKind.UNIFORM


def test_an_atom_at_level_129_is_rejected() -> None:
    # One more member_ref puts the root form at level 128 and its head word at 129.
    text = member_chain_text(121)
    with pytest.raises(SyntacticError) as raised:
        read(text)
    assert raised.value.kind is SyntaxRule.NESTING_DEPTH
    assert raised.value.diagnostic.offset == text.index("(uniform u)") + 1


def test_a_form_at_level_129_is_rejected_at_its_parenthesis() -> None:
    with pytest.raises(SyntacticError) as raised:
        read("(" * 129 + ")" * 129)
    assert raised.value.kind is SyntaxRule.NESTING_DEPTH
    assert raised.value.diagnostic.offset == 128


def test_an_empty_form_may_sit_at_level_128() -> None:
    with pytest.raises(SyntacticError) as raised:
        read("(" * 128 + ")" * 128)
    assert raised.value.kind is not SyntaxRule.NESTING_DEPTH


@pytest.mark.parametrize("depth", [10_000, 200_000])
def test_deep_nesting_never_recurses(depth: int) -> None:
    with pytest.raises(SyntacticError) as raised:
        read("(" * depth + ")" * depth)
    assert raised.value.kind is SyntaxRule.NESTING_DEPTH
    with pytest.raises(SyntacticError):
        read("(module 1 " + "(" * depth)


def type_chain_text(edges: int, *, cyclic: bool = False) -> str:
    """A valid module with an unused chain of array types `edges` dependency edges long."""
    chain = [f"(type A{level} array A{level + 1} 2)" for level in range(edges)]
    chain.append("(type A0 int)" if cyclic else f"(type A{edges} int)")
    # Declared in reverse order: depth does not depend on declaration order.
    return module_text(types=TYPES + " " + " ".join(reversed(chain)))


def test_type_dependency_paths_may_have_128_edges_even_in_unused_types() -> None:
    read(type_chain_text(128))


def test_type_dependency_paths_of_129_edges_are_rejected() -> None:
    with pytest.raises(SemanticError) as raised:
        read(type_chain_text(129))
    assert raised.value.kind is BindingRule.TYPE_DEPTH
    assert "dependency path of 129 edges" in raised.value.message  # the message gives the length found


def test_long_type_chains_and_cycles_never_recurse() -> None:
    with pytest.raises(SemanticError) as raised:
        read(type_chain_text(20_000))
    assert raised.value.kind is BindingRule.TYPE_DEPTH
    text = module_text(types=TYPES + " " + " ".join(f"(type A{level} array A{(level + 1) % 20_000} 2)" for level in range(20_000)))
    with pytest.raises(SemanticError) as raised:
        read(text)
    assert raised.value.kind is TypeRule.RECURSIVE


def test_zero_array_lengths_and_counts_up_to_the_size_bound() -> None:
    read(module_text(types=TYPES + " (type A array I 18446744073709551615)"))
    read(module_text(types=TYPES + " (type A array I 00000000000000000000000001)"))


# Verifier diagnostics -------------------------------------------------------------------


class RaisingVerifier:
    """Stands in for the verifier: raises a VerificationError built from the module it is given."""

    def __init__(self, choose: Any) -> None:
        self.choose = choose

    def __call__(self) -> RaisingVerifier:
        return self

    def run(self, module: Any) -> None:
        message, subject, context = self.choose(module)
        raise VerificationError(InternalRule.CHECKER_FAILED, message, subject, context)


def read_with_verifier(monkeypatch: pytest.MonkeyPatch, text: str, choose: Any) -> SemanticError:
    monkeypatch.setattr(reader_module, "Verifier", RaisingVerifier(choose))
    with pytest.raises(SemanticError) as raised:
        read(text, label="m.vpl")
    assert not isinstance(raised.value, VerificationError) or raised.value.diagnostic.line is not None
    return raised.value


def position(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    index = -1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


TEXT = module_text(
    "(construct r0 (float 1.0)) (store (member_ref (uniform u) \"x\") r0) (store (stage p) r0) (return)",
    types=TYPES + ' (type R record "R" (field "x" C))',
    uniforms='(record u "u" R)',
)


@pytest.mark.parametrize(
    ("choose", "needle", "occurrence"),
    [
        (lambda module: module.vertex.entry.blocks[0].instructions[2], "(store (member_ref", 1),
        (lambda module: module.vertex.entry.blocks[0].instructions[2].target, '(member_ref (uniform u) "x")', 1),
        (lambda module: module.vertex.entry.blocks[0].instructions[2].target.base, "(uniform u)", 1),
        (lambda module: module.vertex.entry.blocks[0].instructions[2].value, "r0) (store (stage", 1),
        (lambda module: module.vertex.entry.blocks[0].instructions[1].arguments[0], "(float 1.0)", 1),
        (lambda module: module.vertex.entry.blocks[0].instructions[0], "(register r0 C)", 1),
        (lambda module: module.vertex.entry.blocks[0].terminator, "(return)", 1),
        (lambda module: module.vertex.entry.blocks[0], "(block entry", 1),
        (lambda module: module.vertex.entry, "(function main", 1),
        (lambda module: module.vertex, "(vertex main", 1),
        (lambda module: module.fragment.interface[0], "(out c", 1),
        (lambda module: module.uniforms[0], '(record u "u" R)', 1),
        (lambda module: module.uniforms[0].type, '(type R record', 1),
        (lambda module: module.uniforms[0].type.fields[0], '(field "x" C)', 1),
        (lambda module: module, "(module 1", 1),
    ],
)
def test_verifier_failures_are_placed_at_their_subject(
    monkeypatch: pytest.MonkeyPatch, choose: Any, needle: str, occurrence: int
) -> None:
    subject = None

    def failing(module: Any) -> tuple[str, Any, tuple[Any, ...]]:
        nonlocal subject
        subject = choose(module)
        return "made-up problem", subject, ()

    error = read_with_verifier(monkeypatch, TEXT, failing)
    diagnostic = error.diagnostic
    assert diagnostic.message == "made-up problem" and diagnostic.subject is subject
    assert diagnostic.kind is InternalRule.CHECKER_FAILED  # the verifier's kind survives positioning
    assert diagnostic.label == "m.vpl"
    assert (diagnostic.line, diagnostic.column) == position(TEXT, needle, occurrence)
    assert diagnostic.offset == TEXT.index(needle)
    assert isinstance(error.__cause__, VerificationError)


def test_verifier_failures_without_a_known_subject_use_the_innermost_known_context(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(module: Any) -> tuple[str, Any, tuple[Any, ...]]:
        function = module.vertex.entry
        return "problem", object(), (module.vertex, function, function.blocks[0], object())

    diagnostic = read_with_verifier(monkeypatch, TEXT, failing).diagnostic
    assert (diagnostic.line, diagnostic.column) == position(TEXT, "(block entry")


def test_verifier_failures_without_any_position_fall_back_to_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "// leading comment\n" + TEXT
    diagnostic = read_with_verifier(monkeypatch, text, lambda module: ("problem", None, ())).diagnostic
    assert (diagnostic.line, diagnostic.column) == (2, 1)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        # Constructor count mismatch: a vec4 from two floats.
        ("(construct r0 (float 1.0) (float 2.0)) (store (stage p) r0) (return)", "(construct r0"),
        # Read of an unassigned register.
        ("(store (stage p) r0) (return)", "(store (stage p)"),
        # Output never written.
        ("(construct r0 (float 1.0)) (return)", ""),
    ],
)
def test_real_verifier_failures_are_semantic_errors_inside_the_module(body: str, needle: str) -> None:
    text = module_text(body)
    with pytest.raises(SemanticError) as raised:
        read(text, label="m.vpl")
    diagnostic = raised.value.diagnostic
    assert diagnostic.label == "m.vpl" and diagnostic.line is not None
    if needle:
        start_line, start_column = position(text, needle)
        assert (diagnostic.line, diagnostic.column) >= (start_line, start_column)
        assert diagnostic.line == start_line


def test_number_spellings_are_resolved_by_context() -> None:
    text = module_text(
        "(copy r1 (float 1)) (copy r1 (float -0)) (copy r1 (float .5)) (copy r1 (float 2.)) (copy r1 (float 1E2))"
        " (copy r2 (int +5)) (copy r2 (int -0)) (copy r2 (int 007))"
        " (construct r0 r1) (store (stage p) r0) (return)",
        vertex_registers="(register r0 C) (register r1 F) (register r2 I)",
    )
    instructions = read(text).vertex.entry.blocks[0].instructions[3:11]
    assert [instruction.source.bits for instruction in instructions[:5]] == [0x3F800000, 0x80000000, 0x3F000000, 0x40000000, 0x42C80000]
    assert [instruction.source.value for instruction in instructions[5:]] == [5, 0, 7]


def test_form_head_words_are_contextual_and_can_be_ids() -> None:
    text = module_text(
        "(construct r0 (float 1.0)) (branch return)) (block return (store (stage p) r0) (call void module) (return)",
        types=TYPES + " (type module int) (type record vector float 2)",
        uniforms='(scalar uniform "u" record)',
        vertex_functions='(function module "m" V (parameters (parameter load I)) (registers) (block block (return)))',
    ).replace("(call void module)", "(copy r1 (int 1)) (call void module r1)").replace(
        "(registers (register r0 C))", "(registers (register r0 C) (register r1 module))", 1
    )
    module = read(text)
    assert module.uniforms[0].type == vec(2)
    assert module.vertex.functions[1].name == "m"
