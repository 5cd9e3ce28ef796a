"""Built-in typing (spec 7.3 texture, the `math` extension): accept/reject tables for every built-in.

Each built-in's expected rule is written here as plain Python over a
representative type set, independently of the signature patterns in
`vpl_core.verify.builtins`, and every argument tuple of the right arity is
compared. Then the verifier's use of the table is checked on modules.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from test_structure_support import assert_accepted, assert_rejected, sample

from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    ArrayType,
    Builtin,
    CallInstruction,
    ScalarType,
    StageKind,
    Type,
    VectorType,
    add_uniform,
    bvec,
    ivec,
    mat,
    record,
    vec,
)
from vpl_core.ir.type_rules import describe_type, types_equal
from vpl_core.verify.builtins import (
    BUILTINS,
    builtin_result_type,
    concrete_signatures,
    signature_descriptions,
)
from vpl_core.verify.errors import InstructionRule

RECORD = record("R", [("x", FLOAT)])
UNIVERSE: list[Type] = [
    FLOAT, vec(2), vec(3), vec(4),
    INT, ivec(2), ivec(3), ivec(4),
    BOOL, bvec(2), bvec(3), bvec(4),
    mat(2), mat(3), mat(2, 3),
    SAMPLER2D, ArrayType(FLOAT, 2), RECORD,
]  # fmt: skip


def float_size(t: Type) -> int | None:
    """Component count of a float scalar/vector, else None (written independently of the implementation)."""
    if t == FLOAT:
        return 1
    if isinstance(t, VectorType) and t.kind == FLOAT.kind:
        return t.size
    return None


def gen_float(t: Type) -> bool:
    return float_size(t) is not None


def gen_int(t: Type) -> bool:
    return t == INT or (isinstance(t, VectorType) and t.kind == INT.kind)


def bool_like(t: Type) -> Type:
    size = float_size(t)
    return BOOL if size == 1 else bvec(size)  # type: ignore[arg-type]


def int_like(t: Type) -> Type:
    size = float_size(t)
    return INT if size == 1 else ivec(size)  # type: ignore[arg-type]


Rule = Callable[..., Type | None]


def unary_float(a: Type) -> Type | None:
    return a if gen_float(a) else None


def float_or_int(a: Type) -> Type | None:
    return a if gen_float(a) or gen_int(a) else None


def negate(a: Type) -> Type | None:
    return a if gen_float(a) or gen_int(a) or isinstance(a, type(mat(2))) else None


def same_float_pair(a: Type, b: Type) -> Type | None:
    return a if gen_float(a) and b == a else None


def mod(a: Type, b: Type) -> Type | None:
    return a if gen_float(a) and (b in (a, FLOAT)) else None


def min_max(a: Type, b: Type) -> Type | None:
    if gen_float(a) and (b in (a, FLOAT)):
        return a
    if gen_int(a) and (b in (a, INT)):
        return a
    return None


def step(a: Type, b: Type) -> Type | None:
    return b if gen_float(b) and (a in (b, FLOAT)) else None


def clamp(a: Type, b: Type, c: Type) -> Type | None:
    if gen_float(a) and ((b == a and c == a) or (b == FLOAT and c == FLOAT)):
        return a
    if gen_int(a) and ((b == a and c == a) or (b == INT and c == INT)):
        return a
    return None


def mix(a: Type, b: Type, c: Type) -> Type | None:
    if gen_float(a) and b == a and (c in (a, FLOAT) or c == bool_like(a)):
        return a
    return None


def smoothstep(a: Type, b: Type, c: Type) -> Type | None:
    if gen_float(c) and ((a == c and b == c) or (a == FLOAT and b == FLOAT)):
        return c
    return None


def dot_or_distance(a: Type, b: Type) -> Type | None:
    return FLOAT if gen_float(a) and b == a else None


def cross(a: Type, b: Type) -> Type | None:
    return vec(3) if a == vec(3) and b == vec(3) else None


def length(a: Type) -> Type | None:
    return FLOAT if gen_float(a) else None


def refract(a: Type, b: Type, c: Type) -> Type | None:
    return a if gen_float(a) and b == a and c == FLOAT else None


def select(c: Type, a: Type, b: Type) -> Type | None:
    return a if c == BOOL and a == b and a != SAMPLER2D else None


def logical_pair(a: Type, b: Type) -> Type | None:
    return BOOL if a == BOOL and b == BOOL else None


def logical_not(a: Type) -> Type | None:
    return BOOL if a == BOOL else None


def float_to_int(a: Type) -> Type | None:
    return int_like(a) if gen_float(a) else None


def texture(s: Type, uv: Type) -> Type | None:
    return vec(4) if s == SAMPLER2D and uv == vec(2) else None


def texture_lod(s: Type, uv: Type, lod: Type) -> Type | None:
    return vec(4) if s == SAMPLER2D and uv == vec(2) and lod == FLOAT else None


EXPECTED: dict[Builtin, tuple[Rule, bool]] = {  # rule, fragment-only
    Builtin.TEXTURE: (texture, False),
    Builtin.ABS: (float_or_int, False),
    Builtin.SIGN: (float_or_int, False),
    **dict.fromkeys((Builtin.FLOOR, Builtin.CEIL, Builtin.FRACT, Builtin.TRUNC, Builtin.ROUND_EVEN, Builtin.SQRT, Builtin.INVERSESQRT, Builtin.EXP, Builtin.EXP2, Builtin.LOG, Builtin.LOG2, Builtin.SIN, Builtin.COS, Builtin.TAN, Builtin.ASIN, Builtin.ACOS, Builtin.ATAN, Builtin.RADIANS, Builtin.DEGREES, Builtin.NORMALIZE), (unary_float, False)),
    Builtin.NEGATE: (negate, False),
    Builtin.ATAN2: (same_float_pair, False),
    Builtin.POW: (same_float_pair, False),
    Builtin.REFLECT: (same_float_pair, False),
    Builtin.MOD: (mod, False),
    Builtin.MIN: (min_max, False),
    Builtin.MAX: (min_max, False),
    Builtin.STEP: (step, False),
    Builtin.CLAMP: (clamp, False),
    Builtin.MIX: (mix, False),
    Builtin.SMOOTHSTEP: (smoothstep, False),
    Builtin.DOT: (dot_or_distance, False),
    Builtin.DISTANCE: (dot_or_distance, False),
    Builtin.CROSS: (cross, False),
    Builtin.LENGTH: (length, False),
    Builtin.REFRACT: (refract, False),
    Builtin.SELECT: (select, False),
    Builtin.LOGICAL_AND: (logical_pair, False),
    Builtin.LOGICAL_OR: (logical_pair, False),
    Builtin.LOGICAL_NOT: (logical_not, False),
    Builtin.FLOAT_TO_INT: (float_to_int, False),
    Builtin.DFDX: (unary_float, True),
    Builtin.DFDY: (unary_float, True),
    Builtin.FWIDTH: (unary_float, True),
    Builtin.TEXTURE_LOD: (texture_lod, False),
}  # fmt: skip


def test_every_builtin_has_exactly_one_table_entry_with_its_arity() -> None:
    assert set(BUILTINS) == set(Builtin) - {Builtin.NONE}
    assert set(EXPECTED) == set(BUILTINS)
    for builtin, spec in BUILTINS.items():
        assert spec.builtin is builtin
        assert spec.arity == builtin.arity, builtin
        assert spec.description.startswith(builtin.value + "("), spec.description
        assert all(len(signature.parameters) == spec.arity for signature in spec.signatures)


@pytest.mark.parametrize("builtin", sorted(EXPECTED, key=lambda b: b.value), ids=lambda b: b.value)
def test_accept_reject_table(builtin: Builtin) -> None:
    rule, fragment_only = EXPECTED[builtin]
    mismatches = []
    accepted = 0
    for arguments in itertools.product(UNIVERSE, repeat=builtin.arity):
        expected = rule(*arguments)
        for stage in (None, StageKind.FRAGMENT, StageKind.VERTEX):
            got = builtin_result_type(builtin, arguments, stage)
            want = None if (fragment_only and stage is StageKind.VERTEX) else expected
            ok = isinstance(got, str) if want is None else (not isinstance(got, str) and types_equal(got, want))
            if not ok:
                mismatches.append((stage, [describe_type(a) for a in arguments], got, want))
        accepted += expected is not None
    assert mismatches == []
    assert accepted > 0


def test_wrong_arity_is_reported() -> None:
    assert builtin_result_type(Builtin.SIN, [FLOAT, FLOAT]) == "built-in sin takes 1 operand, got 2"
    assert builtin_result_type(Builtin.CLAMP, [FLOAT]) == "built-in clamp takes 3 operands, got 1"


def test_rejection_messages_name_the_builtin_and_its_signatures() -> None:
    message = builtin_result_type(Builtin.POW, [vec(3), FLOAT])
    assert isinstance(message, str)
    assert message.startswith("built-in pow does not accept (vector float 3, float)")
    assert "(genF, genF) -> genF" in message
    stage_message = builtin_result_type(Builtin.DFDX, [FLOAT], StageKind.VERTEX)
    assert stage_message == "built-in dfdx is not available in the vertex stage (only fragment)"


def test_none_and_foreign_selectors_are_not_builtins() -> None:
    assert isinstance(builtin_result_type(Builtin.NONE, []), str)
    assert isinstance(builtin_result_type("sin", [FLOAT]), str)  # type: ignore[arg-type]


def test_signature_descriptions_are_listed_for_every_builtin() -> None:
    assert signature_descriptions(Builtin.MIX) == [
        "(genF, genF, genF) -> genF",
        "(genF, genF, float) -> genF",
        "(genF, genF, genB) -> genF",
    ]
    assert signature_descriptions(Builtin.TEXTURE) == ["(sampler2D, vector float 2) -> vector float 4"]
    assert signature_descriptions(Builtin.NONE) == []
    for builtin in BUILTINS:
        assert signature_descriptions(builtin)


def test_concrete_signatures_are_accepted_and_cover_the_universe() -> None:
    for builtin, (rule, _) in EXPECTED.items():
        listed = concrete_signatures(builtin, value_types=UNIVERSE)
        for arguments, result in listed:
            got = builtin_result_type(builtin, arguments)
            assert not isinstance(got, str) and types_equal(got, result), (builtin, arguments)
        # Every accepted universe tuple is listed (the universe is within the enumerated domains,
        # except the non-square and larger matrices that only negate's enumeration adds).
        for arguments in itertools.product(UNIVERSE, repeat=builtin.arity):
            if rule(*arguments) is not None:
                assert any(
                    all(types_equal(a, b) for a, b in zip(arguments, candidate)) for candidate, _ in listed
                ), (builtin, arguments)


def test_concrete_signature_counts() -> None:
    assert len(concrete_signatures(Builtin.SIN)) == 4
    assert len(concrete_signatures(Builtin.NEGATE)) == 4 + 4 + 9
    assert len(concrete_signatures(Builtin.MIN)) == 4 + 3 + 4 + 3  # scalar forms listed once
    assert len(concrete_signatures(Builtin.MIX)) == 4 + 3 + 4
    assert len(concrete_signatures(Builtin.CROSS)) == 1


# The verifier's use of the table ---------------------------------------------------------


def test_math_builtin_calls_are_accepted_in_modules() -> None:
    s = sample()
    f = s.fragment_main
    v3 = f.construct(vec(3), f.f(0.5))
    f.call_builtin(Builtin.SIN, vec(3), v3)
    f.call_builtin(Builtin.CLAMP, vec(3), v3, f.f(0.0), f.f(1.0))
    f.call_builtin(Builtin.MIX, vec(3), v3, v3, f.construct(bvec(3), f.b(True)))
    f.call_builtin(Builtin.DOT, FLOAT, v3, v3)
    f.call_builtin(Builtin.SELECT, vec(3), f.b(True), v3, v3)
    f.call_builtin(Builtin.FLOAT_TO_INT, ivec(3), v3)
    f.call_builtin(Builtin.DFDX, vec(3), v3)
    texture = add_uniform(s.module, "albedo", SAMPLER2D)
    f.call_builtin(Builtin.TEXTURE_LOD, vec(4), f.load(texture), f.construct(vec(2), f.f(0.0)), f.f(2.0))
    v = s.vertex_main
    v.call_builtin(Builtin.TEXTURE_LOD, vec(4), v.load(texture), v.construct(vec(2), v.f(0.0)), v.f(0.0))
    assert_accepted(s.module)


def test_math_builtin_call_rejections() -> None:
    s = sample()
    f = s.fragment_main
    call = CallInstruction(f.register(FLOAT), None, Builtin.POW, [f.f(1.0), f.i(2)])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.BUILTIN_ARGUMENTS, call)

    s = sample()
    f = s.fragment_main
    call = CallInstruction(f.register(vec(3)), None, Builtin.LENGTH, [f.construct(vec(3), f.f(1.0))])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.RESULT_TYPE, call)

    s = sample()
    f = s.fragment_main
    call = CallInstruction(None, None, Builtin.SIN, [f.f(1.0)])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.NO_RESULT, call)

    s = sample()
    f = s.fragment_main
    call = CallInstruction(f.register(FLOAT), s.fragment_main.function, Builtin.SIN, [f.f(1.0)])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.BUILTIN_WITH_CALLEE, call)


def test_derivatives_are_rejected_in_every_vertex_function() -> None:
    for builtin in (Builtin.DFDX, Builtin.DFDY, Builtin.FWIDTH):
        s = sample()
        helper = s.vertex.function("helper", FLOAT)
        result = helper.call_builtin(builtin, FLOAT, helper.f(1.0))
        helper.ret(result)
        call = helper.function.blocks[0].instructions[-1]
        assert_rejected(s.module, InstructionRule.BUILTIN_STAGE, call)

        s = sample()
        helper = s.fragment.function("helper", FLOAT)
        helper.ret(helper.call_builtin(builtin, FLOAT, helper.f(1.0)))
        assert_accepted(s.module)


def test_select_on_aggregates() -> None:
    s = sample()
    f = s.fragment_main
    pair = record("Pair", [("a", FLOAT)])
    value = f.construct(pair, f.f(1.0))
    f.call_builtin(Builtin.SELECT, pair, f.b(False), value, value)
    f.call_builtin(Builtin.SELECT, mat(2), f.b(False), f.construct(mat(2), f.f(1.0)), f.construct(mat(2), f.f(0.0)))
    assert_accepted(s.module)
    other = record("Pair", [("a", FLOAT)])
    call = CallInstruction(f.register(pair), None, Builtin.SELECT, [f.b(False), value, f.construct(other, f.f(1.0))])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.BUILTIN_ARGUMENTS, call)


def test_builtin_result_type_is_usable_for_type_propagation() -> None:
    # The editor asks before a node is placed in a stage (stage None).
    assert builtin_result_type(Builtin.DFDX, [vec(2)]) == vec(2)
    assert builtin_result_type(Builtin.FLOAT_TO_INT, [vec(4)]) == ivec(4)
    assert builtin_result_type(Builtin.STEP, [FLOAT, vec(3)]) == vec(3)
    assert builtin_result_type(Builtin.SMOOTHSTEP, [FLOAT, FLOAT, vec(2)]) == vec(2)
    assert isinstance(builtin_result_type(Builtin.SMOOTHSTEP, [vec(2), FLOAT, vec(2)]), str)
    assert builtin_result_type(Builtin.LOGICAL_NOT, [BOOL]) == ScalarType(BOOL.kind)
