"""Statically explicit invalid integer divisions (spec 4.1).

Integer division by zero and INT32_MIN / -1 are undefined at run time, and
the verifier rejects exactly the statically explicit cases: a divide with
integer operands whose divisor is the scalar constant 0, or whose dividend
is the constant INT32_MIN and divisor the constant -1. Registers are not
tracked ("not general range proofs"), and float divisions follow GLSL's
infinity rules, so both are accepted.

Checked in every block, reachable or not: this is an instruction-local
rule like typing, not an availability rule. Relies on the structural layer
for operand typing (an int divide has int scalar or int vector operands,
and only scalars can be constants).
"""

from __future__ import annotations

from vpl_core.ir.instructions import BinaryInstruction, BinaryOperator
from vpl_core.ir.module import Stage
from vpl_core.ir.types import INT
from vpl_core.ir.values import INT32_MIN, ConstantValue, Operand
from vpl_core.verify.errors import DataFlowRule, VerificationError


def _int_constant(operand: Operand) -> int | None:
    if isinstance(operand, ConstantValue) and operand.type == INT and not isinstance(operand.value, bool):
        return int(operand.value)
    return None


def check_stage(stage: Stage) -> None:
    """Raise at the first explicit invalid integer division, in function, block, instruction order."""
    for function in stage.functions:
        for block in function.blocks:
            for instruction in block.instructions:
                if not isinstance(instruction, BinaryInstruction) or instruction.operator is not BinaryOperator.DIVIDE:
                    continue
                divisor = _int_constant(instruction.rhs)
                if divisor == 0:
                    raise VerificationError(
                        DataFlowRule.CONSTANT_DIVISION_BY_ZERO,
                        "integer division by the constant 0", instruction, (stage, function, block, instruction)
                    )
                if divisor == -1 and _int_constant(instruction.lhs) == INT32_MIN:
                    raise VerificationError(
                        DataFlowRule.CONSTANT_DIVISION_OVERFLOW,
                        f"integer division of the constant {INT32_MIN} by the constant -1 overflows",
                        instruction,
                        (stage, function, block, instruction),
                    )
