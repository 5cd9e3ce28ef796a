"""The preview renderer: a GL program built from a `ProgramArtifact` and a mesh drawn with it.

No Qt widget here: everything needs only a current context, OpenGL 4.2+
core or OpenGL ES 3.2 (the widget's, or an offscreen one for tests and
screenshots); the renderer finds out which at `initialize` and then expects
artifacts of the matching target family (`glsl420` on desktop GL, `es300` /
`es320` on ES). The GL calls it makes exist in both APIs; the one desktop-only
call, glBindFragDataLocation, is skipped on ES, where the `layout(location)`
the backend emits decides alone. The renderer follows the host side of spec
12.5 and the preview host contract (docs/architecture.md):

- both code strings are uploaded with explicit byte lengths; on desktop GL
  the primary fragment output is bound to its resolved location before
  linking; the artifact's `fragment_color_location` L says which draw buffer
  carries the colour: when L is not 0 the frame is drawn into a framebuffer
  whose draw buffer L is its colour attachment and blitted to the target
  (a window's or Qt's framebuffer only has draw buffer 0);
- uniform locations come from `glGetUniformLocation` with the artifact's
  GLSL names; record uniforms are std140 blocks whose binding points come
  from the artifact (`glUniformBlockBinding` on the index of
  `vpl_Block<slot>`), filled by `app.preview.std140` to the reflected type;
- vertex inputs are bound by location: 0 position, 1 normal, 2 texcoord,
  3 tangent (vec4, MikkTSpace convention); any other input reads a
  constant (zero; identity columns for matrices);
- the record uniform `scene` is filled every frame by field name; every
  other uniform is a material parameter whose value the host sets, zero
  (matrices identity) until it does; samplers without an image read the
  default checker texture.

State the host changes (parameters, textures, mesh, camera, light,
environment, exposure, tone mapper, background) is `PreviewState`'s
(`app.preview.preview_state`, shared with the CPU renderer): recorded at once
and sent to GL at the next `render`, so a host may change it without making
the context current, and a parameter change never relinks (`link_count`).

Programs are linked once per code: an artifact whose GLSL (both stages, the
colour output and its location: `program_key`) is byte-identical to one the
renderer linked recently reuses that program and is only reflected again
(`RECENT_PROGRAMS` are kept; undo and redo flip between two). A program
linked elsewhere, in a context sharing this one's objects, is taken over
with `adopt_program`.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from OpenGL import GL

from app.material.scene import (
    HOST_SAMPLERS,
    SCENE_UNIFORM_NAME,
    VERTEX_INPUTS,
    VERTEX_INPUTS_BY_NAME,
)
from app.material.textures import checker_rgba
from app.preview.gl_objects import Framebuffer as Framebuffer
from app.preview.gl_objects import ProgramBuildError as ProgramBuildError
from app.preview.gl_objects import clear as _clear
from app.preview.gl_objects import link_shaders as _link_program
from app.preview.gl_objects import read_float_pixels as read_float_pixels
from app.preview.gl_objects import read_pixels as read_pixels

# The program helpers live in app.preview.gl_programs (shared with the texture passes); importers keep these names.
from app.preview.gl_programs import AttributeInfo as AttributeInfo
from app.preview.gl_programs import BlockInfo as BlockInfo
from app.preview.gl_programs import ProgramInfo as ProgramInfo
from app.preview.gl_programs import ProgramKey as ProgramKey
from app.preview.gl_programs import UniformSlot as UniformSlot
from app.preview.gl_programs import attribute_feeds as attribute_feeds
from app.preview.gl_programs import bind_attributes as bind_attributes
from app.preview.gl_programs import clear_pending_errors as clear_pending_errors
from app.preview.gl_programs import context_is_es as context_is_es
from app.preview.gl_programs import fill_block, reflect_program, upload_or_default, value_at
from app.preview.gl_programs import gl_strings as gl_strings
from app.preview.gl_programs import link_program as link_program
from app.preview.gl_programs import program_key as program_key
from app.preview.gl_programs import sampler_units as sampler_units
from app.preview.mesh import ATTRIBUTE_LAYOUT, VERTEX_STRIDE
from app.preview.post import (
    BACKGROUND_ENVIRONMENT_UNIFORM,
    BACKGROUND_INTENSITY_UNIFORM,
    BACKGROUND_LOD_UNIFORM,
    BACKGROUND_ROTATION_UNIFORM,
    BACKGROUND_UNIFORM,
    EXPOSURE_UNIFORM,
    FULL_SCREEN_TRIANGLE,
    HDR_IMAGE_UNIFORM,
    RAY_MATRIX_UNIFORM,
    UNCOVERED,
    background_artifact,
    exposure_scale,
    post_artifact,
)

# Names that lived here before the host-side state moved to app.preview.preview_state, kept for importers.
from app.preview.preview_state import BACKGROUND_MODES as BACKGROUND_MODES
from app.preview.preview_state import BLURRED_BACKGROUND_ROUGHNESS as BLURRED_BACKGROUND_ROUGHNESS
from app.preview.preview_state import DEFAULT_BACKGROUND as DEFAULT_BACKGROUND
from app.preview.preview_state import EnvironmentMaps as EnvironmentMaps
from app.preview.preview_state import PreviewState, scene_record_value
from app.preview.preview_state import artifact_reads_scene_field as artifact_reads_scene_field
from app.preview.preview_state import default_brdf_table as default_brdf_table
from app.preview.shadows import StagePasses
from app.preview.stage import DEFAULT_LIGHT_DIRECTION as DEFAULT_LIGHT_DIRECTION
from app.preview.stage_lights import add_extra_lights
from app.preview.texture_passes_gl import EMPTY_SCHEDULE, GlTexturePasses, PassSchedule
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.ir.types import (
    RecordType,
    SamplerType,
)

#: Linked programs kept for reuse by code (the current one and the ones before it).
RECENT_PROGRAMS = 4

#: Mesh attribute each contract location is fed from.
_MESH_ATTRIBUTES = {vertex_input.location: vertex_input.name for vertex_input in VERTEX_INPUTS}
_COLOR_LOCATION = VERTEX_INPUTS_BY_NAME["color"].location


@dataclass(frozen=True)
class Tile:
    """One frame of `Renderer.render_tiles`: a `size` x `size` square at (`x`, `y`) (GL window coordinates,
    origin bottom left), drawn after `parameters` are set (by name, as `set_parameter`)."""

    x: int
    y: int
    size: int
    parameters: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class BackgroundProgram:
    program: int
    locations: dict[str, int]


@dataclass
class PostProgram:
    """One linked post pass (a tone mapper): uniform locations by name."""

    tone_mapper: str
    program: int
    image_location: int
    exposure_location: int
    background_location: int


def _upload_float_texture(texture: int, levels: Sequence[np.ndarray], wrap_u: int) -> None:
    """Upload float images (h, w, 2 or 3) as a half-float texture with those mip levels, rows as given."""
    GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
    for level, image in enumerate(levels):
        data = np.ascontiguousarray(np.asarray(image, dtype=np.float16))
        height, width, channels = data.shape
        internal, layout = (GL.GL_RG16F, GL.GL_RG) if channels == 2 else (GL.GL_RGB16F, GL.GL_RGB)
        GL.glTexImage2D(GL.GL_TEXTURE_2D, level, internal, width, height, 0, layout, GL.GL_HALF_FLOAT, data)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 4)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BASE_LEVEL, 0)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, len(levels) - 1)
    minify = GL.GL_LINEAR_MIPMAP_LINEAR if len(levels) > 1 else GL.GL_LINEAR
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, minify)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, wrap_u)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)
    GL.glBindTexture(GL.GL_TEXTURE_2D, 0)


def _upload_table_texture(texture: int, table: np.ndarray) -> None:
    """Upload a (h, w, 4) table read texel by texel (the environment's sampling distribution) as RGBA32F,
    NEAREST, clamped: its entries are cell indices and thresholds, which filtering or half floats would change."""
    data = np.ascontiguousarray(np.asarray(table, dtype=np.float32))
    height, width = data.shape[:2]
    GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
    GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA32F, width, height, 0, GL.GL_RGBA, GL.GL_FLOAT, data)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 4)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BASE_LEVEL, 0)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, 0)
    for parameter in (GL.GL_TEXTURE_MIN_FILTER, GL.GL_TEXTURE_MAG_FILTER):
        GL.glTexParameteri(GL.GL_TEXTURE_2D, parameter, GL.GL_NEAREST)
    for parameter in (GL.GL_TEXTURE_WRAP_S, GL.GL_TEXTURE_WRAP_T):
        GL.glTexParameteri(GL.GL_TEXTURE_2D, parameter, GL.GL_CLAMP_TO_EDGE)
    GL.glBindTexture(GL.GL_TEXTURE_2D, 0)


class Renderer(PreviewState):
    """Builds programs from artifacts and draws the preview mesh with the current one.

    The host-side state (parameters, textures, mesh, camera, light,
    environment, exposure, tone mapper, background, time) and its setters
    are `PreviewState`'s, shared with the CPU renderer; this class adds the
    GL objects and the drawing.
    """

    def __init__(self) -> None:
        super().__init__()
        self._environment_textures: dict[str, int] = {}
        self._sampling_uploaded = False
        self.link_count = 0
        self.program: ProgramInfo | None = None
        #: Linked programs by code, least recently used first (the current one among them).
        self._linked: OrderedDict[ProgramKey, int] = OrderedDict()
        self._vertex_array = 0
        self._vertex_buffer = 0
        self._index_buffer = 0
        self._color_buffer = 0  # the mesh's vertex colours (location 4), when it has them
        self._index_count = 0
        self._checker_texture = 0
        self._textures: dict[str, int] = {}
        #: Uploads of each host image so far: a texture pass sampling one draws again when it changes.
        self._texture_versions: dict[str, int] = {}
        #: The material's texture passes (app/preview/texture_passes_gl.py): drawn before it, only when changed.
        self.passes = GlTexturePasses()
        #: The same passes at draft resolution (`PassSchedule.draft`), drawn instead while `drafting`: the render
        #: thread sets it for its draft frames (a value being dragged), so a drag upstream of a buffer redraws a
        #: quarter of the texels; the next full frame draws `passes` again with the values of then.
        self.draft_passes = GlTexturePasses()
        self.drafting = False
        self._color_target: Framebuffer | None = None
        self._hdr_target: Framebuffer | None = None
        #: The refinement's running sum (GL row order) and the texture its mean is tone-mapped from.
        self._accumulation: np.ndarray | None = None
        self._accumulation_target: Framebuffer | None = None
        #: The drawn material's refined variant (`lower(..., refined=True)`, compiled for this renderer's target),
        #: asked for the first time a refined frame is drawn; None: the material has none (frames stay live).
        self.refined_source: Callable[[], ProgramArtifact | None] | None = None
        #: Linked refined variants by their live program's key (the material's structure), most recent last.
        self._refined: OrderedDict[ProgramKey, ProgramInfo | None] = OrderedDict()
        self._post_programs: dict[str, PostProgram] = {}
        self._background_program: BackgroundProgram | None = None
        self._post_vertex_array = 0
        self._post_vertex_buffer = 0
        self._stage_passes: StagePasses | None = None  # shadows and ground (app/preview/shadows.py), made when first used
        self._initialized = False
        self.is_es = False

    @property
    def target_family(self) -> str:
        """"es" on an OpenGL ES context, "glsl" on desktop GL (known after `initialize`)."""
        return "es" if self.is_es else "glsl"

    # ---- GL resources ---------------------------------------------------------------------

    def initialize(self) -> None:
        """Create the context-bound resources (idempotent; needs a current context)."""
        if self._initialized:
            return
        self.is_es = context_is_es()
        self._vertex_array = int(GL.glGenVertexArrays(1))
        self._vertex_buffer, self._index_buffer, self._color_buffer = (int(b) for b in GL.glGenBuffers(3))
        self._checker_texture = self._upload_texture(0, checker_rgba())
        self._initialized = True

    def release(self) -> None:
        """Delete every GL object (needs the same context current)."""
        if not self._initialized:
            return
        clear_pending_errors()
        self._delete_program(self.program)
        self.program = None
        for program in self._linked.values():
            GL.glDeleteProgram(program)
        self._linked.clear()
        GL.glDeleteVertexArrays(1, [self._vertex_array])
        GL.glDeleteBuffers(3, [self._vertex_buffer, self._index_buffer, self._color_buffer])
        self.passes.release()
        self.draft_passes.release()
        textures = [self._checker_texture] + list(self._textures.values())
        GL.glDeleteTextures(len(textures), textures)
        self._textures.clear()
        for target in (self._color_target, self._hdr_target, self._accumulation_target):
            if target is not None:
                target.delete()
        self._color_target = self._hdr_target = self._accumulation_target = None
        self._accumulation = None
        while self._refined:
            self._release_refined(self._refined.popitem()[1])
        for post in self._post_programs.values():
            GL.glDeleteProgram(post.program)
        self._post_programs.clear()
        if self._background_program is not None:
            GL.glDeleteProgram(self._background_program.program)
            self._background_program = None
        if self._stage_passes is not None:
            self._stage_passes.release()
            self._stage_passes = None
        if self._environment_textures:
            GL.glDeleteTextures(len(self._environment_textures), list(self._environment_textures.values()))
            self._environment_textures.clear()
        self._environment_dirty = True
        if self._post_vertex_array:
            GL.glDeleteVertexArrays(1, [self._post_vertex_array])
            GL.glDeleteBuffers(1, [self._post_vertex_buffer])
            self._post_vertex_array = self._post_vertex_buffer = 0
        self._dirty_textures = set(self._images)
        self._mesh_dirty = True
        self._initialized = False

    def _upload_texture(self, texture: int, image: np.ndarray) -> int:
        if not texture:
            texture = int(GL.glGenTextures(1))
        height, width = image.shape[:2]
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        # High-precision images (float32: 16-bit, HDR, EXR) go to a half-float texture: filterable
        # and mipmappable on desktop GL and on ES 3.x alike, and able to hold values above 1.
        high_precision = image.dtype == np.float32
        internal, data_type = (GL.GL_RGBA16F, GL.GL_FLOAT) if high_precision else (GL.GL_RGBA8, GL.GL_UNSIGNED_BYTE)
        # Flipped so that v = 0 reads the image's bottom row.
        GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, internal, width, height, 0, GL.GL_RGBA, data_type,
                        np.ascontiguousarray(image[::-1]))
        # Back to GL's default: QPainter's glyph cache shares this context and assumes 4.
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 4)
        GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, GL.GL_REPEAT)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_REPEAT)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        return texture

    def _sync_environment(self) -> None:
        """Upload the environment's textures when they changed (RGB16F / RG16F: filterable on ES 3.0 too)."""
        if not self._environment_dirty and self._environment_textures:
            return
        maps = self._environment
        textures = self._environment_textures
        for name in HOST_SAMPLERS:
            if name not in textures:
                textures[name] = int(GL.glGenTextures(1))
        _upload_float_texture(textures["environment_specular"], maps.specular, wrap_u=GL.GL_REPEAT)
        _upload_float_texture(textures["environment_irradiance"], (maps.irradiance,), wrap_u=GL.GL_REPEAT)
        _upload_float_texture(textures["environment_brdf"], (self.brdf_table,), wrap_u=GL.GL_CLAMP_TO_EDGE)
        # The sampling table only when a refined frame reads it (the draw uploads it): live frames never do.
        self._sampling_uploaded = False
        self._environment_dirty = False

    def _sync_mesh(self) -> None:
        if not self._mesh_dirty:
            return
        mesh = self.mesh()
        GL.glBindVertexArray(self._vertex_array)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._vertex_buffer)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, mesh.interleaved(), GL.GL_STATIC_DRAW)
        for location, attribute in _MESH_ATTRIBUTES.items():
            if attribute in ATTRIBUTE_LAYOUT:
                components, offset = ATTRIBUTE_LAYOUT[attribute]
                GL.glVertexAttribPointer(location, components, GL.GL_FLOAT, GL.GL_FALSE, VERTEX_STRIDE, ctypes.c_void_p(offset))
        if mesh.colors is not None:
            # Vertex colours live in a buffer of their own: most meshes have none (then a constant, _bind_attributes).
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._color_buffer)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, np.ascontiguousarray(mesh.colors, dtype=np.float32), GL.GL_STATIC_DRAW)
            GL.glVertexAttribPointer(_COLOR_LOCATION, 4, GL.GL_FLOAT, GL.GL_FALSE, 16, ctypes.c_void_p(0))
        GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, self._index_buffer)
        GL.glBufferData(GL.GL_ELEMENT_ARRAY_BUFFER, np.ascontiguousarray(mesh.indices, dtype=np.uint32), GL.GL_STATIC_DRAW)
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self._index_count = int(mesh.indices.size)
        self._mesh_dirty = False

    def _sync_textures(self) -> None:
        for name in sorted(self._dirty_textures):
            image = self._images.get(name)
            texture = self._textures.get(name, 0)
            if image is None:
                if texture:
                    GL.glDeleteTextures(1, [texture])
                    del self._textures[name]
            else:
                self._textures[name] = self._upload_texture(texture, image)
            self._texture_versions[name] = self._texture_versions.get(name, 0) + 1
        self._dirty_textures.clear()

    def _host_image(self, name: str) -> tuple[int, int]:
        """A host sampler's texture and upload count, for the texture passes ((0, n): none, the checker)."""
        return self._textures.get(name, 0), self._texture_versions.get(name, 0)

    def run_passes(self) -> None:
        """Draw the texture passes whose inputs changed since they were last drawn (needs the context current)."""
        self._sync_textures()
        self.pass_runner().run(self.parameters, self._host_image, self.time, self._checker_texture)

    def pass_runner(self) -> GlTexturePasses:
        """The passes this frame draws and samples: the draft ones while `drafting` (when the schedule has them)."""
        return self.draft_passes if self.drafting and self.draft_passes.schedule.passes else self.passes

    # ---- programs -------------------------------------------------------------------------

    def build_program(self, artifact: ProgramArtifact, passes: PassSchedule = EMPTY_SCHEDULE,
                      refined: Callable[[], ProgramArtifact | None] | None = None) -> ProgramInfo:
        """Compile, link and reflect `artifact`; on success it becomes the drawn program.

        `refined`: makes the material's refined variant for the same target (`refined_source`), called only
        when a refined frame is drawn for a program not seen before.

        An artifact with the code of a program linked recently (`program_key`)
        reuses it: reflected again, not linked. Raises `ProgramBuildError`
        with the driver's log; the previous program then stays in use.
        `passes`: the texture passes drawn before it, whose textures its
        sampler uniforms read (a `PassError` naming the node when one cannot
        run here; the previous program and passes then stay in use).
        """
        clear_pending_errors()
        self.initialize()
        self.passes.prepare(passes, self.is_es)  # refused before the material changes
        # The draft passes link at the first draft frame: most builds are never drafted.
        self.draft_passes.prepare(passes.draft or EMPTY_SCHEDULE, self.is_es, link=False)
        reused = self.reuse_program(artifact)
        if reused is None:
            try:
                program, log = link_program(artifact, self.is_es)
            except ProgramBuildError as error:
                if error.stage == "link":
                    self.link_count += 1  # counts glLinkProgram calls, failed ones too
                raise
            self.link_count += 1
            reused = self.adopt_program(program, artifact, log)
        self.refined_source = refined
        self.passes.set_schedule(passes, self.is_es)
        self.set_fine_mesh(passes.displacement is not None)
        self.draft_passes.set_schedule(passes.draft or EMPTY_SCHEDULE, self.is_es, link=False)
        return reused

    def reuse_program(self, artifact: ProgramArtifact) -> ProgramInfo | None:
        """Draw `artifact` with an already linked program of the same code; None when there is none."""
        program = self._linked.get(program_key(artifact))
        if program is None:
            return None
        clear_pending_errors()
        self.initialize()
        return self._use(program, artifact, self.program.link_log if self.program is not None else "")

    def adopt_program(self, program: int, artifact: ProgramArtifact, log: str = "") -> ProgramInfo:
        """Make `program`, linked from `artifact` (here or in a context sharing this one's objects), the drawn one.

        The renderer owns it from now on (it deletes it when it falls out of `RECENT_PROGRAMS`).
        """
        clear_pending_errors()
        self.initialize()
        key = program_key(artifact)
        previous = self._linked.pop(key, None)
        if previous is not None and previous != program:
            GL.glDeleteProgram(previous)
        self._linked[key] = program
        while len(self._linked) > RECENT_PROGRAMS:
            _, evicted = self._linked.popitem(last=False)
            GL.glDeleteProgram(evicted)  # deletion waits while the program is in use
        return self._use(program, artifact, log)

    def discard_program(self, program: int) -> None:
        """Delete a program linked for this renderer that it will not draw (a build overtaken by a newer one)."""
        if program not in self._linked.values() and (self.program is None or self.program.program != program):
            clear_pending_errors()
            GL.glDeleteProgram(program)

    def _use(self, program: int, artifact: ProgramArtifact, log: str) -> ProgramInfo:
        self._linked.move_to_end(program_key(artifact))
        info = reflect_program(program, artifact)
        info.link_log = log.strip()
        self._delete_program(self.program)
        self.program = info
        self._dirty_parameters = set(self.parameters)
        self._upload_all_parameters()
        return info

    def _delete_program(self, info: ProgramInfo | None) -> None:
        """Release what the reflection of `info` made; its program stays while it is in `_linked`."""
        if info is None:
            return
        if info.program not in self._linked.values():
            GL.glDeleteProgram(info.program)
        buffers = [block.buffer for block in info.blocks]
        if buffers:
            GL.glDeleteBuffers(len(buffers), buffers)

    def _upload_all_parameters(self) -> None:
        """Every parameter slot and block, current values or defaults (needs the program in use)."""
        info = self.program
        if info is None:
            return
        GL.glUseProgram(info.program)
        for slot in info.uniforms:
            if isinstance(slot.type, SamplerType):
                GL.glUniform1i(slot.location, info.samplers.get(slot.binding.name, 0))
            else:
                upload_or_default(slot, value_at(self.parameters.get(slot.binding.name), slot.path))
        for block in info.blocks:
            if block.binding.name != SCENE_UNIFORM_NAME:
                fill_block(block, self.parameters.get(block.binding.name))
        GL.glUseProgram(0)
        self._dirty_parameters.clear()

    def _upload_dirty_parameters(self) -> None:
        info = self.program
        if info is None or not self._dirty_parameters:
            return
        for slot in info.uniforms:
            if slot.binding.name in self._dirty_parameters and not isinstance(slot.type, SamplerType):
                upload_or_default(slot, value_at(self.parameters.get(slot.binding.name), slot.path))
        for block in info.blocks:
            if block.binding.name in self._dirty_parameters and block.binding.name != SCENE_UNIFORM_NAME:
                fill_block(block, self.parameters.get(block.binding.name))
        self._dirty_parameters.clear()

    # ---- drawing --------------------------------------------------------------------------

    def _refined_program(self) -> ProgramInfo | None:
        """The refined variant of the drawn program, linked on first need and kept per material structure."""
        live = self.program
        if live is None or not live.radiance or self.refined_source is None:
            return None
        key = program_key(live.artifact)
        if key in self._refined:
            self._refined.move_to_end(key)
            return self._refined[key]
        artifact = self.refined_source()
        info = None
        if artifact is not None:
            program, _ = link_program(artifact, self.is_es)
            self.link_count += 1
            info = reflect_program(program, artifact)
        self._refined[key] = info
        while len(self._refined) > RECENT_PROGRAMS:
            self._release_refined(self._refined.popitem(last=False)[1])
        return info

    @staticmethod
    def _release_refined(info: ProgramInfo | None) -> None:
        if info is None:
            return
        GL.glDeleteProgram(info.program)
        buffers = [block.buffer for block in info.blocks]
        if buffers:
            GL.glDeleteBuffers(len(buffers), buffers)

    @contextmanager
    def _frame_program(self) -> Iterator[None]:
        """Draw with the refined variant in a refined frame (`sample_frame` k >= 1), else with the live program."""
        refined = self._refined_program() if self.sample_frame > 0 else None
        if refined is None:
            yield
            return
        live, dirty = self.program, set(self._dirty_parameters)
        self.program = refined
        try:
            self._upload_all_parameters()
            yield
        finally:
            self.program = live
            self._dirty_parameters = dirty

    def render(self, width: int, height: int) -> None:
        """Draw one frame into the currently bound framebuffer (viewport 0, 0, width, height).

        A refined frame (`sample_frame` k >= 1) draws the material's refined variant (`refined_source`).

        A program whose colour output is `radiance` is drawn into an RGBA32F
        texture and then tone-mapped into the bound framebuffer by the post
        pass (`app.preview.post`); any other program draws straight into it.
        """
        clear_pending_errors()
        self.initialize()
        with self._frame_program():
            self._render_frame(width, height)

    def _render_frame(self, width: int, height: int) -> None:
        info = self.program
        if info is not None and info.radiance:
            self._render_radiance(width, height, info)
            return
        location = info.artifact.fragment_color_location if info is not None else 0
        if location <= 0:
            self._draw(width, height, self.background)
            return
        # The colour goes to draw buffer `location`; the bound framebuffer (a window's,
        # Qt's) only draws buffer 0. Draw where buffer `location` exists, then copy.
        previous_draw = int(GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING))
        previous_read = int(GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING))
        target = self._color_target
        if target is None or not target.matches(width, height, location, GL.GL_RGBA8, False):
            if target is not None:
                target.delete()
                self._color_target = None
            target = self._color_target = Framebuffer(width, height, location)
        try:
            target.bind()
            self._draw(width, height, self.background)
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, target.framebuffer)
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
            GL.glBlitFramebuffer(0, 0, target.width, target.height, 0, 0, target.width, target.height,
                                 GL.GL_COLOR_BUFFER_BIT, GL.GL_NEAREST)
        finally:
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, previous_read)

    def _render_radiance(self, width: int, height: int, info: ProgramInfo) -> None:
        previous_draw = int(GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING))
        previous_read = int(GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING))
        location = max(info.artifact.fragment_color_location, 0)
        target = self._hdr_target
        if target is None or not target.matches(width, height, location, GL.GL_RGBA32F, True):
            if target is not None:
                target.delete()
                self._hdr_target = None
            target = self._hdr_target = Framebuffer(width, height, location, GL.GL_RGBA32F, sampled=True)
        post = self._post_program(self.tone_mapper)
        try:
            if (self.shadows and self.light_intensity > 0.0) or self.ground or self.occlusion or self.extra_lights:
                # The key light's shadows and the ground's catcher: host passes around the material (shadows.py);
                # the fill and rim lights (stage_lights.py).
                if self._stage_passes is None:
                    self._stage_passes = StagePasses()
                cleared = (UNCOVERED, UNCOVERED, UNCOVERED, 0.0)
                radiance = self._stage_passes.radiance(self, width, height, location, self.background_mode != "color", cleared)
                radiance = add_extra_lights(self._stage_passes, self, width, height, location, cleared, radiance)
                GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
                self._draw_post(width, height, post, self._accumulated(radiance, width, height))
                if self.ground:
                    self._stage_passes.catch(self, width, height)
                return
            target.bind()
            self._draw(width, height, (UNCOVERED, UNCOVERED, UNCOVERED, 0.0), environment_background=self.background_mode != "color")
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
            self._draw_post(width, height, post, self._accumulated(target, width, height))
        finally:
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, previous_read)

    def _accumulated(self, frame: Framebuffer, width: int, height: int) -> int:
        """The texture to tone-map: `frame`'s, or in a refined frame (`sample_frame` k >= 1) the mean of frames
        1..k, kept as float64 sums in host memory (frame 1 starts a new sum) and uploaded to an RGBA32F texture.

        Averaging the composed radiance is averaging the material's: every stage pass is linear in it, and
        the uncovered marker (the same in every frame) stays exact."""
        if self.sample_frame <= 0:
            return frame.texture
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, frame.framebuffer)
        GL.glReadBuffer(frame.color_attachment)
        pixels = read_float_pixels(0, 0, width, height)[::-1].astype(np.float64)  # back to GL row order
        if self.sample_frame == 1 or self._accumulation is None or self._accumulation.shape != pixels.shape:
            self._accumulation = pixels
        else:
            self._accumulation += pixels
        mean = np.ascontiguousarray(self._accumulation / max(self.sample_frame, 1), dtype=np.float32)
        target = self._accumulation_target
        if target is None or not target.matches(width, height, 0, GL.GL_RGBA32F, True):
            if target is not None:
                target.delete()
            target = self._accumulation_target = Framebuffer(width, height, 0, GL.GL_RGBA32F, sampled=True)
        GL.glBindTexture(GL.GL_TEXTURE_2D, target.texture)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 4)
        GL.glTexSubImage2D(GL.GL_TEXTURE_2D, 0, 0, 0, width, height, GL.GL_RGBA, GL.GL_FLOAT, mean)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        return target.texture

    def _ensure_full_screen_triangle(self) -> None:
        if self._post_vertex_array:
            return
        self._post_vertex_array = int(GL.glGenVertexArrays(1))
        self._post_vertex_buffer = int(GL.glGenBuffers(1))
        GL.glBindVertexArray(self._post_vertex_array)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._post_vertex_buffer)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, FULL_SCREEN_TRIANGLE, GL.GL_STATIC_DRAW)
        GL.glVertexAttribPointer(0, 2, GL.GL_FLOAT, GL.GL_FALSE, 8, ctypes.c_void_p(0))
        GL.glEnableVertexAttribArray(0)
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)

    def _draw_environment_background(self, width: int, height: int) -> None:
        """The environment seen through every pixel, as radiance, behind everything (no depth)."""
        if self._background_program is None:
            artifact = background_artifact("es320" if self.is_es else "glsl420")
            program, _ = _link_program(artifact.vertex_code, artifact.fragment_code, artifact.fragment_color_location,
                                       artifact.fragment_color_output, self.is_es)
            names = (RAY_MATRIX_UNIFORM, BACKGROUND_ENVIRONMENT_UNIFORM, BACKGROUND_ROTATION_UNIFORM,
                     BACKGROUND_INTENSITY_UNIFORM, BACKGROUND_LOD_UNIFORM)
            locations = {}
            for name in names:
                binding = artifact.uniform(name)
                assert binding is not None, name
                locations[name] = int(GL.glGetUniformLocation(program, binding.gl_name.encode("ascii") + b"\0"))
            self._background_program = BackgroundProgram(program, locations)
        self._ensure_full_screen_triangle()
        self._sync_environment()
        background = self._background_program
        ray_matrix = self.background_ray_matrix(width, height)
        lod = self.background_lod()
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glDepthMask(GL.GL_FALSE)
        GL.glUseProgram(background.program)
        locations = background.locations
        GL.glUniformMatrix4fv(locations[RAY_MATRIX_UNIFORM], 1, GL.GL_FALSE, np.ascontiguousarray(ray_matrix.T).reshape(-1))
        GL.glUniform1i(locations[BACKGROUND_ENVIRONMENT_UNIFORM], 0)
        GL.glUniform1f(locations[BACKGROUND_ROTATION_UNIFORM], float(self.environment_rotation))
        GL.glUniform1f(locations[BACKGROUND_INTENSITY_UNIFORM], float(self.environment_intensity))
        GL.glUniform1f(locations[BACKGROUND_LOD_UNIFORM], float(lod))
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._environment_textures["environment_specular"])
        GL.glBindVertexArray(self._post_vertex_array)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 3)
        GL.glBindVertexArray(0)
        GL.glUseProgram(0)
        GL.glDepthMask(GL.GL_TRUE)

    def _post_program(self, tone_mapper: str) -> PostProgram:
        post = self._post_programs.get(tone_mapper)
        if post is not None:
            return post
        artifact = post_artifact(tone_mapper, "es320" if self.is_es else "glsl420")
        program, _ = _link_program(artifact.vertex_code, artifact.fragment_code, artifact.fragment_color_location,
                                   artifact.fragment_color_output, self.is_es)

        def location(name: str) -> int:
            binding = artifact.uniform(name)
            assert binding is not None, name
            return int(GL.glGetUniformLocation(program, binding.gl_name.encode("ascii") + b"\0"))

        post = self._post_programs[tone_mapper] = PostProgram(
            tone_mapper, program, location(HDR_IMAGE_UNIFORM), location(EXPOSURE_UNIFORM), location(BACKGROUND_UNIFORM))
        self._ensure_full_screen_triangle()
        return post

    def _draw_post(self, width: int, height: int, post: PostProgram, texture: int) -> None:
        """Exposure, tone mapping and sRGB encoding of `texture` into the bound draw framebuffer."""
        GL.glViewport(0, 0, int(width), int(height))
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glDisable(GL.GL_BLEND)
        GL.glDisable(GL.GL_CULL_FACE)
        GL.glUseProgram(post.program)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        if post.image_location >= 0:
            GL.glUniform1i(post.image_location, 0)
        if post.exposure_location >= 0:
            GL.glUniform1f(post.exposure_location, exposure_scale(self.exposure))
        if post.background_location >= 0:
            GL.glUniform3f(post.background_location, *self.background)
        GL.glBindVertexArray(self._post_vertex_array)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 3)
        GL.glBindVertexArray(0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glUseProgram(0)

    def _draw(self, width: int, height: int, background: Sequence[float], environment_background: bool = False,
              origin: tuple[int, int] = (0, 0), clear: bool = True) -> None:
        """One frame of `width` x `height` at `origin` of the bound framebuffer (`clear`: the whole framebuffer first)."""
        self._sync_mesh()
        self.run_passes()
        GL.glViewport(int(origin[0]), int(origin[1]), int(width), int(height))
        GL.glDisable(GL.GL_SCISSOR_TEST)
        GL.glDisable(GL.GL_BLEND)
        GL.glDepthMask(GL.GL_TRUE)
        GL.glColorMask(GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE)
        if clear:
            _clear(background)
        if environment_background:
            self._draw_environment_background(width, height)
        info = self.program
        if info is None:
            return
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glDepthFunc(GL.GL_LESS)
        # A foreign module's vertex stage may flip the winding: draw both faces.
        GL.glDisable(GL.GL_CULL_FACE)
        GL.glUseProgram(info.program)
        self._upload_dirty_parameters()
        scene = self._scene_for(info, width, height)
        for block in info.blocks:
            if block.binding.name == SCENE_UNIFORM_NAME:
                fill_block(block, scene)
            GL.glBindBufferBase(GL.GL_UNIFORM_BUFFER, block.binding_point, block.buffer)
        if any(name in HOST_SAMPLERS for name in info.samplers):
            self._sync_environment()
        if "environment_sampling" in info.samplers and not self._sampling_uploaded:
            # The environment's sampling distribution (`EnvironmentMaps.sampling`), made once per environment.
            _upload_table_texture(self._environment_textures["environment_sampling"], self._environment.sampling)
            self._sampling_uploaded = True
        pass_textures = self.pass_runner().material_textures()
        for name, unit in info.samplers.items():
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            if name in HOST_SAMPLERS:
                texture = self._environment_textures[name]
            else:
                texture = pass_textures.get(name) or self._textures.get(name, self._checker_texture)
            GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindVertexArray(self._vertex_array)
        self._bind_attributes(info)
        GL.glDrawElements(GL.GL_TRIANGLES, self._index_count, GL.GL_UNSIGNED_INT, None)
        # Leave no VAO or program bound: QPainter overlays draw with the same context.
        GL.glBindVertexArray(0)
        GL.glUseProgram(0)

    def _scene_for(self, info: ProgramInfo, width: int, height: int) -> Any:
        block = info.block(SCENE_UNIFORM_NAME)
        if block is None:
            return None
        if not isinstance(block.binding.type, RecordType):
            return None
        return scene_record_value(block.binding.type, self.scene_values(width, height))

    def _bind_attributes(self, info: ProgramInfo) -> None:
        bind_attributes(info.attributes, has_colors=self.mesh().colors is not None)

    def render_tiles(self, width: int, height: int, tiles: Sequence[Tile]) -> np.ndarray:
        """Draw the current program once per tile into one `width` x `height` image; its pixels, top row first.

        Each tile is a frame of its own (`render`'s per-pixel path, at the
        tile's size and place, after its parameter values are set): a
        `radiance` program is drawn linear into one float image and exposed,
        tone-mapped and encoded by one post pass over all tiles; any other
        program draws its colours as they are. The thumbnails of node
        previews are drawn this way, many to one image, so a software
        rasteriser works on all of them at once (app/preview/thumbnails.py).
        """
        clear_pending_errors()
        self.initialize()
        previous_draw = int(GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING))
        previous_read = int(GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING))
        info = self.program
        radiance = info is not None and info.radiance
        location = max(info.artifact.fragment_color_location, 0) if info is not None else 0
        targets: list[Framebuffer] = []
        try:
            if radiance:
                draw_target = Framebuffer(width, height, location, GL.GL_RGBA32F, sampled=True)
                background: Sequence[float] = (UNCOVERED, UNCOVERED, UNCOVERED, 0.0)
            else:
                draw_target = Framebuffer(width, height, location)
                background = self.background
            targets.append(draw_target)
            draw_target.bind()
            GL.glViewport(0, 0, int(width), int(height))
            _clear(background)
            for tile in tiles:
                if tile.parameters:
                    self.set_values(self.parameters.replaced(tile.parameters))
                self._draw(tile.size, tile.size, background, origin=(tile.x, tile.y), clear=False)
            if radiance:
                shown = Framebuffer(width, height)
                targets.append(shown)
                shown.bind()
                self._draw_post(width, height, self._post_program(self.tone_mapper), draw_target.texture)
                GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, shown.framebuffer)
            GL.glFinish()
            return read_pixels(0, 0, width, height)
        finally:
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, previous_read)
            for target in targets:
                target.delete()

    def read_pixels(self, x: int = 0, y: int = 0, width: int = 1, height: int = 1) -> np.ndarray:
        """Pixels of the current read framebuffer, (height, width, 4) uint8, top row first."""
        return read_pixels(x, y, width, height)

    def render_linear(self, width: int, height: int) -> np.ndarray:
        """The program's own output, before any post pass, as float32 (height, width, 4), top row first.

        Drawn into an RGBA32F framebuffer cleared to the background colour
        (behind a `radiance` program: the environment's radiance when the
        background mode says so): for a `radiance` program the linear HDR
        radiance, for any other the colour unclamped; with the key light's
        shadows on, the mesh's self-shadowing is in it (the ground's catcher
        is applied to the displayed frame only). Tests compare it with numpy
        references.
        """
        clear_pending_errors()
        self.initialize()
        with self._frame_program():
            return self._render_linear_frame(width, height)

    def _render_linear_frame(self, width: int, height: int) -> np.ndarray:
        previous_draw = int(GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING))
        previous_read = int(GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING))
        location = max(self.program.artifact.fragment_color_location, 0) if self.program is not None else 0
        radiance = self.program is not None and self.program.radiance
        if radiance and ((self.shadows and self.light_intensity > 0.0) or self.occlusion or self.extra_lights):
            # The key light's shadows and the geometry's occlusion on the mesh (shadows.py), the fill and rim
            # lights (stage_lights.py); the ground's catcher is display-only.
            if self._stage_passes is None:
                self._stage_passes = StagePasses()
            try:
                cleared = (*self.background, 1.0)
                shadowed = self._stage_passes.radiance(self, width, height, location, self.background_mode != "color",
                                                       cleared)
                shadowed = add_extra_lights(self._stage_passes, self, width, height, location, cleared, shadowed)
                GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, shadowed.framebuffer)
                GL.glFinish()
                return read_float_pixels(0, 0, width, height)
            finally:
                GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
                GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, previous_read)
        target = Framebuffer(width, height, location, GL.GL_RGBA32F)
        try:
            target.bind()
            self._draw(width, height, self.background, environment_background=radiance and self.background_mode != "color")
            GL.glFinish()
            return read_float_pixels(0, 0, width, height)
        finally:
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, previous_read)
            target.delete()

    def render_final(self, width: int, height: int) -> np.ndarray:
        """`render_image` at final quality: with the refined environment light, the displayed (tone-mapped)
        mean of frames 1..`refine_frames` (screenshots, turntables, exports); else one frame."""
        if not refines(self):
            return self.render_image(width, height)
        pixels = None
        try:
            for frame in range(1, self.refine_frames + 1):
                self.sample_frame = frame
                pixels = self.render_image(width, height)
        finally:
            self.sample_frame = 0
        assert pixels is not None
        return pixels

    def render_linear_refined(self, width: int, height: int, frames: int | None = None) -> np.ndarray:
        """`render_linear` with the refined environment light: the mean of `frames` (default `refine_frames`)
        frames 1..n, each with its own sample set (docs/lighting.md, "Refined environment light")."""
        count = self.refine_frames if frames is None else max(int(frames), 1)
        saved = self.refine_frames, self.sample_frame
        self.refine_frames = count
        total: np.ndarray | None = None
        try:
            for frame in range(1, count + 1):
                self.sample_frame = frame
                image = self.render_linear(width, height).astype(np.float64)
                total = image if total is None else total + image
        finally:
            self.refine_frames, self.sample_frame = saved
        assert total is not None
        return (total / count).astype(np.float32)

    def render_image(self, width: int, height: int) -> np.ndarray:
        """Render one frame into a temporary offscreen framebuffer and return its pixels."""
        clear_pending_errors()
        self.initialize()
        previous_draw = int(GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING))
        previous_read = int(GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING))
        target = Framebuffer(width, height)
        try:
            target.bind()
            self.render(width, height)
            GL.glFinish()
            return read_pixels(0, 0, width, height)
        finally:
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, previous_read)
            target.delete()


def refines(renderer: Renderer) -> bool:
    """Whether `renderer`'s drawn program has a refined variant (a Surface Output, whose environment light reads the
    scene's `environment_max_lod`, and a `refined_source`): then its converged frame is the mean of
    `refine_frames` refined frames."""
    info = renderer.program
    return (info is not None and info.radiance and renderer.refine_frames > 0 and renderer.refined_source is not None
            and artifact_reads_scene_field(info.artifact, "environment_max_lod"))
