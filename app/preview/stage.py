"""The preview stage: what the artist chooses around a material (mesh, light, exposure, tone mapper, ...).

`Stage` is plain data (no Qt, no GL): the preview toolbar edits one, the
user's settings store it (`to_dict` / `Stage.from_dict`), the command line
builds one from `--mesh`, `--exposure`, ... (`parse_*`), and
`Stage.apply(renderer)` hands it to a renderer (the GL `Renderer` or the
`CpuRenderer`: both are `app.preview.preview_state.PreviewState`s). Every setter validates and
raises `ValueError` with a one-line message, so the command line can print it
and exit 2; `from_dict` is tolerant instead (a stored value that no longer
makes sense falls back to the default, so old settings never break the
preview).

The light direction is given as azimuth and elevation in degrees: azimuth 0
is in front of the object (towards the default camera, +z), positive to the
right (+x); elevation 90 is straight above. The default, azimuth -34,
elevation 37 (DEFAULT_LIGHT_DIRECTION), is the preview's classic
upper-left-front light. The key light can be switched off (`light_enabled`),
cast shadows (`shadows`) and the mesh can stand on a ground that catches
them (`ground`); the key light has a size (soft shadows); a fill and a rim
light (no shadows) can be switched on and edited like the key light;
`camera` is a saved (yaw, pitch, distance), None for the mesh's own
three-quarter view (`app.preview.camera.mesh_view`).
"""

from __future__ import annotations

import errno
import importlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from app.preview.camera import MAX_DISTANCE, MAX_PITCH, mesh_view
from app.preview.mesh import MESH_NAMES, Mesh
from app.preview.post import DEFAULT_TONE_MAPPER, TONE_MAPPERS
from vpl_core.external_files import ExternalFileError, check_file
from vpl_core.numbers import FLOAT32_MAX, read_number, read_numbers

BACKGROUNDS = ("environment", "blurred", "color")
DEFAULT_BACKGROUND_COLOR = (0.18, 0.19, 0.21)  # display sRGB
DEFAULT_LIGHT_DIRECTION = (-0.45, 0.6, 0.66)  # towards the light: upper left, in front
DEFAULT_LIGHT_COLOR = (1.0, 1.0, 1.0)
DEFAULT_LIGHT_INTENSITY = 3.0  # lux-like: a white Lambertian surface facing the light reflects 3 / pi
DEFAULT_AMBIENT_COLOR = (0.2, 0.2, 0.2)  # linear radiance of the uniform environment ("none")
#: The stage's environment name for "no environment map": a uniform grey ambient.
NO_ENVIRONMENT = "none"
#: The exposure a bundled environment is shown with when it is chosen (the user may change it
#: after). The bundled ones differ in brightness as real places do: a white Lambertian surface
#: reflects on average 0.33 in `studio`, 0.60 in `neutral` and 3.2 in `outdoor` (sky and sun),
#: so `outdoor` starts 3 stops down to look about as bright as the others.
RECOMMENDED_EXPOSURE: dict[str, float] = {"studio": 0.0, "neutral": 0.0, "outdoor": -3.0}
MAX_EXPOSURE = 32.0
MAX_INTENSITY = 1.0e6
#: The largest key light size (angular diameter, degrees) the shadows take (preview_state.MAX_LIGHT_SIZE).
MAX_LIGHT_SIZE = 30.0
#: Degrees a drag on the preview turns the key light or the environment per pixel (as the orbit).
DRAG_DEGREES_PER_PIXEL = 0.5
#: The extra lights' names and defaults: (azimuth, elevation, colour, intensity). The fill lights the key
#: light's shadow side from low on the right; the rim is behind the object, above it, and outlines it.
EXTRA_LIGHTS: dict[str, tuple[float, float, tuple[float, float, float], float]] = {
    "fill": (60.0, 10.0, (0.85, 0.9, 1.0), 1.0),
    "rim": (160.0, 35.0, (1.0, 1.0, 1.0), 4.0),
}

if TYPE_CHECKING:
    from app.preview.preview_state import PreviewState


def light_vector(azimuth_degrees: float, elevation_degrees: float) -> tuple[float, float, float]:
    """Unit vector from the surface towards the light (world space) for azimuth/elevation in degrees."""
    azimuth, elevation = math.radians(azimuth_degrees), math.radians(elevation_degrees)
    return (math.cos(elevation) * math.sin(azimuth), math.sin(elevation), math.cos(elevation) * math.cos(azimuth))


def light_angles(direction: Sequence[float]) -> tuple[float, float]:
    """(azimuth, elevation) in degrees of a direction towards the light."""
    x, y, z = (float(c) for c in direction)
    length = math.sqrt(x * x + y * y + z * z)
    if not math.isfinite(length) or length == 0.0:
        raise ValueError("the light direction must be a finite, nonzero vector")
    return math.degrees(math.atan2(x, z)), math.degrees(math.asin(max(-1.0, min(1.0, y / length))))


def _number(value: Any, what: str, minimum: float | None = None, maximum: float | None = None) -> float:
    return read_number(value, what, minimum, maximum)


def _color(value: Any, what: str, maximum: float = MAX_INTENSITY) -> tuple[float, float, float]:
    red, green, blue = read_numbers(value, f"{what} (r,g,b)", (3,), 0.0, maximum)
    return (red, green, blue)


def parse_floats(text: str, what: str) -> list[float]:
    """'0.1,0.2,0.3' (commas and/or spaces) -> finite floats; ValueError naming `what` otherwise."""
    parts = [part for part in text.replace(",", " ").split() if part]
    if not parts:
        raise ValueError(f"{what}: expected numbers, got {text!r}")
    return [read_number(part, what, -FLOAT32_MAX, FLOAT32_MAX) for part in parts]


def parse_switch(value: Any, what: str) -> bool:
    """`on` / `off` (or a JSON boolean) -> bool; ValueError naming `what` otherwise."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in SWITCHES:
        return SWITCHES[value.lower()]
    raise ValueError(f"{what} must be on or off, not {value!r}")


SWITCHES = {"on": True, "off": False}


def parse_camera(value: Any) -> tuple[float, float, float]:
    """`YAW,PITCH,DISTANCE` (degrees, degrees, units) or three numbers; ValueError with the reason otherwise."""
    if not isinstance(value, (str, list, tuple)):
        raise ValueError(f"the camera must be three numbers YAW,PITCH,DISTANCE, not {value!r}")
    components = list(value.replace(",", " ").split()) if isinstance(value, str) else list(value)
    if len(components) != 3:
        raise ValueError(f"the camera must be three numbers YAW,PITCH,DISTANCE, not {len(components)}")
    yaw = _number(components[0], "the camera yaw (degrees)")
    pitch = _number(components[1], "the camera pitch (degrees)", -MAX_PITCH, MAX_PITCH)
    distance = _number(components[2], "the camera distance")
    if distance <= 0.0 or distance > MAX_DISTANCE:
        raise ValueError(f"the camera distance must be above 0 and at most {MAX_DISTANCE:g}, not {distance:g}")
    return (math.remainder(yaw, 360.0), pitch, distance)


def is_mesh_path(mesh: str) -> bool:
    return mesh not in MESH_NAMES


def _why_not_readable(path: str, kind: str) -> str:
    """" (REASON)" when `path` names something that is not a readable regular file (a device, a FIFO, a name
    longer than the platform allows, ...); "" when it simply does not exist (a mistyped name)."""
    try:
        check_file(path, kind)
    except ExternalFileError as error:
        return "" if error.errno == errno.ENOENT else f" ({error.reason})"
    except (OSError, ValueError):  # a NUL in the text
        return ""
    return ""


def finite_color(value: Sequence[float], what: str) -> tuple[float, float, float]:
    """Three finite numbers >= 0 (a linear colour); ValueError naming `what` otherwise."""
    components = np.asarray(value, dtype=np.float64).reshape(-1)
    if components.size != 3 or not np.isfinite(components).all() or (components < 0).any():
        raise ValueError(f"the {what} must be three finite numbers >= 0, not {value!r}")
    return (float(components[0]), float(components[1]), float(components[2]))


@dataclass(frozen=True)
class ExtraLight:
    """A directional light besides the key light: unit direction towards the light (world space), linear
    colour, intensity (lux-like, as the key light's). Validated when made."""

    direction: tuple[float, float, float]
    color: tuple[float, float, float]
    intensity: float

    def __post_init__(self) -> None:
        vector = np.asarray(self.direction, dtype=np.float64).reshape(3)
        length = float(np.linalg.norm(vector))
        if not np.isfinite(length) or length < 1e-9:
            raise ValueError("a light's direction must be a finite, nonzero vector")
        object.__setattr__(self, "direction", tuple(float(c) for c in vector / length))
        object.__setattr__(self, "color", finite_color(self.color, "light colour"))
        if not np.isfinite(self.intensity) or self.intensity < 0.0:
            raise ValueError(f"a light's intensity must be a finite number >= 0, not {self.intensity!r}")


@dataclass
class Stage:
    """Everything around the material; see the module docstring. Angles in degrees."""

    mesh: str = "sphere"
    environment: str = field(default_factory=lambda: default_environment())
    environment_rotation: float = 0.0
    environment_intensity: float = 1.0
    background: str = "color"
    background_color: tuple[float, float, float] = DEFAULT_BACKGROUND_COLOR
    exposure: float = 0.0
    tone_mapper: str = DEFAULT_TONE_MAPPER
    light_azimuth: float = field(default_factory=lambda: light_angles(DEFAULT_LIGHT_DIRECTION)[0])
    light_elevation: float = field(default_factory=lambda: light_angles(DEFAULT_LIGHT_DIRECTION)[1])
    light_color: tuple[float, float, float] = DEFAULT_LIGHT_COLOR
    light_intensity: float = DEFAULT_LIGHT_INTENSITY
    #: The key light on (False: only the environment lights the material).
    light_enabled: bool = True
    #: The key light casts shadows (on the mesh itself and, with `ground`, on the ground).
    shadows: bool = False
    #: A ground under the mesh that catches its shadow and the environment's contact occlusion.
    ground: bool = False
    #: Ambient occlusion from the mesh's own geometry (per vertex), multiplied with the material's.
    occlusion: bool = False
    #: The key light's angular diameter (degrees): 0 keeps the fixed shadow filter; more: percentage-closer
    #: soft shadows whose penumbra grows with the distance from the occluder.
    light_size: float = 0.0
    #: The fill light (no shadows), off by default.
    fill_enabled: bool = False
    fill_azimuth: float = EXTRA_LIGHTS["fill"][0]
    fill_elevation: float = EXTRA_LIGHTS["fill"][1]
    fill_color: tuple[float, float, float] = EXTRA_LIGHTS["fill"][2]
    fill_intensity: float = EXTRA_LIGHTS["fill"][3]
    #: The rim light (no shadows), off by default.
    rim_enabled: bool = False
    rim_azimuth: float = EXTRA_LIGHTS["rim"][0]
    rim_elevation: float = EXTRA_LIGHTS["rim"][1]
    rim_color: tuple[float, float, float] = EXTRA_LIGHTS["rim"][2]
    rim_intensity: float = EXTRA_LIGHTS["rim"][3]
    #: (yaw, pitch, distance) of the camera; None: the mesh's three-quarter view.
    camera: tuple[float, float, float] | None = None
    #: Free-form extras other areas add (kept through to_dict/from_dict).
    extra: dict[str, Any] = field(default_factory=dict)

    # ---- validated setters (ValueError with a one-line message) ----------------------------

    def set_mesh(self, mesh: str) -> None:
        """A built-in mesh name, or the path of an existing mesh file."""
        if not isinstance(mesh, str) or not mesh:
            raise ValueError("the mesh must be a name or a file path")
        if is_mesh_path(mesh) and not os.path.isfile(mesh):
            kind = {".gltf": "gltf", ".glb": "glb"}.get(os.path.splitext(mesh)[1].lower(), "obj")
            raise ValueError(f"unknown mesh {mesh!r}{_why_not_readable(mesh, kind)}: "
                             f"expected {', '.join(MESH_NAMES)} or the path of a mesh file")
        self.mesh = mesh

    def set_exposure(self, exposure: Any) -> None:
        self.exposure = _number(exposure, "the exposure (EV)", -MAX_EXPOSURE, MAX_EXPOSURE)

    def set_tone_mapper(self, name: str) -> None:
        if name not in TONE_MAPPERS:
            raise ValueError(f"unknown tone mapper {name!r}: expected {', '.join(TONE_MAPPERS)}")
        self.tone_mapper = name

    def set_background(self, background: str, color: Any = None) -> None:
        if background not in BACKGROUNDS:
            raise ValueError(f"unknown background {background!r}: expected {', '.join(BACKGROUNDS)}")
        self.background = background
        if color is not None:
            self.background_color = _color(color, "the background colour", 1.0)

    def set_light(self, azimuth: Any = None, elevation: Any = None, color: Any = None, intensity: Any = None) -> None:
        if azimuth is not None:
            self.light_azimuth = _number(azimuth, "the light azimuth (degrees)", -360.0, 360.0)
        if elevation is not None:
            self.light_elevation = _number(elevation, "the light elevation (degrees)", -90.0, 90.0)
        if color is not None:
            self.light_color = _color(color, "the light colour")
        if intensity is not None:
            self.light_intensity = _number(intensity, "the light intensity", 0.0, MAX_INTENSITY)

    def set_light_size(self, size: Any) -> None:
        """The key light's angular diameter in degrees, 0 to MAX_LIGHT_SIZE."""
        self.light_size = _number(size, "the light size (degrees)", 0.0, MAX_LIGHT_SIZE)

    def set_extra_light(self, which: str, enabled: Any = None, azimuth: Any = None, elevation: Any = None,
                        color: Any = None, intensity: Any = None) -> None:
        """The fill or rim light (`which`): on/off, direction (degrees), linear colour, intensity."""
        if which not in EXTRA_LIGHTS:
            raise ValueError(f"unknown light {which!r}: expected {', '.join(EXTRA_LIGHTS)}")
        if enabled is not None:
            setattr(self, f"{which}_enabled", parse_switch(enabled, f"the {which} light"))
        if azimuth is not None:
            setattr(self, f"{which}_azimuth", _number(azimuth, f"the {which} light's azimuth (degrees)", -360.0, 360.0))
        if elevation is not None:
            setattr(self, f"{which}_elevation", _number(elevation, f"the {which} light's elevation (degrees)", -90.0, 90.0))
        if color is not None:
            setattr(self, f"{which}_color", _color(color, f"the {which} light's colour"))
        if intensity is not None:
            setattr(self, f"{which}_intensity", _number(intensity, f"the {which} light's intensity", 0.0, MAX_INTENSITY))

    def extra_light_direction(self, which: str) -> tuple[float, float, float]:
        return light_vector(getattr(self, f"{which}_azimuth"), getattr(self, f"{which}_elevation"))

    def drag_light(self, dx_pixels: float, dy_pixels: float) -> None:
        """Move the key light by a drag on the preview: right turns it right (azimuth), up raises it."""
        azimuth = math.remainder(self.light_azimuth + dx_pixels * DRAG_DEGREES_PER_PIXEL, 360.0)
        elevation = min(max(self.light_elevation - dy_pixels * DRAG_DEGREES_PER_PIXEL, -89.0), 89.0)
        self.set_light(azimuth=azimuth, elevation=elevation)

    def drag_environment(self, dx_pixels: float) -> None:
        """Turn the environment by a drag on the preview: right turns it right, as the orbit turns the object."""
        rotation = math.remainder(self.environment_rotation + dx_pixels * DRAG_DEGREES_PER_PIXEL, 360.0)
        self.set_environment(self.environment, rotation=rotation)

    def set_environment(self, environment: str, rotation: Any = None, intensity: Any = None) -> None:
        """A bundled environment name, "none" (a uniform grey ambient), or the path of an HDR file.

        Choosing another bundled environment also sets its `RECOMMENDED_EXPOSURE`
        (set the exposure after this to override it).
        """
        if not isinstance(environment, str) or not environment:
            raise ValueError("the environment must be a name or a file path")
        names = environment_names()
        if environment not in names and not os.path.isfile(environment):
            raise ValueError(f"unknown environment {environment!r}{_why_not_readable(environment, 'environment')}: "
                             f"expected {', '.join(names)} or the path of an .hdr/.exr file")
        if environment != self.environment and environment in RECOMMENDED_EXPOSURE:
            self.exposure = RECOMMENDED_EXPOSURE[environment]
        self.environment = environment
        if rotation is not None:
            self.environment_rotation = _number(rotation, "the environment rotation (degrees)", -360.0, 360.0)
        if intensity is not None:
            self.environment_intensity = _number(intensity, "the environment intensity", 0.0, MAX_INTENSITY)

    def set_switches(self, light: Any = None, shadows: Any = None, ground: Any = None, occlusion: Any = None) -> None:
        """The key light, its shadows, the ground and the geometry's occlusion on or off (`on`/`off` or booleans)."""
        if light is not None:
            self.light_enabled = parse_switch(light, "the light")
        if shadows is not None:
            self.shadows = parse_switch(shadows, "the shadows")
        if ground is not None:
            self.ground = parse_switch(ground, "the ground")
        if occlusion is not None:
            self.occlusion = parse_switch(occlusion, "the occlusion")

    def set_camera(self, camera: Any) -> None:
        """`YAW,PITCH,DISTANCE` or three numbers (None: the mesh's own view); see `parse_camera`."""
        self.camera = None if camera is None else parse_camera(camera)

    @property
    def camera_view(self) -> tuple[float, float, float]:
        """(yaw, pitch, distance) the preview's camera starts from: the saved one, else the mesh's."""
        return self.camera if self.camera is not None else mesh_view(self.mesh)

    @property
    def light_direction(self) -> tuple[float, float, float]:
        return light_vector(self.light_azimuth, self.light_elevation)

    # ---- storage ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        extra = data.pop("extra")
        if data["camera"] is None:
            del data["camera"]
        else:
            data["camera"] = list(data["camera"])
        data.update(extra)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, notes: list[str] | None = None) -> Stage:
        """A stage from stored values; anything missing or no longer valid keeps its default.

        Each value that is not used gets a line in `notes` (when given) naming the field and why.
        """
        stage = cls()
        if not isinstance(data, Mapping):
            return stage
        known = {f.name for f in fields(cls)} - {"extra"}
        attempts: tuple[tuple[str, Callable[[], object]], ...] = (
            ("mesh", lambda: stage.set_mesh(data["mesh"])),
            ("environment", lambda: stage.set_environment(data["environment"])),
            ("environment_rotation", lambda: stage.set_environment(stage.environment, rotation=data["environment_rotation"])),
            ("environment_intensity", lambda: stage.set_environment(stage.environment, intensity=data["environment_intensity"])),
            ("background", lambda: stage.set_background(data["background"])),
            ("background_color", lambda: stage.set_background(stage.background, data["background_color"])),
            ("exposure", lambda: stage.set_exposure(data["exposure"])),
            ("tone_mapper", lambda: stage.set_tone_mapper(data["tone_mapper"])),
            ("light_azimuth", lambda: stage.set_light(azimuth=data["light_azimuth"])),
            ("light_elevation", lambda: stage.set_light(elevation=data["light_elevation"])),
            ("light_color", lambda: stage.set_light(color=data["light_color"])),
            ("light_intensity", lambda: stage.set_light(intensity=data["light_intensity"])),
            ("light_enabled", lambda: stage.set_switches(light=data["light_enabled"])),
            ("shadows", lambda: stage.set_switches(shadows=data["shadows"])),
            ("ground", lambda: stage.set_switches(ground=data["ground"])),
            ("occlusion", lambda: stage.set_switches(occlusion=data["occlusion"])),
            ("camera", lambda: stage.set_camera(data["camera"])),
            ("light_size", lambda: stage.set_light_size(data["light_size"])),
            *((f"{which}_{part}", _extra_attempt(stage, data, which, part))
              for which in EXTRA_LIGHTS for part in ("enabled", "azimuth", "elevation", "color", "intensity")),
        )
        for key, attempt in attempts:
            if key in data:
                if data[key] is None:  # the setters read None as "unchanged"
                    if notes is not None:
                        notes.append(f"the stage's {key}: no value (null); using the default")
                    continue
                try:
                    attempt()
                except (ValueError, TypeError) as error:  # a stale or hand-edited value: keep the default
                    if notes is not None:
                        notes.append(f"the stage's {key}: {error}; using the default")
        stage.extra = {key: value for key, value in data.items() if key not in known and isinstance(key, str)}
        return stage

    # ---- the renderer --------------------------------------------------------------------

    def apply(self, renderer: PreviewState) -> None:
        """Hand everything a renderer (`PreviewState`: GL or CPU) draws with to it.

        Files are the caller's: a mesh file (`load_stage_mesh`) and the
        environment's prefiltered data (`preview_state.prepare_environment`, or a worker
        job), which take time or may fail.
        """
        if not is_mesh_path(self.mesh):
            renderer.set_mesh(self.mesh)
        renderer.set_exposure(self.exposure)
        renderer.set_tone_mapper(self.tone_mapper)
        renderer.set_background(self.background_color)
        renderer.set_background_mode(self.background)
        renderer.set_environment_settings(math.radians(math.remainder(self.environment_rotation, 360.0)), self.environment_intensity)
        renderer.set_light_direction(self.light_direction)
        renderer.set_light(color=self.light_color, intensity=self.light_intensity if self.light_enabled else 0.0)
        renderer.set_shadows(self.shadows, self.ground, self.occlusion)
        extra = [ExtraLight(self.extra_light_direction(which), getattr(self, f"{which}_color"), getattr(self, f"{which}_intensity"))
                 for which in EXTRA_LIGHTS if getattr(self, f"{which}_enabled")]
        renderer.set_stage_lights(extra, self.light_size)
        renderer.set_camera_home(self.camera_view)


def _extra_attempt(stage: Stage, data: Mapping[str, Any], which: str, part: str) -> Callable[[], None]:
    def attempt() -> None:
        stage.set_extra_light(which, **{part: data[f"{which}_{part}"]})
    return attempt


def load_stage_mesh(mesh: str) -> Mesh | None:
    """None for a built-in mesh name; the `Mesh` of a mesh file; ValueError (one line) when it cannot be read."""
    if not is_mesh_path(mesh):
        return None
    try:
        mesh_import = importlib.import_module("app.preview.mesh_import")
    except ImportError:
        raise ValueError(f"cannot read the mesh file {mesh!r}: mesh import is not available") from None
    try:
        return mesh_import.load_mesh(mesh)
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read the mesh file {mesh!r}: {error}") from None


def environment_names() -> list[str]:
    """The environments a stage can name: the bundled ones (`app.preview.environment`) and "none"."""
    return [*_bundled_environments(), NO_ENVIRONMENT]


def _bundled_environments() -> tuple[str, ...]:
    try:
        from app.preview.environment import BUNDLED_ENVIRONMENTS
    except ImportError:  # the image-based-lighting components are optional for a host
        return ()
    return tuple(BUNDLED_ENVIRONMENTS)


def default_environment() -> str:
    bundled = _bundled_environments()
    return "studio" if "studio" in bundled else (bundled[0] if bundled else NO_ENVIRONMENT)
