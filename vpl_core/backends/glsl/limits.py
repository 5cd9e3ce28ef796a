"""Resource limits a target guarantees: GLSL within real limits, as target errors.

Every OpenGL and OpenGL ES version guarantees minimum values for its
implementation-dependent maximums ("minimum maximums"). A program within
them links on every conforming implementation of the version; one beyond
them may be rejected by glslang or the driver (a fragment output at location
100, an attribute at 2^31-1), so the backend checks them and reports a
`TargetError` naming the variable or uniform, instead of emitting GLSL that
only some drivers take. A host that knows its context has more (it queried
`GL_MAX_*`) passes its own `Limits` to `compile`.

What is checked, per stage where GL counts per stage (docs/targets.md has the
table with the values and the specification tables they come from):

* vertex inputs: location + span <= MAX_VERTEX_ATTRIBS;
* varyings (vertex outputs, fragment inputs): the sum of their spans <=
  MAX_VARYING_VECTORS (each location counted as a whole vec4, which is at
  most what GL's packing rules need, so they fit however the driver packs);
  and where the GLSL carries varying locations (glsl420, es320) location +
  span <= the varying locations both stages accept (GL 4.2: vertex outputs
  MAX_VERTEX_OUTPUT_COMPONENTS / 4 = 16; ES 3.x: fragment inputs
  MAX_FRAGMENT_INPUT_COMPONENTS / 4 = 15). es300 declares varyings without
  locations (they are only names there), so only the sum applies;
* fragment outputs: location + span <= MAX_DRAW_BUFFERS;
* uniform blocks used by a stage <= MAX_{VERTEX,FRAGMENT}_UNIFORM_BLOCKS,
  and each block's std140 size <= MAX_UNIFORM_BLOCK_SIZE;
* sampler uniforms used by a stage <= MAX_VERTEX_TEXTURE_IMAGE_UNITS /
  MAX_TEXTURE_IMAGE_UNITS.

"Used by a stage" is static use: referenced by any function of the stage,
called or not (GLSL's definition; the backend emits every function). The
combined limits (MAX_COMBINED_*) are at least the sum of the per-stage ones
in every version targeted, so they cannot be exceeded when these hold.
Plain (non-block) uniform storage is left to the driver: its packing rules
differ between drivers and versions.
"""

from __future__ import annotations

from dataclasses import dataclass

from vpl_core.backends.glsl.errors import LimitRule
from vpl_core.backends.glsl.locations import StageInterface, location_span
from vpl_core.backends.glsl.std140 import Std140Layout
from vpl_core.diagnostics import TargetError
from vpl_core.ir.instructions import LoadInstruction, StoreInstruction
from vpl_core.ir.module import Direction, Module, Stage, StageKind
from vpl_core.ir.types import RecordType, SamplerType
from vpl_core.ir.values import IndexReferenceValue, MemberReferenceValue, ReferenceValue, StorageKind


@dataclass(frozen=True)
class Limits:
    """Implementation-dependent maximums (GL names in the comments); a profile holds its version's minimums."""

    vertex_attributes: int          # GL_MAX_VERTEX_ATTRIBS
    varying_locations: int          # explicit varying locations both stages accept (components / 4)
    varying_vectors: int            # GL_MAX_VARYING_VECTORS (vec4 slots of all varyings together)
    draw_buffers: int               # GL_MAX_DRAW_BUFFERS
    vertex_uniform_blocks: int      # GL_MAX_VERTEX_UNIFORM_BLOCKS
    fragment_uniform_blocks: int    # GL_MAX_FRAGMENT_UNIFORM_BLOCKS
    uniform_block_size: int         # GL_MAX_UNIFORM_BLOCK_SIZE (bytes)
    vertex_samplers: int            # GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS
    fragment_samplers: int          # GL_MAX_TEXTURE_IMAGE_UNITS


#: OpenGL 4.2 core (and GLSL 4.20): the minimum maximums of its implementation-dependent value tables.
GL42_MINIMUMS = Limits(
    vertex_attributes=16,
    varying_locations=16,
    varying_vectors=15,
    draw_buffers=8,
    vertex_uniform_blocks=12,
    fragment_uniform_blocks=12,
    uniform_block_size=16384,
    vertex_samplers=16,
    fragment_samplers=16,
)

#: OpenGL ES 3.0 (also WebGL 2) and OpenGL ES 3.2: the same minimums for everything checked here,
#: except four draw buffers.
ES3_MINIMUMS = Limits(
    vertex_attributes=16,
    varying_locations=15,
    varying_vectors=15,
    draw_buffers=4,
    vertex_uniform_blocks=12,
    fragment_uniform_blocks=12,
    uniform_block_size=16384,
    vertex_samplers=16,
    fragment_samplers=16,
)

#: No limit below what the GL integer range allows: for hosts and tests that check limits themselves.
UNLIMITED = Limits(*(2**31,) * 9)


def check_limits(
    module: Module,
    interfaces: dict[StageKind, StageInterface],
    limits: Limits,
    target: str,
    layout: Std140Layout,
    *,
    varying_locations: bool,
) -> None:
    """Raise TargetError for the first resource beyond `limits` (interfaces, blocks, samplers).

    `varying_locations`: the GLSL carries varying locations (so they are checked, not only their sum).
    """
    for stage in module.stages:
        _check_interface(stage, interfaces[stage.kind], limits, target, varying_locations)
    for uniform in module.uniforms:
        if isinstance(uniform.type, RecordType):
            size = layout.block_size(uniform.type)
            if size > limits.uniform_block_size:
                raise TargetError(
                    LimitRule.UNIFORM_BLOCK_SIZE,
                    f"record uniform {uniform.name!r} needs a std140 block of {size} bytes; {target} guarantees "
                    f"{limits.uniform_block_size} (GL_MAX_UNIFORM_BLOCK_SIZE)",
                    subject=uniform,
                )
    for stage in module.stages:
        blocks, samplers = _used_uniforms(module, stage)
        block_limit, sampler_limit = (
            (limits.vertex_uniform_blocks, limits.vertex_samplers)
            if stage.kind is StageKind.VERTEX
            else (limits.fragment_uniform_blocks, limits.fragment_samplers)
        )
        stage_name = stage.kind.value
        if len(blocks) > block_limit:
            uniform = module.uniforms[blocks[block_limit]]
            raise TargetError(
                LimitRule.UNIFORM_BLOCKS,
                f"the {stage_name} stage uses {len(blocks)} record uniforms (uniform blocks), from {uniform.name!r} "
                f"on beyond the {block_limit} that {target} guarantees (GL_MAX_{stage_name.upper()}_UNIFORM_BLOCKS)",
                subject=uniform,
            )
        if len(samplers) > sampler_limit:
            uniform = module.uniforms[samplers[sampler_limit]]
            gl_name = "GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS" if stage.kind is StageKind.VERTEX else "GL_MAX_TEXTURE_IMAGE_UNITS"
            raise TargetError(
                LimitRule.SAMPLERS,
                f"the {stage_name} stage uses {len(samplers)} sampler uniforms, from {uniform.name!r} on beyond the "
                f"{sampler_limit} that {target} guarantees ({gl_name})",
                subject=uniform,
            )


def _check_interface(
    stage: Stage, interface: StageInterface, limits: Limits, target: str, varying_locations: bool
) -> None:
    varying_slots = 0
    for assignment in interface.assignments:
        if assignment.builtin:
            continue
        variable = assignment.variable
        is_varying = (stage.kind is StageKind.VERTEX) is (variable.direction is Direction.OUT)
        if is_varying:
            varying_slots += location_span(variable.type)
            if varying_slots > limits.varying_vectors:
                raise TargetError(
                    LimitRule.VARYING_VECTORS,
                    f"{stage.kind.value} {variable.direction.value}put {variable.name!r} brings the varyings to "
                    f"{varying_slots} vec4 slots; {target} guarantees {limits.varying_vectors} "
                    f"(GL_MAX_VARYING_VECTORS)",
                    subject=variable,
                )
            if not varying_locations:
                continue
            limit, what = limits.varying_locations, "varying locations"
        elif variable.direction is Direction.IN:
            limit, what = limits.vertex_attributes, "vertex attribute locations (GL_MAX_VERTEX_ATTRIBS)"
        else:
            limit, what = limits.draw_buffers, "fragment output locations (GL_MAX_DRAW_BUFFERS)"
        span = location_span(variable.type)
        end = assignment.location + span
        if end > limit:
            where = (
                f"location {assignment.location}"
                if span == 1
                else f"locations {assignment.location}..{end - 1}"
            )
            raise TargetError(
                LimitRule.INTERFACE_LOCATIONS,
                f"{stage.kind.value} {variable.direction.value}put {variable.name!r} needs {where}; {target} "
                f"guarantees {limit} {what}, 0..{limit - 1}",
                subject=variable,
            )


def _used_uniforms(module: Module, stage: Stage) -> tuple[list[int], list[int]]:
    """Slots of the record uniforms and of the sampler uniforms the stage's functions reference, in slot order."""
    used: set[int] = set()
    for function in stage.functions:
        for block in function.blocks:
            for instruction in block.instructions:
                if type(instruction) is LoadInstruction:
                    reference: ReferenceValue = instruction.source
                elif type(instruction) is StoreInstruction:
                    reference = instruction.target  # stores to uniforms are rejected by the verifier
                else:
                    continue
                while isinstance(reference, (MemberReferenceValue, IndexReferenceValue)):
                    reference = reference.base
                if reference.storage_kind is StorageKind.UNIFORM:
                    used.add(reference.slot)
    blocks = sorted(slot for slot in used if isinstance(module.uniforms[slot].type, RecordType))
    samplers = sorted(slot for slot in used if isinstance(module.uniforms[slot].type, SamplerType))
    return blocks, samplers
