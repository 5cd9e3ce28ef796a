"""Typing rules: the complete 7.1 operand table, 7.2 constructions, 7.4 swizzles, type equality.

The expected tables here are written out independently of the
implementation (explicit rows, not a re-derivation of its logic), and every
pair of a representative type set is compared against them.
"""

from __future__ import annotations

import itertools

import pytest

from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    BinaryOperator,
    MatrixType,
    ScalarKind,
    Type,
    VectorType,
    bvec,
    ivec,
    mat,
    record,
    vec,
)
from vpl_core.ir.type_rules import (
    binary_result_type,
    binary_type_error,
    construct_type_error,
    describe_type,
    swizzle_result_type,
    types_equal,
)

RECORD = record("R", [("x", FLOAT)])

# Name -> type; matrices are named rows x columns.
UNIVERSE: dict[str, Type] = {
    "bool": BOOL,
    "int": INT,
    "float": FLOAT,
    "bvec2": bvec(2),
    "ivec2": ivec(2),
    "ivec3": ivec(3),
    "vec2": vec(2),
    "vec3": vec(3),
    "vec4": vec(4),
    "mat2x2": mat(2, 2),
    "mat3x3": mat(3, 3),
    "mat2x3": mat(2, 3),
    "mat3x2": mat(3, 2),
    "sampler2D": SAMPLER2D,
    "float[2]": ArrayType(FLOAT, 2),
    "R": RECORD,
}

ADD, SUB, MUL, DIV = BinaryOperator.ADD, BinaryOperator.SUBTRACT, BinaryOperator.MULTIPLY, BinaryOperator.DIVIDE
EQ, NE = BinaryOperator.EQUAL, BinaryOperator.NOT_EQUAL
LT, LE, GT, GE = BinaryOperator.LESS, BinaryOperator.LESS_EQUAL, BinaryOperator.GREATER, BinaryOperator.GREATER_EQUAL
ARITHMETIC = (ADD, SUB, MUL, DIV)
ORDERING = (LT, LE, GT, GE)

# The complete accepted part of spec 7.1 over UNIVERSE: (operators, lhs, rhs, result).
ACCEPTED_ROWS: list[tuple[tuple[BinaryOperator, ...], str, str, str]] = [
    # Matching int or float scalars and vectors: all four operations.
    (ARITHMETIC, "int", "int", "int"),
    (ARITHMETIC, "float", "float", "float"),
    (ARITHMETIC, "ivec2", "ivec2", "ivec2"),
    (ARITHMETIC, "ivec3", "ivec3", "ivec3"),
    (ARITHMETIC, "vec2", "vec2", "vec2"),
    (ARITHMETIC, "vec3", "vec3", "vec3"),
    (ARITHMETIC, "vec4", "vec4", "vec4"),
    # Matching matrix shapes: add, subtract, divide.
    ((ADD, SUB, DIV), "mat2x2", "mat2x2", "mat2x2"),
    ((ADD, SUB, DIV), "mat3x3", "mat3x3", "mat3x3"),
    ((ADD, SUB, DIV), "mat2x3", "mat2x3", "mat2x3"),
    ((ADD, SUB, DIV), "mat3x2", "mat3x2", "mat3x2"),
    # Matrix products: A columns == B rows; result A rows x B columns.
    ((MUL,), "mat2x2", "mat2x2", "mat2x2"),
    ((MUL,), "mat2x2", "mat2x3", "mat2x3"),
    ((MUL,), "mat3x3", "mat3x3", "mat3x3"),
    ((MUL,), "mat3x3", "mat3x2", "mat3x2"),
    ((MUL,), "mat2x3", "mat3x3", "mat2x3"),
    ((MUL,), "mat2x3", "mat3x2", "mat2x2"),
    ((MUL,), "mat3x2", "mat2x2", "mat3x2"),
    ((MUL,), "mat3x2", "mat2x3", "mat3x3"),
    # Matrix times vector: columns == components; result has the matrix's rows.
    ((MUL,), "mat2x2", "vec2", "vec2"),
    ((MUL,), "mat3x3", "vec3", "vec3"),
    ((MUL,), "mat2x3", "vec3", "vec2"),
    ((MUL,), "mat3x2", "vec2", "vec3"),
    # Float vector or matrix with a float scalar: multiply, divide.
    ((MUL, DIV), "vec2", "float", "vec2"),
    ((MUL, DIV), "vec3", "float", "vec3"),
    ((MUL, DIV), "vec4", "float", "vec4"),
    ((MUL, DIV), "mat2x2", "float", "mat2x2"),
    ((MUL, DIV), "mat3x3", "float", "mat3x3"),
    ((MUL, DIV), "mat2x3", "float", "mat2x3"),
    ((MUL, DIV), "mat3x2", "float", "mat3x2"),
    # Float scalar times vector or matrix: multiply only.
    ((MUL,), "float", "vec2", "vec2"),
    ((MUL,), "float", "vec3", "vec3"),
    ((MUL,), "float", "vec4", "vec4"),
    ((MUL,), "float", "mat2x2", "mat2x2"),
    ((MUL,), "float", "mat3x3", "mat3x3"),
    ((MUL,), "float", "mat2x3", "mat2x3"),
    ((MUL,), "float", "mat3x2", "mat3x2"),
    # Comparisons.
    ((EQ, NE), "bool", "bool", "bool"),
    ((EQ, NE), "int", "int", "bool"),
    ((EQ, NE), "float", "float", "bool"),
    (ORDERING, "int", "int", "bool"),
    (ORDERING, "float", "float", "bool"),
]


def _expected_table() -> dict[tuple[BinaryOperator, str, str], str]:
    table: dict[tuple[BinaryOperator, str, str], str] = {}
    for operators, lhs, rhs, result in ACCEPTED_ROWS:
        for operator in operators:
            assert (operator, lhs, rhs) not in table, "duplicate expected row"
            table[(operator, lhs, rhs)] = result
    return table


EXPECTED = _expected_table()


def test_binary_operand_table_is_complete_over_the_representative_types() -> None:
    mismatches = []
    for operator in BinaryOperator:
        for (lhs_name, lhs), (rhs_name, rhs) in itertools.product(UNIVERSE.items(), repeat=2):
            got = binary_result_type(operator, lhs, rhs)
            expected_name = EXPECTED.get((operator, lhs_name, rhs_name))
            expected = None if expected_name is None else UNIVERSE[expected_name]
            if (got is None) != (expected is None) or (got is not None and not types_equal(got, expected)):
                mismatches.append((operator.value, lhs_name, rhs_name, describe_type(got), expected_name))
            # The message helper agrees with the table.
            error = binary_type_error(operator, lhs, rhs)
            if (error is None) != (expected is not None):
                mismatches.append(("message", operator.value, lhs_name, rhs_name, error))
    assert mismatches == []


def test_vector_times_matrix_and_int_float_mixes_are_rejected() -> None:
    assert binary_result_type(MUL, vec(2), mat(2)) is None
    assert binary_result_type(MUL, INT, vec(2)) is None
    assert binary_result_type(MUL, ivec(2), INT) is None
    assert binary_result_type(DIV, FLOAT, vec(2)) is None
    assert binary_result_type(ADD, vec(2), FLOAT) is None


@pytest.mark.parametrize(
    "operator, lhs, rhs, gist",
    [
        (ADD, vec(3), FLOAT, "binary add needs matching operand types, got vector float 3 and float"),
        (ADD, BOOL, BOOL, "binary add needs numeric operands, got bool and bool"),
        (MUL, mat(2, 3), mat(2, 3), "binary multiply needs matching inner dimensions"),
        (MUL, mat(2), vec(3), "binary multiply needs matching inner dimensions"),
        (LT, BOOL, BOOL, "binary less needs matching numeric scalars, got bool and bool"),
        (LT, vec(2), vec(2), "binary less needs matching numeric scalars"),
        (EQ, vec(2), vec(2), "binary equal compares scalars only"),
        (EQ, INT, FLOAT, "binary equal needs matching operand types, got int and float"),
        (GE, INT, FLOAT, "binary greater_equal needs matching operand types"),
    ],
)
def test_binary_messages(operator: BinaryOperator, lhs: Type, rhs: Type, gist: str) -> None:
    message = binary_type_error(operator, lhs, rhs)
    assert message is not None and gist in message


# 7.2 Construction ---------------------------------------------------------------------

PAIR = record("Pair", [("a", FLOAT), ("b", ivec(2))])
PAIR_TWIN = record("Pair", [("a", FLOAT), ("b", ivec(2))])
EMPTY = record("Empty", [])

CONSTRUCTIONS: list[tuple[Type, list[Type], bool]] = [
    # Scalars: one operand of the same type, or int for float.
    (FLOAT, [FLOAT], True),
    (FLOAT, [INT], True),
    (INT, [INT], True),
    (INT, [FLOAT], False),
    (BOOL, [BOOL], True),
    (BOOL, [INT], False),
    (BOOL, [FLOAT], False),
    (FLOAT, [BOOL], False),
    (FLOAT, [], False),
    (FLOAT, [FLOAT, FLOAT], False),
    (FLOAT, [vec(2)], False),
    (INT, [ivec(2)], False),
    # Float vectors.
    (vec(3), [FLOAT], True),
    (vec(3), [INT], True),
    (vec(3), [FLOAT, FLOAT, FLOAT], True),
    (vec(3), [FLOAT, INT, FLOAT], True),
    (vec(3), [vec(2), FLOAT], True),
    (vec(3), [INT, vec(2)], True),
    (vec(3), [vec(3)], True),
    (vec(4), [vec(2), vec(2)], True),
    (vec(4), [vec(3), FLOAT], True),
    (vec(3), [vec(2)], False),
    (vec(3), [vec(4)], False),
    (vec(3), [vec(2), vec(2)], False),
    (vec(3), [FLOAT, FLOAT], False),
    (vec(3), [FLOAT, FLOAT, FLOAT, FLOAT], False),
    (vec(3), [ivec(3)], False),
    (vec(3), [ivec(2), FLOAT], False),
    (vec(2), [bvec(2)], False),
    (vec(2), [BOOL], False),
    (vec(2), [mat(2)], False),
    (vec(4), [mat(2)], False),
    (vec(2), [], False),
    (vec(2), [ArrayType(FLOAT, 2)], False),
    # Int and bool vectors.
    (ivec(3), [INT], True),
    (ivec(3), [ivec(2), INT], True),
    (ivec(3), [FLOAT], False),
    (ivec(2), [vec(2)], False),
    (ivec(2), [INT, FLOAT], False),
    (bvec(2), [BOOL], True),
    (bvec(2), [BOOL, BOOL], True),
    (bvec(2), [bvec(2)], True),
    (bvec(2), [INT], False),
    (bvec(2), [BOOL, INT], False),
    # Matrices: column-major components, or one scalar for the diagonal.
    (mat(2), [FLOAT], True),
    (mat(2), [INT], True),
    (mat(2), [FLOAT, FLOAT, FLOAT, FLOAT], True),
    (mat(2), [FLOAT, INT, FLOAT, INT], True),
    (mat(2), [vec(2), vec(2)], True),
    (mat(2), [vec(4)], True),
    (mat(2), [vec(3), FLOAT], True),
    (mat(2, 3), [vec(2), vec(2), vec(2)], True),
    (mat(2, 3), [vec(3), vec(3)], True),
    (mat(3, 2), [vec(3), vec(3)], True),
    (mat(4), [vec(4), vec(4), vec(4), vec(4)], True),
    (mat(2), [FLOAT, FLOAT, FLOAT], False),
    (mat(2), [FLOAT, FLOAT, FLOAT, FLOAT, FLOAT], False),
    (mat(2), [vec(2)], False),
    (mat(2), [mat(2)], False),
    (mat(3), [mat(2), FLOAT], False),
    (mat(2), [ivec(2), ivec(2)], False),
    (mat(2), [BOOL], False),
    (mat(2, 3), [vec(4)], False),
    (mat(2), [], False),
    # Arrays: exact count, exact element type.
    (ArrayType(FLOAT, 2), [FLOAT, FLOAT], True),
    (ArrayType(FLOAT, 2), [FLOAT], False),
    (ArrayType(FLOAT, 2), [FLOAT, FLOAT, FLOAT], False),
    (ArrayType(FLOAT, 2), [FLOAT, INT], False),
    (ArrayType(PAIR, 2), [PAIR, PAIR], True),
    (ArrayType(PAIR, 2), [PAIR, PAIR_TWIN], False),
    (ArrayType(ArrayType(INT, 2), 2), [ArrayType(INT, 2), ArrayType(INT, 2)], True),
    (ArrayType(ArrayType(INT, 2), 2), [ArrayType(INT, 2), ArrayType(INT, 3)], False),
    # Records: one exactly matching operand per field, in order.
    (PAIR, [FLOAT, ivec(2)], True),
    (PAIR, [ivec(2), FLOAT], False),
    (PAIR, [FLOAT], False),
    (PAIR, [INT, ivec(2)], False),
    (PAIR, [FLOAT, ivec(2), FLOAT], False),
    (EMPTY, [], True),
    (EMPTY, [FLOAT], False),
    (record("Holder", [("pair", PAIR)]), [PAIR], True),
    (record("Holder", [("pair", PAIR)]), [PAIR_TWIN], False),
    # Not constructible.
    (SAMPLER2D, [], False),
    (SAMPLER2D, [SAMPLER2D], False),
    (VOID, [], False),
]


@pytest.mark.parametrize(
    "target, arguments, accepted",
    CONSTRUCTIONS,
    ids=[f"{describe_type(t)}<-{','.join(describe_type(a) for a in args)}" for t, args, _ in CONSTRUCTIONS],
)
def test_construction_table(target: Type, arguments: list[Type], accepted: bool) -> None:
    error = construct_type_error(target, arguments)
    assert (error is None) == accepted, error


@pytest.mark.parametrize(
    "target, arguments, gist",
    [
        (vec(3), [vec(2), vec(2)], "constructing vector float 3 needs exactly 3 components, got 4"),
        (vec(3), [ivec(3)], "does not convert integer vectors"),
        (mat(2), [mat(2)], "cannot take matrix operands"),
        (INT, [FLOAT], "cannot construct int from float"),
        (FLOAT, [], "needs exactly one operand, got 0"),
        (PAIR, [FLOAT], "needs one operand per field (2), got 1"),
        (PAIR, [FLOAT, INT], "needs vector int 2 for field 'b', got int"),
        (ArrayType(FLOAT, 2), [FLOAT, INT], "needs float elements, got int at operand 1"),
        (SAMPLER2D, [], "samplers cannot be constructed"),
        (VOID, [], "void values cannot be constructed"),
    ],
)
def test_construction_messages(target: Type, arguments: list[Type], gist: str) -> None:
    message = construct_type_error(target, arguments)
    assert message is not None and gist in message


# 7.4 Swizzles -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, pattern, expected",
    [
        (vec(2), "x", FLOAT),
        (vec(2), "yx", vec(2)),
        (vec(2), "xyxy", vec(4)),
        (vec(3), "zzz", vec(3)),
        (vec(4), "wzyx", vec(4)),
        (ivec(3), "xz", ivec(2)),
        (bvec(2), "y", BOOL),
        (vec(2), "z", None),
        (vec(3), "w", None),
        (vec(4), "xyzwx", None),
        (vec(4), "", None),
        (vec(4), "X", None),
        (vec(4), "s", None),
        (vec(4), 3, None),
        (FLOAT, "x", None),
        (mat(2), "x", None),
    ],
)
def test_swizzle_table(source: Type, pattern: object, expected: Type | None) -> None:
    got = swizzle_result_type(source, pattern)
    if expected is None:
        assert isinstance(got, str)
    else:
        assert types_equal(got, expected)


# Type equality and descriptions (spec 4) --------------------------------------------


def test_type_equality_is_structural_except_for_records() -> None:
    assert types_equal(vec(3), VectorType(ScalarKind.FLOAT, 3))
    assert not types_equal(vec(3), ivec(3))
    assert types_equal(mat(2, 3), MatrixType(2, 3))
    assert not types_equal(mat(2, 3), mat(3, 2))
    assert types_equal(ArrayType(PAIR, 2), ArrayType(PAIR, 2))
    assert not types_equal(ArrayType(PAIR, 2), ArrayType(PAIR_TWIN, 2))
    assert not types_equal(ArrayType(FLOAT, 2), ArrayType(FLOAT, 3))
    assert types_equal(PAIR, PAIR)
    assert not types_equal(PAIR, PAIR_TWIN)
    assert types_equal(VOID, VOID)
    assert not types_equal(VOID, FLOAT)
    assert not types_equal(None, FLOAT)


def test_type_equality_and_description_terminate_on_forged_cycles() -> None:
    first = ArrayType(FLOAT, 2)
    second = ArrayType(FLOAT, 2)
    object.__setattr__(first, "element", first)
    object.__setattr__(second, "element", second)
    assert types_equal(first, first)
    assert not types_equal(first, second)
    assert describe_type(first).startswith("array array")


def test_descriptions_match_the_text_spelling() -> None:
    assert describe_type(vec(3)) == "vector float 3"
    assert describe_type(mat(2, 3)) == "matrix 2 3"
    assert describe_type(ArrayType(ArrayType(INT, 2), 3)) == "array array int 2 3"
    assert describe_type(PAIR) == "record 'Pair'"
    assert describe_type(SAMPLER2D) == "sampler2D"
    assert describe_type(None) == "nothing"
    for value_type in UNIVERSE.values():
        assert describe_type(value_type) == str(value_type)
