"""The texture passes of a lowering, compiled per GLSL target: what a host runs before the material.

A material with Texture Buffer or filter nodes has a `PassPlan`
(`app.material.pass_planner.plan_passes`): verified modules, one per
pass, in run order, each compiled for GLSL 4.20 by the lowering. A host
drawing with another target (an OpenGL ES preview: `es320`) needs every
pass compiled for it too; `PassProgramCache` compiles each pass once per
target (`ArtifactCache`, so a target error is reported, never raised) and
hands out `PassPrograms`: the plan, one artifact per pass and a label per
pass that names its node as the artist sees it ("Blur 'blur1'"). No Qt,
no OpenGL: the GL runner (`app.preview.texture_passes_gl`) and the CPU
preview take it from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.material.catalog import node_type_for
from app.material.graph import MaterialGraph
from app.material.parameters import ParameterSpec
from app.material.pass_planner import plan_passes
from app.material.texture_passes import PassPlan
from app.session.artifacts import DEFAULT_TARGET, ArtifactCache
from vpl_core.backends.glsl.artifact import ProgramArtifact


@dataclass(frozen=True)
class PassPrograms:
    """A plan's passes for one target: `artifacts[i]` runs `plan.passes[i]`; `problem` says why there are none."""

    target: str
    plan: PassPlan
    artifacts: tuple[ProgramArtifact, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)  # pass key -> "Display Name 'node id'"
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem and len(self.artifacts) == len(self.plan.passes)

    def label(self, key: str) -> str:
        return self.labels.get(key, f"'{key}'")


def pass_labels(graph: MaterialGraph, plan: PassPlan) -> dict[str, str]:
    """How messages name each pass: its node's display name and id."""
    labels = {}
    for each in plan.passes:
        node = graph.nodes.get(each.node_id)
        node_type = node_type_for(node) if node is not None else None
        name = node_type.display_name if node_type is not None else "node"
        labels[each.key] = f"{name} '{each.node_id}'"
    return labels


def plan_signature(plan: PassPlan | None) -> tuple[object, ...]:
    """What a host's drawing depends on in a plan: each pass's key, code, values, buffer and inputs, in order."""
    if plan is None:
        return ()
    return (tuple((each.key, each.code_fingerprint, each.value_fingerprint, each.spec, each.inputs) for each in plan.passes),
            plan.material_inputs, tuple(diagnostic.message for diagnostic in plan.errors), plan.displacement)


def same_passes(old: PassProgramCache, new: PassProgramCache) -> bool:
    """Whether two lowerings' passes draw the same (the older cache, and what the hosts took from it, may stay)."""
    return plan_signature(old.plan) == plan_signature(new.plan) and old.labels == new.labels


def with_pass_parameters(specs: Sequence[ParameterSpec], plan: PassPlan) -> list[ParameterSpec]:
    """The material's parameters and those only the passes declare (a parameter node inside a buffer's sub-graph)."""
    merged = list(specs)
    names = {spec.name for spec in merged}
    for each in plan.passes:
        for spec in each.parameters:
            if spec.name not in names:
                names.add(spec.name)
                merged.append(spec)
    return merged


class PassProgramCache:
    """Per-target programs of one plan's passes (None: the material has no texture passes)."""

    def __init__(self, plan: PassPlan | None, labels: dict[str, str] | None = None) -> None:
        self.plan = plan if plan is not None and plan.passes else None
        self.labels = dict(labels or {})
        self._caches = [ArtifactCache(each.verified, seed=each.artifact) for each in self.plan.passes] if self.plan else []
        self._programs: dict[str, PassPrograms] = {}

    @classmethod
    def for_graph(cls, graph: MaterialGraph, live: frozenset[tuple[str, str]] = frozenset()) -> PassProgramCache:
        """Plan `graph`'s passes (none when it has no pass nodes) and keep them for compiling; `live`: values
        lowered as hidden uniforms (`plan_passes(live=...)`, the preview's live values)."""
        plan = plan_passes(graph, live=live)
        return cls(plan, pass_labels(graph, plan))

    def live_values(self) -> list[Any]:
        """The hidden uniforms of every pass (`lowering.LiveValue`), each once."""
        found: dict[str, Any] = {}
        for each in self.plan.passes if self.plan is not None else ():
            for value in each.live_values.values():
                found.setdefault(value.uniform, value)
        return list(found.values())

    def get(self, target: str = DEFAULT_TARGET) -> PassPrograms | None:
        """The passes compiled for `target` (compiled once), or None when there are no passes."""
        if self.plan is None:
            return None
        found = self._programs.get(target)
        if found is not None:
            return found
        if not self.plan.ok:
            errors = self.plan.errors
            problem = errors[0].message if errors else "a texture pass did not lower"
            found = PassPrograms(target, self.plan, (), self.labels, problem)
        else:
            artifacts: list[ProgramArtifact] = []
            problem = ""
            for each, cache in zip(self.plan.passes, self._caches, strict=True):
                compiled = cache.get(target)
                if compiled.artifact is None:
                    problem = f"{self.labels.get(each.key, each.key)}: {compiled.problem}"
                    break
                artifacts.append(compiled.artifact)
            found = PassPrograms(target, self.plan, tuple(artifacts) if not problem else (), self.labels, problem)
        self._programs[target] = found
        return found
