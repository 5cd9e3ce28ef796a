"""The preview's scene drawn by the VPL interpreter: no OpenGL, numpy only.

`CpuRenderer` is the CPU counterpart of `app.preview.renderer.Renderer`:
the same host-side API (parameters, textures, mesh, camera, light, time,
background) and the same host contract (ARCHITECTURE.md, "The preview host
contract"; docs/preview.md), but it draws a `VerifiedModule` with
`vpl_core.interp` instead of compiling GLSL. It imports nothing from
OpenGL, so it works on machines where no GL library loads at all (the CPU
preview fallback, `vpl run --mesh`).

How each input reaches the module, as the GL renderer does it:

- vertex inputs at the contract's locations (0 position, 1 normal,
  2 texcoord, 3 tangent, 4 colour) get the mesh arrays when they are float
  scalars or vectors; location 4 of a mesh without colours reads
  `DEFAULT_VERTEX_COLOR`; every other input reads zero (matrices: identity
  columns);
- the record uniform `scene` is filled by field name from `scene_values`
  (model, view, projection, normal_matrix, camera_position, time,
  light_direction), fields whose type cannot take the value stay zero;
- record uniforms are std140 blocks on the GPU: their values are packed
  with the preview's std140 packer and read back from the bytes, so they
  follow exactly the packer's conventions (missing values zero, matrices
  identity);
- other uniforms follow the renderer's upload conventions: a scalar splats
  over a vector, an RGB value for a vec4 gets alpha 1, a matrix is a
  (rows, columns) array, missing values are zero (matrices identity), and a
  value of the wrong shape is the default rather than an error;
- samplers read the image set for them (uint8 RGBA, top row first; rows
  flipped so v = 0 is the bottom, mipmaps by a box filter, repeat,
  trilinear) or the default checker;
- the frame is cleared to the background (alpha 1), depth test LESS, no
  culling, the FragmentColor output's value is the pixel.

`tests/app/preview/test_cpu_renderer.py` checks that `scene_values` and the
defaults stay those of the GL renderer, and the CPU-GPU comparison of every
example material checks the rest.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from app.material.scene import DEFAULT_VERTEX_COLOR, SCENE_UNIFORM_NAME, VERTEX_INPUTS
from app.material.textures import as_rgba_image, checker_rgba
from app.preview import std140 as packer
from app.preview.camera import OrbitCamera, normal_matrix
from app.preview.mesh import Mesh, make_mesh
from vpl_core.backends.glsl import std140 as layout
from vpl_core.interp import MeshData, Program, RenderResult, Texture2D, render, to_rgba8
from vpl_core.interp.pipeline import vertex_input_locations
from vpl_core.ir.module import Direction
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
from vpl_core.publish import VerifiedModule

# The GL renderer's defaults (app/preview/renderer.py); a test keeps them equal.
DEFAULT_BACKGROUND = (0.18, 0.19, 0.21)
DEFAULT_LIGHT_DIRECTION = (-0.45, 0.6, 0.66)

#: Mesh attribute each contract location is fed from.
MESH_ATTRIBUTES = {vertex_input.location: vertex_input.name for vertex_input in VERTEX_INPUTS}
_MESH_ARRAYS = {"position": "positions", "normal": "normals", "texcoord": "texcoords", "tangent": "tangents", "color": "colors"}


def _vector_value(value: Any, size: int) -> list[float]:
    """Components of a vector parameter: scalars splat; a colour given as RGB gets alpha 1 (as the renderer uploads)."""
    if value is None:
        return [0.0] * size
    if isinstance(value, (int, float, np.number)):
        return [float(value)] * size
    components = [float(c) for c in np.asarray(value, dtype=np.float64).reshape(-1)]
    if size == 4 and len(components) == 3:
        components.append(1.0)
    return (components + [0.0] * size)[:size]


def _default_block_value(value_type: Type, value: Any) -> Any:
    """A default-block uniform's value as the renderer uploads it (leaf conventions of `_upload_uniform`)."""
    if isinstance(value_type, ScalarType):
        scalar = packer._as_scalar(value) if value is not None else 0
        if value_type.kind is ScalarKind.FLOAT:
            return float(scalar or 0.0)
        return int(scalar or 0) if value_type.kind is ScalarKind.INT else bool(scalar)
    if isinstance(value_type, VectorType):
        components = _vector_value(value, value_type.size)
        return [int(c) for c in components] if value_type.kind is not ScalarKind.FLOAT else components
    if isinstance(value_type, MatrixType):
        return packer._as_matrix(packer.default_value(value_type) if value is None else value, value_type)
    if isinstance(value_type, ArrayType):
        elements = list(value) if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes)) else []
        return [_default_block_value(value_type.element, elements[index] if index < len(elements) else None)
                for index in range(value_type.count)]
    if isinstance(value_type, RecordType):
        mapping = value if isinstance(value, Mapping) else {}
        return {field.name: _default_block_value(field.type, mapping.get(field.name)) for field in value_type.fields}
    return None


def _unpack(value_type: Type, data: bytes, offset: int = 0) -> Any:
    """The value std140 bytes hold (the inverse of the packer, for the block layout of the backend)."""
    if isinstance(value_type, ScalarType):
        if value_type.kind is ScalarKind.FLOAT:
            return struct.unpack_from("<f", data, offset)[0]
        raw = struct.unpack_from("<i", data, offset)[0]
        return raw if value_type.kind is ScalarKind.INT else bool(raw)
    if isinstance(value_type, VectorType):
        return [_unpack(value_type.element, data, offset + 4 * index) for index in range(value_type.size)]
    if isinstance(value_type, MatrixType):
        columns = [np.frombuffer(data, dtype="<f4", count=value_type.rows, offset=offset + 16 * column)
                   for column in range(value_type.columns)]
        return np.stack(columns, axis=1)
    if isinstance(value_type, ArrayType):
        stride = layout.array_stride(value_type)
        return [_unpack(value_type.element, data, offset + index * stride) for index in range(value_type.count)]
    if isinstance(value_type, RecordType):
        return {field.name: _unpack(field.type, data, offset + field_offset)
                for field, field_offset in zip(value_type.fields, layout.field_offsets(value_type))}
    raise TypeError(f"{value_type} has no std140 layout")


def _block_value(value_type: RecordType, value: Any) -> Any:
    buffer = bytearray(layout.size(value_type))
    try:
        packer.pack_into(buffer, value_type, value)
    except (TypeError, ValueError, IndexError):
        buffer = bytearray(len(buffer))
        packer.pack_into(buffer, value_type, None)
    return _unpack(value_type, bytes(buffer))


def _contains_sampler(value_type: Type) -> bool:
    if isinstance(value_type, SamplerType):
        return True
    if isinstance(value_type, ArrayType):
        return _contains_sampler(value_type.element)
    if isinstance(value_type, RecordType):
        return any(_contains_sampler(field.type) for field in value_type.fields)
    return False


class CpuRenderer:
    """Draws the preview scene with the VPL interpreter; the host-side API of `Renderer`."""

    def __init__(self) -> None:
        self.camera = OrbitCamera()
        self.background: tuple[float, float, float] = DEFAULT_BACKGROUND
        self.light_direction: tuple[float, float, float] = DEFAULT_LIGHT_DIRECTION
        self.time: float = 0.0
        self.parameters: dict[str, Any] = {}
        self.mesh_name = "sphere"
        self.program: Program | None = None
        self._mesh: Mesh | None = None
        self._images: dict[str, np.ndarray] = {}
        self._textures: dict[str, Texture2D] = {}
        self._checker: Texture2D | None = None

    # ---- host-side state, as Renderer ----------------------------------------------------------

    def set_parameter(self, name: str, value: Any) -> None:
        self.parameters[name] = value

    def set_texture(self, name: str, image: np.ndarray | None) -> None:
        """Use `image` (uint8 RGBA, top row first) for sampler `name`; None restores the checker."""
        if image is None:
            self._images.pop(name, None)
        else:
            self._images[name] = as_rgba_image(image)
        self._textures.pop(name, None)

    def set_mesh(self, name: str) -> None:
        make_mesh(name)  # validates the name now
        if name != self.mesh_name:
            self.mesh_name = name
            self._mesh = None

    def set_background(self, rgb: Sequence[float]) -> None:
        red, green, blue = (float(c) for c in rgb)
        self.background = (red, green, blue)

    def set_light_direction(self, direction: Sequence[float]) -> None:
        vector = np.asarray(direction, dtype=np.float64).reshape(3)
        length = float(np.linalg.norm(vector))
        if length < 1e-9:
            raise ValueError("the light direction must not be the zero vector")
        x, y, z = (float(c) for c in vector / length)
        self.light_direction = (x, y, z)

    def scene_values(self, width: int, height: int) -> dict[str, Any]:
        """The scene record's fields by name, as `Renderer.scene_values`."""
        model = np.eye(4, dtype=np.float32)
        return {
            "model": model,
            "view": self.camera.view_matrix(),
            "projection": self.camera.projection_matrix(width / max(height, 1)),
            "normal_matrix": normal_matrix(model),
            "camera_position": tuple(float(c) for c in self.camera.position),
            "time": float(self.time),
            "light_direction": self.light_direction,
        }

    # ---- programs and drawing -------------------------------------------------------------------

    def set_program(self, verified: VerifiedModule) -> Program:
        """The module to draw from now on (materialized and prepared once)."""
        self.program = Program.from_verified(verified)
        return self.program

    def mesh(self) -> Mesh:
        if self._mesh is None:
            self._mesh = make_mesh(self.mesh_name)
        return self._mesh

    def _texture(self, name: str) -> Texture2D:
        texture = self._textures.get(name)
        if texture is None:
            image = self._images.get(name)
            if image is None:
                if self._checker is None:
                    self._checker = Texture2D.from_image(checker_rgba())
                return self._checker
            texture = self._textures[name] = Texture2D.from_image(image)
        return texture

    def uniform_values(self, width: int, height: int) -> dict[str, Any]:
        """Every uniform's value for the interpreter, by name (see the module docstring)."""
        assert self.program is not None
        values: dict[str, Any] = {}
        scene = self.scene_values(width, height)
        for uniform in self.program.module.uniforms:
            value_type = uniform.type
            if isinstance(value_type, SamplerType):
                values[uniform.name] = self._texture(uniform.name)
            elif _contains_sampler(value_type):
                continue  # the GLSL target rejects these (spec 12.4); the interpreter reads "unbound"
            elif isinstance(value_type, RecordType):
                given = self._scene_value(value_type, scene) if uniform.name == SCENE_UNIFORM_NAME else self.parameters.get(uniform.name)
                values[uniform.name] = _block_value(value_type, given)
            else:
                try:
                    values[uniform.name] = _default_block_value(value_type, self.parameters.get(uniform.name))
                except (TypeError, ValueError, IndexError):
                    values[uniform.name] = _default_block_value(value_type, None)
        return values

    @staticmethod
    def _scene_value(record: RecordType, scene: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for record_field in record.fields:
            value = scene.get(record_field.name)
            if value is None:
                continue
            try:
                packer.pack(record_field.type, value)
            except (TypeError, ValueError, IndexError):
                continue
            result[record_field.name] = value
        return result

    def mesh_data(self) -> MeshData:
        """Vertex attributes as the GL renderer binds them: the mesh arrays for float scalar/vector inputs
        at the contract's locations, a constant for every other input (zero; matrices identity columns)."""
        assert self.program is not None
        mesh = self.mesh()
        count = mesh.vertex_count
        attributes: dict[int, np.ndarray] = {}
        locations = vertex_input_locations(self.program)
        for slot, variable in enumerate(self.program.vertex.stage.interface):
            if variable.direction is not Direction.IN or slot not in locations:
                continue
            location = locations[slot]
            attribute = MESH_ATTRIBUTES.get(location)
            value_type = variable.type
            is_float = isinstance(value_type, (ScalarType, VectorType)) and value_type.kind is ScalarKind.FLOAT
            data = getattr(mesh, _MESH_ARRAYS.get(attribute, f"{attribute}s"), None) if attribute is not None else None
            if data is not None and is_float:
                attributes[location] = data
            elif attribute == "color" and is_float:
                # A mesh without vertex colours: the contract's constant, as the GL renderer binds it.
                attributes[location] = np.broadcast_to(np.asarray(DEFAULT_VERTEX_COLOR, dtype=np.float32), (count, 4))
            elif isinstance(value_type, MatrixType):
                for column in range(value_type.columns):
                    unit = np.zeros(4, dtype=np.float32)
                    if column < 4:
                        unit[column] = 1.0
                    attributes[location + column] = np.broadcast_to(unit, (count, 4))
            else:
                attributes[location] = np.zeros((count, 4), dtype=np.float32)
        return MeshData(attributes, mesh.indices)

    def render_result(self, width: int, height: int, *, tracked: bool = False, step_limit: int | None = None) -> RenderResult:
        """One frame with everything the interpreter knows about it."""
        if self.program is None:
            raise ValueError("no program to draw: call set_program first")
        limit = {} if step_limit is None else {"step_limit": step_limit}
        return render(self.program, self.mesh_data(), int(width), int(height), uniforms=self.uniform_values(width, height),
                      background=(*self.background, 1.0), depth_test=True, tracked=tracked, **limit)

    def render_image(self, width: int, height: int, *, step_limit: int | None = None) -> np.ndarray:
        """One frame as RGBA8, (height, width, 4), top row first (as `Renderer.render_image`); the background without a program."""
        if self.program is None:
            image = np.empty((int(height), int(width), 4), dtype=np.uint8)
            image[...] = to_rgba8(np.array([*self.background, 1.0]))
            return image
        return to_rgba8(self.render_result(width, height, step_limit=step_limit).color)
