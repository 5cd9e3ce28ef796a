"""Target profiles of the GLSL backend (spec 12, and the "additional targets" of spec 13).

One backend, several dialects: a `Profile` says everything that differs
between GLSL 4.20 core and GLSL ES 3.00 / 3.20 — the `#version` line, the
precision preamble, which layout qualifiers the dialect allows, and the
extra target restrictions it adds to spec 12.4. The emitter and the
restriction checker read these flags; nothing else in the backend knows
which dialect it writes, so a new target is a new `Profile`, not a copy.

`resolve_profile` turns the public `compile(..., target=..., version=...)`
arguments into a profile or raises `TargetError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from vpl_core.backends.glsl.errors import ProfileRule
from vpl_core.backends.glsl.limits import ES3_MINIMUMS, GL42_MINIMUMS, Limits
from vpl_core.diagnostics import TargetError


@dataclass(frozen=True)
class Profile:
    """What a GLSL dialect accepts, as the emitter and the restriction checks need it."""

    #: Public target name: "glsl420", "es300", "es320".
    target: str
    #: The `#version` number: 420, 300, 320.
    version: int
    #: The exact first line of both stages.
    version_line: str
    #: True for OpenGL ES Shading Language dialects.
    es: bool
    #: Default precision statements emitted before any declaration (ES needs a
    #: fragment float precision; highp everywhere keeps the stages identical, so
    #: uniforms shared by both stages have matching precision).
    precision_statements: tuple[str, ...]
    #: `layout(binding = N)` on uniform blocks (GLSL 4.20, ESSL 3.10+). Without
    #: it the host applies the artifact's binding points with glUniformBlockBinding.
    block_binding_qualifier: bool
    #: `layout(location = N)` on vertex outputs and fragment inputs (GLSL 4.10+,
    #: ESSL 3.10+). Without it varyings match by their location-derived names.
    varying_location_qualifier: bool
    #: ESSL 3.00: vertex outputs / fragment inputs may not be arrays of records
    #: nor records containing arrays or records.
    flat_varying_records_only: bool
    #: ESSL: fragment output arrays may only be indexed by constant expressions.
    constant_fragment_output_indices: bool
    #: The minimum maximums the version guarantees (`limits.py`); a host may pass larger ones.
    limits: Limits
    #: Reject functions from whose entry block no return or discard is reachable: their
    #: dispatch loop has no exit, which WebGL 2 (ANGLE) refuses ("Infinite loop detected").
    rejects_endless_functions: bool

    def __str__(self) -> str:
        return self.target


GLSL420 = Profile(
    target="glsl420",
    version=420,
    version_line="#version 420 core",
    es=False,
    precision_statements=(),
    block_binding_qualifier=True,
    varying_location_qualifier=True,
    flat_varying_records_only=False,
    constant_fragment_output_indices=False,
    limits=GL42_MINIMUMS,
    rejects_endless_functions=False,
)

_ES_PRECISION = (
    "precision highp float;",
    "precision highp int;",
    "precision highp sampler2D;",
)

ES300 = Profile(
    target="es300",
    version=300,
    version_line="#version 300 es",
    es=True,
    precision_statements=_ES_PRECISION,
    block_binding_qualifier=False,
    varying_location_qualifier=False,
    flat_varying_records_only=True,
    constant_fragment_output_indices=True,
    limits=ES3_MINIMUMS,
    # es300 is also the WebGL 2 target: ANGLE rejects a loop it can prove endless.
    rejects_endless_functions=True,
)

ES320 = Profile(
    target="es320",
    version=320,
    version_line="#version 320 es",
    es=True,
    precision_statements=_ES_PRECISION,
    block_binding_qualifier=True,
    varying_location_qualifier=True,
    # ESSL 3.20 keeps the 3.00 rules for vertex outputs and fragment inputs
    # (no arrays of structures, no structures containing arrays or
    # structures); only tessellation/geometry interfaces were relaxed.
    flat_varying_records_only=True,
    constant_fragment_output_indices=True,
    limits=ES3_MINIMUMS,
    rejects_endless_functions=False,
)

PROFILES: dict[str, Profile] = {profile.target: profile for profile in (GLSL420, ES300, ES320)}
_BY_VERSION: dict[int, Profile] = {profile.version: profile for profile in PROFILES.values()}


def resolve_profile(target: object = None, version: object = None) -> Profile:
    """The profile named by `target` ("glsl420", "es300", "es320") or `version` (420, 300, 320).

    With neither, GLSL 4.20 core (the spec's implemented configuration). Both
    may be given if they agree. Anything else is a target error.
    """
    by_target: Profile | None = None
    by_version: Profile | None = None
    if target is not None:
        if not isinstance(target, str) or target not in PROFILES:
            known = ", ".join(sorted(PROFILES))
            raise TargetError(ProfileRule.UNKNOWN_TARGET, f"unsupported GLSL target {target!r}; supported targets: {known}", subject=target)
        by_target = PROFILES[target]
    if version is not None:
        if type(version) is not int or version not in _BY_VERSION:
            known = ", ".join(str(number) for number in sorted(_BY_VERSION))
            raise TargetError(
                ProfileRule.UNKNOWN_VERSION, f"unsupported GLSL version {version!r}; supported versions: {known}", subject=version
            )
        by_version = _BY_VERSION[version]
    if by_target is not None and by_version is not None and by_target is not by_version:
        raise TargetError(
            ProfileRule.TARGET_VERSION_MISMATCH,
            f"target {by_target.target!r} is GLSL version {by_target.version}, not {version!r}", subject=version
        )
    return by_target or by_version or GLSL420
