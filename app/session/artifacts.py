"""The compiled programs of one verified module, per GLSL target, compiled once each.

The code view and Export always use GLSL 4.20 (`DEFAULT_TARGET`); the
preview asks for the target of the context it got (`es320` on an OpenGL
ES preview). A module the target cannot express (spec 12.4) is a
`TargetError`: the cache keeps it as a `CompiledProgram` with a problem, so
it is reported, never raised, and not compiled again. Every target refuses
a function that can never finish (`glsl.compile(finishing=True)`), as es300
does: a driver draws garbage or loses the context on an endless loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.material.graph import MaterialGraph
from app.material.lowering import ValueKey, lower
from vpl_core.backends import glsl
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.diagnostics import VplError
from vpl_core.publish import VerifiedModule

DEFAULT_TARGET = "glsl420"


@dataclass(frozen=True)
class CompiledProgram:
    """An artifact for `target`, or why there is none (`problem`, the target error's message)."""

    target: str
    artifact: ProgramArtifact | None
    problem: str = ""


class ArtifactCache:
    """Per-target artifacts of one `VerifiedModule` (None: nothing to compile)."""

    def __init__(self, verified: VerifiedModule | None, seed: ProgramArtifact | None = None) -> None:
        self.verified = verified
        self._programs: dict[str, CompiledProgram] = {}
        if seed is not None:
            self._programs[seed.target] = CompiledProgram(seed.target, seed)

    def record(self, program: CompiledProgram) -> None:
        """Keep a program (or a problem) already known, e.g. from the lowering."""
        self._programs[program.target] = program

    def get(self, target: str = DEFAULT_TARGET) -> CompiledProgram:
        program = self._programs.get(target)
        if program is None:
            program = self._compile(target)
            self._programs[target] = program
        return program

    def _compile(self, target: str) -> CompiledProgram:
        if self.verified is None:
            return CompiledProgram(target, None, "no verified module")
        try:
            return CompiledProgram(target, glsl.compile(self.verified, target=target, finishing=True))
        except VplError as error:
            return CompiledProgram(target, None, str(error) or type(error).__name__)

    @property
    def compiled_targets(self) -> list[str]:
        """Targets compiled so far (tests check that nothing is compiled twice)."""
        return sorted(self._programs)


def refined_maker(graph: MaterialGraph, target: str = DEFAULT_TARGET,
                  live: frozenset[ValueKey] = frozenset()) -> Callable[[], ProgramArtifact | None]:
    """A maker of `graph`'s refined variant compiled for `target` (None when it does not lower or compile),
    lowered (verified and published like every program) on its first call and kept."""
    made: list[ProgramArtifact | None] = []

    def make() -> ProgramArtifact | None:
        if not made:
            result = lower(graph, live=live, refined=True)
            made.append(ArtifactCache(result.verified, seed=result.artifact).get(target).artifact
                        if result.verified is not None else None)
        return made[0]

    return make
