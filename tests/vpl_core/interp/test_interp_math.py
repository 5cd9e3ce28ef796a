"""Every math-extension operation and signature run by the interpreter, compared with numpy references.

The programs, inputs and references are those of the GPU tests
(`tests/vpl_core/math/math_eval.py`: generated VPL text, a grid of edge
inputs per case, references computed in float64 from the published
formulas, GLSL's undefined cases masked). Here the interpreter runs them:
in the fragment stage through the full pipeline (one pixel per case, the
case index from gl_FragCoord), and the scalar and widest forms in the
vertex stage (one vertex per case). With precision tracking the reference
must also lie within the interpreter's radius: the bounds it reports for
the GPU comparison are at least as wide as its own error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "math"))

from math_eval import Evaluation, tolerance
from math_support import FRAGMENT_ONLY, MATH_OPERATIONS, TYPES, accepted_combinations

from vpl_core.interp import MeshData, Program, fullscreen_mesh, render
from vpl_core.interp.pipeline import prepare_uniforms, run_vertex_stage
from vpl_core.publish import VerifiedModule

EVALUATED = [operation for operation in MATH_OPERATIONS if operation not in FRAGMENT_ONLY | {"texture_lod"}]
UNIVERSE = [text_type for key, text_type in TYPES.items() if key != "sampler2D"]
COMBINATIONS = [
    (operation, arguments, result)
    for operation in EVALUATED
    for arguments, result in accepted_combinations(operation, UNIVERSE)
]
VERTEX_COMBINATIONS = sorted(
    {
        combination
        for operation in EVALUATED
        for combination in (
            (operation, *accepted_combinations(operation, UNIVERSE)[0]),
            (operation, *accepted_combinations(operation, UNIVERSE)[-1]),
        )
    }
)


def _id(combination: tuple[str, tuple[str, ...], str]) -> str:
    operation, arguments, _ = combination
    return f"{operation}({','.join(arguments)})"


def _program(evaluation: Evaluation) -> Program:
    return Program.from_verified(VerifiedModule.from_text(evaluation.module_text(), f"{evaluation.operation}.vpl"))


def _compare(evaluation: Evaluation, lanes: np.ndarray, radii: np.ndarray | None) -> None:
    expected = evaluation.reference()
    values = expected.values
    assert values.shape == lanes.shape, (values.shape, lanes.shape)
    undefined = np.broadcast_to(expected.undefined, values.shape)
    if evaluation.exact_lanes:
        allowed = np.zeros(values.shape)
    else:
        allowed = np.broadcast_to(tolerance(evaluation.operation, [d.astype(np.float64) for d in evaluation.inputs], values), values.shape)
    with np.errstate(invalid="ignore"):
        good = np.abs(lanes - values) <= allowed
        for alternative in expected.alternatives:
            good |= np.abs(lanes - alternative) <= allowed
    bad = ~good & ~undefined
    assert not bad.any(), _report(evaluation, lanes, values, allowed, bad)
    if radii is not None and not evaluation.exact_lanes:
        # The reference (exact, from the same float32 inputs) lies within the radius.
        with np.errstate(invalid="ignore"):
            inside = np.abs(lanes - values) <= radii * (1 + 1e-9) + 1e-30
            for alternative in expected.alternatives:
                inside |= np.abs(lanes - alternative) <= radii * (1 + 1e-9) + 1e-30
        outside = ~inside & ~undefined & np.isfinite(radii)
        assert not outside.any(), "radius too small:\n" + _report(evaluation, lanes, values, radii, outside)


def _report(evaluation: Evaluation, lanes: np.ndarray, values: np.ndarray, allowed: np.ndarray, bad: np.ndarray) -> str:
    lines = []
    for case, lane in list(zip(*np.nonzero(bad)))[:10]:
        operands = "; ".join(np.array2string(data[case], precision=9) for data in evaluation.inputs)
        lines.append(f"case {case} lane {lane}: inputs {operands}: interpreter {lanes[case, lane]!r}, "
                     f"expected {values[case, lane]!r} (allowed {allowed[case, lane]:.3g})")
    return f"{evaluation.operation}{evaluation.arguments}: {bad.sum()} of {bad.size} lanes differ\n" + "\n".join(lines)


def _fragment_lanes(evaluation: Evaluation, program: Program, tracked: bool) -> tuple[np.ndarray, np.ndarray | None]:
    result = render(program, fullscreen_mesh(), evaluation.cases, 1, uniforms=evaluation.uniforms(), depth_test=False, tracked=tracked)
    assert result.written.all()
    rows = [np.asarray(result.outputs[f"color{m}"])[0] for m in range(evaluation.output_count)]
    lanes = np.concatenate(rows, axis=1).astype(np.float64)[:, : evaluation.lane_count]
    radii = None
    if tracked:
        assert result.errors is not None
        radius_rows = [np.asarray(result.errors[f"color{m}"])[0] for m in range(evaluation.output_count)]
        radii = np.concatenate(radius_rows, axis=1)[:, : evaluation.lane_count]
    return lanes, radii


@pytest.mark.parametrize(("operation", "arguments", "result"), COMBINATIONS, ids=map(_id, COMBINATIONS))
def test_operation_in_the_fragment_stage(operation: str, arguments: tuple[str, ...], result: str) -> None:
    evaluation = Evaluation(operation, arguments, result)
    program = _program(evaluation)  # read and verified once: both renders run the same program
    lanes, radii = _fragment_lanes(evaluation, program, tracked=True)
    _compare(evaluation, lanes, radii)
    untracked, _ = _fragment_lanes(evaluation, program, tracked=False)
    np.testing.assert_array_equal(untracked, lanes)  # tracking never changes a value


@pytest.mark.parametrize(("operation", "arguments", "result"), VERTEX_COMBINATIONS, ids=map(_id, VERTEX_COMBINATIONS))
def test_operation_in_the_vertex_stage(operation: str, arguments: tuple[str, ...], result: str) -> None:
    evaluation = Evaluation(operation, arguments, result, stage="vertex")
    program = _program(evaluation)
    count = evaluation.cases
    x = (np.arange(count, dtype=np.float32) + 0.5) / count * 2 - 1
    positions = np.stack([x, np.zeros(count), np.zeros(count)], axis=1).astype(np.float32)
    mesh = MeshData({0: positions, 1: np.arange(count, dtype=np.float32).reshape(count, 1)}, np.zeros((0, 3), dtype=np.int64))
    trees, table = prepare_uniforms(program, evaluation.uniforms())
    stage = run_vertex_stage(program, mesh, trees, table, tracked=True)
    outputs = {variable.name: slot for slot, variable in enumerate(program.vertex.stage.interface)}
    rows = [np.asarray(stage.outputs[outputs[f"value{m}"]].data) for m in range(evaluation.output_count)]
    radii = [np.asarray(stage.outputs[outputs[f"value{m}"]].error) for m in range(evaluation.output_count)]
    lanes = np.concatenate(rows, axis=1).astype(np.float64)[:, : evaluation.lane_count]
    _compare(evaluation, lanes, np.concatenate(radii, axis=1)[:, : evaluation.lane_count])


def test_evaluated_operations_cover_the_extension() -> None:
    covered = {operation for operation, _, _ in COMBINATIONS} | FRAGMENT_ONLY | {"texture_lod"}
    assert covered == set(MATH_OPERATIONS)
