"""The `passes` entry of an export's `material` section: the texture passes a host runs before the material.

A material with Texture Buffers or filters (docs/texture-space.md) is
several programs: one per texture pass, in run order, then the material,
whose `__pass_*` sampler uniforms read the passes' buffers. `pass_export`
turns the passes compiled for the export's target (`PassPrograms`) into
the programs to write (`<stem>.pass<N>`, N the run order) and the JSON
entry that says how to run them: each pass's buffer (resolution, format,
the GL internal format for the target, wrap, mip-maps), which of its
sampler uniforms reads which earlier pass, which of its uniforms take a
material parameter's value (by the parameter's name: variants apply to
the passes too) and the numbers of its filter values, and which sampler
uniform of the material reads which pass. docs/engine-integration.md
("Texture passes") describes every field; `tools/engine_host.py` follows it.

Nothing is written here, and nothing is left out silently: a pass with
no program for the target, or with a uniform a host could not set,
refuses the whole export (`ExportRefusedError`, naming the node) before any file is
written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.material.parameters import ParameterSpec
from app.material.scene import SCENE_UNIFORM_NAME
from app.material.texture_passes import is_pass_uniform, pass_quad_mesh
from app.session.pass_programs import PassPrograms
from vpl_core.backends.glsl.artifact import ProgramArtifact


class ExportRefusedError(ValueError):
    """The material cannot be exported whole (the message names the node and says why); nothing was written."""


#: The GL internal format of each buffer format on desktop OpenGL and OpenGL ES 3.x (the GL runner's
#: `texture_format`): 16-bit is half float everywhere (16-bit normalized RGBA16 is not colour-renderable on ES
#: 3.2 without EXT_texture_norm16); float is RGBA32F, on ES only with OES_texture_float_linear (ES samples
#: RGBA32F with NEAREST only otherwise, so a filter's taps between texels would read wrong): RGBA16F without.
INTERNAL_FORMATS = {"8-bit": "rgba8", "16-bit": "rgba16f", "float": "rgba32f"}
ES_FLOAT_FALLBACK = "rgba16f"
WRAP_MODES = {"tile": "repeat", "clamp": "clamp_to_edge"}

#: The scene record of every pass: the UV square seen straight on; the fields not listed read zero.
PASS_SCENE = {
    "model": "identity", "view": "identity", "projection": "identity", "normal_matrix": "identity",
    "camera_position": [0.0, 0.0, 1.0], "time": 0.0,
}  # fmt: skip


@dataclass(frozen=True)
class PassExport:
    """What an export writes for a material's texture passes: `programs[i]` under stem `stems[i]`, and the
    `passes` entry of the material section."""

    programs: tuple[ProgramArtifact, ...]
    stems: tuple[str, ...]
    section: dict[str, Any]


def _json_value(value: Any) -> Any:
    return [float(item) for item in value] if isinstance(value, (tuple, list)) else float(value)


def pass_export(programs: PassPrograms, material: ProgramArtifact, specs: Sequence[ParameterSpec], stem: str,
                target: str) -> PassExport:
    """The programs and the `passes` entry for `programs` (compiled for `target`), read by `material`.

    `specs`: the material's parameters (those only a pass declares included). Raises `ExportRefusedError`.
    """
    if not programs.ok:
        raise ExportRefusedError(f"the texture passes do not compile for {target}: "
                            f"{programs.problem or 'a pass has no program'}")
    plan = programs.plan
    material_names = {binding.name: binding.gl_name for binding in material.uniforms}
    index = {each.key: number for number, each in enumerate(plan.passes)}
    parameter_names = {spec.name for spec in specs}
    stems = tuple(f"{stem}.pass{number}" for number in range(len(plan.passes)))
    entries: list[dict[str, Any]] = []
    for number, (each, artifact) in enumerate(zip(plan.passes, programs.artifacts, strict=True)):
        label = programs.label(each.key)
        reads = {item.uniform: item.key for item in each.inputs}
        inputs, parameters, values = [], [], []
        scene_gl_name = None
        for binding in artifact.uniforms:
            name = binding.name
            if name == SCENE_UNIFORM_NAME:
                scene_gl_name = binding.gl_name
            elif name in reads:
                inputs.append({"uniform": name, "gl_name": binding.gl_name, "pass": index[reads[name]]})
            elif name in each.values:
                values.append({"name": name, "gl_name": binding.gl_name, "value": _json_value(each.values[name])})
            elif name in parameter_names:
                parameters.append({"name": name, "gl_name": binding.gl_name})
            else:
                raise ExportRefusedError(f"{label}: its program reads the uniform {name!r}, which is neither a material "
                                    "parameter nor a texture pass; an engine could not set it")
        spec = each.spec
        buffer: dict[str, Any] = {
            "resolution": spec.resolution, "format": spec.format, "internal_format": INTERNAL_FORMATS[spec.format],
            "wrap": WRAP_MODES[spec.wrap], "mipmaps": spec.mipmaps,
            "min_filter": "linear_mipmap_linear" if spec.mipmaps else "linear", "mag_filter": "linear",
        }
        if spec.format == "float" and target.startswith("es"):
            buffer["internal_format_without_float_linear"] = ES_FLOAT_FALLBACK
        entries.append({
            "index": number,
            "key": each.key,
            "node": each.node_id,
            "label": label,
            "vertex": f"{stems[number]}.vert.glsl",
            "fragment": f"{stems[number]}.frag.glsl",
            "reflection": f"{stems[number]}.json",
            "buffer": buffer,
            "output": {"gl_name": artifact.fragment_color_output, "location": max(artifact.fragment_color_location, 0)},
            "scene": scene_gl_name,
            "inputs": inputs,
            "parameters": parameters,
            "values": values,
        })
    material_inputs = [{"uniform": item.uniform, "gl_name": material_names[item.uniform], "pass": index[item.key]}
                       for item in plan.material_inputs if item.uniform in material_names]
    bound = {entry["uniform"] for entry in material_inputs}
    for name in material_names:
        refused = plan.refused_samplers.get(name)
        if refused is not None:  # `with_pass_problems` keeps such a material from compiling; never export half
            raise ExportRefusedError(f"{programs.label(refused)}: {plan.refused[refused]}")
        if is_pass_uniform(name) and name not in bound:
            raise ExportRefusedError(f"the material reads the texture pass uniform {name!r}, which no pass makes")
    quad = pass_quad_mesh()
    section = {
        "target": target,
        "run": entries,
        "material_inputs": material_inputs,
        "quad": {name: [list(item) for item in quad[name]] for name in ("position", "normal", "texcoord", "tangent",
                                                                          "color", "indices")},
        "scene": dict(PASS_SCENE),
        "clear": [0.0, 0.0, 0.0, 0.0],
    }
    return PassExport(tuple(programs.artifacts), stems, section)
