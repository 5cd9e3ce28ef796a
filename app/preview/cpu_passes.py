"""Running a texture-pass plan on the CPU interpreter (no OpenGL): the passes in order, each into its buffer.

`run_plan_cpu(plan)` draws every pass of a `texture_passes.PassPlan` with
the VPL interpreter over its N x N grid (the pass quad, `PASS_SCENE`),
quantises the result to the buffer's format (8-bit: clamped to 0..1 and
rounded to 1/255; 16-bit: binary16; float: binary32) and hands it to the
passes that read it as a `Texture2D` with the buffer's wrap (tile: repeat,
clamp: clamp to edge), bilinear filtering, and a box-filtered mip chain
when the buffer has mip-maps, as a GL host does. `pass_textures` gives the
material's sampler uniforms their textures (`CpuRenderer.set_pass_textures`).
Used by the tests of the filters and for a bake on the CPU.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.material.parameters import ParameterValue
from app.material.scene import SCENE_UNIFORM_NAME, VERTEX_INPUTS_BY_NAME
from app.material.texture_passes import PASS_SCENE, BufferSpec, PassPlan, TexturePass, pass_quad_mesh
from app.material.textures import as_rgba_image, checker_rgba
from app.preview.cpu_renderer import _block_value, _default_block_value
from app.preview.preview_state import scene_record_value
from vpl_core.interp import MeshData, Program, Texture2D, render
from vpl_core.interp.texture import Filter, SamplerState, Wrap, _half
from vpl_core.ir.types import RecordType, SamplerType


def quantise(values: np.ndarray, buffer_format: str) -> np.ndarray:
    """Values as a buffer of `buffer_format` stores them (float32)."""
    if buffer_format == "8-bit":
        return (np.rint(np.clip(values, 0.0, 1.0) * 255.0) / 255.0).astype(np.float32)
    if buffer_format == "16-bit":
        return values.astype(np.float16).astype(np.float32)
    return values.astype(np.float32)


def buffer_texture(image: np.ndarray, spec: BufferSpec) -> Texture2D:
    """A buffer (N, N, 4), first row at the top as `run_plan_cpu` returns it, as the texture its readers sample."""
    base = np.asarray(image, dtype=np.float64)[::-1]
    levels = [base]
    while spec.mipmaps and levels[-1].shape[0] > 1:
        levels.append(quantise(_half(levels[-1]), spec.format).astype(np.float64))
    wrap = Wrap.REPEAT if spec.wrap == "tile" else Wrap.CLAMP_TO_EDGE
    minify = Filter.LINEAR_MIPMAP_LINEAR if spec.mipmaps else Filter.LINEAR
    return Texture2D([level.astype(np.float32) for level in levels],
                     SamplerState(wrap_s=wrap, wrap_t=wrap, min_filter=minify, mag_filter=Filter.LINEAR))


def _quad() -> MeshData:
    data = pass_quad_mesh()
    attributes = {VERTEX_INPUTS_BY_NAME[name].location: np.asarray(values, dtype=np.float32)
                  for name, values in data.items() if name != "indices"}
    return MeshData(attributes, np.asarray(data["indices"], dtype=np.int64))


def _uniforms(each: TexturePass, program: Program, textures: Mapping[str, Texture2D],
              parameters: Mapping[str, ParameterValue], images: Mapping[str, Texture2D]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    readers = {reader.uniform: reader.key for reader in each.inputs}
    for uniform in program.module.uniforms:
        value_type = uniform.type
        if isinstance(value_type, SamplerType):
            key = readers.get(uniform.name)
            # A pass's buffer, else a Texture Parameter's image (the default checker without one, as the preview).
            values[uniform.name] = textures[key] if key is not None else images.get(uniform.name, _checker())
        elif isinstance(value_type, RecordType):
            scene = scene_record_value(value_type, PASS_SCENE) if uniform.name == SCENE_UNIFORM_NAME else None
            values[uniform.name] = _block_value(value_type, scene)
        else:
            live = {value.uniform: value.value for value in each.live_values.values()}
            given: Any = each.values.get(uniform.name, live.get(uniform.name))
            if given is None:
                given = parameters.get(uniform.name)
            if given is None:
                given = next((spec.default for spec in each.parameters if spec.name == uniform.name), None)
            values[uniform.name] = _default_block_value(value_type, given)
    return values


@functools.cache
def _checker() -> Texture2D:
    return Texture2D.from_image(checker_rgba())


def run_pass_cpu(each: TexturePass, textures: Mapping[str, Texture2D],
                 parameters: Mapping[str, ParameterValue] | None = None,
                 images: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
    """One pass's buffer, (N, N, 4) float32, first row at the top (v = 1), quantised to its format.

    `textures`: the buffers of the passes it reads, by pass key; `images`: Texture Parameters' images by
    uniform name (RGBA, as `CpuRenderer.set_texture` takes them; the default checker for the others).
    """
    if each.verified is None:
        raise ValueError(f"pass {each.key} has no verified module")
    program = Program.from_verified(each.verified)
    size = each.spec.resolution
    uploaded = {name: Texture2D.from_image(as_rgba_image(image)) for name, image in (images or {}).items()}
    result = render(program, _quad(), size, size,
                    uniforms=_uniforms(each, program, textures, parameters or {}, uploaded), depth_test=False)
    return quantise(result.color, each.spec.format)


def run_plan_cpu(plan: PassPlan, parameters: Mapping[str, ParameterValue] | None = None,
                 images: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Every pass's buffer by pass key ((N, N, 4) float32, first row at the top: v = 1), run in plan order.

    `parameters`: material parameter values by uniform name (a parameter without one takes its spec's
    default, the value its node holds); `images`: Texture Parameters' images by uniform name (the checker
    for the others). The passes of refused pass nodes (`plan.refused`) are not in the plan: every other pass runs.
    """
    buffers: dict[str, np.ndarray] = {}
    textures: dict[str, Texture2D] = {}
    for each in plan.passes:
        buffers[each.key] = run_pass_cpu(each, textures, parameters, images)
        textures[each.key] = buffer_texture(buffers[each.key], each.spec)
    return buffers


def pass_textures(plan: PassPlan, buffers: Mapping[str, np.ndarray]) -> dict[str, Texture2D]:
    """The material's pass samplers (`plan.material_inputs`) by uniform name, as textures of `buffers`."""
    textures: dict[str, Texture2D] = {}
    for reader in plan.material_inputs:
        each = plan.pass_for(reader.key)
        if each is not None and reader.key in buffers:
            textures[reader.uniform] = buffer_texture(buffers[reader.key], each.spec)
    return textures
