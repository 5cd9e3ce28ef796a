"""The preview's post pass, written in VPL: exposure, a tone mapper and the sRGB encoding.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `app/preview/post.py`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from app.material.nodes.pbr_functions import HelperSet, call, constant3, linear_to_srgb, parameters, saturate, splat3
from app.material.textures import srgb_to_linear
from vpl_core.backends import glsl
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.ir.builder import FunctionBuilder, StageBuilder, add_uniform
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.module import Module, Semantic
from vpl_core.ir.types import FLOAT, SAMPLER2D, VOID, mat, vec
from vpl_core.ir.values import Operand, RegisterValue
from vpl_core.publish import VerifiedModule

#: Tone mapper names in menu order, with their titles.
TONE_MAPPERS: dict[str, str] = {
    "pbr_neutral": "Khronos PBR Neutral",
    "aces": "ACES filmic",
    "agx": "AgX",
    "reinhard": "Reinhard",
    "none": "None (clip)",
}
DEFAULT_TONE_MAPPER = "pbr_neutral"

HDR_IMAGE_UNIFORM = "hdr_image"
EXPOSURE_UNIFORM = "exposure_scale"
BACKGROUND_UNIFORM = "background_color"
#: The HDR target's clear value: marks pixels no surface covered.
UNCOVERED = -1.0
FULL_SCREEN_TRIANGLE = np.array([(-1.0, -1.0), (3.0, -1.0), (-1.0, 3.0)], dtype=np.float32)

# Matrices as rows (the VPL below builds columns from them).
ACES_INPUT = ((0.59719, 0.35458, 0.04823), (0.07600, 0.90834, 0.01566), (0.02840, 0.13383, 0.83777))
ACES_OUTPUT = ((1.60475, -0.53108, -0.07367), (-0.10208, 1.10813, -0.00605), (-0.00327, -0.07276, 1.07602))
ACES_EXPOSURE_BOOST = 1.0 / 0.6
SRGB_TO_REC2020 = ((0.6274, 0.3293, 0.0433), (0.0691, 0.9195, 0.0113), (0.0164, 0.0880, 0.8956))
REC2020_TO_SRGB = ((1.6605, -0.5876, -0.0728), (-0.1246, 1.1329, -0.0083), (-0.0182, -0.1006, 1.1187))
AGX_INSET = (
    (0.856627153315983, 0.0951212405381588, 0.0482516061458583),
    (0.137318972929847, 0.761241990602591, 0.101439036467562),
    (0.11189821299995, 0.0767994186031903, 0.811302368396859),
)
AGX_OUTSET = (
    (1.1271005818144368, -0.11060664309660323, -0.016493938717834573),
    (-0.1413297634984383, 1.157823702216272, -0.016493938717834257),
    (-0.14132976349843826, -0.11060664309660294, 1.2519364065950405),
)
AGX_MIN_EV, AGX_MAX_EV = -12.47393, 4.026069
#: Benjamin Wrensch's fit of AgX's default contrast curve, by rising power (x^0 .. x^6).
AGX_CONTRAST = (-0.00232, 0.1191, 0.4298, -6.868, 31.96, -40.14, 15.5)
NEUTRAL_START_COMPRESSION = 0.8 - 0.04
NEUTRAL_DESATURATION = 0.15


# VPL ----------------------------------------------------------------------------------------


def _matrix(fn: FunctionBuilder, rows: tuple[tuple[float, ...], ...]) -> RegisterValue:
    columns = [constant3(fn, [row[column] for row in rows]) for column in range(3)]
    return fn.construct(mat(3), *columns)


def _max3(fn: FunctionBuilder, color: Operand) -> RegisterValue:
    x, y, z = (fn.swizzle(color, letter) for letter in "xyz")
    return call(fn, Builtin.MAX, FLOAT, x, call(fn, Builtin.MAX, FLOAT, y, z))


def _min3(fn: FunctionBuilder, color: Operand) -> RegisterValue:
    x, y, z = (fn.swizzle(color, letter) for letter in "xyz")
    return call(fn, Builtin.MIN, FLOAT, x, call(fn, Builtin.MIN, FLOAT, y, z))


def _build_pbr_neutral(owner: HelperSet, fn: FunctionBuilder) -> None:
    (color,) = parameters(fn, 1)
    darkest = _min3(fn, color)
    low_offset = fn.subtract(darkest, fn.multiply(fn.f(6.25), fn.multiply(darkest, darkest)))
    offset = call(fn, Builtin.SELECT, FLOAT, fn.binary(BinaryOperator.LESS, darkest, fn.f(0.08)), low_offset, fn.f(0.04))
    shifted = fn.subtract(color, splat3(fn, offset))
    peak = _max3(fn, shifted)
    compress, keep = fn.new_block(), fn.new_block()
    fn.branch_if(fn.binary(BinaryOperator.LESS, peak, fn.f(NEUTRAL_START_COMPRESSION)), keep, compress)
    fn.position_at(keep)
    fn.ret(shifted)
    fn.position_at(compress)
    d = 1.0 - NEUTRAL_START_COMPRESSION
    new_peak = fn.subtract(fn.f(1.0), fn.divide(fn.f(d * d), fn.add(peak, fn.f(d - NEUTRAL_START_COMPRESSION))))
    scaled = fn.multiply(shifted, fn.divide(new_peak, peak))
    weight = fn.subtract(fn.f(1.0), fn.divide(fn.f(1.0), fn.add(fn.multiply(fn.f(NEUTRAL_DESATURATION), fn.subtract(peak, new_peak)), fn.f(1.0))))
    fn.ret(call(fn, Builtin.MIX, vec(3), scaled, splat3(fn, new_peak), splat3(fn, weight)))


def _build_aces(owner: HelperSet, fn: FunctionBuilder) -> None:
    (color,) = parameters(fn, 1)
    v = fn.multiply(_matrix(fn, ACES_INPUT), fn.multiply(color, fn.f(ACES_EXPOSURE_BOOST)))
    a = fn.subtract(fn.multiply(v, fn.add(v, splat3(fn, 0.0245786))), splat3(fn, 0.000090537))
    b = fn.add(fn.multiply(v, fn.add(fn.multiply(v, fn.f(0.983729)), splat3(fn, 0.4329510))), splat3(fn, 0.238081))
    fn.ret(fn.multiply(_matrix(fn, ACES_OUTPUT), fn.divide(a, b)))


def _build_agx(owner: HelperSet, fn: FunctionBuilder) -> None:
    (color,) = parameters(fn, 1)
    inset = fn.multiply(_matrix(fn, AGX_INSET), fn.multiply(_matrix(fn, SRGB_TO_REC2020), color))
    logarithm = call(fn, Builtin.LOG2, vec(3), call(fn, Builtin.MAX, vec(3), inset, splat3(fn, 1e-10)))
    encoded = saturate(fn, fn.divide(fn.subtract(logarithm, splat3(fn, AGX_MIN_EV)), fn.f(AGX_MAX_EV - AGX_MIN_EV)))
    # Horner's scheme over the rising-power coefficients.
    curve: Operand = splat3(fn, AGX_CONTRAST[-1])
    for coefficient in reversed(AGX_CONTRAST[:-1]):
        curve = fn.add(fn.multiply(curve, encoded), splat3(fn, coefficient))
    outset = fn.multiply(_matrix(fn, AGX_OUTSET), curve)
    linear = call(fn, Builtin.POW, vec(3), call(fn, Builtin.MAX, vec(3), outset, splat3(fn, 0.0)), splat3(fn, 2.2))
    fn.ret(fn.multiply(_matrix(fn, REC2020_TO_SRGB), linear))


def _build_reinhard(owner: HelperSet, fn: FunctionBuilder) -> None:
    (color,) = parameters(fn, 1)
    fn.ret(fn.divide(color, fn.add(color, splat3(fn, 1.0))))


def _build_none(owner: HelperSet, fn: FunctionBuilder) -> None:
    (color,) = parameters(fn, 1)
    fn.ret(color)


_BUILDERS = {
    "pbr_neutral": _build_pbr_neutral,
    "aces": _build_aces,
    "agx": _build_agx,
    "reinhard": _build_reinhard,
    "none": _build_none,
}


def post_module(tone_mapper: str) -> Module:
    """The post pass for `tone_mapper` (a key of TONE_MAPPERS) as a VPL module."""
    if tone_mapper not in _BUILDERS:
        raise ValueError(f"unknown tone mapper {tone_mapper!r}; expected one of {', '.join(TONE_MAPPERS)}")
    module = Module()
    image = add_uniform(module, HDR_IMAGE_UNIFORM, SAMPLER2D)
    exposure = add_uniform(module, EXPOSURE_UNIFORM, FLOAT)
    background = add_uniform(module, BACKGROUND_UNIFORM, vec(3))

    vertex = StageBuilder(module.vertex)
    corner = vertex.input("corner", vec(2), 0)
    clip = vertex.output("clip_position", vec(4), -1, Semantic.POSITION)
    uv_out = vertex.output("screen_uv", vec(2), 0, Semantic.TEXCOORD)
    main = vertex.function("post_vertex", VOID, entry=True)
    point = main.load(corner)
    main.store(clip, main.construct(vec(4), point, main.f(0.0), main.f(1.0)))
    half = main.construct(vec(2), main.f(0.5), main.f(0.5))
    main.store(uv_out, main.add(main.multiply(point, main.f(0.5)), half))
    main.ret()

    fragment = StageBuilder(module.fragment)
    uv_in = fragment.input("screen_uv", vec(2), 0, Semantic.TEXCOORD)
    output = fragment.output("color", vec(4), 0, Semantic.FRAGMENT_COLOR)
    helpers = HelperSet(fragment)
    entry = fragment.function("post_fragment", VOID, entry=True)
    tone_map = helpers.helper(f"tone_map_{tone_mapper}", _BUILDERS[tone_mapper], [vec(3)], vec(3))
    encode = linear_to_srgb(helpers)
    sampled = entry.call_builtin(Builtin.TEXTURE_LOD, vec(4), entry.load(image), entry.load(uv_in), entry.f(0.0))
    exposed = entry.multiply(entry.swizzle(sampled, "xyz"), entry.load(exposure))
    mapped = saturate(entry, _called(entry.call(tone_map, exposed)))
    display = _called(entry.call(encode, mapped))
    alpha = saturate(entry, entry.swizzle(sampled, "w"))
    shaded = entry.construct(vec(4), display, alpha)
    plain = entry.construct(vec(4), entry.load(background), entry.f(1.0))
    uncovered = entry.binary(BinaryOperator.LESS, entry.swizzle(sampled, "x"), entry.f(UNCOVERED / 2.0))
    entry.store(output, entry.call_builtin(Builtin.SELECT, vec(4), uncovered, plain, shaded))
    entry.ret()
    return module


def _called(value: RegisterValue | None) -> RegisterValue:
    assert value is not None  # helpers here all return a value
    return value


# The environment as background ---------------------------------------------------------------

RAY_MATRIX_UNIFORM = "ray_matrix"
BACKGROUND_ENVIRONMENT_UNIFORM = "environment_specular"
BACKGROUND_ROTATION_UNIFORM = "environment_rotation"
BACKGROUND_INTENSITY_UNIFORM = "environment_intensity"
BACKGROUND_LOD_UNIFORM = "background_lod"


def background_module() -> Module:
    """A full-screen pass writing the environment's radiance seen through each pixel (HDR target).

    Uniforms: `ray_matrix` (mat4: the inverse of projection × view without
    the camera's translation, so that it takes a pixel's normalized device
    coordinates at the far plane to a world direction), `environment_specular`
    (the prefiltered chain), `environment_rotation`, `environment_intensity`,
    `background_lod` (0: sharp; higher: blurred by the GGX prefilter).
    """
    from app.material.nodes.pbr_functions import equirect_uv

    module = Module()
    ray_matrix = add_uniform(module, RAY_MATRIX_UNIFORM, mat(4))
    environment = add_uniform(module, BACKGROUND_ENVIRONMENT_UNIFORM, SAMPLER2D)
    rotation = add_uniform(module, BACKGROUND_ROTATION_UNIFORM, FLOAT)
    intensity = add_uniform(module, BACKGROUND_INTENSITY_UNIFORM, FLOAT)
    lod = add_uniform(module, BACKGROUND_LOD_UNIFORM, FLOAT)

    vertex = StageBuilder(module.vertex)
    corner = vertex.input("corner", vec(2), 0)
    clip = vertex.output("clip_position", vec(4), -1, Semantic.POSITION)
    ndc_out = vertex.output("screen_ndc", vec(2), 0)
    main = vertex.function("background_vertex", VOID, entry=True)
    point = main.load(corner)
    main.store(clip, main.construct(vec(4), point, main.f(0.0), main.f(1.0)))
    main.store(ndc_out, point)
    main.ret()

    fragment = StageBuilder(module.fragment)
    ndc_in = fragment.input("screen_ndc", vec(2), 0)
    output = fragment.output("radiance", vec(4), 0, Semantic.FRAGMENT_COLOR)
    helpers = HelperSet(fragment)
    entry = fragment.function("background_fragment", VOID, entry=True)
    to_uv = equirect_uv(helpers)
    far = entry.construct(vec(4), entry.load(ndc_in), entry.f(1.0), entry.f(1.0))
    direction = entry.swizzle(entry.multiply(entry.load(ray_matrix), far), "xyz")
    uv = _called(entry.call(to_uv, direction, entry.load(rotation)))
    sampled = entry.call_builtin(Builtin.TEXTURE_LOD, vec(4), entry.load(environment), uv, entry.load(lod))
    radiance = entry.multiply(entry.swizzle(sampled, "xyz"), entry.load(intensity))
    entry.store(output, entry.construct(vec(4), radiance, entry.f(1.0)))
    entry.ret()
    return module


@functools.cache
def background_artifact(target: str) -> ProgramArtifact:
    return glsl.compile(VerifiedModule.create(background_module(), label="background"), target=target)


@functools.cache
def post_artifact(tone_mapper: str, target: str) -> ProgramArtifact:
    """The post pass compiled for `target` (cached: modules are deterministic)."""
    verified = VerifiedModule.create(post_module(tone_mapper), label=f"post-{tone_mapper}")
    return glsl.compile(verified, target=target)


# The same pass in numpy -----------------------------------------------------------------------


def _rows(color: np.ndarray, rows: tuple[tuple[float, ...], ...]) -> np.ndarray:
    """The matrix whose rows are `rows` times each colour of (..., 3) (the VPL above builds it from columns)."""
    return color @ np.asarray(rows, dtype=np.float64).T


def _pbr_neutral_numpy(color: np.ndarray) -> np.ndarray:
    darkest = color.min(axis=-1, keepdims=True)
    offset = np.where(darkest < 0.08, darkest - 6.25 * darkest * darkest, 0.04)
    shifted = color - offset
    peak = shifted.max(axis=-1, keepdims=True)
    d = 1.0 - NEUTRAL_START_COMPRESSION
    new_peak = 1.0 - d * d / (peak + (d - NEUTRAL_START_COMPRESSION))
    with np.errstate(divide="ignore", invalid="ignore"):  # peak 0 only where the branch keeps `shifted`
        scaled = shifted * (new_peak / peak)
    weight = 1.0 - 1.0 / (NEUTRAL_DESATURATION * (peak - new_peak) + 1.0)
    compressed = scaled * (1.0 - weight) + new_peak * weight  # mix(scaled, new_peak, weight)
    return np.where(peak < NEUTRAL_START_COMPRESSION, shifted, compressed)


def _aces_numpy(color: np.ndarray) -> np.ndarray:
    v = _rows(color * ACES_EXPOSURE_BOOST, ACES_INPUT)
    a = v * (v + 0.0245786) - 0.000090537
    b = v * (v * 0.983729 + 0.4329510) + 0.238081
    return _rows(a / b, ACES_OUTPUT)


def _agx_numpy(color: np.ndarray) -> np.ndarray:
    inset = _rows(_rows(color, SRGB_TO_REC2020), AGX_INSET)
    encoded = np.clip((np.log2(np.maximum(inset, 1e-10)) - AGX_MIN_EV) / (AGX_MAX_EV - AGX_MIN_EV), 0.0, 1.0)
    curve = np.full_like(encoded, AGX_CONTRAST[-1])
    for coefficient in reversed(AGX_CONTRAST[:-1]):
        curve = curve * encoded + coefficient
    linear = np.maximum(_rows(curve, AGX_OUTSET), 0.0) ** 2.2
    return _rows(linear, REC2020_TO_SRGB)


_NUMPY_TONE_MAPPERS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "pbr_neutral": _pbr_neutral_numpy,
    "aces": _aces_numpy,
    "agx": _agx_numpy,
    "reinhard": lambda color: color / (color + 1.0),
    "none": lambda color: color,
}


def tone_map(color: np.ndarray, tone_mapper: str) -> np.ndarray:
    """`tone_mapper` applied to linear colours (..., 3), as the post module's helper computes it (float64)."""
    if tone_mapper not in _NUMPY_TONE_MAPPERS:
        raise ValueError(f"unknown tone mapper {tone_mapper!r}; expected one of {', '.join(TONE_MAPPERS)}")
    with np.errstate(all="ignore"):  # NaN and infinity are values, as on the GPU
        return np.asarray(_NUMPY_TONE_MAPPERS[tone_mapper](np.asarray(color, dtype=np.float64)), dtype=np.float64)


def encode_srgb(linear: np.ndarray) -> np.ndarray:
    """IEC 61966-2-1 encoding as the `linear_to_srgb` helper computes it: 12.92 c below 0.0031308, else
    1.055 c^(1/2.4) - 0.055."""
    c = np.asarray(linear, dtype=np.float64)
    with np.errstate(all="ignore"):
        curve = 1.055 * np.maximum(c, 0.0) ** (1.0 / 2.4) - 0.055
    return np.where(c >= 0.0031308, curve, c * 12.92)


def display_colors(hdr: np.ndarray, tone_mapper: str, exposure_ev: float, background: Sequence[float]) -> np.ndarray:
    """The post pass over an HDR image (..., 4): display RGBA in [0, 1] (float64), as the post module draws it.

    Exposure, the tone mapper, clipping, sRGB; alpha clipped; where the red
    channel is below UNCOVERED / 2 (nothing drawn there) the plain
    `background` colour (display sRGB) with alpha 1.
    """
    hdr = np.asarray(hdr, dtype=np.float64)
    exposed = hdr[..., :3] * exposure_scale(exposure_ev)
    with np.errstate(invalid="ignore"):
        shown = encode_srgb(np.clip(tone_map(exposed, tone_mapper), 0.0, 1.0))
        alpha = np.clip(hdr[..., 3:4], 0.0, 1.0)
    result = np.concatenate([shown, alpha], axis=-1)
    plain = np.array([*(float(c) for c in background), 1.0])
    return np.where((hdr[..., 0] < UNCOVERED / 2.0)[..., None], plain, result)


def exposure_scale(exposure_ev: float) -> float:
    """2^EV, the multiplier the post pass applies before tone mapping."""
    return float(2.0 ** float(exposure_ev))


def decode_srgb(color: Sequence[float]) -> tuple[float, ...]:
    """sRGB-encoded components in [0, 1] to linear ones (IEC 61966-2-1), on the host."""
    return tuple(float(c) for c in srgb_to_linear(np.asarray([float(v) for v in color])))
