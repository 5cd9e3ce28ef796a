"""The GLSL backend (spec 12): `compile(VerifiedModule) -> ProgramArtifact`.

`compile` is the public entry point and accepts only the publication
boundary: it materializes a fresh, separately verified module from the
`VerifiedModule` snapshot and hands it to `generate`, which checks the
target restrictions (12.4), resolves interface locations (12.2), numbers
records and block bindings (12.1), writes both stages (12.3) and returns the
code together with the reflection it computed while writing.

Targets are profiles of this one backend (`profiles.py`): GLSL 4.20 core
(the spec's configuration), and GLSL ES 3.00 and 3.20.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from vpl_core import records
from vpl_core.backends.glsl import names, std140
from vpl_core.backends.glsl.artifact import InterfaceBinding, ProgramArtifact, UniformBinding
from vpl_core.backends.glsl.emit import ModuleContext, write_stage
from vpl_core.backends.glsl.errors import TargetInterfaceRule
from vpl_core.backends.glsl.export import export_artifact, file_stem
from vpl_core.backends.glsl.limits import UNLIMITED, Limits, check_limits
from vpl_core.backends.glsl.locations import StageInterface, resolve_interfaces
from vpl_core.backends.glsl.profiles import ES300, ES320, GLSL420, PROFILES, Profile, resolve_profile
from vpl_core.backends.glsl.restrictions import check_module
from vpl_core.backends.glsl.source_map import SourceMap
from vpl_core.diagnostics import TargetError
from vpl_core.ir import paths
from vpl_core.ir.instructions import DeclareLocalInstruction
from vpl_core.ir.module import Direction, Module, Semantic
from vpl_core.ir.types import RecordType

# typing.TYPE_CHECKING without importing typing at run time (about 3 ms of every `vpl compile`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from vpl_core.publish import VerifiedModule
    from vpl_core.text.reader import SourceLocator

__all__ = [
    "ES300",
    "ES320",
    "GLSL420",
    "PROFILES",
    "UNLIMITED",
    "InterfaceBinding",
    "Limits",
    "Profile",
    "ProgramArtifact",
    "SourceMap",
    "TargetError",
    "UniformBinding",
    "compile",
    "compile_file",
    "compile_new_publication",
    "compile_source",
    "generate",
    "resolve_profile",
]


def compile(
    verified: object, target: str | None = None, version: int | None = None, limits: Limits | None = None,
    *, finishing: bool = False,
) -> ProgramArtifact:
    """Compile a `VerifiedModule` for `target` ("glsl420", "es300", "es320") or `version` (420, 300, 320).

    The default is GLSL 4.20 core. Raises TargetError for another target or
    version and for modules the target cannot express (spec 12.4), including
    resources beyond `limits` (default: the minimum maximums the target's
    version guarantees, `limits.py`; a host that queried its context may
    pass larger ones); raises TypeError for anything but a VerifiedModule.
    `finishing` refuses, on every target, a function that can never finish
    (an endless loop), as es300 always does: a preview that draws one gets
    garbage or a lost context from the driver.
    """
    published, profile = _checked(verified, target, version, finishing)
    return _compile_snapshot(published, published.materialize(), profile, limits)


def compile_new_publication(
    verified: object, target: str | None = None, version: int | None = None, limits: Limits | None = None,
    *, finishing: bool = False,
) -> ProgramArtifact:
    """`compile` for the code that has just made `verified` itself (`VerifiedModule.create`) and hands it to
    no one before this returns.

    Generation reads the publication's own verified parse of its canonical
    text instead of a materialization (a structural copy verified once
    more), as `compile_source` does for what it reads: the parse is
    verified, generation does not change it, and later materializations
    copy it as before. The same results and errors as `compile`.
    """
    from vpl_core.publish import own_snapshot

    published, profile = _checked(verified, target, version, finishing)
    return _compile_snapshot(published, own_snapshot(published), profile, limits)


def _checked(verified: object, target: str | None, version: int | None, finishing: bool) -> tuple[VerifiedModule, Profile]:
    """`verified` (TypeError unless a VerifiedModule) and the profile `compile` asks for."""
    from vpl_core.publish import VerifiedModule

    profile = resolve_profile(target, version)
    if finishing and not profile.rejects_endless_functions:
        profile = replace(profile, rejects_endless_functions=True)
    if not isinstance(verified, VerifiedModule):
        raise TypeError(f"the GLSL backend compiles a VerifiedModule, not {type(verified).__name__}")
    return verified, profile


def _compile_snapshot(verified: VerifiedModule, snapshot: Module, profile: Profile, limits: Limits | None) -> ProgramArtifact:
    """`compile`'s generation from `snapshot`, a verified module equal to `verified`'s text that nobody else holds."""
    try:
        artifact = generate(snapshot, profile, limits)
    except TargetError as error:
        # Restriction diagnostics name an IR object of this private snapshot.
        # The publication's label says which source it came from, and the
        # subject's structural path lets `compile_source` find the same
        # object in the caller's module, whose source positions it knows.
        diagnostic = error.diagnostic
        if diagnostic.label is None and verified.label is not None:
            diagnostic = records.replace(diagnostic, label=verified.label)
        if error.subject is not None:
            diagnostic = records.replace(diagnostic, subject_path=paths.path_of(snapshot, error.subject))
        raise TargetError(diagnostic) from None
    return replace(artifact, source=verified)


def compile_source(
    source: str | bytes,
    label: str | None = None,
    target: str = "glsl420",
    *,
    strict_v1: bool = False,
    limits: Limits | None = None,
) -> ProgramArtifact:
    """Read, verify, publish and compile VPL source text in one step.

    Unlike `compile`, target diagnostics carry the line and column in `source`
    of the object they name (or of the module when the object has no
    position of its own). Raises the reader's three error classes and
    TargetError.
    """
    from vpl_core.diagnostics import VplError
    from vpl_core.publish import VerifiedModule, own_snapshot
    from vpl_core.text.reader import collector_paused, read_unverified_located, read_unverified_unpositioned

    # One pause of the cyclic collector for the whole pipeline: each step
    # pausing on its own ended with a collection over every object allocated
    # so far (four per call, about a fifth of the time at 10k instructions).
    with collector_paused():
        # First without source positions (plain text scans about twice as
        # fast without them, reader.py): the same reads, verifications and
        # generation. Positions matter only for a diagnostic, so on any
        # failure the exact path below does it all again and raises exactly
        # what it always raised.
        try:
            module, text = read_unverified_unpositioned(source, label, strict_v1=strict_v1, share_registers=True)
            verified = VerifiedModule.from_unpositioned_read(module, text.text, label=label, source_is_plain=text.plain)
            # The publication's snapshot was read and verified here, a moment ago, and no one else holds it:
            # generation (which only reads the module) runs on it instead of on a materialized copy, which
            # would be a second copy and a second verification of the same module.
            return _compile_snapshot(verified, own_snapshot(verified), resolve_profile(target), limits)
        except VplError:
            pass
        module, locator = read_unverified_located(source, label, strict_v1=strict_v1)
        try:
            # The source is parsed once; publication verifies its canonical text
            # (or the module itself, for canonical source, or to place the
            # diagnostic of an invalid one), and `compile` verifies its own
            # materialization: two verifications where there were four.
            verified = VerifiedModule.from_unverified_read(module, locator, label=label)
            return compile(verified, target=target, limits=limits)
        except TargetError as error:
            located = _located(error, module, locator)
    raise located from None


def _located(error: TargetError, module: Module, locator: SourceLocator) -> TargetError:
    """`error` placed at the line and column of its subject in the caller's module (`compile_source`)."""
    if error.subject_path is None:
        return error
    subject = paths.object_at(module, error.subject_path)
    diagnostic = locator.locate(records.replace(error.diagnostic, context=()), subject)
    if subject is not None:
        diagnostic = records.replace(diagnostic, subject=subject)
    return TargetError(diagnostic)


def generate(module: Module, profile: Profile = GLSL420, limits: Limits | None = None) -> ProgramArtifact:
    """Code and reflection for a module that has passed canonical verification.

    Internal: `compile` is the public entry. Tests use it for builder-made
    modules; the caller is responsible for having verified the module.
    `limits` defaults to the profile's guaranteed minimums (`UNLIMITED`
    checks none).
    """
    samplers = check_module(module, profile)
    vertex_interface, fragment_interface = resolve_interfaces(module)
    layout = std140.Std140Layout()
    interfaces = {module.vertex.kind: vertex_interface, module.fragment.kind: fragment_interface}
    check_limits(
        module,
        interfaces,
        limits or profile.limits,
        profile.target,
        layout,
        varying_locations=profile.varying_location_qualifier,
    )
    records = names.RecordNames()
    for uniform in module.uniforms:
        records.add(uniform.type)
    for stage in module.stages:
        for variable in stage.interface:
            records.add(variable.type)
        for function in stage.functions:
            records.add(function.return_type)
            for parameter in function.parameters:
                records.add(parameter.type)
            for block in function.blocks:
                for instruction in block.instructions:
                    if isinstance(instruction, DeclareLocalInstruction):
                        records.add(instruction.type)
    block_bindings: dict[int, int] = {}
    for slot, uniform in enumerate(module.uniforms):
        if isinstance(uniform.type, RecordType):
            block_bindings[slot] = len(block_bindings)
    context = ModuleContext(
        module=module,
        profile=profile,
        records=records,
        interfaces=interfaces,
        block_bindings=block_bindings,
        samplers=samplers,
    )
    vertex_code, vertex_map = write_stage(context, module.vertex)
    fragment_code, fragment_map = write_stage(context, module.fragment)

    uniforms = tuple(
        UniformBinding(
            name=uniform.name,
            gl_name=names.uniform_name(slot),
            type=uniform.type,
            slot=slot,
            location=-1,  # blocks have no location; plain uniforms are queried by name (no
            # explicit uniform locations in GLSL 4.20 core or ESSL 3.00)
            kind=uniform.kind,
            block_binding=block_bindings.get(slot, -1),
            block_name=names.block_name(slot) if slot in block_bindings else None,
            block_size=layout.block_size(uniform.type) if isinstance(uniform.type, RecordType) else -1,
        )
        for slot, uniform in enumerate(module.uniforms)
    )
    color = next(
        (
            assignment
            for assignment in fragment_interface.assignments
            if assignment.variable.direction is Direction.OUT
            and assignment.variable.semantic is Semantic.FRAGMENT_COLOR
        ),
        None,
    )
    if color is None:
        # Spec 6.3 makes the verifier require it; guard modules from elsewhere.
        raise TargetError(
            TargetInterfaceRule.NO_FRAGMENT_COLOR, "the fragment stage declares no FragmentColor output", subject=module.fragment
        )
    return ProgramArtifact(
        target=profile.target,
        version=profile.version,
        vertex_code=vertex_code,
        fragment_code=fragment_code,
        uniforms=uniforms,
        vertex_interface=_interface_bindings(vertex_interface),
        fragment_interface=_interface_bindings(fragment_interface),
        fragment_color_output=color.gl_name,
        fragment_color_location=color.location,
        source_map=SourceMap(vertex_map, fragment_map),
    )


def _interface_bindings(interface: StageInterface) -> tuple[InterfaceBinding, ...]:
    return tuple(
        InterfaceBinding(
            name=assignment.variable.name,
            gl_name=assignment.gl_name,
            type=assignment.variable.type,
            slot=assignment.slot,
            location=assignment.location,
            direction=assignment.variable.direction,
            semantic=assignment.variable.semantic,
        )
        for assignment in interface.assignments
    )


def compile_file(path: str | Path, target: str = "glsl420", out_dir: str | Path = ".") -> list[Path]:
    """Read `path`, compile it for `target` and write `<stem>.vert.glsl`, `.frag.glsl`, `.json` to `out_dir`.

    The one-call form of `vpl compile FILE --target T --out DIR`: the file
    name is the diagnostic label, and target diagnostics carry the line and
    column in the file (`compile_source`). Returns the paths written.
    """
    artifact = compile_source(Path(path).read_bytes(), label=str(path), target=target)
    return export_artifact(artifact, out_dir, file_stem(path))
