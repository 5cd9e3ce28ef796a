"""Every concrete signature of every math operation compiles to GLSL that glslangValidator accepts.

tests/golden/math-ops.vpl (the backend's golden) uses each operation once;
this test is the exhaustive counterpart: for each operation, one module whose
fragment entry applies the operation to every accepted argument type
combination over the test type universe (`select` also on matrices, arrays
and records), and whose vertex entry and a vertex helper do the same for
every operation that is not fragment-only. Each module goes through the
public pipeline (text -> read -> VerifiedModule -> compile) for every target
profile, and glslangValidator links the two stages (`-l` compiles each stage
on its own, reporting its errors under its file's name, then links).

Also: the GLSL spelling of each operation (the mapping documented in
docs/vpl-math-extension.md), and the operand values whose results GLSL
leaves undefined, as constants, which constant folding must not turn into
compile errors.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from math_support import (
    FRAGMENT_ONLY,
    MATH_OPERATIONS,
    TYPES,
    Function,
    accepted_combinations,
    module_text,
)
from test_math_text_typing import UNDEFINED_BUT_ACCEPTED, divergent_derivatives_module

from vpl_core.backends.glsl import PROFILES, ProgramArtifact, compile
from vpl_core.publish import VerifiedModule
from vpl_core.text import read

pytestmark = pytest.mark.glslang

TARGETS = sorted(PROFILES)


def every_signature(operation: str, first_register: int = 10) -> Function:
    """One instruction per accepted combination, each with its own argument and result registers."""
    registers: list[tuple[str, str]] = []
    lines: list[str] = []
    number = first_register
    for arguments, result in accepted_combinations(operation):
        operands = []
        for key in arguments:
            register = f"r{number}"
            number += 1
            registers.append((register, key))
            lines.append(TYPES[key].define(register))
            operands.append(register)
        destination = f"r{number}"
        number += 1
        registers.append((destination, result))
        lines.append(f"({operation} {destination} {' '.join(operands)})")
    return Function(registers, lines)


def _vertex_helper(operation: str) -> str:
    body = every_signature(operation)
    registers = " ".join(f"(register {register} {TYPES[key].type_id})" for register, key in body.registers)
    return (
        f'(function helper "helper" Void (parameters) (registers {registers}) '
        f"(block entry {' '.join(body.lines)} (return)))"
    )


def operation_module(operation: str) -> str:
    vertex_side = operation not in FRAGMENT_ONLY
    return module_text(
        every_signature(operation),
        every_signature(operation) if vertex_side else None,
        vertex_helpers=[_vertex_helper(operation)] if vertex_side else [],
    )


def _validate(artifact: ProgramArtifact, directory: Path, stem: str, validator: str) -> None:
    vertex = directory / f"{stem}.vert"
    fragment = directory / f"{stem}.frag"
    vertex.write_text(artifact.vertex_code, encoding="utf-8")
    fragment.write_text(artifact.fragment_code, encoding="utf-8")
    arguments = ["-l", str(vertex), str(fragment)]
    completed = subprocess.run([validator, *arguments], capture_output=True, text=True, timeout=120, check=False)
    assert completed.returncode == 0, (
        f"glslangValidator {' '.join(arguments)} failed:\n{completed.stdout}{completed.stderr}\n"
        f"--- vertex ---\n{artifact.vertex_code}\n--- fragment ---\n{artifact.fragment_code}"
    )


def _compile(text: str, target: str) -> ProgramArtifact:
    verified = VerifiedModule.create(read(text, label="math.vpl"), label="math.vpl")
    return compile(verified, target=target)


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_every_signature_passes_glslang_linked(
    operation: str, glslang_validator: str, tmp_path: Path
) -> None:
    text = operation_module(operation)
    for target in TARGETS:
        _validate(_compile(text, target), tmp_path, f"{operation}-{target}", glslang_validator)


# The GLSL spelling of each operation: `name(` for functions, the operator otherwise.
GLSL_SPELLING: dict[str, str] = {
    **{operation: f"{operation}(" for operation in MATH_OPERATIONS},
    "round_even": "roundEven(",
    "atan2": "atan(",
    "dfdx": "dFdx(",
    "dfdy": "dFdy(",
    "texture_lod": "textureLod(",
    "negate": "= -",
    "logical_and": " && ",
    "logical_or": " || ",
    "logical_not": "= !",
    "select": " ? ",
    "float_to_int": "= int(",
}


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_glsl_spelling(operation: str) -> None:
    arguments, result = accepted_combinations(operation)[0]
    body = Function(
        [*((f"r{10 + k}", key) for k, key in enumerate(arguments)), ("r1", result)],
        [TYPES[key].define(f"r{10 + k}") for k, key in enumerate(arguments)],
    )
    body.lines.append(f"({operation} r1 {' '.join(f'r{10 + k}' for k in range(len(arguments)))})")
    code = _compile(module_text(body), "glsl420").fragment_code
    assignment = next(line.strip() for line in code.splitlines() if line.strip().startswith("vpl_r1 = "))
    assert GLSL_SPELLING[operation] in assignment, assignment
    if operation == "atan2":
        # The two-operand GLSL atan keeps VPL's (y, x) operand order.
        assert re.fullmatch(r"vpl_r1 = atan\(vpl_r10, vpl_r11\);", assignment), assignment


def undefined_values_module() -> str:
    """Every operation with constant operands whose result GLSL leaves undefined, in both stages."""
    registers = []
    lines = []
    for number, (result, instruction) in enumerate(UNDEFINED_BUT_ACCEPTED, start=1):
        register = f"r{number}"
        registers.append((register, result))
        lines.append(instruction.replace(" r1 ", f" {register} ", 1))
    return module_text(Function(registers, lines), Function(list(registers), list(lines)))


def test_undefined_operand_values_compile_as_constants(glslang_validator: str, tmp_path: Path) -> None:
    text = undefined_values_module()
    for target in TARGETS:
        _validate(_compile(text, target), tmp_path, f"undefined-{target}", glslang_validator)


def test_derivatives_in_divergent_control_flow_compile(glslang_validator: str, tmp_path: Path) -> None:
    for target in TARGETS:
        _validate(_compile(divergent_derivatives_module(), target), tmp_path, f"divergent-{target}", glslang_validator)
