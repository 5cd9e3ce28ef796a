"""Typing rules shared by the verifier, the builder and the backends (spec 7.1).

Pure functions from operand types to result types; None means "not defined".
"""

from __future__ import annotations

from typing import Optional

from vpl_core.ir.instructions import BinaryOperator
from vpl_core.ir.types import (
    BOOL,
    MatrixType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
)


def _is_float_scalar(value_type: Type) -> bool:
    return isinstance(value_type, ScalarType) and value_type.kind is ScalarKind.FLOAT


def _is_float_vector(value_type: Type) -> bool:
    return isinstance(value_type, VectorType) and value_type.kind is ScalarKind.FLOAT


def binary_result_type(operator: BinaryOperator, lhs: Type, rhs: Type) -> Optional[Type]:
    """The result type of `lhs OP rhs` by the complete operand table of spec 7.1."""
    if operator.is_comparison:
        if not isinstance(lhs, ScalarType) or lhs != rhs:
            return None
        if operator in (BinaryOperator.EQUAL, BinaryOperator.NOT_EQUAL):
            return BOOL
        return BOOL if lhs.kind is not ScalarKind.BOOL else None

    # Matching int or float scalars / vectors: all four operations.
    if isinstance(lhs, (ScalarType, VectorType)) and lhs == rhs and lhs.kind is not ScalarKind.BOOL:
        return lhs
    # Matching matrix shapes: add, subtract, divide (component-wise).
    if isinstance(lhs, MatrixType) and lhs == rhs and operator is not BinaryOperator.MULTIPLY:
        return lhs
    if operator is BinaryOperator.MULTIPLY:
        if isinstance(lhs, MatrixType) and isinstance(rhs, MatrixType):
            if lhs.columns == rhs.rows:
                return MatrixType(lhs.rows, rhs.columns)
            return None
        if isinstance(lhs, MatrixType) and _is_float_vector(rhs):
            assert isinstance(rhs, VectorType)
            return VectorType(ScalarKind.FLOAT, lhs.rows) if lhs.columns == rhs.size else None
        if _is_float_scalar(lhs) and (_is_float_vector(rhs) or isinstance(rhs, MatrixType)):
            return rhs
    if operator in (BinaryOperator.MULTIPLY, BinaryOperator.DIVIDE):
        if (_is_float_vector(lhs) or isinstance(lhs, MatrixType)) and _is_float_scalar(rhs):
            return lhs
    return None
