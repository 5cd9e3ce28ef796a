"""The preview's scene drawn by the VPL interpreter: no OpenGL, numpy only.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `app/preview/cpu_renderer.py`.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.material.scene import DEFAULT_VERTEX_COLOR, HOST_SAMPLERS, SCENE_UNIFORM_NAME, VERTEX_INPUTS
from app.material.texture_passes import Displacement, pass_sampler_name
from app.material.textures import checker_rgba
from app.preview import ibl, post
from app.preview import std140 as packer
from app.preview.cpu_stage import StageScene, compose
from app.preview.preview_state import DEFAULT_BACKGROUND as DEFAULT_BACKGROUND
from app.preview.preview_state import (
    PreviewState,
    as_uploaded,
    module_writes_radiance,
    scene_record_value,
    vector_components,
)
from app.preview.stage import DEFAULT_LIGHT_DIRECTION as DEFAULT_LIGHT_DIRECTION
from app.preview.stage_geometry import MAX_EXTRA_LIGHTS, ground_irradiance
from vpl_core.backends.glsl import std140 as layout
from vpl_core.interp import MeshData, Program, RenderResult, Texture2D, render, to_rgba8
from vpl_core.interp.pipeline import vertex_input_locations
from vpl_core.interp.texture import Filter, SamplerState, Wrap, sample
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

#: Mesh attribute each contract location is fed from.
MESH_ATTRIBUTES = {vertex_input.location: vertex_input.name for vertex_input in VERTEX_INPUTS}
_MESH_ARRAYS = {"position": "positions", "normal": "normals", "texcoord": "texcoords", "tangent": "tangents", "color": "colors"}
#: The clear value of the HDR image: no surface drawn there (the post pass shows the background colour).
_UNCOVERED_PIXEL = (post.UNCOVERED, post.UNCOVERED, post.UNCOVERED, 0.0)


def _default_block_value(value_type: Type, value: Any) -> Any:
    """A default-block uniform's value as the renderer uploads it (leaf conventions of `_upload_uniform`)."""
    if isinstance(value_type, ScalarType):
        scalar = packer._as_scalar(value) if value is not None else 0
        if value_type.kind is ScalarKind.FLOAT:
            return float(scalar or 0.0)
        return int(scalar or 0) if value_type.kind is ScalarKind.INT else bool(scalar)
    if isinstance(value_type, VectorType):
        components = vector_components(value, value_type.size)
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


def _rgba_levels(images: tuple[np.ndarray, ...] | list[np.ndarray]) -> list[np.ndarray]:
    """Float images (h, w, 2 or 3) as the RGBA a half-float RG/RGB texture reads: rounded to binary16,
    missing blue 0, alpha 1 (rows as given: they are in GL row order already)."""
    levels = []
    for image in images:
        values = as_uploaded(image)
        rgba = np.zeros(values.shape[:2] + (4,), dtype=np.float32)
        rgba[..., : values.shape[2]] = values
        rgba[..., 3] = 1.0
        levels.append(rgba)
    return levels


class CpuRenderer(PreviewState):
    """Draws the preview scene with the VPL interpreter; the host-side state is `PreviewState`'s, as `Renderer`'s."""

    def __init__(self) -> None:
        super().__init__()
        self.program: Program | None = None
        self._radiance = False
        self._textures: dict[str, Texture2D] = {}
        self._checker: Texture2D | None = None
        self._environment_textures: dict[str, Texture2D] = {}
        self._pass_textures: dict[str, Texture2D] = {}
        self._displacement: Displacement | None = None

    # ---- programs -------------------------------------------------------------------------------

    def set_program(self, verified: VerifiedModule) -> Program:
        """The module to draw from now on (materialized and prepared once)."""
        program = Program.from_verified(verified)
        self.program = program
        self._radiance = module_writes_radiance(program.module)
        return program

    @property
    def radiance(self) -> bool:
        """Whether the program's colour output is `radiance`, shown through the post pass."""
        return self.program is not None and self._radiance

    # ---- textures -------------------------------------------------------------------------------

    def set_pass_textures(self, textures: Mapping[str, Texture2D], displacement: Displacement | None = None) -> None:
        """The buffers of texture passes by sampler uniform name (`app.preview.cpu_passes.pass_textures`):
        the material's pass samplers read them, with each buffer's wrap and mip-maps. `displacement`: the
        plan's (`PassPlan.displacement`), which the shadow and ground passes then follow."""
        self._pass_textures = dict(textures)
        self._displacement = displacement
        self.set_fine_mesh(displacement is not None)

    def displaced_positions(self) -> np.ndarray:
        """The mesh's positions as the material's vertex stage moves them ("Displacement and bump": along the
        unit normal by (height − mid) × scale, the height buffer read bilinearly at level 0), (N, 3) float64."""
        mesh = self.mesh()
        positions = np.asarray(mesh.positions, dtype=np.float64)
        moved = self._displacement
        texture = self._pass_textures.get(pass_sampler_name(moved.key)) if moved is not None else None
        if moved is None or texture is None:
            return positions
        uv = np.asarray(mesh.texcoords, dtype=np.float64)
        height = np.clip(sample(texture, uv[:, 0], uv[:, 1], np.zeros(len(uv)))[:, 0], 0.0, 1.0)
        normals = np.asarray(mesh.normals, dtype=np.float64)
        normals = normals / np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-30)
        return positions + normals * ((height - moved.mid_level) * moved.scale)[:, None]

    def _texture(self, name: str) -> Texture2D:
        if name == "environment_sampling":
            # Only the refined variant reads it, which the interpreter does not draw: made on first need.
            textures = self.environment_textures()
            if name not in textures:
                textures[name] = Texture2D([np.asarray(self.environment_maps.sampling, dtype=np.float32)], SamplerState(
                    wrap_s=Wrap.CLAMP_TO_EDGE, wrap_t=Wrap.CLAMP_TO_EDGE, min_filter=Filter.NEAREST, mag_filter=Filter.NEAREST))
            return textures[name]
        if name in HOST_SAMPLERS:
            return self.environment_textures()[name]
        if name in self._pass_textures:
            return self._pass_textures[name]
        if name in self._dirty_textures:
            self._textures.pop(name, None)
            self._dirty_textures.discard(name)
        texture = self._textures.get(name)
        if texture is None:
            image = self._images.get(name)
            if image is None:
                if self._checker is None:
                    self._checker = Texture2D.from_image(checker_rgba())
                return self._checker
            texture = self._textures[name] = Texture2D.from_image(image)
        return texture

    def environment_textures(self) -> dict[str, Texture2D]:
        """The host samplers of image-based lighting as the GL renderer uploads them (docs/lighting.md):
        the specular chain (REPEAT in u, CLAMP in t, trilinear over its levels), the irradiance map
        (REPEAT / CLAMP, LINEAR), the BRDF table (CLAMP, LINEAR); half floats, RGB alpha 1, RG blue 0."""
        if self._environment_dirty or not self._environment_textures:
            maps = self.environment_maps
            equirect: dict[str, Any] = {"wrap_s": Wrap.REPEAT, "wrap_t": Wrap.CLAMP_TO_EDGE, "mag_filter": Filter.LINEAR}
            self._environment_textures = {
                "environment_specular": Texture2D(_rgba_levels(maps.specular), SamplerState(
                    **equirect, min_filter=Filter.LINEAR_MIPMAP_LINEAR if len(maps.specular) > 1 else Filter.LINEAR)),
                "environment_irradiance": Texture2D(_rgba_levels((maps.irradiance,)), SamplerState(
                    **equirect, min_filter=Filter.LINEAR)),
                "environment_brdf": Texture2D(_rgba_levels((self.brdf_table,)), SamplerState(
                    wrap_s=Wrap.CLAMP_TO_EDGE, wrap_t=Wrap.CLAMP_TO_EDGE, min_filter=Filter.LINEAR, mag_filter=Filter.LINEAR)),
            }
            self._environment_dirty = False
        return self._environment_textures

    # ---- what the module reads ------------------------------------------------------------------

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
                given = scene_record_value(value_type, scene) if uniform.name == SCENE_UNIFORM_NAME else self.parameters.get(uniform.name)
                values[uniform.name] = _block_value(value_type, given)
            else:
                try:
                    values[uniform.name] = _default_block_value(value_type, self.parameters.get(uniform.name))
                except (TypeError, ValueError, IndexError):
                    values[uniform.name] = _default_block_value(value_type, None)
        return values

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

    # ---- drawing --------------------------------------------------------------------------------

    def frame(self, width: int, height: int) -> CpuFrame:
        """Everything one frame needs, taken from the current state (see `CpuFrame`)."""
        if self.program is None:
            raise ValueError("no program to draw: call set_program first")
        width, height = int(width), int(height)
        environment = None
        if self.radiance and self.background_mode != "color":
            chain = tuple(level[..., :3] for level in self.environment_textures()["environment_specular"].levels)
            environment = _EnvironmentBackground(chain, self.background_ray_matrix(width, height), self.background_roughness(),
                                                 self.environment_rotation, self.environment_intensity)
        return CpuFrame(self.program, self.mesh_data(), self.uniform_values(width, height), width, height, self.radiance,
                        self.background, environment, self.tone_mapper, self.exposure, self._stage_frame(width, height))

    def _stage_frame(self, width: int, height: int) -> StagePasses | None:
        """The shadows, ground, geometry occlusion and extra lights of a `radiance` frame (app/preview/cpu_stage.py),
        or None when none is on: the uniforms of each extra pass of the material and the masks' scene."""
        casting = self.shadows and self.light_intensity > 0.0
        if not self.radiance or not (casting or self.ground or self.occlusion or self.extra_lights):
            return None
        saved = (self.light_direction, self.light_color, self.light_intensity, self.environment_intensity)
        try:
            unlit = emission = None
            if (casting or self.occlusion) and self.light_intensity > 0.0:
                self.light_intensity = 0.0
                unlit = self.uniform_values(width, height)
            if self.occlusion or self.extra_lights:
                self.light_intensity, self.environment_intensity = 0.0, 0.0
                emission = self.uniform_values(width, height)
            extra = []
            for light in self.extra_lights[:MAX_EXTRA_LIGHTS]:
                self.light_direction, self.light_color = light.direction, light.color
                self.light_intensity, self.environment_intensity = light.intensity, 0.0
                extra.append(self.uniform_values(width, height))
        finally:
            self.light_direction, self.light_color, self.light_intensity, self.environment_intensity = saved
        scene = self.scene_values(width, height)
        view_projection = np.asarray(scene["projection"], dtype=np.float64) @ np.asarray(scene["view"], dtype=np.float64)
        environment_e, light_e = ground_irradiance(self)
        mesh = self.mesh()
        stage = StageScene(self.displaced_positions(), mesh.normals, mesh.indices, view_projection, self.light_direction, casting,
                           self.ground, self.occlusion, self.light_size, environment_e, light_e)
        return StagePasses(stage, unlit, emission, tuple(extra))

    def environment_background(self, width: int, height: int) -> np.ndarray:
        """The environment seen through every pixel, (height, width, 3) float32 radiance, top row first:
        what the GL background pass draws (each pixel's ray, sharp or blurred, rotated, times the intensity)."""
        chain = tuple(level[..., :3] for level in self.environment_textures()["environment_specular"].levels)
        return _EnvironmentBackground(chain, self.background_ray_matrix(width, height), self.background_roughness(),
                                      self.environment_rotation, self.environment_intensity).radiance(width, height)

    def render_result(self, width: int, height: int, *, tracked: bool = False, step_limit: int | None = None) -> RenderResult:
        """One frame with everything the interpreter knows about it (`CpuFrame.draw`)."""
        return self.frame(width, height).draw(tracked=tracked, step_limit=step_limit)

    def render_linear(self, width: int, height: int) -> np.ndarray:
        """The program's own output, before any post pass, float32 (height, width, 4), top row first, as
        `Renderer.render_linear`: cleared to the background colour, or behind a `radiance` program the
        environment when the background mode says so."""
        return self.frame(width, height).draw_linear()

    def render_final(self, width: int, height: int) -> np.ndarray:
        """`Renderer.render_final`'s counterpart: one frame, with the split-sum environment light (the interpreter
        draws no refinement: its frames of 16 samples a pixel each would take minutes)."""
        return self.render_image(width, height)

    def render_image(self, width: int, height: int, *, step_limit: int | None = None) -> np.ndarray:
        """One frame as RGBA8, (height, width, 4), top row first (as `Renderer.render_image`); the background without a program."""
        if self.program is None:
            image = np.empty((int(height), int(width), 4), dtype=np.uint8)
            image[...] = to_rgba8(np.array([*self.background, 1.0]))
            return image
        return self.frame(width, height).draw_image(step_limit=step_limit)


@dataclass(frozen=True, eq=False)
class _EnvironmentBackground:
    """What the environment background of one frame needs: the specular chain (GL row order, as the
    texture holds it), the ray matrix, the roughness it is read at, rotation and intensity."""

    chain: tuple[np.ndarray, ...]
    ray_matrix: np.ndarray
    roughness: float
    rotation: float
    intensity: float

    def radiance(self, width: int, height: int) -> np.ndarray:
        """(height, width, 3) float32 radiance, top row first."""
        x = (np.arange(width) + 0.5) / width * 2.0 - 1.0
        y = (np.arange(height) + 0.5) / height * 2.0 - 1.0  # bottom row first, as GL's window
        grid_x, grid_y = np.meshgrid(x, y, indexing="xy")
        far = np.stack([grid_x, grid_y, np.ones_like(grid_x), np.ones_like(grid_x)], axis=-1)
        directions = (far @ self.ray_matrix.astype(np.float64).T)[..., :3]
        radiance = ibl.prefiltered_radiance(self.chain, directions, self.roughness, self.rotation, self.intensity)
        return np.ascontiguousarray(radiance[::-1], dtype=np.float32)


@dataclass(frozen=True, eq=False)
class StagePasses:
    """The stage's extra passes of one frame: the masks' scene and the uniforms of the material drawn with the key
    light off (None: not needed, the lit frame stands in), with neither light nor environment (None: the unlit
    frame stands in) and with each extra light alone."""

    scene: StageScene
    unlit: dict[str, Any] | None
    emission: dict[str, Any] | None
    extra: tuple[dict[str, Any], ...]


@dataclass(frozen=True, eq=False)
class CpuFrame:
    """One frame of a `CpuRenderer`, taken from its state (`CpuRenderer.frame`): the program, the mesh
    data, every uniform's value, the background and the post pass's settings.

    Drawing it reads nothing else, so a host may draw it in another thread
    while the renderer's state changes (the CPU preview does: its widget
    stays responsive while the interpreter works). The textures it holds
    are shared with the renderer and only read.
    """

    program: Program
    mesh: MeshData
    uniforms: dict[str, Any]
    width: int
    height: int
    radiance: bool
    background: tuple[float, float, float]
    environment: _EnvironmentBackground | None
    tone_mapper: str
    exposure: float
    stage: StagePasses | None = None

    def draw(self, *, tracked: bool = False, step_limit: int | None = None) -> RenderResult:
        """The frame with everything the interpreter knows about it.

        For a `radiance` program `color` is the frame after the post pass
        (display values) and `outputs` hold the linear radiance; with
        `tracked`, the colour's radii are the material's carried through
        the post pass (its values at radiance ± radius), an estimate. With
        the stage's shadows, ground, occlusion or extra lights on, the
        colour is composed from several passes of the material
        (`app.preview.cpu_stage`) and carries no radii.
        """
        limit = {} if step_limit is None else {"step_limit": step_limit}
        if not self.radiance:
            return render(self.program, self.mesh, self.width, self.height, uniforms=self.uniforms,
                          background=(*self.background, 1.0), depth_test=True, tracked=tracked, **limit)
        result = render(self.program, self.mesh, self.width, self.height, uniforms=self.uniforms,
                        background=_UNCOVERED_PIXEL, depth_test=True, tracked=tracked and self.stage is None, **limit)
        color, catcher = result.color, None
        if self.stage is not None:
            color, catcher = self._staged(result.color, _UNCOVERED_PIXEL, limit)
        hdr = self._behind(color, result.written)
        display = self._display(hdr)
        if catcher is not None:
            # The ground's catcher multiplies the displayed frame (the GL preview blends it over the post pass).
            display[..., :3] *= catcher[..., None]
        errors = result.errors
        radius = result.color_error()
        if errors is not None and radius is not None:
            low, high = self._display(hdr - radius), self._display(hdr + radius)
            spread = np.maximum(np.abs(low - display), np.abs(high - display))
            errors = {**errors, "__color__": np.where(result.written[..., None], spread, 0.0)}
        return RenderResult(result.outputs, display.astype(np.float32), result.written, errors, result.unstable, result.stats)

    def _staged(self, lit: np.ndarray, background: tuple[float, float, float, float], limit: dict[str, int],
                catch: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """(`lit` composed with the stage's other passes and masks, the ground's catcher factor when `catch` and
        the ground is on, else None)."""
        stage = self.stage
        assert stage is not None

        def draw(uniforms: dict[str, Any]) -> np.ndarray:
            return render(self.program, self.mesh, self.width, self.height, uniforms=uniforms, background=background,
                          depth_test=True, **limit).color  # type: ignore[arg-type]  # step_limit is an int

        scene = stage.scene
        if not scene.shadows and not scene.occlusion and not stage.extra:
            # The ground alone: nothing on the mesh changes; its catcher only when the frame is displayed.
            return lit, (scene.masks(self.width, self.height).catcher if catch else None)
        masks = scene.masks(self.width, self.height)
        catcher = masks.catcher if scene.ground and catch else None
        unlit = draw(stage.unlit) if stage.unlit is not None else lit
        emission = draw(stage.emission) if stage.emission is not None else unlit
        extra = [draw(uniforms) for uniforms in stage.extra]
        if not scene.shadows and not scene.occlusion:
            masks.visibility[...] = 1.0
        return compose(lit, unlit, emission, extra, masks), catcher

    def draw_image(self, *, step_limit: int | None = None) -> np.ndarray:
        """The frame as RGBA8, (height, width, 4), top row first."""
        return to_rgba8(self.draw(step_limit=step_limit).color)

    def draw_linear(self) -> np.ndarray:
        """The program's own output before any post pass (float32, top row first): cleared to the background
        colour, or, behind a `radiance` program, the environment when the frame has an environment background;
        with the key light's shadows, the geometry's occlusion and the extra lights in it (not the ground's catcher,
        which is display-only, as in the GL preview)."""
        background = (*self.background, 1.0)
        result = render(self.program, self.mesh, self.width, self.height, uniforms=self.uniforms,
                        background=background, depth_test=True)
        color = result.color
        if self.stage is not None:
            color, _catcher = self._staged(color, background, {}, catch=False)
        return self._behind(color, result.written)

    def _behind(self, color: np.ndarray, written: np.ndarray) -> np.ndarray:
        """`color` with the environment where nothing was written (when the frame has an environment background)."""
        if self.environment is not None:
            uncovered = ~written
            color[uncovered, :3] = self.environment.radiance(self.width, self.height)[uncovered]
            color[uncovered, 3] = 1.0
        return color

    def _display(self, hdr: np.ndarray) -> np.ndarray:
        return post.display_colors(hdr, self.tone_mapper, self.exposure, self.background)
