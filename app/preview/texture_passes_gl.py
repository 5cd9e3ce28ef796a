"""Texture passes on the GPU: each pass of a material's pass plan drawn into a texture the material samples.

A material with Texture Buffer or filter nodes lowers to several verified
modules: one per pass, in run order, and the material itself
(`app.material.texture_passes`). `GlTexturePasses` runs them in a current
context:

- each pass draws its module over the UV square into a framebuffer whose
  colour is a texture of the pass's resolution and format (`BufferSpec`):
  8-bit RGBA8, 16-bit RGBA16F (half floats, as the CPU execution stores
  them; colour-renderable and filterable in OpenGL 4.2 and ES 3.2, where
  16-bit normalized RGBA16 is not renderable without EXT_texture_norm16),
  float RGBA32F (RGBA16F on an ES context without
  OES_texture_float_linear, where 32-bit float textures cannot be
  filtered: ES 3.2 renders to RGBA32F but samples it only with NEAREST,
  and a filter's taps between texels would read wrong); the texture
  repeats ("tile") or clamps
  ("clamp") and gets mip-maps when the buffer asks (`glGenerateMipmap` after
  each render); `texture_format` says which is used;
- a pass's sampler uniforms bound to earlier passes read their textures;
  its other samplers read the host's images (or the checker); its scene
  record is the UV square's (identity matrices, the host's time);
- resolutions beyond GL_MAX_TEXTURE_SIZE, GL_MAX_RENDERBUFFER_SIZE or the
  viewport limit are refused before anything is drawn (`PassError`, naming
  the node), and so is a plan whose buffers together would take more than
  `memory_budget` bytes;
- nothing is read back: the material binds the final textures
  (`material_textures`); tests, thumbnails and bakes read a pass with
  `read_pass`.

Only what changed runs again. A pass is drawn when something it reads
differs from what it was last drawn with: its program (by GLSL text), its
buffer, the values of its own uniforms (`ParameterValues.changed_names`,
by identity), the filter values the plan gives it, the version of a host
image it samples, the time if it reads
it, or the version of an earlier pass it samples. So a value edit upstream
of a buffer re-draws that buffer and every pass that reads it, directly or
through others, and a value edit downstream of all buffers re-draws none.
Programs are cached by their code and their uniforms' logical names
(`_pass_program_key`): a plan whose pass has the same GLSL as before never
links again. The names count because two passes of one filter often have the
same GLSL and differ only in which earlier pass a sampler reads (the logical
name; the GLSL spells it by position): a program and its reflection, which
binds samplers by logical name, serve only passes that name them alike. `link_count` and `pass_renders` (and
`renders`, by pass) count what happened, for tests and the benchmark.

Buffers are shared. A node output's pass (`PassDraw.keep`) has a buffer
of its own; a filter's internal passes share buffers where their
lifetimes over the run order do not overlap (`buffer_slots`, the
allocator the plan's memory figure uses), so a long chain costs a few
intermediates. Each buffer knows which pass's result it holds: a pass
drawn whose input's buffer another pass has taken since gets that input
drawn again first (the same result, so its version stays).
"""

from __future__ import annotations

import ctypes
import functools
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from OpenGL import GL

from app.material.scene import HOST_SAMPLERS, SCENE_UNIFORM_NAME, VERTEX_INPUTS
from app.material.texture_passes import Displacement, SlotRequest, assign_slots
from app.preview.gl_objects import ProgramBuildError, read_float_pixels, read_pixels
from app.preview.gl_programs import (
    ProgramInfo,
    ProgramKey,
    bind_attributes,
    delete_reflection,
    fill_block,
    link_program,
    program_key,
    reflect_program,
    upload_or_default,
    value_at,
)
from app.preview.mesh import ATTRIBUTE_LAYOUT, VERTEX_STRIDE, Mesh, build_mesh
from app.preview.preview_state import artifact_reads_scene_field, scene_record_value
from app.session.parameters import ParameterValues
from app.session.pass_programs import PassPrograms
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.ir.types import RecordType, SamplerType

#: The buffers' formats and wrap modes as the plan names them.
FORMATS = ("8-bit", "16-bit", "float")
WRAPS = ("tile", "clamp")
#: The most memory the buffers of one plan may take together (bytes, mip-maps included): 1 GiB, four
#: 4096² float buffers.
DEFAULT_MEMORY_BUDGET = 1 << 30
#: Pass programs kept linked beyond those of the current plan (undo and redo flip between two plans).
SPARE_PROGRAMS = 16


class PassError(ProgramBuildError):
    """A pass cannot run here (a resolution beyond the GPU's limits, the memory budget, a link error): names the node."""

    def __init__(self, node: str, message: str) -> None:
        self.node = node
        self.stage = "pass"
        self.log = message
        Exception.__init__(self, message)


@dataclass(frozen=True)
class PassDraw:
    """One pass as the GPU runs it.

    `name`: the pass's key (the node whose texture it makes); `label`: how a
    message names it ("Blur 'blur1'"); `resolution` texels on a side;
    `format` one of `FORMATS`; `wrap` one of `WRAPS`; `artifact`: its
    program for this context's target; `inputs`: sampler uniform (logical
    name) -> the earlier pass whose texture it reads; `values`: the filter's
    value uniforms (by logical name), which the plan sets, not the host.
    """

    name: str
    label: str
    resolution: int
    format: str
    wrap: str
    mipmaps: bool
    artifact: ProgramArtifact
    inputs: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)
    #: Its buffer is read after the run (a node's output: the material, thumbnails, `read_pass`), so it is never
    #: shared; False for a filter's internal pass, whose buffer another pass may reuse once nothing reads it.
    keep: bool = True

    @property
    def buffer_key(self) -> tuple[int, str, str, bool]:
        return (self.resolution, self.format, self.wrap, self.mipmaps)


@dataclass(frozen=True)
class PassSchedule:
    """What a material draws with besides its own program: the passes in run order, and which of the material's
    sampler uniforms read which pass (`material_inputs`)."""

    passes: tuple[PassDraw, ...] = ()
    material_inputs: Mapping[str, str] = field(default_factory=dict)
    #: The material's displacement of the mesh (`PassPlan.displacement`): the host's shadow passes follow it.
    displacement: Displacement | None = None
    #: The same passes at draft resolution (`PassPrograms.draft`), drawn instead while the preview drafts.
    draft: PassSchedule | None = None

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for draw in self.passes:
            if draw.format not in FORMATS:
                raise ValueError(f"{draw.label}: unknown buffer format {draw.format!r}")
            if draw.wrap not in WRAPS:
                raise ValueError(f"{draw.label}: unknown tiling {draw.wrap!r}")
            for source in draw.inputs.values():
                if source not in seen:
                    raise ValueError(f"{draw.label} reads {source!r}, which is not an earlier pass")
            if draw.name in seen:
                raise ValueError(f"{draw.label}: two passes make {draw.name!r}")
            seen.add(draw.name)
        for source in self.material_inputs.values():
            if source not in seen:
                raise ValueError(f"the material reads {source!r}, which no pass makes")


EMPTY_SCHEDULE = PassSchedule()


def schedule_for(programs: PassPrograms | None) -> PassSchedule:
    """The passes a GL host runs for `programs` (a plan compiled for its target); none for None.

    ValueError when the plan has no programs for the target (`PassPrograms.problem`).
    """
    if programs is None:
        return EMPTY_SCHEDULE
    if not programs.ok:
        raise ValueError(programs.problem or "the texture passes have no programs for this target")
    read_after = {item.key for item in programs.plan.material_inputs}
    draws = tuple(
        PassDraw(each.key, programs.label(each.key), each.spec.resolution, each.spec.format, each.spec.wrap,
                 each.spec.mipmaps, artifact, {item.uniform: item.key for item in each.inputs}, dict(each.values),
                 keep=each.output is not None or each.key in read_after)
        for each, artifact in zip(programs.plan.passes, programs.artifacts, strict=True))
    draft = programs.draft
    return PassSchedule(draws, {item.uniform: item.key for item in programs.plan.material_inputs},
                        displacement=programs.plan.displacement,
                        draft=schedule_for(draft) if draft is not None and draft.ok else None)


def buffer_slots(schedule: PassSchedule) -> dict[str, int]:
    """Which passes share a buffer (`texture_passes.assign_slots`: a filter's internal passes whose lifetimes do not
    overlap, of the same resolution, format, tiling and mip-maps): pass name -> slot."""
    return assign_slots([SlotRequest(draw.name, draw.buffer_key, tuple(draw.inputs.values()), draw.keep)
                         for draw in schedule.passes])


@functools.cache
def uv_square() -> Mesh:
    """The square a pass is drawn over: positions (-1, -1)..(1, 1) = 2·uv − 1 at z = 0, facing +z."""
    positions = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], dtype=np.float32)
    normals = np.tile(np.array([0, 0, 1], dtype=np.float32), (4, 1))
    texcoords = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    indices = np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32)
    return build_mesh("uv square", positions, normals, texcoords, indices)


def _extensions() -> frozenset[str]:
    count = int(GL.glGetIntegerv(GL.GL_NUM_EXTENSIONS))
    names = set()
    for index in range(count):
        name = GL.glGetStringi(GL.GL_EXTENSIONS, index)
        names.add(name.decode("latin-1") if isinstance(name, bytes) else str(name))
    return frozenset(names)


def texture_format(format_name: str, is_es: bool, extensions: frozenset[str] = frozenset()) -> tuple[int, int]:
    """(internal format, pixel type) of a buffer of `format_name` in a context (see the module docstring)."""
    if format_name == "8-bit":
        return GL.GL_RGBA8, GL.GL_UNSIGNED_BYTE
    if format_name == "16-bit":
        return GL.GL_RGBA16F, GL.GL_HALF_FLOAT
    if not is_es or "GL_OES_texture_float_linear" in extensions:
        return GL.GL_RGBA32F, GL.GL_FLOAT
    return GL.GL_RGBA16F, GL.GL_HALF_FLOAT


_TEXEL_BYTES = {GL.GL_RGBA8: 4, GL.GL_RGBA16F: 8, GL.GL_RGBA32F: 16}


def buffer_bytes(resolution: int, internal_format: int, mipmaps: bool) -> int:
    """The memory of one buffer: its texels (and the mip chain's third more, exactly summed)."""
    total, size = 0, int(resolution)
    while True:
        total += size * size * _TEXEL_BYTES[int(internal_format)]
        if not mipmaps or size == 1:
            return total
        size = max(1, size // 2)


class _Buffer:
    """A pass's texture and the framebuffer that draws into it."""

    def __init__(self, key: tuple[int, str, str, bool], internal_format: int, pixel_type: int) -> None:
        resolution, _, wrap, mipmaps = key
        self.key = key
        self.internal_format = internal_format
        self.bytes = buffer_bytes(resolution, internal_format, mipmaps)
        #: The pass whose result the texture holds now (None: nothing yet); passes sharing it take turns.
        self.holder: str | None = None
        self.texture = int(GL.glGenTextures(1))
        GL.glBindTexture(GL.GL_TEXTURE_2D, self.texture)
        levels = int(np.floor(np.log2(resolution))) + 1 if mipmaps else 1
        size = resolution
        for level in range(levels):
            GL.glTexImage2D(GL.GL_TEXTURE_2D, level, internal_format, size, size, 0, GL.GL_RGBA, pixel_type, None)
            size = max(1, size // 2)
        wrap_mode = GL.GL_REPEAT if wrap == "tile" else GL.GL_CLAMP_TO_EDGE
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BASE_LEVEL, 0)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, levels - 1)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR if mipmaps else GL.GL_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, wrap_mode)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, wrap_mode)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        self.framebuffer = int(GL.glGenFramebuffers(1))
        previous = int(GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING))
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.framebuffer)
        GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, self.texture, 0)
        status = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, previous)
        self.color_index = 0
        if status != GL.GL_FRAMEBUFFER_COMPLETE:
            self.delete()
            raise RuntimeError(f"a texture buffer's framebuffer is incomplete (status 0x{int(status):x})")

    def attach_output(self, location: int) -> None:
        """Make draw buffer `location` the texture (a program's colour output at location L writes draw buffer L)."""
        if location == self.color_index:
            return
        GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0 + self.color_index, GL.GL_TEXTURE_2D, 0, 0)
        GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0 + location, GL.GL_TEXTURE_2D, self.texture, 0)
        buffers = [GL.GL_NONE] * location + [GL.GL_COLOR_ATTACHMENT0 + location]
        GL.glDrawBuffers(len(buffers), np.array(buffers, dtype=np.uint32))
        GL.glReadBuffer(GL.GL_COLOR_ATTACHMENT0 + location)
        self.color_index = location

    def delete(self) -> None:
        GL.glDeleteFramebuffers(1, [self.framebuffer])
        GL.glDeleteTextures(1, [self.texture])


@dataclass
class _Rendered:
    """What a pass's texture was last drawn with (see the module docstring)."""

    key: ProgramKey
    buffer: tuple[int, str, str, bool]
    values: Mapping[str, Any]
    pass_values: Mapping[str, Any]
    images: tuple[int, ...]
    time: float | None
    upstream: tuple[int, ...]


class GlTexturePasses:
    """The passes of the current schedule, their programs, textures and what they were drawn with."""

    def __init__(self, memory_budget: int = DEFAULT_MEMORY_BUDGET) -> None:
        self.memory_budget = int(memory_budget)
        self.schedule = EMPTY_SCHEDULE
        self.link_count = 0
        self.pass_renders = 0
        #: Draws by pass name since this object was made.
        self.renders: Counter[str] = Counter()
        self._programs: dict[tuple[object, ...], ProgramInfo] = {}
        self._buffers: dict[str, _Buffer] = {}  # pass name -> its buffer (passes sharing one: the same object)
        self._slots: dict[str, int] = {}  # pass name -> its slot in the current schedule (`buffer_slots`)
        self._rendered: dict[str, _Rendered] = {}
        self._versions: dict[str, int] = {}
        self._vertex_array = 0
        self._vertex_buffer = 0
        self._index_buffer = 0
        self._is_es: bool | None = None
        self._extensions: frozenset[str] = frozenset()

    # ---- the schedule ---------------------------------------------------------------------

    def set_schedule(self, schedule: PassSchedule, is_es: bool, link: bool = True) -> None:
        """Take `schedule` (needs a current context): `prepare` it, then draw with it from the next `run`.

        Raises `PassError` naming the node, and then keeps the previous schedule. `link` False: the programs
        link at their first draw instead (the draft passes, drawn only while a value is dragged).
        """
        self.prepare(schedule, is_es, link)
        self.schedule = schedule
        wanted = {draw.name: draw.buffer_key for draw in schedule.passes}
        for name in list(self._rendered):
            if wanted.get(name) != self._rendered[name].buffer:
                del self._rendered[name]
        # Buffers by slot: a slot takes a buffer of its key one of its passes had (its content may still be good),
        # else any spare one of that key, else a new one when first drawn; the others are deleted.
        self._slots = buffer_slots(schedule)
        old = self._buffers
        spare = {id(buffer): buffer for buffer in old.values()}
        self._buffers = {}
        by_slot: dict[int, list[str]] = {}
        for name, slot in self._slots.items():
            by_slot.setdefault(slot, []).append(name)
        for names in by_slot.values():
            key = wanted[names[0]]
            found = next((old[name] for name in names if name in old and old[name].key == key
                          and id(old[name]) in spare), None)
            if found is None:
                found = next((buffer for buffer in spare.values() if buffer.key == key), None)
            if found is None:
                continue
            del spare[id(found)]
            if found.holder not in names:
                found.holder = None
            for name in names:
                self._buffers[name] = found
        for buffer in spare.values():
            buffer.delete()
        self._trim_programs()

    def prepare(self, schedule: PassSchedule, is_es: bool, link: bool = True) -> None:
        """Check `schedule`'s buffers against this context's limits and the memory budget, and link the programs
        it lacks (kept for `set_schedule`); the schedule in use does not change. Raises `PassError`."""
        if self._is_es is None:
            self._is_es = is_es
            self._extensions = _extensions()
        limit = min(int(GL.glGetIntegerv(GL.GL_MAX_TEXTURE_SIZE)), int(GL.glGetIntegerv(GL.GL_MAX_RENDERBUFFER_SIZE)),
                    int(np.min(GL.glGetIntegerv(GL.GL_MAX_VIEWPORT_DIMS))))
        slots = buffer_slots(schedule)
        counted: set[int] = set()
        total = 0
        for draw in schedule.passes:
            if not 1 <= draw.resolution <= limit:
                raise PassError(draw.name, f"{draw.label}: a {draw.resolution}² buffer is beyond this GPU's limit of "
                                           f"{limit}² texels")
            if slots[draw.name] in counted:
                continue  # a buffer it shares with an earlier pass (the memory allocated is what counts)
            counted.add(slots[draw.name])
            internal, _ = texture_format(draw.format, is_es, self._extensions)
            total += buffer_bytes(draw.resolution, internal, draw.mipmaps)
            if total > self.memory_budget:
                raise PassError(draw.name, f"{draw.label}: the texture buffers would take {total / 2**20:.0f} MiB, "
                                           f"more than the budget of {self.memory_budget / 2**20:.0f} MiB")
        for draw in schedule.passes if link else ():
            self._program(draw)

    def _program(self, draw: PassDraw) -> ProgramInfo:
        key = _pass_program_key(draw.artifact)
        info = self._programs.pop(key, None)
        if info is None:
            try:
                program, log = link_program(draw.artifact, bool(self._is_es))
            except ProgramBuildError as error:
                if error.stage == "link":
                    self.link_count += 1
                raise PassError(draw.name, f"{draw.label}: {error}") from None
            self.link_count += 1
            info = reflect_program(program, draw.artifact)
            info.link_log = log.strip()
        self._programs[key] = info  # most recently used last
        return info

    def _trim_programs(self) -> None:
        current = {_pass_program_key(draw.artifact) for draw in self.schedule.passes}
        spare = [key for key in self._programs if key not in current]
        for key in spare[: max(0, len(spare) - SPARE_PROGRAMS)]:
            info = self._programs.pop(key)
            delete_reflection(info)
            GL.glDeleteProgram(info.program)

    # ---- running --------------------------------------------------------------------------

    def run(self, values: ParameterValues, image: Callable[[str], tuple[int, int]], time: float,
            checker: int) -> None:
        """Draw every pass whose inputs changed (needs a current context; restores the framebuffer bindings).

        `image(name)` gives a host sampler's (texture, version), (0, 0) when it has none (the checker then).
        """
        if not self.schedule.passes:
            return
        previous_draw = int(GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING))
        previous_read = int(GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING))
        viewport = GL.glGetIntegerv(GL.GL_VIEWPORT)
        try:
            passes = self.schedule.passes
            changed: set[str] = set()
            for draw in passes:  # what must be drawn because something it reads changed
                if any(source in changed for source in draw.inputs.values()) or self._changed(draw, values, image, time):
                    changed.add(draw.name)
            for draw in self._with_lost_inputs(passes, changed):
                self._run_one(draw, values, image, time, checker, draw.name in changed)
        finally:
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, previous_draw)
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, previous_read)
            GL.glViewport(*(int(v) for v in viewport))

    def _reads(self, draw: PassDraw, image: Callable[[str], tuple[int, int]]) -> tuple[ProgramInfo, set[str],
                                                                                       tuple[int, ...], bool]:
        """(its program, its own uniforms' names, its host images' versions, whether it reads the time)."""
        info = self._program(draw)
        artifact = draw.artifact
        names = {binding.name for binding in artifact.uniforms
                 if binding.name != SCENE_UNIFORM_NAME and binding.name not in draw.inputs
                 and binding.name not in draw.values and not isinstance(binding.type, SamplerType)}
        host_samplers = sorted(name for name in info.samplers if name not in draw.inputs and name not in HOST_SAMPLERS)
        images = tuple(image(name)[1] for name in host_samplers)
        return info, names, images, artifact_reads_scene_field(artifact, "time")

    def _changed(self, draw: PassDraw, values: ParameterValues, image: Callable[[str], tuple[int, int]],
                 time: float) -> bool:
        """Whether what `draw` reads differs from what its result was last drawn with (the module docstring)."""
        _, names, images, reads_time = self._reads(draw, image)
        upstream = tuple(self._versions.get(source, 0) for source in draw.inputs.values())
        last = self._rendered.get(draw.name)
        return not (last is not None and last.key == program_key(draw.artifact) and last.buffer == draw.buffer_key
                    and last.images == images and last.upstream == upstream and last.pass_values == draw.values
                    and (not reads_time or last.time == time)
                    and not (names & values.changed_names(last.values)))

    def _with_lost_inputs(self, passes: tuple[PassDraw, ...], changed: set[str]) -> list[PassDraw]:
        """The passes to draw, in order: those `changed`, a kept pass whose buffer does not hold its result, and
        every pass whose result a pass drawn reads but whose shared buffer another pass has taken since (drawn
        again with what it was drawn with: the same result), found by replaying the buffers' holders."""
        wanted = set(changed) | {draw.name for draw in passes if draw.keep and not self._holds(draw.name)}
        while True:
            holders = {id(buffer): buffer.holder for buffer in self._buffers.values()}
            lost = ""
            for draw in passes:
                if draw.name not in wanted:
                    continue
                lost = next((source for source in draw.inputs.values() if source not in wanted
                             and (source not in self._buffers or holders.get(id(self._buffers[source])) != source)), "")
                if lost:
                    break
                if draw.name in self._buffers:
                    holders[id(self._buffers[draw.name])] = draw.name
            if not lost:
                return [draw for draw in passes if draw.name in wanted]
            wanted.add(lost)

    def _holds(self, name: str) -> bool:
        buffer = self._buffers.get(name)
        return buffer is not None and buffer.holder == name

    def _run_one(self, draw: PassDraw, values: ParameterValues, image: Callable[[str], tuple[int, int]], time: float,
                 checker: int, changed: bool) -> None:
        """Draw `draw` into its buffer; `changed`: with new inputs (else it is drawn again because another pass
        took its shared buffer: the same result, so its version, which its readers compare, stays)."""
        info, _, images, reads_time = self._reads(draw, image)
        buffer = self._buffers.get(draw.name)
        if buffer is None:
            internal, pixel_type = texture_format(draw.format, bool(self._is_es), self._extensions)
            buffer = _Buffer(draw.buffer_key, internal, pixel_type)
            slot = self._slots.get(draw.name)
            for name, other in self._slots.items():
                if other == slot:
                    self._buffers[name] = buffer
            self._buffers[draw.name] = buffer
        self._draw(draw, info, buffer, values, image, time, checker)
        buffer.holder = draw.name
        if changed or draw.name not in self._rendered:
            upstream = tuple(self._versions.get(source, 0) for source in draw.inputs.values())
            self._rendered[draw.name] = _Rendered(program_key(draw.artifact), draw.buffer_key, values, draw.values, images,
                                                  time if reads_time else None, upstream)
            self._versions[draw.name] = self._versions.get(draw.name, 0) + 1
        self.pass_renders += 1
        self.renders[draw.name] += 1

    def _ensure_square(self) -> None:
        if self._vertex_array:
            return
        mesh = uv_square()
        self._vertex_array = int(GL.glGenVertexArrays(1))
        self._vertex_buffer, self._index_buffer = (int(b) for b in GL.glGenBuffers(2))
        GL.glBindVertexArray(self._vertex_array)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._vertex_buffer)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, mesh.interleaved(), GL.GL_STATIC_DRAW)
        for vertex_input in VERTEX_INPUTS:
            if vertex_input.name not in ATTRIBUTE_LAYOUT:
                continue  # vertex colours: the square has none (a constant, `bind_attributes`)
            components, offset = ATTRIBUTE_LAYOUT[vertex_input.name]
            location = vertex_input.location
            GL.glVertexAttribPointer(location, components, GL.GL_FLOAT, GL.GL_FALSE, VERTEX_STRIDE, ctypes.c_void_p(offset))
        GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, self._index_buffer)
        GL.glBufferData(GL.GL_ELEMENT_ARRAY_BUFFER, np.ascontiguousarray(mesh.indices, dtype=np.uint32), GL.GL_STATIC_DRAW)
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)

    def _draw(self, draw: PassDraw, info: ProgramInfo, buffer: _Buffer, values: ParameterValues,
              image: Callable[[str], tuple[int, int]], time: float, checker: int) -> None:
        self._ensure_square()
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, buffer.framebuffer)
        buffer.attach_output(max(draw.artifact.fragment_color_location, 0))
        GL.glViewport(0, 0, draw.resolution, draw.resolution)
        for capability in (GL.GL_DEPTH_TEST, GL.GL_BLEND, GL.GL_CULL_FACE, GL.GL_SCISSOR_TEST):
            GL.glDisable(capability)
        GL.glColorMask(GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE)
        GL.glClearColor(0.0, 0.0, 0.0, 0.0)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT)
        GL.glUseProgram(info.program)
        for slot in info.uniforms:
            if isinstance(slot.type, SamplerType):
                GL.glUniform1i(slot.location, info.samplers.get(slot.binding.name, 0))
            else:
                name = slot.binding.name
                value = draw.values[name] if name in draw.values else values.get(name)
                upload_or_default(slot, value_at(value, slot.path))
        for block in info.blocks:
            if block.binding.name == SCENE_UNIFORM_NAME:
                record = block.binding.type
                fill_block(block, scene_record_value(record, _flat_scene(time)) if isinstance(record, RecordType) else None)
            else:
                fill_block(block, values.get(block.binding.name))
            GL.glBindBufferBase(GL.GL_UNIFORM_BUFFER, block.binding_point, block.buffer)
        for name, unit in info.samplers.items():
            source = draw.inputs.get(name)
            if source is not None:
                texture = self._buffers[source].texture
            else:
                texture = image(name)[0] or checker
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glBindVertexArray(self._vertex_array)
        bind_attributes(info.attributes)
        GL.glDrawElements(GL.GL_TRIANGLES, 6, GL.GL_UNSIGNED_INT, None)
        GL.glBindVertexArray(0)
        GL.glUseProgram(0)
        for unit in range(len(info.samplers)):
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        if draw.mipmaps:
            GL.glBindTexture(GL.GL_TEXTURE_2D, buffer.texture)
            GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
            GL.glBindTexture(GL.GL_TEXTURE_2D, 0)

    # ---- results --------------------------------------------------------------------------

    def material_textures(self) -> dict[str, int]:
        """The material's sampler uniforms that read a pass: their textures (after `run`)."""
        return {name: self._buffers[source].texture for name, source in self.schedule.material_inputs.items()
                if source in self._buffers}

    def displacement(self) -> tuple[int, float, float] | None:
        """The material's displacement of the mesh as (height texture, scale, mid level), after `run`; None when
        it does not displace the mesh."""
        moved = self.schedule.displacement
        if moved is None or moved.key not in self._buffers:
            return None
        return self._buffers[moved.key].texture, moved.scale, moved.mid_level

    def displacement_version(self) -> int | None:
        """How many times the displacement's pass was drawn with new inputs (its result changes only then; None
        when the material does not displace the mesh): with `displacement`, what the shadow passes key on."""
        moved = self.schedule.displacement
        if moved is None or moved.key not in self._buffers:
            return None
        return self._versions.get(moved.key)

    def texture(self, name: str) -> int:
        """Pass `name`'s texture (0 before it was drawn, or once a later pass took its shared buffer)."""
        return self._buffers[name].texture if self._holds(name) else 0

    def read_pass(self, name: str) -> np.ndarray:
        """Pass `name`'s texture as float32 (resolution, resolution, 4), top row (v = 1) first.

        KeyError for a pass not drawn, or an internal pass whose shared buffer a later pass has taken."""
        if not self._holds(name):
            raise KeyError(f"pass {name!r} holds no result now (not drawn, or its shared buffer was reused)")
        buffer = self._buffers[name]
        resolution = buffer.key[0]
        previous_read = int(GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING))
        try:
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, buffer.framebuffer)
            GL.glReadBuffer(GL.GL_COLOR_ATTACHMENT0 + buffer.color_index)
            if buffer.internal_format == GL.GL_RGBA8:
                # OpenGL ES reads a normalized buffer only as bytes.
                return read_pixels(0, 0, resolution, resolution).astype(np.float32) / np.float32(255.0)
            return read_float_pixels(0, 0, resolution, resolution)
        finally:
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, previous_read)

    def memory_bytes(self) -> int:
        """The memory the buffers take now (texels and mip chains; a shared buffer once)."""
        return sum(buffer.bytes for buffer in {id(buffer): buffer for buffer in self._buffers.values()}.values())

    def formats(self) -> dict[str, int]:
        """Each drawn pass's GL internal format (what `texture_format` chose here)."""
        return {name: buffer.internal_format for name, buffer in self._buffers.items()}

    def buffer_count(self) -> int:
        """How many buffers are allocated (passes sharing one count once)."""
        return len({id(buffer) for buffer in self._buffers.values()})

    def invalidate(self) -> None:
        """Draw every pass again at the next `run` (e.g. after the host images were re-uploaded wholesale)."""
        self._rendered.clear()

    def release(self) -> None:
        """Delete every GL object (needs the same context current)."""
        for buffer in {id(buffer): buffer for buffer in self._buffers.values()}.values():
            buffer.delete()
        self._buffers.clear()
        self._rendered.clear()
        for info in self._programs.values():
            delete_reflection(info)
            GL.glDeleteProgram(info.program)
        self._programs.clear()
        if self._vertex_array:
            GL.glDeleteVertexArrays(1, [self._vertex_array])
            GL.glDeleteBuffers(2, [self._vertex_buffer, self._index_buffer])
            self._vertex_array = self._vertex_buffer = self._index_buffer = 0
        self.schedule = EMPTY_SCHEDULE


def _pass_program_key(artifact: ProgramArtifact) -> tuple[object, ...]:
    """The program cache's key: the code (`program_key`) and the uniforms' logical names (the module docstring)."""
    return (program_key(artifact), tuple(binding.name for binding in artifact.uniforms))


def _flat_scene(time: float) -> dict[str, Any]:
    """The scene record of a pass: the UV square seen straight on (identity matrices), the host's time."""
    identity = np.eye(4, dtype=np.float32)
    return {"model": identity, "view": identity, "projection": identity, "normal_matrix": np.eye(3, dtype=np.float32),
            "camera_position": (0.0, 0.0, 1.0), "time": float(time)}
