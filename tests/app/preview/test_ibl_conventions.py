"""The IBL layout conventions of app/preview/ibl.py: directions, rotation, roughness levels, filtering.

The filtering references are checked against the real driver: a mip chain
uploaded as GL textures and read with `textureLod` gives what
`ibl.sample_trilinear` computes, so the renderer's tests can trust the
numpy lookups as their reference.
"""

from __future__ import annotations

import numpy as np
import pytest
from OpenGL import GL

from app.preview import ibl

AXES = {
    "-z (behind the object, middle of the background)": ((0.0, 0.0, -1.0), (0.5, 0.5)),
    "+x": ((1.0, 0.0, 0.0), (0.75, 0.5)),
    "-x": ((-1.0, 0.0, 0.0), (0.25, 0.5)),
    "+y (zenith)": ((0.0, 1.0, 0.0), (None, 1.0)),
    "-y (nadir)": ((0.0, -1.0, 0.0), (None, 0.0)),
}


@pytest.mark.parametrize("label", sorted(AXES))
def test_axes_land_where_the_documentation_says(label: str) -> None:
    direction, (u, t) = AXES[label]
    uv = ibl.equirect_uv_from_direction(np.array(direction))
    if u is not None:
        assert uv[0] == pytest.approx(u)
    assert uv[1] == pytest.approx(t)


def test_plus_z_is_the_seam_and_both_sides_of_it_are_one_direction() -> None:
    uv = ibl.equirect_uv_from_direction(np.array([0.0, 0.0, 1.0]))
    assert uv[0] % 1.0 == pytest.approx(0.0, abs=1e-12) or uv[0] == pytest.approx(1.0)
    assert np.allclose(ibl.direction_from_equirect_uv(np.array([0.0, 0.3])), ibl.direction_from_equirect_uv(np.array([1.0, 0.3])))


def test_direction_and_uv_round_trip() -> None:
    rng = np.random.default_rng(7)
    directions = rng.normal(size=(1000, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    back = ibl.direction_from_equirect_uv(ibl.equirect_uv_from_direction(directions))
    assert np.allclose(back, directions, atol=1e-12)
    uv = rng.uniform([0.0, 0.001], [1.0, 0.999], size=(1000, 2))
    assert np.allclose(ibl.equirect_uv_from_direction(ibl.direction_from_equirect_uv(uv)), uv, atol=1e-12)


def test_texel_solid_angles_cover_the_sphere() -> None:
    for height in (1, 7, 64):
        total = ibl.texel_solid_angles(height, 2 * height).sum() * 2 * height
        assert total == pytest.approx(4.0 * np.pi)


def test_rotation_is_counter_clockwise_seen_from_above() -> None:
    # +x rotated by 90 degrees about +y goes to -z (right-handed, y up).
    assert np.allclose(ibl.rotate_about_y(np.array([1.0, 0.0, 0.0]), np.pi / 2), [0.0, 0.0, -1.0])
    # An environment rotated by 90 degrees shows, towards -z, what was at +x.
    looked_up = ibl.environment_direction(np.array([0.0, 0.0, -1.0]), np.pi / 2)
    assert np.allclose(looked_up, [1.0, 0.0, 0.0])


def test_rotation_shifts_the_lookup_u_by_the_angle() -> None:
    # Content at environment coordinate u appears at world coordinate u - angle / 2pi.
    rng = np.random.default_rng(3)
    directions = rng.normal(size=(50, 3))
    angle = 0.7
    world = ibl.equirect_uv_from_direction(directions)
    looked_up = ibl.equirect_uv_from_direction(ibl.environment_direction(directions, angle))
    shift = np.mod(looked_up[:, 0] - world[:, 0], 1.0)
    assert np.allclose(shift, angle / (2 * np.pi))
    assert np.allclose(world[:, 1], looked_up[:, 1])


def test_roughness_and_lod_are_inverse_and_cover_the_chain() -> None:
    roughness = np.linspace(0.0, 1.0, 101)
    lod = ibl.lod_for_roughness(roughness)
    assert lod[0] == 0.0 and lod[-1] == ibl.SPECULAR_LEVELS - 1
    assert np.all(np.diff(lod) > 0)
    assert np.allclose(ibl.roughness_for_lod(lod), roughness)
    levels = ibl.level_roughnesses()
    assert levels[0] == 0.0 and levels[-1] == 1.0
    assert np.allclose(ibl.lod_for_roughness(levels), np.arange(ibl.SPECULAR_LEVELS))


def test_bilinear_sampling_uses_texel_centres_and_the_documented_wrapping() -> None:
    image = np.arange(4 * 8, dtype=np.float64).reshape(4, 8, 1)
    # A texel centre returns the texel.
    assert ibl.sample_bilinear(image, np.array([2.5 / 8, 1.5 / 4]))[0] == image[1, 2, 0]
    # Half way between two texels: their mean.
    assert ibl.sample_bilinear(image, np.array([3.0 / 8, 1.5 / 4]))[0] == pytest.approx(0.5 * (image[1, 2, 0] + image[1, 3, 0]))
    # u wraps: at u = 0 the first and last columns are mixed.
    assert ibl.sample_bilinear(image, np.array([0.0, 1.5 / 4]))[0] == pytest.approx(0.5 * (image[1, 0, 0] + image[1, 7, 0]))
    # t clamps: below the first row centre, the first row.
    assert ibl.sample_bilinear(image, np.array([2.5 / 8, 0.0]))[0] == image[0, 2, 0]


def test_sh_basis_is_orthonormal_on_the_sphere() -> None:
    height = 256
    basis = ibl.sh_basis(ibl.texel_directions(height, 2 * height))
    weights = ibl.texel_solid_angles(height, 2 * height)[..., None]
    gram = np.einsum("hwi,hwj->ij", basis * weights, basis)
    assert np.allclose(gram, np.eye(ibl.SH_COEFFICIENT_COUNT), atol=2e-4)


def test_multiple_scattering_makes_the_white_furnace_exact() -> None:
    lut = np.random.default_rng(0).uniform(0.0, 0.5, size=(ibl.BRDF_LUT_SIZE, ibl.BRDF_LUT_SIZE, 2))
    n_dot_v = np.linspace(0.01, 1.0, 7)[:, None]
    roughness = np.linspace(0.0, 1.0, 9)[None, :]
    ones = np.ones(3)
    specular, diffuse = ibl.multiple_scattering_ibl(lut, ones, np.zeros(3), n_dot_v, roughness, ones, ones)
    assert np.allclose(specular, 1.0)
    assert np.allclose(diffuse, 0.0)


# --- the numpy filtering against the driver's ----------------------------------------------------

VERTEX = """#version 420 core
const vec2 corners[4] = vec2[4](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(-1.0, 1.0), vec2(1.0, 1.0));
void main() { gl_Position = vec4(corners[gl_VertexID], 0.0, 1.0); }
"""
FRAGMENT = """#version 420 core
uniform sampler2D chain;
uniform sampler2D lookups;
layout(location = 0) out vec4 color;
void main() {
    vec4 lookup = texelFetch(lookups, ivec2(gl_FragCoord.xy), 0);
    color = textureLod(chain, lookup.xy, lookup.z);
}
"""


def _texture(levels: list[np.ndarray], internal_format: int, wrap_s: int, wrap_t: int, mipmapped: bool) -> int:
    texture = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
    for level, data in enumerate(levels):
        rgba = np.concatenate([data, np.ones(data.shape[:2] + (4 - data.shape[2],))], axis=2).astype(np.float32)
        height, width = rgba.shape[:2]
        GL.glTexImage2D(GL.GL_TEXTURE_2D, level, internal_format, width, height, 0, GL.GL_RGBA, GL.GL_FLOAT, np.ascontiguousarray(rgba))
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 4)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, len(levels) - 1)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR if mipmapped else GL.GL_NEAREST)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR if mipmapped else GL.GL_NEAREST)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, wrap_s)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, wrap_t)
    return texture


def _gl_texture_lod(levels: list[np.ndarray], lookups: np.ndarray, wrap_s: int, wrap_t: int) -> np.ndarray:
    """textureLod(chain, lookups[i].xy, lookups[i].z) on the current context, as float32 RGB."""
    from gl_programs import compile_shader

    count = len(lookups)
    program = GL.glCreateProgram()
    shaders = [compile_shader(GL.GL_VERTEX_SHADER, VERTEX), compile_shader(GL.GL_FRAGMENT_SHADER, FRAGMENT)]
    for shader in shaders:
        GL.glAttachShader(program, shader)
    GL.glLinkProgram(program)
    assert GL.glGetProgramiv(program, GL.GL_LINK_STATUS), GL.glGetProgramInfoLog(program)
    chain = _texture(levels, GL.GL_RGBA16F, wrap_s, wrap_t, mipmapped=True)
    lookup_data = np.zeros((1, count, 3))
    lookup_data[0] = lookups
    lookup_texture = _texture([lookup_data], GL.GL_RGBA32F, GL.GL_CLAMP_TO_EDGE, GL.GL_CLAMP_TO_EDGE, mipmapped=False)
    framebuffer = int(GL.glGenFramebuffers(1))
    renderbuffer = int(GL.glGenRenderbuffers(1))
    vertex_array = int(GL.glGenVertexArrays(1))
    try:
        GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, renderbuffer)
        GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_RGBA32F, count, 1)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_RENDERBUFFER, renderbuffer)
        assert GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER) == GL.GL_FRAMEBUFFER_COMPLETE
        GL.glViewport(0, 0, count, 1)
        GL.glUseProgram(program)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, chain)
        GL.glActiveTexture(GL.GL_TEXTURE1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, lookup_texture)
        GL.glUniform1i(GL.glGetUniformLocation(program, "chain"), 0)
        GL.glUniform1i(GL.glGetUniformLocation(program, "lookups"), 1)
        GL.glBindVertexArray(vertex_array)
        GL.glDrawArrays(GL.GL_TRIANGLE_STRIP, 0, 4)
        pixels = GL.glReadPixels(0, 0, count, 1, GL.GL_RGBA, GL.GL_FLOAT)
        return np.frombuffer(pixels, dtype=np.float32).reshape(count, 4)[:, :3]
    finally:
        GL.glBindVertexArray(0)
        GL.glUseProgram(0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        GL.glDeleteVertexArrays(1, [vertex_array])
        GL.glDeleteFramebuffers(1, [framebuffer])
        GL.glDeleteRenderbuffers(1, [renderbuffer])
        GL.glDeleteTextures(2, [chain, lookup_texture])
        GL.glDeleteProgram(program)
        for shader in shaders:
            GL.glDeleteShader(shader)


@pytest.mark.gl
def test_sample_trilinear_is_what_texture_lod_returns_on_an_equirect_chain(current_gl) -> None:
    rng = np.random.default_rng(11)
    # A 64x32 base with 6 levels (down to 2x1), values exactly representable in half floats.
    chain = [np.round(rng.uniform(0.0, 4.0, size=(32 >> k, 64 >> k, 3)) * 256) / 256 for k in range(6)]
    uv = rng.uniform(-0.2, 1.2, size=(200, 2))
    uv[:20, 0] = rng.uniform(-0.01, 0.01, 20)  # across the u seam
    uv[20:40, 1] = rng.choice([0.0, 0.004, 0.996, 1.0], 20)  # at the poles
    lod = rng.uniform(-1.0, 7.0, size=200)  # below 0 and above the last level: clamped
    lookups = np.concatenate([uv, lod[:, None]], axis=1)
    got = _gl_texture_lod(chain, lookups, GL.GL_REPEAT, GL.GL_CLAMP_TO_EDGE)
    expected = ibl.sample_trilinear(chain, uv, lod)
    # The driver's filter weights are not exact reals: llvmpipe keeps 8 fractional bits.
    print("MAXDIFF", np.abs(got - expected).max(), np.median(np.abs(got - expected)))
    assert np.allclose(got, expected, atol=4.0 * 2.0 / 256.0, rtol=0.0), np.abs(got - expected).max()
    typical = np.median(np.abs(got - expected))
    assert typical < 0.01


@pytest.mark.gl
def test_brdf_lut_lookup_is_what_the_driver_returns_with_clamping(current_gl) -> None:
    rng = np.random.default_rng(5)
    table = np.round(rng.uniform(0.0, 1.0, size=(16, 16, 2)) * 1024) / 1024
    n_dot_v = rng.uniform(-0.1, 1.1, 100)
    roughness = rng.uniform(-0.1, 1.1, 100)
    lookups = np.stack([n_dot_v, roughness, np.zeros(100)], axis=1)
    got = _gl_texture_lod([np.concatenate([table, np.zeros((16, 16, 1))], axis=2)], lookups, GL.GL_CLAMP_TO_EDGE, GL.GL_CLAMP_TO_EDGE)
    expected = ibl.brdf_lut_lookup(table, n_dot_v, roughness)
    assert np.allclose(got[:, :2], expected, atol=1e-5), np.abs(got[:, :2] - expected).max()
