"""The key light's shadows and the ground under the mesh, as host passes around the material (docs/preview.md).

The material's own code is not changed: its direct-light term is linear in
the light's intensity, so the renderer draws the material twice (key light
on, key light off) and keeps `unlit + visibility * (lit - unlit)` per pixel,
where `visibility` comes from a shadow map of the mesh seen from the light
(percentage-closer filtering over 25 taps, bilinear compares each). The
ground is a shadow catcher: invisible except where it is darker than the
open ground, `(E_env * occlusion + visibility * E_light) / (E_env + E_light)`
with the environment's irradiance from above, the key light's and the
environment's contact occlusion (horizon-based, from height maps of the
mesh's underside and top seen along +y), multiplied into the displayed
frame. The geometry's ambient occlusion (`app.preview.mesh_occlusion`, per
vertex) multiplies the environment's share the same way: a third pass with
neither light nor environment leaves the emission, and the frame is
`emission + occlusion * (unlit - emission) + visibility * (lit - unlit)`
(glTF: occlusion darkens the indirect light only, on top of the material's
own). These passes are host code with no material meaning, written in GLSL
for the two profiles (as glsl420 / es320 headers over one body).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from OpenGL import GL
from OpenGL.raw.GL.VERSION.GL_4_1 import glClearDepthf as _clear_depthf  # noqa: N813 - the entry point both APIs load (renderer.py)

from app.preview.gl_objects import Framebuffer, clear, link_shaders
from app.preview.stage_geometry import (
    FILTER_SPACING_TEXELS,
    GROUND_EXTENT,
    OCCLUSION_DIRECTIONS,
    OCCLUSION_RADII,
    OCCLUSION_REACH,
    MeshExtent,
    ground_irradiance,
    height_matrix,
    light_matrix,
)

if TYPE_CHECKING:
    from app.preview.mesh import Mesh
    from app.preview.renderer import Renderer

SHADOW_MAP_SIZE = 1024
_OCCLUSION_LOCATION = 5  # the mask pass's per-vertex occlusion; no material input of the scene contract uses it
HEIGHT_MAP_SIZE = 256

_DESKTOP_HEADER = "#version 420 core\n"
_ES_HEADER = "#version 320 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\nprecision highp sampler2DShadow;\n"

_DEPTH_VERTEX = """
layout(location = 0) in vec3 position;
uniform mat4 u_matrix;
void main() { gl_Position = u_matrix * vec4(position, 1.0); }
"""
#: The material's displacement of the mesh ("Displacement and bump", `PassPlan.displacement`), as its vertex
#: stage does it, for the displaced variants of the depth and mask passes (positions are world positions here).
_DISPLACE = """
layout(location = 2) in vec2 texcoord;
uniform sampler2D u_displacement;   // the height buffer (red), read at level 0
uniform vec2 u_displacement_move;   // (scale, mid level)
uniform float u_displacing;         // 1: move the vertex (the mesh), 0: not (the ground)
vec3 displaced(vec3 p, vec3 n) {
    float h = clamp(textureLod(u_displacement, texcoord, 0.0).r, 0.0, 1.0);
    return p + normalize(n) * ((h - u_displacement_move.y) * u_displacement_move.x * u_displacing);
}
"""
_DEPTH_VERTEX_DISPLACED = """
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
uniform mat4 u_matrix;
""" + _DISPLACE + """
void main() { gl_Position = u_matrix * vec4(displaced(position, normal), 1.0); }
"""
_DEPTH_FRAGMENT = """
void main() {}
"""
_MASK_VERTEX = """
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 5) in float occlusion;  // the geometry's ambient occlusion (1 when off, and on the ground)
uniform mat4 u_matrix;
out vec3 v_world;
out vec3 v_normal;
out float v_occlusion;
void main() {
    v_world = position;
    v_normal = normal;
    v_occlusion = occlusion;
    gl_Position = u_matrix * vec4(position, 1.0);
}
"""
_MASK_VERTEX_DISPLACED = """
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 5) in float occlusion;
uniform mat4 u_matrix;
out vec3 v_world;
out vec3 v_normal;
out float v_occlusion;
""" + _DISPLACE + """
void main() {
    v_world = displaced(position, normal);
    v_normal = normal;  // the shadow lookup's offset direction: the undisplaced normal is close enough
    v_occlusion = occlusion;
    gl_Position = u_matrix * vec4(v_world, 1.0);
}
"""
_MASK_FRAGMENT = """
in vec3 v_world;
in vec3 v_normal;
in float v_occlusion;
layout(location = 0) out vec4 out_mask;
uniform int u_ground;               // 0: the mesh (R: visibility, B: occlusion), 1: the ground (G: the catcher's factor)
uniform int u_shadows;              // 1: the shadow map is valid
uniform sampler2DShadow u_shadow_map;
uniform mat4 u_light_matrix;        // world -> the light's clip space
uniform vec3 u_light_direction;     // towards the light
uniform float u_offset;             // normal offset against acne (scene units)
uniform float u_depth_bias;         // one shadow-map texel in depth units
uniform float u_filter;             // PCF tap spacing in shadow-map uv
uniform sampler2D u_shadow_depth;   // the same shadow map read as depths (a sampler object without compare)
uniform float u_light_size;         // tan(half the key light's angular diameter); 0: the fixed filter alone
uniform float u_depth_span;         // scene units per unit of shadow-map depth
uniform float u_map_extent;         // scene units across the shadow map
uniform sampler2D u_below;          // depth of the mesh's underside seen from below (1: no mesh)
uniform sampler2D u_above;          // depth of the mesh's top seen from above (1: no mesh)
uniform vec2 u_height_range;        // (y at depth 0 of u_below, y at depth 0 of u_above)
uniform float u_height_extent;      // the height maps cover x, z in [-extent, extent]
uniform float u_ground_y;
uniform float u_environment_e;      // the environment's irradiance on the open ground
uniform float u_light_e;            // the key light's irradiance on the open ground

float visibility(vec3 p, vec3 n) {
    if (u_shadows == 0) return 1.0;
    // Receiver bias against self-shadowing ("acne"): the taps reach FILTER_REACH texels sideways, where a
    // surface sloped to the light lies deeper by reach * tan(angle); offset along the normal as well.
    float facing = clamp(dot(n, u_light_direction), 0.05, 1.0);
    float slope = min(sqrt(1.0 - facing * facing) / facing, 8.0);
    vec4 clip = u_light_matrix * vec4(p + n * u_offset * (2.0 - facing), 1.0);
    vec3 s = clip.xyz / clip.w * 0.5 + 0.5;
    float bias = u_depth_bias * (1.0 + %(reach_texels).1f * slope);
    if (s.x <= 0.0 || s.y <= 0.0 || s.x >= 1.0 || s.y >= 1.0) return 1.0;
    // Interleaved gradient noise turns the tap grid per pixel: a smooth penumbra instead of 25 steps.
    float angle = 6.2831853 * fract(52.9829189 * fract(dot(gl_FragCoord.xy, vec2(0.06711056, 0.00583715))));
    mat2 turn = mat2(cos(angle), sin(angle), -sin(angle), cos(angle));
    float spacing = u_filter;
    if (u_light_size > 0.0) {
        // Percentage-closer soft shadows (Fernando 2005): the mean depth of the occluders found in a search
        // region as wide as the light seen from the receiver gives the penumbra's width, which sets the
        // spacing of the filter taps (5 x 5 taps span four spacings).
        float search = u_light_size * 0.5;  // uv: the light's footprint for occluders up to half the map away
        float blockers = 0.0;
        float found = 0.0;
        for (int i = -3; i <= 3; ++i) {
            for (int j = -3; j <= 3; ++j) {
                float depth = texture(u_shadow_depth, s.xy + turn * (vec2(float(i), float(j)) * (search / 3.0))).r;
                if (depth < s.z - bias) { blockers += depth; found += 1.0; }
            }
        }
        if (found == 0.0) return 1.0;
        float distance = (s.z - blockers / found) * u_depth_span;  // receiver to occluder, scene units
        float penumbra = 2.0 * u_light_size * distance / u_map_extent;  // uv
        spacing = max(u_filter, penumbra / 4.0);
    }
    float lit = 0.0;
    for (int i = -2; i <= 2; ++i) {
        for (int j = -2; j <= 2; ++j) {
            vec2 tap = s.xy + turn * (vec2(float(i), float(j)) * spacing);
            lit += texture(u_shadow_map, vec3(tap, s.z - bias));
        }
    }
    return lit / 25.0;
}

// Horizon-based occlusion of the open sky over a ground point by the mesh: along each direction the mesh
// spans elevations whose sines squared (h^2 / (h^2 + r^2)) bound the cosine-weighted share of that slice of
// sky it hides; weighted down with the distance r (gone at OCCLUSION_REACH) so it stays a contact shadow.
float ground_occlusion(vec2 xz) {
    if (length(xz) > u_height_extent) return 1.0;  // farther than any sample reaches from the mesh
    const int DIRECTIONS = %(directions)d;
    const float RADII[%(ring_count)d] = float[](%(radii)s);
    float hidden = 0.0;
    for (int d = 0; d < DIRECTIONS; ++d) {
        float a = 6.2831853 * (float(d) + 0.5) / float(DIRECTIONS);
        vec2 direction = vec2(cos(a), sin(a));
        float slice = 0.0;
        for (int r = 0; r < %(ring_count)d; ++r) {
            vec2 p = xz + direction * RADII[r];
            vec2 uv = p / (2.0 * u_height_extent) + 0.5;
            if (uv.x <= 0.0 || uv.y <= 0.0 || uv.x >= 1.0 || uv.y >= 1.0) continue;
            float below = texture(u_below, uv).r;
            if (below >= 0.99999) continue;
            float above = texture(u_above, uv).r;
            float span = u_height_range.y - u_height_range.x;
            float under = max(u_height_range.x + below * span - u_ground_y, 0.0);
            float top = max(u_height_range.y - above * span - u_ground_y, under);
            float r2 = RADII[r] * RADII[r];
            float share = top * top / (top * top + r2) - under * under / (under * under + r2);
            float falloff = 1.0 - RADII[r] / %(reach).4f;
            slice = max(slice, share * falloff * falloff);
        }
        hidden += slice;
    }
    return 1.0 - hidden / float(DIRECTIONS);
}

void main() {
    vec3 n = normalize(v_normal);
    if (u_ground == 0) {
        out_mask = vec4(visibility(v_world, n), 1.0, v_occlusion, 1.0);
        return;
    }
    float total = u_environment_e + u_light_e;
    float open_sky = ground_occlusion(v_world.xz);
    float catcher = total > 0.0 ? (u_environment_e * open_sky + u_light_e * visibility(v_world, n)) / total : 1.0;
    out_mask = vec4(1.0, catcher, 1.0, 1.0);
}
"""
_SCREEN_VERTEX = """
layout(location = 0) in vec2 corner;
void main() { gl_Position = vec4(corner, 0.0, 1.0); }
"""
_COMPOSITE_FRAGMENT = """
uniform sampler2D u_lit;       // the material with the key light
uniform sampler2D u_unlit;     // without it
uniform sampler2D u_emission;  // without the key light and the environment
uniform sampler2D u_mask;
layout(location = 0) out vec4 out_radiance;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 lit = texelFetch(u_lit, p, 0);
    vec3 unlit = texelFetch(u_unlit, p, 0).rgb;
    vec3 emission = texelFetch(u_emission, p, 0).rgb;
    vec4 mask = texelFetch(u_mask, p, 0);
    out_radiance = vec4(emission + mask.b * (unlit - emission) + mask.r * (lit.rgb - unlit), lit.a);
}
"""
_CATCH_FRAGMENT = """
uniform sampler2D u_mask;
layout(location = 0) out vec4 out_factor;
void main() {
    out_factor = vec4(vec3(texelFetch(u_mask, ivec2(gl_FragCoord.xy), 0).g), 1.0);
}
"""


def _fill(body: str) -> str:
    return body % {"directions": OCCLUSION_DIRECTIONS, "ring_count": len(OCCLUSION_RADII),
                   "radii": ", ".join(f"{r:.4f}" for r in OCCLUSION_RADII), "reach": OCCLUSION_REACH,
                   "reach_texels": 2.0 * FILTER_SPACING_TEXELS * math.sqrt(2.0) + 1.0}


class StagePasses:
    """The GL objects and passes of shadows and ground for one `Renderer` (module docstring)."""

    def __init__(self) -> None:
        self._programs: dict[str, int] = {}
        self._locations: dict[tuple[str, str], int] = {}
        self._depth_targets: dict[str, tuple[int, int, int]] = {}  # name -> (framebuffer, texture, size)
        #: name -> what its depth target was last drawn with (`_depth_key`); the mesh is held so its id stays its own
        self._depth_keys: dict[str, tuple[object, ...]] = {}
        self._depth_mesh: Mesh | None = None
        #: Depth passes drawn since this object was made (tests: a still refined frame draws none again).
        self.depth_renders = 0
        self._targets: dict[str, Framebuffer] = {}
        self._ground_array = 0
        self._ground_buffer = 0
        self._extent: tuple[Mesh, MeshExtent] | None = None
        self._occlusion: tuple[Mesh, int] | None = None  # (the mesh, the buffer of its per-vertex occlusion)
        self._occlusion_vbo = 0
        self._sampler = 0

    # ---- resources ----------------------------------------------------------------------

    def release(self) -> None:
        for program in self._programs.values():
            GL.glDeleteProgram(program)
        self._programs.clear()
        self._locations.clear()
        for framebuffer, texture, _size in self._depth_targets.values():
            GL.glDeleteFramebuffers(1, [framebuffer])
            GL.glDeleteTextures(1, [texture])
        self._depth_targets.clear()
        self._depth_keys.clear()
        self._depth_mesh = None
        for target in self._targets.values():
            target.delete()
        self._targets.clear()
        if self._sampler:
            GL.glDeleteSamplers(1, [self._sampler])
            self._sampler = 0
        if self._occlusion_vbo:
            GL.glDeleteBuffers(1, [self._occlusion_vbo])
            self._occlusion_vbo = 0
            self._occlusion = None
        if self._ground_array:
            GL.glDeleteVertexArrays(1, [self._ground_array])
            GL.glDeleteBuffers(1, [self._ground_buffer])
            self._ground_array = self._ground_buffer = 0

    def _depth_sampler(self) -> int:
        """A sampler object reading a depth texture's values (no comparison, nearest): the PCSS blocker search."""
        if not self._sampler:
            self._sampler = int(GL.glGenSamplers(1))
            GL.glSamplerParameteri(self._sampler, GL.GL_TEXTURE_COMPARE_MODE, GL.GL_NONE)
            GL.glSamplerParameteri(self._sampler, GL.GL_TEXTURE_MIN_FILTER, GL.GL_NEAREST)
            GL.glSamplerParameteri(self._sampler, GL.GL_TEXTURE_MAG_FILTER, GL.GL_NEAREST)
            GL.glSamplerParameteri(self._sampler, GL.GL_TEXTURE_WRAP_S, GL.GL_CLAMP_TO_EDGE)
            GL.glSamplerParameteri(self._sampler, GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)
        return self._sampler

    def _program(self, name: str, vertex: str, fragment: str, is_es: bool) -> int:
        program = self._programs.get(name)
        if program is None:

            header = _ES_HEADER if is_es else _DESKTOP_HEADER
            program, _log = link_shaders(header + vertex, header + fragment, 0, "out_unused", True)
            self._programs[name] = program
        return program

    def _location(self, name: str, uniform: str) -> int:
        key = (name, uniform)
        if key not in self._locations:
            self._locations[key] = int(GL.glGetUniformLocation(self._programs[name], uniform.encode("ascii") + b"\0"))
        return self._locations[key]

    def _depth_target(self, name: str, size: int, compare: bool) -> tuple[int, int]:
        existing = self._depth_targets.get(name)
        if existing is not None:
            return existing[0], existing[1]
        texture = int(GL.glGenTextures(1))
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_DEPTH_COMPONENT24, size, size, 0, GL.GL_DEPTH_COMPONENT, GL.GL_UNSIGNED_INT, None)
        filtering = GL.GL_LINEAR if compare else GL.GL_NEAREST
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, filtering)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, filtering)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, GL.GL_CLAMP_TO_EDGE)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)
        if compare:
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_COMPARE_MODE, GL.GL_COMPARE_REF_TO_TEXTURE)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_COMPARE_FUNC, GL.GL_LEQUAL)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        framebuffer = int(GL.glGenFramebuffers(1))
        previous = int(GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING))
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_DEPTH_ATTACHMENT, GL.GL_TEXTURE_2D, texture, 0)
        GL.glDrawBuffers(1, np.array([GL.GL_NONE], dtype=np.uint32))
        GL.glReadBuffer(GL.GL_NONE)
        status = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, previous)
        if status != GL.GL_FRAMEBUFFER_COMPLETE:
            raise RuntimeError(f"shadow-map framebuffer incomplete (status 0x{int(status):x})")
        self._depth_targets[name] = (framebuffer, texture, size)
        return framebuffer, texture

    def _target(self, name: str, width: int, height: int, color_index: int, color_format: int) -> Framebuffer:

        target = self._targets.get(name)
        if target is None or not target.matches(width, height, color_index, color_format, True):
            if target is not None:
                target.delete()
            target = self._targets[name] = Framebuffer(width, height, color_index, color_format, sampled=True)
        return target

    def _ground(self, y: float) -> int:
        """The ground square's VAO (position, normal at locations 0 and 1) at height `y`."""
        e = GROUND_EXTENT
        corners = [(-e, y, -e), (-e, y, e), (e, y, e), (-e, y, -e), (e, y, e), (e, y, -e)]
        data = np.array([[*corner, 0.0, 1.0, 0.0] for corner in corners], dtype=np.float32)
        if not self._ground_array:
            self._ground_array = int(GL.glGenVertexArrays(1))
            self._ground_buffer = int(GL.glGenBuffers(1))
        GL.glBindVertexArray(self._ground_array)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._ground_buffer)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, data, GL.GL_DYNAMIC_DRAW)
        GL.glVertexAttribPointer(0, 3, GL.GL_FLOAT, GL.GL_FALSE, 24, ctypes.c_void_p(0))
        GL.glVertexAttribPointer(1, 3, GL.GL_FLOAT, GL.GL_FALSE, 24, ctypes.c_void_p(12))
        GL.glEnableVertexAttribArray(0)
        GL.glEnableVertexAttribArray(1)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        return self._ground_array

    def extent(self, renderer: Renderer) -> MeshExtent:
        mesh = renderer.mesh()
        if self._extent is None or self._extent[0] is not mesh:
            self._extent = (mesh, MeshExtent.of(mesh.positions))
        extent = self._extent[1]
        moved = renderer.passes.displacement()
        if moved is None:
            return extent
        _texture, scale, mid_level = moved
        reach = scale * max(abs(mid_level), abs(1.0 - mid_level))  # the farthest a vertex moves
        return MeshExtent(extent.radius + reach, extent.bottom - reach, extent.top + reach)

    def _displace(self, renderer: Renderer, program: str, unit: int) -> bool:
        """Set the displaced program `program`'s displacement uniforms (height texture on `unit`); False when the
        material does not displace the mesh."""
        moved = renderer.passes.displacement()
        if moved is None:
            return False
        texture, scale, mid_level = moved
        GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glUniform1i(self._location(program, "u_displacement"), unit)
        GL.glUniform2f(self._location(program, "u_displacement_move"), scale, mid_level)
        GL.glUniform1f(self._location(program, "u_displacing"), 1.0)
        return True

    # ---- passes ---------------------------------------------------------------------------

    def _draw_mesh(self, renderer: Renderer, occlusion: int = 0, texcoords: bool = False) -> None:
        """The renderer's mesh, positions and normals (texture coordinates too with `texcoords`; and
        `occlusion`'s per-vertex values at location 5)."""
        GL.glBindVertexArray(renderer._vertex_array)
        GL.glEnableVertexAttribArray(0)
        GL.glEnableVertexAttribArray(1)
        for location in (2, 3, 4):
            if location == 2 and texcoords:
                GL.glEnableVertexAttribArray(location)
            else:
                GL.glDisableVertexAttribArray(location)
        if occlusion:
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, occlusion)
            GL.glVertexAttribPointer(_OCCLUSION_LOCATION, 1, GL.GL_FLOAT, GL.GL_FALSE, 4, ctypes.c_void_p(0))
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
            GL.glEnableVertexAttribArray(_OCCLUSION_LOCATION)
        GL.glDrawElements(GL.GL_TRIANGLES, renderer._index_count, GL.GL_UNSIGNED_INT, None)
        # The materials' programs bind locations 0..4 themselves; a foreign module's input at 5 gets its constant.
        GL.glDisableVertexAttribArray(_OCCLUSION_LOCATION)
        GL.glBindVertexArray(0)

    @staticmethod
    def _depth_key(renderer: Renderer, matrix: np.ndarray) -> tuple[object, ...] | None:
        """All a depth pass's result depends on: the mesh (by identity: a `Mesh` is frozen, an edit is a new one),
        the matrix (light direction and the scene's extent), and the displacement (its height texture, the
        version of the pass that drew it, its scale and mid level); None when that cannot be told (a
        displacement whose pass version is unknown): then it is drawn every frame."""
        moved = renderer.passes.displacement()
        displacement: tuple[object, ...] = ()
        if moved is not None:
            version = renderer.passes.displacement_version()
            if version is None:
                return None
            displacement = (*moved, version)
        return (id(renderer.mesh()), renderer._index_count, matrix.astype(np.float32).tobytes(), displacement)

    def _depth_pass(self, renderer: Renderer, name: str, size: int, matrix: np.ndarray, compare: bool, offset: bool) -> int:
        """The depth target `name` drawn with `matrix`: again only when what it depends on changed (`_depth_key`),
        so the still preview's refined frames, whose camera and jitter it does not read, draw it once."""
        framebuffer, texture = self._depth_target(name, size, compare)
        key = self._depth_key(renderer, matrix)
        if key is not None and self._depth_keys.get(name) == key and self._depth_mesh is renderer.mesh():
            return texture
        self._depth_keys.pop(name, None)
        self.depth_renders += 1
        displacing = renderer.passes.displacement() is not None
        name_of = "depth_displaced" if displacing else "depth"
        program = self._program(name_of, _DEPTH_VERTEX_DISPLACED if displacing else _DEPTH_VERTEX, _DEPTH_FRAGMENT,
                                renderer.is_es)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        GL.glViewport(0, 0, size, size)
        GL.glDepthMask(GL.GL_TRUE)
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glDepthFunc(GL.GL_LESS)
        GL.glDisable(GL.GL_CULL_FACE)
        _clear_depthf(1.0)
        GL.glClear(GL.GL_DEPTH_BUFFER_BIT)
        if offset:
            GL.glEnable(GL.GL_POLYGON_OFFSET_FILL)
            GL.glPolygonOffset(1.5, 2.0)
        GL.glUseProgram(program)
        GL.glUniformMatrix4fv(self._location(name_of, "u_matrix"), 1, GL.GL_FALSE, np.ascontiguousarray(matrix.T).reshape(-1))
        if displacing:
            self._displace(renderer, name_of, 0)
        self._draw_mesh(renderer, texcoords=displacing)
        if displacing:
            self._unbind_textures(1)
        GL.glDisable(GL.GL_POLYGON_OFFSET_FILL)
        GL.glUseProgram(0)
        if key is not None:
            if self._depth_mesh is not renderer.mesh():
                self._depth_keys = {}
                self._depth_mesh = renderer.mesh()
            self._depth_keys[name] = key
        return texture

    def radiance(self, renderer: Renderer, width: int, height: int, location: int, environment_background: bool,
                 cleared: Sequence[float]) -> Framebuffer:
        """The frame's radiance with the mesh's self-shadowing, in a sampled RGBA32F target cleared to `cleared`
        where nothing is drawn; the ground's catcher factor left in the mask target for `catch` (module docstring)."""
        lit = self._target("lit", width, height, location, GL.GL_RGBA32F)
        lit.bind()
        renderer._draw(width, height, cleared, environment_background=environment_background)
        casting = renderer.shadows and renderer.light_intensity > 0.0
        occluding = renderer.occlusion
        if not casting and not occluding and not renderer.ground:
            return lit
        extent = self.extent(renderer)
        radius = max(extent.radius, 1e-3) * 1.02
        shadow_texture = 0
        light, depth_span = light_matrix(renderer.light_direction, radius)
        if casting:
            shadow_texture = self._depth_pass(renderer, "shadow", SHADOW_MAP_SIZE, light, True, True)
        ground_y = extent.bottom - 1e-3
        height_range = (ground_y - 0.01, extent.top + 0.01)
        height_extent = radius + max(OCCLUSION_RADII)  # the height maps, and how far the contact occlusion reaches
        below = above = 0
        if renderer.ground:
            below = self._depth_pass(renderer, "below", HEIGHT_MAP_SIZE,
                                     height_matrix(height_extent, *height_range, from_below=True), False, False)
            above = self._depth_pass(renderer, "above", HEIGHT_MAP_SIZE,
                                     height_matrix(height_extent, *height_range, from_below=False), False, False)
        mask = self._target("mask", width, height, 0, GL.GL_RGBA8)
        mask.bind()

        GL.glViewport(0, 0, width, height)
        clear((1.0, 1.0, 1.0, 1.0))
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glDepthFunc(GL.GL_LESS)
        displacing = renderer.passes.displacement() is not None
        mask_name = "mask_displaced" if displacing else "mask"
        program = self._program(mask_name, _MASK_VERTEX_DISPLACED if displacing else _MASK_VERTEX, _fill(_MASK_FRAGMENT),
                                renderer.is_es)
        GL.glUseProgram(program)
        scene = renderer.scene_values(width, height)
        view_projection = np.asarray(scene["projection"], dtype=np.float32) @ np.asarray(scene["view"], dtype=np.float32)
        texel = 2.0 * radius / SHADOW_MAP_SIZE

        def uniform(name: str) -> int:
            return self._location(mask_name, name)

        GL.glUniformMatrix4fv(uniform("u_matrix"), 1, GL.GL_FALSE, np.ascontiguousarray(view_projection.T).reshape(-1))
        GL.glUniformMatrix4fv(uniform("u_light_matrix"), 1, GL.GL_FALSE, np.ascontiguousarray(light.T).reshape(-1))
        GL.glUniform3f(uniform("u_light_direction"), *(float(c) for c in renderer.light_direction))
        GL.glUniform1i(uniform("u_shadows"), 1 if casting else 0)
        GL.glUniform1f(uniform("u_offset"), 1.5 * texel)
        GL.glUniform1f(uniform("u_depth_bias"), 1.0 * texel / depth_span)
        GL.glUniform1f(uniform("u_filter"), FILTER_SPACING_TEXELS / SHADOW_MAP_SIZE)
        GL.glUniform1f(uniform("u_light_size"), math.tan(math.radians(renderer.light_size) / 2.0) if casting else 0.0)
        GL.glUniform1f(uniform("u_depth_span"), depth_span)
        GL.glUniform1f(uniform("u_map_extent"), 2.0 * radius)
        GL.glUniform2f(uniform("u_height_range"), *height_range)
        GL.glUniform1f(uniform("u_height_extent"), height_extent)
        GL.glUniform1f(uniform("u_ground_y"), ground_y)
        environment_e, light_e = ground_irradiance(renderer)
        GL.glUniform1f(uniform("u_environment_e"), environment_e)
        GL.glUniform1f(uniform("u_light_e"), light_e)
        textures = (("u_shadow_map", shadow_texture), ("u_below", below), ("u_above", above), ("u_shadow_depth", shadow_texture))
        for unit, (name, texture) in enumerate(textures):
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
            GL.glUniform1i(uniform(name), unit)
        GL.glBindSampler(3, self._depth_sampler())  # the shadow map's depths, not compared
        GL.glUniform1i(uniform("u_ground"), 0)
        GL.glVertexAttrib1f(_OCCLUSION_LOCATION, 1.0)
        if displacing:
            self._displace(renderer, mask_name, len(textures))
        self._draw_mesh(renderer, self._occlusion_buffer(renderer) if occluding else 0, texcoords=displacing)
        GL.glVertexAttrib1f(_OCCLUSION_LOCATION, 1.0)
        if renderer.ground:
            GL.glUniform1i(uniform("u_ground"), 1)
            if displacing:
                GL.glUniform1f(uniform("u_displacing"), 0.0)
            GL.glBindVertexArray(self._ground(ground_y))
            GL.glDrawArrays(GL.GL_TRIANGLES, 0, 6)
            GL.glBindVertexArray(0)
        GL.glBindSampler(3, 0)
        self._unbind_textures(len(textures) + (1 if displacing else 0))
        GL.glUseProgram(0)
        if not casting and not occluding:
            return lit
        unlit = lit
        if renderer.light_intensity > 0.0:
            unlit = self._material_pass(renderer, "unlit", width, height, location, environment_background, cleared, 0.0, None)
        emission = unlit
        if occluding:
            emission = self._material_pass(renderer, "emission", width, height, location, environment_background, cleared,
                                           0.0, 0.0)
        shadowed = self._target("shadowed", width, height, 0, GL.GL_RGBA32F)
        shadowed.bind()
        self._screen_pass(renderer, "composite", _COMPOSITE_FRAGMENT, width, height,
                          (("u_lit", lit.texture), ("u_unlit", unlit.texture), ("u_emission", emission.texture),
                           ("u_mask", mask.texture)))
        return shadowed

    def _material_pass(self, renderer: Renderer, name: str, width: int, height: int, location: int,
                       environment_background: bool, cleared: Sequence[float], light: float,
                       environment: float | None) -> Framebuffer:
        """The material drawn again with the key light's intensity `light` (and the environment's, unless None)."""
        target = self._target(name, width, height, location, GL.GL_RGBA32F)
        target.bind()
        saved = renderer.light_intensity, renderer.environment_intensity
        renderer.light_intensity = light
        if environment is not None:
            renderer.environment_intensity = environment
        try:
            renderer._draw(width, height, cleared, environment_background=environment_background)
        finally:
            renderer.light_intensity, renderer.environment_intensity = saved
        return target

    def _occlusion_buffer(self, renderer: Renderer) -> int:
        """A buffer of the mesh's per-vertex occlusion (computed once per mesh, `mesh_occlusion`)."""
        from app.preview.mesh_occlusion import vertex_occlusion

        mesh = renderer.mesh()
        if self._occlusion is None or self._occlusion[0] is not mesh:
            values = vertex_occlusion(mesh.positions, mesh.normals, mesh.indices)
            if not self._occlusion_vbo:
                self._occlusion_vbo = int(GL.glGenBuffers(1))
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._occlusion_vbo)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, np.ascontiguousarray(values, dtype=np.float32), GL.GL_STATIC_DRAW)
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
            self._occlusion = (mesh, self._occlusion_vbo)
        return self._occlusion_vbo

    def catch(self, renderer: Renderer, width: int, height: int) -> None:
        """Multiply the bound (displayed) frame by the ground's catcher factor from the last `radiance`."""
        mask = self._targets.get("mask")
        if mask is None:
            return
        GL.glEnable(GL.GL_BLEND)
        GL.glBlendFuncSeparate(GL.GL_ZERO, GL.GL_SRC_COLOR, GL.GL_ZERO, GL.GL_ONE)
        try:
            self._screen_pass(renderer, "catch", _CATCH_FRAGMENT, width, height, (("u_mask", mask.texture),))
        finally:
            GL.glDisable(GL.GL_BLEND)

    def _screen_pass(self, renderer: Renderer, name: str, fragment: str, width: int, height: int,
                     textures: Sequence[tuple[str, int]], integers: Sequence[tuple[str, int]] = ()) -> None:
        program = self._program(name, _SCREEN_VERTEX, fragment, renderer.is_es)
        renderer._ensure_full_screen_triangle()
        GL.glViewport(0, 0, width, height)
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glUseProgram(program)
        for uniform, value in integers:
            GL.glUniform1i(self._location(name, uniform), value)
        for unit, (uniform, texture) in enumerate(textures):
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
            GL.glUniform1i(self._location(name, uniform), unit)
        GL.glBindVertexArray(renderer._post_vertex_array)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 3)
        GL.glBindVertexArray(0)
        self._unbind_textures(len(textures))
        GL.glUseProgram(0)

    @staticmethod
    def _unbind_textures(count: int) -> None:
        for unit in range(count):
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
