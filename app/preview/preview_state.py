"""The host-side state of a preview, shared by the OpenGL `Renderer` and the `CpuRenderer`: no Qt, no OpenGL.

Both renderers draw the same scene under the same host contract
(docs/architecture.md, docs/preview.md): the mesh, the orbit camera, the
directional light, the environment (image-based lighting), the exposure
and tone mapper of the post pass, the background, the time and the
material's parameters and textures. `PreviewState` holds all of it as
numpy data with validating setters, and computes what both renderers feed
the module with (`scene_values`, the background's rays and level of
detail). `Renderer` (GL) and `CpuRenderer` (the VPL interpreter) subclass
it and only add the drawing, so the two cannot drift apart; `Stage.apply`
configures either.

Invariants:

- the material's values are the `ParameterValues` snapshot a host hands
  over (`set_values`), held as given: the session's `ParameterModel` owns
  them, and a renderer never keeps a copy of its own (a texture
  parameter's `TextureImage` becomes the sampler's image);
- setters validate and raise `ValueError` with a one-line message, and
  otherwise only record: nothing here needs a context, so a host may change
  the state at any time and the renderer applies it at the next frame;
- what changed since a renderer last looked is kept in the `_dirty_*` sets
  and flags (parameters, textures, mesh, environment); each renderer clears
  them when it has consumed the change (GL: uploaded; CPU: rebuilt its
  interpreter textures);
- the environment is data (`EnvironmentMaps`, the split-sum BRDF table) in
  the layout of docs/lighting.md; without one the scene is lit by a
  uniform grey (`DEFAULT_AMBIENT_COLOR`) with the shipped BRDF table.

`preview_lighting(stage)` records a stage with its prepared environment as
an export writes it (`app.session.engine_export.PreviewLighting`), computed
by the same state, so an engine sees the numbers the preview draws with.

The module also says how a program's colour output is to be shown
(`writes_radiance`, `module_writes_radiance`: linear HDR radiance goes
through the post pass) and whether a program reads a scene field
(`artifact_reads_scene_field`: a material that reads the time plays).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from app.material.scene import RADIANCE_OUTPUT_NAME, SCENE_UNIFORM_NAME
from app.material.textures import as_rgba_image
from app.preview import std140
from app.preview.camera import OrbitCamera, normal_matrix
from app.preview.ibl import environment_sampling
from app.preview.mesh import MESH_NAMES, Mesh, make_mesh
from app.preview.post import DEFAULT_TONE_MAPPER, TONE_MAPPERS
from app.preview.stage import (
    DEFAULT_AMBIENT_COLOR,
    DEFAULT_BACKGROUND_COLOR,
    DEFAULT_LIGHT_COLOR,
    DEFAULT_LIGHT_DIRECTION,
    DEFAULT_LIGHT_INTENSITY,
    NO_ENVIRONMENT,
    ExtraLight,
    Stage,
    finite_color,
)
from app.session.engine_export import PreviewLighting
from app.session.parameters import ParameterValues
from app.session.textures import TextureImage
from vpl_core.backends.glsl.artifact import ProgramArtifact

if TYPE_CHECKING:
    from app.preview.ibl_assets import PreparedEnvironment
from vpl_core.ir.module import Direction, Module, Semantic
from vpl_core.ir.types import RecordType

DEFAULT_BACKGROUND = DEFAULT_BACKGROUND_COLOR
#: What a Surface Output material is shown in front of: the plain colour, or the environment
#: (sharp, or as prefiltered for BLURRED_BACKGROUND_ROUGHNESS). Display-colour materials always get the colour.
BACKGROUND_MODES = ("color", "environment", "blurred")
BLURRED_BACKGROUND_ROUGHNESS = 0.35


#: Frames a refinement of the environment light averages (16 samples per pixel each): the converged image.
REFINE_FRAMES = 64


@dataclass(frozen=True, eq=False)
class EnvironmentMaps:
    """An environment as the Surface Output reads it (layout: docs/lighting.md, `app.preview.ibl`).

    `specular`: the equirect mip chain, level 0 first, each (h, w, 3) in GL
    row order (row 0 is t = 0, the nadir), each level half the size of the
    previous; `irradiance`: equirect irradiance / π, (h, w, 3). Values are
    linear radiance (float16 or float32 arrays; hosts store them as half
    floats, `as_uploaded`).
    """

    specular: tuple[np.ndarray, ...]
    irradiance: np.ndarray

    def __post_init__(self) -> None:
        if not self.specular:
            raise ValueError("an environment needs at least one specular level")
        for image in (*self.specular, self.irradiance):
            if image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 1:
                raise ValueError(f"environment images are (height, width, 3) arrays, not {image.shape}")

    @classmethod
    def uniform(cls, radiance: Sequence[float]) -> EnvironmentMaps:
        """A uniform environment: the same radiance from every direction (every level, one texel)."""
        texel = np.asarray(radiance, dtype=np.float32).reshape(1, 1, 3)
        return cls((texel,), texel)

    @functools.cached_property
    def sampling(self) -> np.ndarray:
        """The environment's sampling distribution (`ibl.environment_sampling` of level 0 as uploaded): the
        refined environment light's `environment_sampling` texture, made once per environment."""
        return environment_sampling(as_uploaded(self.specular[0]))

    @property
    def max_lod(self) -> float:
        """The last level of the specular chain (the scene record's `environment_max_lod`)."""
        return float(len(self.specular) - 1)


def as_uploaded(image: np.ndarray) -> np.ndarray:
    """An environment or BRDF-table image as a host stores it: rounded to half floats (RGB16F, RG16F), as float32.

    The arrays the prefilter makes are float16 already (exact); the uniform
    environment's float32 radiance rounds (0.2 reads 0.199951171875 on the GPU).
    """
    return np.asarray(image, dtype=np.float16).astype(np.float32)


def default_brdf_table() -> np.ndarray:
    """The shipped split-sum table (`app.preview.ibl_assets.load_brdf_lut`); a table that reflects
    nothing when the image-based-lighting components are not installed."""
    try:
        from app.preview.ibl_assets import load_brdf_lut
    except ImportError:
        return np.zeros((1, 1, 2), dtype=np.float32)
    return load_brdf_lut()


def vector_components(value: Any, size: int) -> list[float]:
    """The components a vector parameter's value uploads as: scalars splat, a colour given as RGB gets
    alpha 1, missing components are zero, extra ones are dropped (None: all zero)."""
    if value is None:
        return [0.0] * size
    if isinstance(value, (int, float, np.number)):
        return [float(value)] * size
    components = [float(c) for c in np.asarray(value, dtype=np.float64).reshape(-1)]
    if size == 4 and len(components) == 3:
        components.append(1.0)
    return (components + [0.0] * size)[:size]


def writes_radiance(artifact: ProgramArtifact) -> bool:
    """Whether the artifact's colour output is `radiance` (linear HDR the host tone-maps; docs/preview.md)."""
    for binding in artifact.fragment_interface:
        if binding.direction is Direction.OUT and binding.gl_name == artifact.fragment_color_output:
            return binding.name == RADIANCE_OUTPUT_NAME
    return False


def module_writes_radiance(module: Module) -> bool:
    """`writes_radiance` for a VPL module: its FragmentColor output is named `radiance`."""
    return any(variable.direction is Direction.OUT and variable.semantic is Semantic.FRAGMENT_COLOR
               and variable.name == RADIANCE_OUTPUT_NAME for variable in module.fragment.interface)


def artifact_reads_scene_field(artifact: ProgramArtifact, field_name: str) -> bool:
    """Whether either stage's code reads field `field_name` of the `scene` record uniform.

    Spec 12.1 names record fields `vpl_m<index>` and a record uniform's block
    instance `vpl_u<slot>`, and the backend reads block members as
    `instance.member`, so the generated code says it exactly (a `time` field
    declared but never read is not a use).
    """
    binding = artifact.uniform(SCENE_UNIFORM_NAME)
    if binding is None or not isinstance(binding.type, RecordType):
        return False
    for index, record_field in enumerate(binding.type.fields):
        if record_field.name == field_name:
            pattern = re.compile(rf"\b{re.escape(binding.gl_name)}\s*\.\s*vpl_m{index}\b")
            return bool(pattern.search(artifact.vertex_code) or pattern.search(artifact.fragment_code))
    return False


def scene_record_value(record: RecordType, values: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of `record` that `values` holds under their name, as the std140 packer takes them.

    A foreign module may use a contract name for another type: a value that
    does not pack into its field is left out (the field reads zero).
    """
    result: dict[str, Any] = {}
    for record_field in record.fields:
        value = values.get(record_field.name)
        if value is None:
            continue
        try:
            std140.pack(record_field.type, value)
        except (TypeError, ValueError, IndexError):
            continue
        result[record_field.name] = value
    return result


#: The largest angular diameter of the key light (degrees) the shadows take.
MAX_LIGHT_SIZE = 30.0


class PreviewState:
    """Everything a preview renderer draws with, as host data (see the module docstring)."""

    def __init__(self) -> None:
        self.camera = OrbitCamera()
        self.background: tuple[float, float, float] = DEFAULT_BACKGROUND
        self.background_mode = "color"
        self.light_direction: tuple[float, float, float] = DEFAULT_LIGHT_DIRECTION
        self.light_color: tuple[float, float, float] = DEFAULT_LIGHT_COLOR
        self.light_intensity: float = DEFAULT_LIGHT_INTENSITY
        self.ambient_color: tuple[float, float, float] = DEFAULT_AMBIENT_COLOR
        self.environment_rotation = 0.0  # radians about +y
        self.environment_intensity = 1.0
        self.exposure: float = 0.0  # EV: radiance is multiplied by 2^exposure before tone mapping
        self.tone_mapper: str = DEFAULT_TONE_MAPPER
        self.time: float = 0.0
        #: The refined environment light (docs/lighting.md, "Refined environment light"): 0 draws the live
        #: split-sum frame; k >= 1 the k-th of `refine_frames` frames whose average is the converged image.
        self.sample_frame = 0
        self.refine_frames = REFINE_FRAMES
        #: The material's values by name (`set_values`): a snapshot, never changed in place.
        self.parameters = ParameterValues()
        self.mesh_name = "sphere"
        #: The key light casts shadows; a ground under the mesh catches them (docs/preview.md, "Shadows and ground").
        self.shadows = False
        self.ground = False
        #: Ambient occlusion from the mesh's geometry (app/preview/mesh_occlusion.py) on the environment's light.
        self.occlusion = False
        #: Directional lights besides the key light (the stage's fill and rim; app/preview/stage_lights.py): no
        #: shadows, drawn as extra passes of the material.
        self.extra_lights: tuple[ExtraLight, ...] = ()
        #: The key light's angular diameter (degrees): 0 keeps the fixed shadow filter, more widens the penumbra
        #: with the distance from the occluder (percentage-closer soft shadows).
        self.light_size = 0.0
        #: The environment's textures as data: specular levels, irradiance, BRDF table (docs/lighting.md).
        self._environment: EnvironmentMaps = EnvironmentMaps.uniform(DEFAULT_AMBIENT_COLOR)
        self._brdf_table: np.ndarray | None = None  # None: default_brdf_table() when first needed
        self._custom_mesh: Mesh | None = None
        #: Draw the built-in meshes' finer versions: the material displaces the mesh (`set_fine_mesh`).
        self.fine_mesh = False
        self._built_mesh: Mesh | None = None
        self._images: dict[str, np.ndarray] = {}
        # What changed since the renderer last consumed it (see the module docstring).
        self._dirty_parameters: set[str] = set()
        self._dirty_textures: set[str] = set()
        self._mesh_dirty = True
        self._environment_dirty = True

    # ---- the material -------------------------------------------------------------------

    def set_values(self, values: Mapping[str, Any]) -> None:
        """Draw with `values` (by name) from the next frame, with no relink; a `ParameterValues` is kept as given.

        Only the names whose value changed are uploaded again. A value that is a
        `TextureImage` is its sampler's image (a name that held one and no
        longer does gets the checker back).
        """
        snapshot = values if isinstance(values, ParameterValues) else ParameterValues(values)
        changed = snapshot.changed_names(self.parameters)
        old, self.parameters = self.parameters, snapshot
        self._dirty_parameters |= changed
        for name in changed:
            image = snapshot.get(name)
            if isinstance(image, TextureImage):
                self.set_texture(name, image.pixels)
            elif isinstance(old.get(name), TextureImage):
                self.set_texture(name, None)

    def set_parameter(self, name: str, value: Any) -> None:
        """One value changed (tools without a session: bake, screenshots, thumbnail tiles): a new snapshot."""
        self.set_values(self.parameters.replaced({name: value}))

    def set_texture(self, name: str, image: np.ndarray | None) -> None:
        """Use `image` (RGBA, top row first; uint8, or float32 kept at half precision) for sampler `name`.

        None restores the checker.
        """
        if image is None:
            self._images.pop(name, None)
        else:
            self._images[name] = as_rgba_image(image)
        self._dirty_textures.add(name)

    # ---- shadows, ground, camera ---------------------------------------------------------

    def set_shadows(self, shadows: bool, ground: bool, occlusion: bool = False) -> None:
        """The key light's shadows on or off, the ground that catches them (and the contact occlusion), and the
        ambient occlusion from the mesh's own geometry."""
        self.shadows, self.ground, self.occlusion = bool(shadows), bool(ground), bool(occlusion)

    def set_stage_lights(self, extra: Sequence[ExtraLight], light_size: float = 0.0) -> None:
        """The fill and rim lights (or any other directional lights besides the key) and the key light's size."""
        lights = tuple(extra)
        for light in lights:
            if not isinstance(light, ExtraLight):
                raise ValueError(f"an extra light must be an ExtraLight, not {type(light).__name__}")
        size = float(light_size)
        if not np.isfinite(size) or not 0.0 <= size <= MAX_LIGHT_SIZE:
            raise ValueError(f"the light size must be from 0 to {MAX_LIGHT_SIZE:g} degrees, not {light_size!r}")
        self.extra_lights, self.light_size = lights, size

    def set_camera_home(self, view: Sequence[float]) -> None:
        """Make (yaw, pitch, distance) the camera's home and go there, unless it is the home already
        (so an orbit the user made survives re-applying the same stage)."""
        home = (float(view[0]), float(view[1]), float(view[2]))
        if self.camera.home != home:
            self.camera.go_home(home)

    # ---- the mesh -----------------------------------------------------------------------

    def set_mesh(self, mesh: str | Mesh) -> None:
        """A built-in mesh by name (`mesh.MESH_NAMES`), or any `Mesh` (an imported one, a test's)."""
        if isinstance(mesh, Mesh):
            self._custom_mesh = mesh
            self.mesh_name = mesh.name
            self._built_mesh = None
            self._mesh_dirty = True
            return
        if mesh not in MESH_NAMES:
            make_mesh(mesh)  # raises for the unknown name now rather than at the next frame (building a known one is slow)
        if mesh != self.mesh_name or self._custom_mesh is not None:
            self._custom_mesh = None
            self.mesh_name = mesh
            self._built_mesh = None
            self._mesh_dirty = True

    def mesh(self) -> Mesh:
        """The mesh drawn: the one given, or the built-in one of `mesh_name` (built once; its finer version while
        the material displaces the mesh, `set_fine_mesh`)."""
        if self._custom_mesh is not None:
            return self._custom_mesh
        if self._built_mesh is None:
            self._built_mesh = make_mesh(self.mesh_name, fine=self.fine_mesh)
        return self._built_mesh

    def set_fine_mesh(self, fine: bool) -> None:
        """Draw the built-in meshes' finer versions (`mesh.make_mesh(fine=True)`): the material displaces the
        mesh in its vertex stage ("Displacement and bump"). An imported mesh is drawn as it is."""
        if bool(fine) != self.fine_mesh:
            self.fine_mesh = bool(fine)
            if self._custom_mesh is None:
                self._built_mesh = None
                self._mesh_dirty = True

    # ---- background, light ----------------------------------------------------------------

    def set_background(self, rgb: Sequence[float]) -> None:
        red, green, blue = (float(c) for c in rgb)
        self.background = (red, green, blue)

    def set_background_mode(self, mode: str) -> None:
        """"color", "environment" or "blurred" (behind Surface Output materials; see BACKGROUND_MODES)."""
        if mode not in BACKGROUND_MODES:
            raise ValueError(f"unknown background {mode!r}; expected one of {', '.join(BACKGROUND_MODES)}")
        self.background_mode = mode

    def set_light_direction(self, direction: Sequence[float]) -> None:
        vector = np.asarray(direction, dtype=np.float64).reshape(3)
        length = float(np.linalg.norm(vector))
        if not np.isfinite(length) or length < 1e-9:
            raise ValueError("the light direction must be a finite, nonzero vector")
        x, y, z = (float(c) for c in vector / length)
        self.light_direction = (x, y, z)

    def set_light(self, color: Sequence[float] | None = None, intensity: float | None = None) -> None:
        """The directional light's linear colour and intensity (lux-like, >= 0)."""
        if color is not None:
            self.light_color = finite_color(color, "light colour")
        if intensity is not None:
            value = float(intensity)
            if not np.isfinite(value) or value < 0.0:
                raise ValueError(f"the light intensity must be a finite number >= 0, not {intensity!r}")
            self.light_intensity = value

    # ---- the environment ------------------------------------------------------------------

    def set_ambient(self, color: Sequence[float]) -> None:
        """Light the Surface Output with a uniform environment of this linear radiance (replaces any maps)."""
        self.ambient_color = finite_color(color, "ambient colour")
        self.set_environment_maps(EnvironmentMaps.uniform(self.ambient_color))

    def set_environment_maps(self, maps: EnvironmentMaps) -> None:
        """The prefiltered environment the Surface Output is lit by (used from the next frame)."""
        self._environment = maps
        self._environment_dirty = True

    @property
    def environment_maps(self) -> EnvironmentMaps:
        return self._environment

    def set_brdf_table(self, table: np.ndarray) -> None:
        """The split-sum table (size, size, 2): rows roughness 0..1 (GL row order), columns N.V 0..1."""
        array = np.asarray(table, dtype=np.float32)
        if array.ndim != 3 or array.shape[2] != 2 or min(array.shape[:2]) < 1 or not np.isfinite(array).all():
            raise ValueError(f"the BRDF table must be a finite (height, width, 2) array, not {array.shape}")
        self._brdf_table = array
        self._environment_dirty = True

    @property
    def brdf_table(self) -> np.ndarray:
        """The split-sum table in use (the shipped one unless `set_brdf_table` gave another)."""
        if self._brdf_table is None:
            self._brdf_table = default_brdf_table()
        return self._brdf_table

    def set_environment_settings(self, rotation: float | None = None, intensity: float | None = None) -> None:
        """Rotation (radians about +y, counter-clockwise seen from above) and intensity of the environment."""
        if rotation is not None:
            value = float(rotation)
            if not np.isfinite(value):
                raise ValueError(f"the environment rotation must be a finite angle, not {rotation!r}")
            self.environment_rotation = value
        if intensity is not None:
            value = float(intensity)
            if not np.isfinite(value) or value < 0.0:
                raise ValueError(f"the environment intensity must be a finite number >= 0, not {intensity!r}")
            self.environment_intensity = value

    def background_roughness(self) -> float:
        """The roughness the environment background is read at: 0 (sharp) or BLURRED_BACKGROUND_ROUGHNESS."""
        return BLURRED_BACKGROUND_ROUGHNESS if self.background_mode == "blurred" else 0.0

    def background_lod(self) -> float:
        """The specular chain's level of detail the environment background is read at (lighting.md's mapping)."""
        roughness = self.background_roughness()
        return self._environment.max_lod * roughness * (2.0 - roughness)

    def background_ray_matrix(self, width: int, height: int) -> np.ndarray:
        """inverse(projection × view without the camera's translation), float32: takes a pixel's normalized
        device coordinates at the far plane, (x, y, 1, 1), to a world direction (its xyz, not divided by w)."""
        view = np.array(self.camera.view_matrix(), dtype=np.float64)
        view[:3, 3] = 0.0  # directions only
        projection = np.array(self.camera.projection_matrix(width / max(height, 1)), dtype=np.float64)
        return np.linalg.inv(projection @ view).astype(np.float32)

    # ---- the post pass --------------------------------------------------------------------

    def set_exposure(self, exposure: float) -> None:
        """Exposure in EV (stops): radiance is multiplied by 2^exposure before tone mapping."""
        value = float(exposure)
        if not np.isfinite(value) or abs(value) > 32.0:
            raise ValueError(f"the exposure must be a number of stops between -32 and 32, not {exposure!r}")
        self.exposure = value

    def set_tone_mapper(self, name: str) -> None:
        if name not in TONE_MAPPERS:
            raise ValueError(f"unknown tone mapper {name!r}; expected one of {', '.join(TONE_MAPPERS)}")
        self.tone_mapper = name

    # ---- the scene record -----------------------------------------------------------------

    def scene_values(self, width: int, height: int) -> dict[str, Any]:
        """The scene record's fields by name (docs/architecture.md host contract)."""
        model = np.eye(4, dtype=np.float32)
        return {
            "model": model,
            "view": self.camera.view_matrix(),
            "projection": self.camera.projection_matrix(width / max(height, 1)),
            "normal_matrix": normal_matrix(model),
            "camera_position": tuple(float(c) for c in self.camera.position),
            "time": float(self.time),
            "light_direction": self.light_direction,
            "light_intensity": float(self.light_intensity),
            "light_color": self.light_color,
            "environment_rotation": float(self.environment_rotation),
            "environment_intensity": float(self.environment_intensity),
            "environment_max_lod": self._environment.max_lod,
            "environment_sample_frame": float(self.sample_frame),
        }


def preview_lighting(stage: Stage, with_environment: bool = True,
                     environment: tuple[EnvironmentMaps, np.ndarray] | None = None) -> PreviewLighting:
    """`stage` as an export records it, with its environment's images when `with_environment`.

    The environment is prepared in the calling thread (`prepare_environment`:
    from the cache, or prefiltered) unless `environment` (maps, BRDF table)
    is given; ValueError with a one-line message when it cannot be loaded.
    """
    state = PreviewState()
    stage.apply(state)
    if with_environment:
        prepared = environment if environment is not None else prepare_environment(stage.environment)
        if prepared is not None:
            state.set_environment_maps(prepared[0])
            state.set_brdf_table(prepared[1])
    maps = state.environment_maps
    images: dict[str, Any] = {}
    if with_environment:
        images = {"specular": tuple(as_uploaded(level) for level in maps.specular),
                  "irradiance": as_uploaded(maps.irradiance), "brdf": as_uploaded(state.brdf_table)}
    return PreviewLighting(
        light_direction=state.light_direction, light_color=state.light_color, light_intensity=state.light_intensity,
        exposure=state.exposure, tone_mapper=state.tone_mapper, background=state.background_mode,
        background_color=state.background, background_lod=state.background_lod(), mesh=stage.mesh,
        environment=stage.environment, environment_rotation=state.environment_rotation,
        environment_intensity=state.environment_intensity, **images)


# A stage's environment as the renderers take it ------------------------------------------------
# Here, beside `EnvironmentMaps`, rather than in `stage` (plain data the renderers import).


def prepare_environment(environment: str, notes: list[str] | None = None) -> tuple[EnvironmentMaps, np.ndarray] | None:
    """(EnvironmentMaps, BRDF table) of a stage environment, prefiltered in the calling thread (or taken
    from the cache); None for "none". ValueError with a one-line message when it cannot be loaded. What the
    reading changed (NaN texels set to 0, a wide file averaged down) is added to `notes`."""
    if environment == NO_ENVIRONMENT:
        return None
    try:  # optional components: imported here so that a host without them still draws
        from app.preview.environment import EnvironmentLoadError
        from app.preview.ibl_assets import PrefilterJob
    except ImportError:
        raise ValueError(f"cannot use the environment {environment!r}: image-based lighting is not available") from None
    try:
        prepared = PrefilterJob(environment).run()
    except (EnvironmentLoadError, OSError, ValueError) as error:
        raise ValueError(str(error)) from None
    except ImportError as error:  # a component the IBL code needs is missing from this installation
        raise ValueError(f"cannot use the environment {environment!r}: image-based lighting is not available ({error})") from None
    if notes is not None:
        notes.extend(prepared.notes)
    return environment_maps(prepared), prepared.brdf_lut


def environment_maps(prepared: PreparedEnvironment) -> EnvironmentMaps:
    """The renderers' `EnvironmentMaps` of a prepared environment (`app.preview.ibl_assets`)."""
    return EnvironmentMaps(tuple(prepared.assets.specular), prepared.assets.irradiance)
