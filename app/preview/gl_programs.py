"""A linked material program's reflection and uploads, shared by the preview's renderer and its texture passes.

What the renderer did for its one drawn program, as functions any GL pass
may use: identify the context (`context_is_es`, `gl_strings`), drop errors
others left (`clear_pending_errors`), link an artifact (`link_program`,
keyed by its code: `program_key`), reflect it (`reflect_program`: uniform
slots by GLSL name, std140 blocks, sampler units by logical name, vertex
input feeds) and upload values (`upload_or_default`, `fill_block`). The
rules are the preview host contract's (docs/architecture.md): uniforms by
`glGetUniformLocation` of the artifact's GLSL names, record uniforms as
std140 blocks at the artifact's binding points, samplers on units in uniform
order from 0, vertex inputs by location.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from OpenGL import GL
from OpenGL.raw.GL.VERSION.GL_1_0 import glGetError as _raw_get_error  # noqa: N813 - PyOpenGL's raw entry points, named as this module uses them

from app.material.scene import DEFAULT_VERTEX_COLOR, VERTEX_INPUTS, VERTEX_INPUTS_BY_NAME
from app.preview import std140
from app.preview.gl_objects import ProgramBuildError
from app.preview.gl_objects import link_shaders as _link_program
from app.preview.preview_state import vector_components, writes_radiance
from vpl_core.backends.glsl.artifact import ProgramArtifact, UniformBinding
from vpl_core.ir.module import Direction, UniformKind
from vpl_core.ir.types import (
    ArrayType,
    MatrixType,
    RecordType,
    SamplerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
)

GL_INVALID_INDEX = 0xFFFFFFFF
#: Mesh attribute each contract location is fed from.
_MESH_ATTRIBUTES = {vertex_input.location: vertex_input.name for vertex_input in VERTEX_INPUTS}
_COLOR_LOCATION = VERTEX_INPUTS_BY_NAME["color"].location


def context_is_es() -> bool:
    """Whether the current context is OpenGL ES (its GL_VERSION starts with "OpenGL ES")."""
    version = GL.glGetString(GL.GL_VERSION) or b""
    if isinstance(version, bytes):
        version = version.decode("latin-1", "replace")
    return str(version).startswith("OpenGL ES")


def clear_pending_errors() -> None:
    """Drop GL errors someone else left on the current context.

    PyOpenGL checks glGetError after every call, so an error left pending by
    other code sharing the context would be blamed on the renderer's next
    call. Qt's QPainter (the widget's overlay) does leave one on an OpenGL
    ES context: it calls an entry point ES lacks ("unsupported function
    called", GL_INVALID_OPERATION).
    """
    for _ in range(32):  # the error flags are finite; bounded in case a broken driver never clears
        if not _raw_get_error():
            return


def _gl_string(name: int) -> str:
    value = GL.glGetString(name) or b""
    return value.decode("latin-1", "replace") if isinstance(value, bytes) else str(value)


def gl_strings() -> dict[str, str]:
    """The current context's identification: vendor, renderer, version, shading_language ("" if unknown)."""
    return {
        "vendor": _gl_string(GL.GL_VENDOR),
        "renderer": _gl_string(GL.GL_RENDERER),
        "version": _gl_string(GL.GL_VERSION),
        "shading_language": _gl_string(GL.GL_SHADING_LANGUAGE_VERSION),
    }


@dataclass
class UniformSlot:
    """One default-block uniform the renderer uploads: a root or a selector such as `vpl_u3[1].vpl_m0`."""

    binding: UniformBinding
    selector: str
    type: Type            # scalar, vector, matrix or sampler
    count: int            # > 1 for arrays of basic types (uploaded at once)
    location: int
    path: tuple[Any, ...]  # where the value sits inside the parameter's value (indices, field names)


@dataclass
class BlockInfo:
    binding: UniformBinding
    block_index: int      # GL_INVALID_INDEX when the driver optimised the block away
    binding_point: int
    size: int             # the std140 size computed from the reflected type
    driver_size: int      # GL_UNIFORM_BLOCK_DATA_SIZE (0 when inactive)
    buffer: int


@dataclass
class AttributeInfo:
    name: str
    location: int
    type: Type
    mesh_attribute: str | None  # the mesh array feeding it ("position" ... "color"), or None for a constant


@dataclass
class ProgramInfo:
    program: int
    artifact: ProgramArtifact
    uniforms: list[UniformSlot] = field(default_factory=list)
    blocks: list[BlockInfo] = field(default_factory=list)
    samplers: dict[str, int] = field(default_factory=dict)   # logical name -> texture unit
    attributes: list[AttributeInfo] = field(default_factory=list)
    link_log: str = ""
    radiance: bool = False  # the colour output is `radiance`: drawn in HDR, then tone-mapped

    def block(self, name: str) -> BlockInfo | None:
        for block in self.blocks:
            if block.binding.name == name:
                return block
        return None


def _is_float_attribute(value_type: Type) -> bool:
    return (isinstance(value_type, ScalarType) and value_type.kind is ScalarKind.FLOAT) or (
        isinstance(value_type, VectorType) and value_type.kind is ScalarKind.FLOAT
    )


def _basic_slots(binding: UniformBinding, value_type: Type, selector: str, path: tuple[Any, ...]) -> list[tuple[str, Type, int, tuple[Any, ...]]]:
    """(selector, leaf type, count, value path) for every uploadable leaf of a default-block uniform."""
    if isinstance(value_type, RecordType):
        slots = []
        for index, record_field in enumerate(value_type.fields):
            slots += _basic_slots(binding, record_field.type, f"{selector}.vpl_m{index}", path + (record_field.name,))
        return slots
    if isinstance(value_type, ArrayType):
        if isinstance(value_type.element, (RecordType, ArrayType)):
            slots = []
            for index in range(value_type.count):
                slots += _basic_slots(binding, value_type.element, f"{selector}[{index}]", path + (index,))
            return slots
        return [(selector, value_type.element, value_type.count, path)]
    return [(selector, value_type, 1, path)]


def value_at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        if value is None:
            return None
        if isinstance(step, str):
            value = value.get(step) if isinstance(value, Mapping) else None
        elif isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes)):
            value = value[step] if step < len(value) else None
        else:
            return None
    return value


def _leaf_values(leaf_type: Type, count: int, value: Any) -> list[Any]:
    if count == 1:
        return [value]
    elements = list(value) if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes)) else []
    return [elements[index] if index < len(elements) else None for index in range(count)]


def _upload_uniform(slot: UniformSlot, value: Any) -> None:
    """glUniform* for one slot; `value` follows the std140 module's value conventions."""
    leaf_type, count, location = slot.type, slot.count, slot.location
    values = _leaf_values(leaf_type, count, value)
    data: np.ndarray  # float32 or int32 by the leaf's scalar kind
    if isinstance(leaf_type, ScalarType):
        if leaf_type.kind is ScalarKind.FLOAT:
            data = np.array([float(std140._as_scalar(v) or 0.0) for v in values], dtype=np.float32)
            GL.glUniform1fv(location, count, data)
        else:
            data = np.array([int(std140._as_scalar(v) or 0) for v in values], dtype=np.int32)
            GL.glUniform1iv(location, count, data)
    elif isinstance(leaf_type, VectorType):
        size = leaf_type.size
        if leaf_type.kind is ScalarKind.FLOAT:
            data = np.array([vector_components(v, size) for v in values], dtype=np.float32).reshape(-1)
            (GL.glUniform2fv, GL.glUniform3fv, GL.glUniform4fv)[size - 2](location, count, data)
        else:
            data = np.array([[int(c) for c in vector_components(v, size)] for v in values], dtype=np.int32).reshape(-1)
            (GL.glUniform2iv, GL.glUniform3iv, GL.glUniform4iv)[size - 2](location, count, data)
    elif isinstance(leaf_type, MatrixType):
        columns = []
        for v in values:
            matrix = std140._as_matrix(std140.default_value(leaf_type) if v is None else v, leaf_type)
            columns.append(np.ascontiguousarray(matrix.T).reshape(-1))
        data = np.concatenate(columns).astype(np.float32)
        function = {
            (2, 2): GL.glUniformMatrix2fv, (3, 3): GL.glUniformMatrix3fv, (4, 4): GL.glUniformMatrix4fv,
            (2, 3): GL.glUniformMatrix2x3fv, (2, 4): GL.glUniformMatrix2x4fv, (3, 2): GL.glUniformMatrix3x2fv,
            (3, 4): GL.glUniformMatrix3x4fv, (4, 2): GL.glUniformMatrix4x2fv, (4, 3): GL.glUniformMatrix4x3fv,
        }[(leaf_type.columns, leaf_type.rows)]  # GL names matrices columns x rows
        function(location, count, GL.GL_FALSE, data)


def upload_or_default(slot: UniformSlot, value: Any) -> None:
    """Upload `value`; a value of the wrong shape uploads the default instead of failing every frame."""
    try:
        _upload_uniform(slot, value)
    except (TypeError, ValueError, IndexError):
        _upload_uniform(slot, None)


ProgramKey = tuple[str, str, int, str]


def program_key(artifact: ProgramArtifact) -> ProgramKey:
    """What the linked program depends on: two artifacts with equal keys link to the same program."""
    return (artifact.vertex_code, artifact.fragment_code, artifact.fragment_color_location,
            artifact.fragment_color_output)


def link_program(artifact: ProgramArtifact, is_es: bool) -> tuple[int, str]:
    """Compile and link `artifact`'s two stages in the current context: (program, link log).

    Raises `ProgramBuildError` (and checks that an ES context gets an ES target).
    """
    if is_es and not artifact.target.startswith("es"):
        raise ProgramBuildError(
            "vertex", f"this is an OpenGL ES context; the program was compiled for {artifact.target}, "
            "not for an ES target (es300 or es320)")
    return _link_program(artifact.vertex_code, artifact.fragment_code, artifact.fragment_color_location,
                         artifact.fragment_color_output, is_es)


def sampler_units(artifact: ProgramArtifact) -> dict[str, int]:
    """The texture unit of each sampler uniform, by logical name: in uniform order from 0."""
    units: dict[str, int] = {}
    for binding in artifact.uniforms:
        if binding.kind is not UniformKind.RECORD and isinstance(binding.type, SamplerType):
            units[binding.name] = len(units)
    return units


def attribute_feeds(artifact: ProgramArtifact) -> list[AttributeInfo]:
    """The vertex inputs of `artifact` by location, each fed from its mesh attribute or, lacking one, a constant."""
    attributes = []
    for binding in artifact.vertex_interface:
        if binding.direction is not Direction.IN or binding.location < 0:
            continue
        feed = _MESH_ATTRIBUTES.get(binding.location) if _is_float_attribute(binding.type) else None
        attributes.append(AttributeInfo(binding.name, binding.location, binding.type, feed))
    return attributes


def bind_attributes(attributes: Sequence[AttributeInfo], has_colors: bool = False) -> None:
    """Enable the mesh arrays the program reads; give every other vertex input a constant (the bound VAO's state).

    `has_colors`: the bound mesh has vertex colours; without them the colour
    input reads the documented constant `DEFAULT_VERTEX_COLOR`.
    """
    fed = {attribute.location for attribute in attributes
           if attribute.mesh_attribute and (attribute.location != _COLOR_LOCATION or has_colors)}
    for location in _MESH_ATTRIBUTES:
        if location in fed:
            GL.glEnableVertexAttribArray(location)
        else:
            GL.glDisableVertexAttribArray(location)
    for attribute in attributes:
        if attribute.location in fed:
            continue
        if attribute.mesh_attribute == "color":
            GL.glVertexAttrib4f(attribute.location, *DEFAULT_VERTEX_COLOR)  # a mesh without vertex colours
            continue
        value_type = attribute.type
        if isinstance(value_type, MatrixType):
            # One location per column; identity columns leave a transform harmless.
            for column in range(value_type.columns):
                unit = [0.0, 0.0, 0.0, 0.0]
                if column < 4:
                    unit[column] = 1.0
                GL.glVertexAttrib4f(attribute.location + column, *unit)
        elif isinstance(value_type, (ScalarType, VectorType)) and value_type.kind is not ScalarKind.FLOAT:
            GL.glVertexAttribI4i(attribute.location, 0, 0, 0, 0)
        else:
            GL.glVertexAttrib4f(attribute.location, 0.0, 0.0, 0.0, 0.0)



def reflect_program(program: int, artifact: ProgramArtifact) -> ProgramInfo:
    """The uniform slots, blocks (a buffer each, made here), sampler units and vertex inputs of a linked program."""
    info = ProgramInfo(program, artifact, radiance=writes_radiance(artifact))
    info.samplers = sampler_units(artifact)
    for binding in artifact.uniforms:
        if binding.kind is UniformKind.RECORD:
            info.blocks.append(make_block(program, binding))
            continue
        for selector, leaf_type, count, path in _basic_slots(binding, binding.type, binding.gl_name, ()):
            location = int(GL.glGetUniformLocation(program, selector.encode("ascii") + b"\0"))
            if location < 0:
                continue  # optimised away by the driver: nothing to upload
            info.uniforms.append(UniformSlot(binding, selector, leaf_type, count, location, path))
    info.attributes = attribute_feeds(artifact)
    return info


def make_block(program: int, binding: UniformBinding) -> BlockInfo:
    """Bind record uniform `binding`'s block to its binding point and make its buffer (std140 size, or the driver's)."""
    block_name = binding.block_name or f"vpl_Block{binding.slot}"
    index = int(GL.glGetUniformBlockIndex(program, block_name.encode("ascii") + b"\0"))
    driver_size = 0
    if index != GL_INVALID_INDEX:
        GL.glUniformBlockBinding(program, index, binding.block_binding)
        result = np.zeros(1, dtype=np.int32)
        GL.glGetActiveUniformBlockiv(program, index, GL.GL_UNIFORM_BLOCK_DATA_SIZE, result)
        driver_size = int(result[0])
    size = std140.size_of(binding.type)
    buffer = int(GL.glGenBuffers(1))
    GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, buffer)
    GL.glBufferData(GL.GL_UNIFORM_BUFFER, max(size, driver_size, 16), None, GL.GL_DYNAMIC_DRAW)
    GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, 0)
    return BlockInfo(binding, index, binding.block_binding, size, driver_size, buffer)


def fill_block(block: BlockInfo, value: Any) -> None:
    """Pack `value` into the block's buffer by its reflected type (defaults when it does not fit)."""
    data = bytearray(max(block.size, block.driver_size))
    try:
        std140.pack_into(data, block.binding.type, value)
    except (TypeError, ValueError, IndexError):
        # A value of the wrong shape for this record: show defaults rather than fail the frame.
        data = bytearray(len(data))
        std140.pack_into(data, block.binding.type, None)
    GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, block.buffer)
    GL.glBufferSubData(GL.GL_UNIFORM_BUFFER, 0, len(data), bytes(data))
    GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, 0)


def delete_reflection(info: ProgramInfo) -> None:
    """Delete the block buffers `reflect_program` made (not the program)."""
    buffers = [block.buffer for block in info.blocks]
    if buffers:
        GL.glDeleteBuffers(len(buffers), buffers)
