"""The std140 packer against the driver: offsets, strides and block sizes from glGetActiveUniformsiv."""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from OpenGL import GL
from OpenGL.raw.GL.VERSION.GL_3_1 import glGetActiveUniformsiv, glGetUniformIndices
from preview_helpers import scene_record

from app.preview import std140
from app.preview.gl_objects import compile_shader as _compile_shader
from vpl_core.ir.types import (
    BOOL,
    FLOAT,
    INT,
    ArrayType,
    Field,
    MatrixType,
    RecordType,
    ScalarType,
    Type,
    VectorType,
    bvec,
    ivec,
    mat,
    vec,
)

_SCALAR_NAMES = {"float": ("float", "vec"), "int": ("int", "ivec"), "bool": ("bool", "bvec")}


class _Glsl:
    """GLSL declarations for VPL types, with structs named the way the backend names records (vpl_R<n>)."""

    def __init__(self) -> None:
        self.structs: list[str] = []
        self.names: dict[int, str] = {}

    def type_name(self, value_type: Type) -> tuple[str, str]:
        if isinstance(value_type, ScalarType):
            return _SCALAR_NAMES[value_type.kind.value][0], ""
        if isinstance(value_type, VectorType):
            return f"{_SCALAR_NAMES[value_type.kind.value][1]}{value_type.size}", ""
        if isinstance(value_type, MatrixType):
            if value_type.rows == value_type.columns:
                return f"mat{value_type.rows}", ""
            return f"mat{value_type.columns}x{value_type.rows}", ""  # GLSL: columns x rows
        if isinstance(value_type, ArrayType):
            base, suffix = self.type_name(value_type.element)
            return base, f"[{value_type.count}]{suffix}"
        if isinstance(value_type, RecordType):
            if id(value_type) not in self.names:
                members = self.members(value_type)
                name = f"vpl_R{len(self.structs)}"
                self.names[id(value_type)] = name
                self.structs.append(f"struct {name} {{\n{members}}};\n")
            return self.names[id(value_type)], ""
        raise TypeError(value_type)

    def members(self, record: RecordType) -> str:
        lines = []
        for index, record_field in enumerate(record.fields):
            base, suffix = self.type_name(record_field.type)
            lines.append(f"  {base} vpl_m{index}{suffix};\n")
        return "".join(lines)


def _driver_layout(record: RecordType) -> tuple[dict[str, tuple[int, int, int]], int]:
    """{leaf path: (offset, array stride, matrix stride)} and the block data size, from the driver."""
    glsl = _Glsl()
    members = glsl.members(record)
    vertex = (
        "#version 420 core\n" + "".join(glsl.structs)
        + f"layout(std140) uniform vpl_Block0 {{\n{members}}} vpl_u0;\n"
        # Referencing one member keeps the block active; std140 members are then all active.
        + "void main() { gl_Position = vec4(float(vpl_u0.vpl_m0" + _first_scalar(record.fields[0].type) + ")); }\n"
    )
    fragment = "#version 420 core\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n"
    vertex_shader = _compile_shader(GL.GL_VERTEX_SHADER, vertex, "vertex")
    fragment_shader = _compile_shader(GL.GL_FRAGMENT_SHADER, fragment, "fragment")
    program = GL.glCreateProgram()
    try:
        GL.glAttachShader(program, vertex_shader)
        GL.glAttachShader(program, fragment_shader)
        GL.glLinkProgram(program)
        assert GL.glGetProgramiv(program, GL.GL_LINK_STATUS), GL.glGetProgramInfoLog(program)
        leaves = list(std140.leaves(record, "vpl_Block0"))
        count = len(leaves)
        names = (ctypes.c_char_p * count)(*[leaf.path.encode("ascii") for leaf in leaves])
        indices = (GL.GLuint * count)()
        glGetUniformIndices(program, count, ctypes.cast(names, ctypes.POINTER(ctypes.POINTER(ctypes.c_char))), indices)
        assert 0xFFFFFFFF not in list(indices), [leaf.path for leaf, i in zip(leaves, indices) if i == 0xFFFFFFFF]
        result = {}
        columns = []
        for parameter in (GL.GL_UNIFORM_OFFSET, GL.GL_UNIFORM_ARRAY_STRIDE, GL.GL_UNIFORM_MATRIX_STRIDE):
            values = (GL.GLint * count)()
            glGetActiveUniformsiv(program, count, indices, parameter, values)
            columns.append(list(values))
        for position, leaf in enumerate(leaves):
            result[leaf.path] = (columns[0][position], columns[1][position], columns[2][position])
        block = GL.glGetUniformBlockIndex(program, b"vpl_Block0\0")
        size = np.zeros(1, dtype=np.int32)
        GL.glGetActiveUniformBlockiv(program, block, GL.GL_UNIFORM_BLOCK_DATA_SIZE, size)
        return result, int(size[0])
    finally:
        GL.glDeleteProgram(program)
        GL.glDeleteShader(vertex_shader)
        GL.glDeleteShader(fragment_shader)


def _first_scalar(value_type: Type) -> str:
    if isinstance(value_type, ScalarType):
        return ""
    if isinstance(value_type, VectorType):
        return ".x"
    if isinstance(value_type, MatrixType):
        return "[0][0]"
    if isinstance(value_type, ArrayType):
        return "[0]" + _first_scalar(value_type.element)
    return ".vpl_m0" + _first_scalar(value_type.fields[0].type)


def _assert_matches_driver(record: RecordType) -> None:
    driver, driver_size = _driver_layout(record)
    for leaf in std140.leaves(record, "vpl_Block0"):
        assert driver[leaf.path] == (leaf.offset, leaf.array_stride, leaf.matrix_stride), leaf.path
    assert std140.size_of(record) == driver_size


def _record(*types: Type, name: str = "R") -> RecordType:
    return RecordType(name, [Field(f"f{index}", field_type) for index, field_type in enumerate(types)])


INNER = _record(vec(3), FLOAT, name="Inner")
CASES = {
    "scene": scene_record(),
    "scalars and vectors": _record(FLOAT, vec(2), vec(3), FLOAT, INT, ivec(3), BOOL, bvec(2), vec(4), vec(2)),
    "vec3 then vec2": _record(vec(3), vec(2), FLOAT),
    "matrices": _record(FLOAT, mat(2), mat(3), mat(4), MatrixType(3, 2), MatrixType(2, 4), MatrixType(4, 3), vec(2)),
    "arrays": _record(FLOAT, ArrayType(FLOAT, 3), ArrayType(vec(2), 2), ArrayType(vec(3), 2), ArrayType(mat(3), 2), INT),
    "nested": _record(FLOAT, INNER, FLOAT, ArrayType(INNER, 3), vec(2), _record(ArrayType(INT, 2), INNER, name="Outer")),
}


@pytest.mark.gl
@pytest.mark.parametrize("case", sorted(CASES))
def test_layout_matches_the_driver(current_gl, case: str) -> None:
    _assert_matches_driver(CASES[case])


_BASIC = st.sampled_from(
    [FLOAT, INT, BOOL, vec(2), vec(3), vec(4), ivec(2), ivec(3), bvec(4), mat(2), mat(3), mat(4),
     MatrixType(2, 3), MatrixType(3, 2), MatrixType(4, 2), MatrixType(2, 4)]
)


def _types(depth: int) -> st.SearchStrategy[Type]:
    if depth == 0:
        return _BASIC
    inner = _types(depth - 1)
    return st.one_of(
        _BASIC,
        st.builds(ArrayType, _BASIC, st.integers(1, 3)),
        st.builds(lambda fields: _record(*fields, name="Nested"), st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda fields, count: ArrayType(_record(*fields, name="Element"), count),
                  st.lists(inner, min_size=1, max_size=3), st.integers(1, 2)),
    )


@pytest.mark.gl
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_types(2), min_size=1, max_size=6))
def test_random_records_match_the_driver(current_gl, field_types: list[Type]) -> None:
    _assert_matches_driver(_record(*field_types))


def test_pack_places_values_at_their_offsets() -> None:
    record = _record(vec(3), FLOAT, mat(2), ArrayType(FLOAT, 2), BOOL, ivec(2))
    matrix = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)  # m[row, column]
    data = std140.pack(record, {"f0": (1, 2, 3), "f1": 4.0, "f2": matrix, "f3": [5.0, 6.0], "f4": True, "f5": (-7, 8)})
    assert len(data) == std140.size_of(record) == 96
    assert struct.unpack_from("<4f", data, 0) == (1.0, 2.0, 3.0, 4.0)   # float packs into the vec3's tail
    assert struct.unpack_from("<2f", data, 16) == (1.0, 3.0)           # column 0
    assert struct.unpack_from("<2f", data, 32) == (2.0, 4.0)           # column 1, 16-byte column stride
    assert struct.unpack_from("<f", data, 48) == (5.0,) and struct.unpack_from("<f", data, 64) == (6.0,)
    assert struct.unpack_from("<I", data, 80) == (1,)
    assert struct.unpack_from("<2i", data, 88) == (-7, 8)


def test_defaults_are_zero_and_identity() -> None:
    record = _record(FLOAT, mat(3), ArrayType(_record(mat(2), vec(2), name="E"), 2))
    data = std140.pack(record, {"f0": None})
    assert struct.unpack_from("<f", data, 0) == (0.0,)
    assert [struct.unpack_from("<3f", data, 16 + 16 * column) for column in range(3)] == [
        (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    element = std140.field_offsets(record)[2]
    assert struct.unpack_from("<2f", data, element) == (1.0, 0.0)
    assert struct.unpack_from("<2f", data, element + 16) == (0.0, 1.0)


def test_samplers_have_no_layout() -> None:
    from vpl_core.ir.types import SAMPLER2D

    with pytest.raises(TypeError):
        std140.size_of(_record(SAMPLER2D))


def _nested(depth: int) -> RecordType:
    """R<k> = record (float, R<k-1>): each level's layout needs the level below (issue 23: exponential packer)."""
    record = RecordType("R0", [Field("x", FLOAT)])
    for level in range(1, depth + 1):
        record = RecordType(f"R{level}", [Field("x", FLOAT), Field("inner", record)])
    return record


def _steps(action: object) -> int:
    """Python lines executed by `action()` (deterministic; see tests/vpl_core/growth_support.py)."""
    import sys

    steps = 0

    def trace(frame: object, event: str, argument: object) -> object:
        nonlocal steps
        steps += 1
        return trace

    sys.settrace(trace)
    try:
        action()  # type: ignore[operator]
    finally:
        sys.settrace(None)
    return steps


def test_packing_and_leaves_grow_linearly_with_nesting_depth() -> None:
    for operation in (lambda record: std140.pack(record), lambda record: list(std140.leaves(record, "vpl_Block0"))):
        small, large = (_steps(lambda depth=depth, run=operation: run(_nested(depth))) for depth in (10, 20))
        assert large / small < 3.0, (small, large)  # linear: about 2; the unmemoised layout: thousands
    deep = _nested(120)
    data = std140.pack(deep, None)
    assert len(data) == std140.size_of(deep) == 121 * 16
    assert len(list(std140.leaves(deep, "vpl_Block0"))) == 121
