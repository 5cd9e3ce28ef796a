"""Typing of every math operation through the text reader: accept/reject tables and round trips.

Each case is a complete module text generated for one operation and one
argument type combination (see `math_support.module_text`), read by
`vpl_core.text.read` so the lexer, binding and verifier all take part. The
expected verdicts come from `math_support.EXPECTED_SIGNATURES`, written
independently of the verifier's table.

* Accepted combinations (every one over the type universe) must read, and
  their canonical text must be a fixed point: write -> read -> write gives
  identical text, and publication (`VerifiedModule`) keeps that text.
* Rejected combinations are semantic errors at the instruction, naming the
  operation and the argument types. Binary operations are checked over the
  whole universe, ternary ones over a smaller universe that still has every
  kind, two sizes of each and a matrix (all 17**3 triples would take a
  minute of reading for little extra evidence).
* Wrong result registers, wrong operand counts, stage restrictions, and
  operands whose values make the result undefined (accepted: the verifier
  checks types, not ranges).
"""

from __future__ import annotations

import itertools

import pytest
from math_support import (
    EXPECTED_SIGNATURES,
    FRAGMENT_ONLY,
    MATH_OPERATIONS,
    TYPES,
    UNIVERSE,
    Function,
    accepted_combinations,
    arity,
    call_function,
    expected_result,
    module_text,
    position_of,
)
from tiers import fast_tier

from vpl_core.diagnostics import Category, SemanticError, SyntacticError, VplError
from vpl_core.ir import BOOL, FLOAT, INT, SAMPLER2D, ArrayType, Builtin, StageKind, Type, bvec, ivec, mat, record, vec
from vpl_core.publish import VerifiedModule
from vpl_core.text import read, write
from vpl_core.text.errors import SyntaxRule
from vpl_core.verify.builtins import BUILTINS, builtin_result_type
from vpl_core.verify.errors import InstructionRule

TERNARY_UNIVERSE = [TYPES[key] for key in ("float", "vec2", "vec3", "int", "ivec3", "bool", "bvec3", "mat2")]
#: The fast tier (tests/tiers.py) reads every third rejected combination of an operation, starting with the
#: first, second or third by turns over the operations (each one still meets a third of its rejections); the
#: full tier reads them all.
REJECTED_SHARE = 3 if fast_tier() else 1


def _read_error(text: str) -> VplError:
    with pytest.raises(VplError) as caught:
        read(text, label="case.vpl")
    return caught.value


def _canonical_fixed_point(text: str) -> str:
    first = write(read(text, label="case.vpl"))
    second = write(read(first, label="canonical.vpl"))
    assert first == second
    return first


def test_every_math_builtin_has_an_expected_rule() -> None:
    assert sorted(EXPECTED_SIGNATURES) == sorted(MATH_OPERATIONS)
    assert sorted(MATH_OPERATIONS) == sorted(builtin.value for builtin in BUILTINS if builtin.extension == "math")
    for operation in MATH_OPERATIONS:
        assert Builtin(operation).arity == arity(operation)


def _ir_types() -> dict[str, Type]:
    return {
        "float": FLOAT, "int": INT, "bool": BOOL,
        **{f"vec{n}": vec(n) for n in (2, 3, 4)},
        **{f"ivec{n}": ivec(n) for n in (2, 3, 4)},
        **{f"bvec{n}": bvec(n) for n in (2, 3, 4)},
        "mat2": mat(2), "mat3": mat(3), "mat2x3": mat(3, 2),
        "sampler2D": SAMPLER2D, "float[2]": ArrayType(FLOAT, 2), "R": record("R", [("x", FLOAT)]),
    }  # fmt: skip


def test_expected_rules_agree_with_the_builtin_table_over_the_whole_universe() -> None:
    """The cheap, exhaustive part: every argument tuple of the right arity, no text involved."""
    ir_types = _ir_types()
    assert set(ir_types) == set(TYPES)
    keys = list(ir_types)
    for operation in MATH_OPERATIONS:
        builtin = Builtin(operation)
        for arguments in itertools.product(keys, repeat=arity(operation)):
            expected = expected_result(operation, arguments)
            got = builtin_result_type(builtin, [ir_types[key] for key in arguments])
            if expected is None:
                assert isinstance(got, str), (operation, arguments, got)
            else:
                assert got == ir_types[expected], (operation, arguments, got)


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_accepted_combinations_read_and_round_trip(operation: str) -> None:
    combinations = accepted_combinations(operation)
    assert combinations, operation
    for arguments, result in combinations:
        body, _instruction = call_function(operation, arguments, result)
        text = module_text(body)
        canonical = _canonical_fixed_point(text)
        assert canonical.startswith('(module 1\n  (extensions "math")\n'), canonical[:60]
        assert f"({operation} r1 r10" in canonical
        published = VerifiedModule.from_text(text, label="case.vpl")
        assert published.text == canonical
        assert write(published.materialize()) == canonical


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_rejected_combinations_are_semantic_errors_at_the_instruction(operation: str) -> None:
    universe = UNIVERSE if arity(operation) < 3 else TERNARY_UNIVERSE
    checked = 0
    rejected = (arguments for arguments in itertools.product([text_type.key for text_type in universe], repeat=arity(operation))
                if expected_result(operation, arguments) is None)
    start = MATH_OPERATIONS.index(operation) % REJECTED_SHARE
    for arguments in itertools.islice(rejected, start, None, REJECTED_SHARE):
        body, instruction = call_function(operation, arguments, "float")
        text = module_text(body)
        error = _read_error(text)
        diagnostic = error.diagnostic
        assert isinstance(error, SemanticError), (arguments, diagnostic.format())
        assert diagnostic.category is Category.SEMANTIC
        assert (diagnostic.line, diagnostic.column) == position_of(text, instruction), (arguments, diagnostic.format())
        assert diagnostic.kind is InstructionRule.BUILTIN_ARGUMENTS, diagnostic.message
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_wrong_result_register_type_is_rejected(operation: str) -> None:
    arguments, result = accepted_combinations(operation)[0]
    wrong = "ivec4" if result != "ivec4" else "vec4"
    body, instruction = call_function(operation, arguments, wrong)
    text = module_text(body)
    error = _read_error(text)
    assert isinstance(error, SemanticError)
    assert (error.diagnostic.line, error.diagnostic.column) == position_of(text, instruction)
    assert error.kind is InstructionRule.RESULT_TYPE


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_wrong_operand_count_and_void_destination_are_syntactic(operation: str) -> None:
    arguments, result = accepted_combinations(operation)[0]
    count = arity(operation)
    shape = f"({operation} reg{' operand' * count})"
    for operands in (count - 1, count + 1):
        registers = " ".join(f"r{10 + position % count}" for position in range(operands))
        body, _ = call_function(operation, arguments, result)
        bad = f"({operation} r1 {registers})".replace(" )", ")")
        body.lines[-1] = bad
        text = module_text(body)
        error = _read_error(text)
        assert isinstance(error, SyntacticError), error.diagnostic.format()
        assert error.kind is (SyntaxRule.INCOMPLETE_FORM if operands < count else SyntaxRule.EXTRA_ITEM)
        assert shape in error.diagnostic.message, error.diagnostic.message  # the message shows the form's shape
        line, _ = position_of(text, bad)
        assert error.diagnostic.line == line
    body, instruction = call_function(operation, arguments, result)
    body.lines[-1] = instruction.replace(" r1 ", " void ")
    text = module_text(body)
    error = _read_error(text)
    assert isinstance(error, SyntacticError), error.diagnostic.format()
    assert error.diagnostic.line == position_of(text, body.lines[-1])[0]


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_vertex_stage_availability(operation: str) -> None:
    """Every operation but the derivatives is available in the vertex stage, in the entry and in helpers."""
    arguments, result = accepted_combinations(operation)[0]
    body, instruction = call_function(operation, arguments, result)
    text = module_text(Function([], []), body)
    helper = _helper(operation, arguments, result)
    helper_text = module_text(Function([], []), vertex_helpers=[helper])
    if operation in FRAGMENT_ONLY:
        for case, snippet in ((text, instruction), (helper_text, f"({operation} r1 ")):
            error = _read_error(case)
            assert isinstance(error, SemanticError)
            assert (error.diagnostic.line, error.diagnostic.column) == position_of(case, snippet)
            assert error.kind is InstructionRule.BUILTIN_STAGE
        # The same helper in the fragment stage is fine.
        _canonical_fixed_point(module_text(Function([], []), fragment_helpers=[helper]))
    else:
        _canonical_fixed_point(text)
        _canonical_fixed_point(helper_text)


def _helper(operation: str, arguments: tuple[str, ...], result: str) -> str:
    """An unused helper function that applies `operation` (helpers are verified even when never called)."""
    body, _ = call_function(operation, arguments, result)
    registers = " ".join(f"(register {register} {TYPES[key].type_id})" for register, key in body.registers)
    instructions = " ".join(body.lines)
    return (
        f'(function helper "helper" Void (parameters) (registers {registers}) '
        f"(block entry {instructions} (return)))"
    )


# Values the verifier does not judge --------------------------------------------------------

# Operations whose result GLSL 4.20 leaves undefined for these operand values.
# VPL keeps GLSL's allowances (spec 4.1) and the verifier checks types, not
# ranges, so even constant operands are accepted (unlike constant integer
# division by zero, spec 4.1). docs/vpl-math-extension.md lists the same cases.
UNDEFINED_BUT_ACCEPTED = [
    ("float", "(pow r1 (float -2.0) (float 0.5))"),
    ("float", "(pow r1 (float 0.0) (float 0.0))"),
    ("float", "(pow r1 (float 0.0) (float -1.0))"),
    ("float", "(log r1 (float 0.0))"),
    ("float", "(log r1 (float -1.0))"),
    ("float", "(log2 r1 (float -0.0))"),
    ("float", "(sqrt r1 (float -1.0))"),
    ("float", "(inversesqrt r1 (float 0.0))"),
    ("float", "(inversesqrt r1 (float -4.0))"),
    ("float", "(asin r1 (float 1.5))"),
    ("float", "(acos r1 (float -2.0))"),
    ("float", "(clamp r1 (float 0.5) (float 1.0) (float 0.0))"),
    ("int", "(clamp r1 (int 0) (int 3) (int -3))"),
    ("float", "(smoothstep r1 (float 1.0) (float 0.0) (float 0.5))"),
    ("float", "(smoothstep r1 (float 1.0) (float 1.0) (float 0.5))"),
    ("float", "(atan2 r1 (float 0.0) (float 0.0))"),
    ("float", "(normalize r1 (float 0.0))"),
    ("float", "(mod r1 (float 1.0) (float 0.0))"),
    ("float", "(refract r1 (float 1.0) (float 1.0) (float -1e30))"),
    ("int", "(float_to_int r1 (float 3e9))"),
    ("int", "(float_to_int r1 (float -1e38))"),
    ("float", "(exp r1 (float 100.0))"),
    ("float", "(tan r1 (float 1.5707964))"),
    ("int", "(negate r1 (int -2147483648))"),
    ("int", "(abs r1 (int -2147483648))"),
]


@pytest.mark.parametrize(("result", "instruction"), UNDEFINED_BUT_ACCEPTED)
def test_undefined_values_are_not_rejected_even_as_constants(result: str, instruction: str) -> None:
    for vertex in (False, True):
        body = Function([("r1", result)], [instruction])
        text = module_text(Function([], []), body) if vertex else module_text(body)
        canonical = _canonical_fixed_point(text)
        assert instruction.split(" ")[0] in canonical


def test_constant_operands_of_every_kind_are_accepted() -> None:
    lines = [
        "(min r1 (float -1.7) (float 2.5))",
        "(max r2 (int -3) (int 2147483647))",
        "(logical_and r3 (bool true) (bool false))",
        "(select r2 (bool false) (int -2147483648) (int 0))",
        "(mix r4 r4 r4 (float 0.25))",
        "(clamp r4 r4 (float -0.0) (float 1.0))",
        "(step r4 (float 0.5) r4)",
    ]
    body = Function(
        [("r1", "float"), ("r2", "int"), ("r3", "bool"), ("r4", "vec3")], ["(construct r4 (float 0.5))", *lines]
    )
    canonical = _canonical_fixed_point(module_text(body))
    for line in lines:
        assert line in canonical


def divergent_derivatives_module() -> str:
    """A fragment entry that takes derivatives on both sides of a branch on gl_FragCoord.x."""
    text = module_text(Function([], []))
    divergent = """      (function fmain "fragment_main" Void
        (parameters)
        (registers (register r0 Vec4) (register r1 Vec4) (register r2 Float) (register r3 Bool))
        (block entry
          (load r1 (stage frag_coord))
          (swizzle r2 r1 "x")
          (greater r3 r2 (float 4.0))
          (branch_if r3 right left))
        (block right
          (dfdx r2 r2)
          (fwidth r1 r1)
          (branch done))
        (block left
          (dfdy r2 r2)
          (construct r1 (float 0.0))
          (branch done))
        (block done
          (construct r0 r2)
          (add r0 r0 r1)
          (store (stage color) r0)
          (return))))))
"""
    text = text.replace(
        '(interface (out color "color" Vec4 0 fragment_color))',
        '(interface (in frag_coord "frag_coord" Vec4 -1 position) (out color "color" Vec4 0 fragment_color))',
    )
    start = text.index('      (function fmain "fragment_main"')
    return text[:start] + divergent


def test_derivatives_in_non_uniform_control_flow_are_accepted() -> None:
    """GLSL leaves derivatives in divergent control flow undefined; VPL does not reject them (no uniformity analysis)."""
    canonical = _canonical_fixed_point(divergent_derivatives_module())
    assert "(dfdx r2 r2)" in canonical and "(fwidth r1 r1)" in canonical and "(dfdy r2 r2)" in canonical


def test_math_calls_are_typed_in_every_stage_kind() -> None:
    """The verifier passes the stage to the table: the table's stage lists are what the reader enforces."""
    for builtin, spec in BUILTINS.items():
        if builtin.extension != "math":
            continue
        expected = {StageKind.FRAGMENT} if builtin.value in FRAGMENT_ONLY else {StageKind.VERTEX, StageKind.FRAGMENT}
        assert set(spec.stages) == expected, builtin
