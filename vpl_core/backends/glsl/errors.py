"""Rule kinds of the GLSL backend (spec 12): one enum per backend area, all target errors.

A target error is a module that verifies but that this target cannot
express (spec 3.2: "a valid canonical module may still be rejected by a
backend capability or hardware-limit check"). `ProfileRule` covers the
choice of target, `TargetTypeRule`, `TargetInterfaceRule` and
`SamplerRule` the restrictions of spec 12.4 and the ES profiles
(`restrictions.py`), `LocationRule` interface locations (spec 12.2,
`locations.py`), `LimitRule` the resources each target guarantees
(`limits.py`), `ControlFlowRule` what a target's compiler refuses in
control flow. Sections ``"es"`` mark rules of the GLSL ES profiles
(`docs/targets.md`).
"""

from __future__ import annotations

from vpl_core.diagnostics import Category, DiagnosticKind


class TargetRule(DiagnosticKind):
    """Base of the backend's rule families."""

    @property
    def category(self) -> Category:
        return Category.TARGET


class ProfileRule(TargetRule):
    UNKNOWN_TARGET = "12", "the target is glsl420, es300 or es320"
    UNKNOWN_VERSION = "12", "the GLSL version is 420, 300 or 320"
    TARGET_VERSION_MISMATCH = "12", "a target and a version given together agree"


class TargetTypeRule(TargetRule):
    SAMPLER_RETURN = "12.4", "GLSL functions do not return samplers"
    ARRAY_LENGTH = "12.4", "array lengths are within the signed GL integer range"
    ARRAY_OF_ARRAYS = "12.4", "arrays are one-dimensional"
    EMPTY_RECORD = "12.4", "records have at least one field"
    NESTED_SAMPLER = "12.4", "samplers are not inside arrays or records"


class TargetInterfaceRule(TargetRule):
    BOOL = "12.4", "interfaces carry no bool values"
    SAMPLER = "12.4", "interfaces carry no samplers"
    VERTEX_INPUT_SHAPE = "12.4", "vertex inputs are numeric scalars, vectors or float matrices"
    FRAGMENT_OUTPUT_SHAPE = "12.4", "fragment outputs are numeric scalars or vectors, or one-dimensional arrays of them"
    VARYING_ARRAY_OF_RECORDS = "es", "ES varyings are not arrays of records"
    VARYING_NESTED_AGGREGATE = "es", "ES varying records contain no arrays or records"
    DYNAMIC_OUTPUT_INDEX = "es", "ES fragment output arrays are indexed by constants only"
    NO_FRAGMENT_COLOR = "6.3", "the fragment stage declares a fragment_color output"


class SamplerRule(TargetRule):
    PARAMETER_WRITTEN = "12.4", "sampler parameters are not written"
    FROM_CALL = "12.4", "sampler registers are not assigned from calls"
    RETURNED = "12.4", "functions do not return samplers"
    COPY_CYCLE = "12.4", "a sampler register's definitions do not form a cycle"
    DEFINITION_COUNT = "12.4", "a used sampler register has exactly one defining load, copy or store"
    NOT_FROM_SAMPLER_ROOT = "12.4", "a sampler register aliases a sampler uniform or parameter"
    NOT_FROM_REGISTER = "12.4", "a sampler register is defined from a register or a sampler root"


class LocationRule(TargetRule):
    OUT_OF_RANGE = "12.2", "interface locations stay within the GL location range"
    OVERLAP = "12.2", "explicit location spans do not overlap"
    EXHAUSTED = "12.2", "every unspecified location finds a free span"
    UNLINKED = "12.2", "every fragment input inherits a linked vertex output's location"


class LimitRule(TargetRule):
    UNIFORM_BLOCK_SIZE = "12.4", "a record uniform's std140 block fits the block size the target guarantees"
    UNIFORM_BLOCKS = "12.4", "a stage uses no more uniform blocks than the target guarantees"
    SAMPLERS = "12.4", "a stage uses no more samplers than the target guarantees"
    VARYING_VECTORS = "12.4", "the varyings fit the vec4 slots the target guarantees"
    INTERFACE_LOCATIONS = "12.4", "interface locations stay below the maximum the target guarantees"


class ControlFlowRule(TargetRule):
    ENDLESS_FUNCTION = "es", "a function can finish: some block reachable from its entry returns or discards"
