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

A refused pass node (`PassPlan.refused`) takes only itself and what reads
it down: every pass of the plan (the others') is compiled and runs, and
`PassPrograms.problems` says which nodes of the graph cannot be drawn and
why (the refused node its own reason, any node downstream of it "depends
on a node that has a problem"), so hosts draw the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from app.material.catalog import node_type_for
from app.material.graph import MaterialGraph
from app.material.lowering import LoweringResult
from app.material.node_types import NodeDiagnostic
from app.material.parameters import ParameterSpec
from app.material.pass_planner import draft_spec, plan_passes
from app.material.scene import OUTPUT_NODE_TYPES
from app.material.texture_passes import DEPENDS_ON_A_PROBLEM, PassPlan
from app.material.traversal import connected_nodes
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
    #: Nodes of the graph that read a refused pass node (or are one), by id: why they cannot be drawn.
    problems: dict[str, str] = field(default_factory=dict)
    #: The same passes planned at draft resolution (`plan_passes(draft=True)`), drawn by the preview while a value
    #: is dragged; None when there are none.
    draft: PassPrograms | None = None

    def reads_refused(self, uniforms: Sequence[str]) -> str:
        """Why a module declaring these uniforms cannot be drawn ("" when it can): one of them is the sampler of a
        refused pass node's output (its label and reason)."""
        for name in uniforms:
            node_id = self.plan.refused_samplers.get(name)
            if node_id is not None:
                return f"{self.labels.get(node_id, repr(node_id))}: {self.plan.refused[node_id]}"
        return ""

    @property
    def ok(self) -> bool:
        return not self.problem and len(self.artifacts) == len(self.plan.passes)

    def label(self, key: str) -> str:
        return self.labels.get(key, f"'{key}'")


def pass_labels(graph: MaterialGraph, plan: PassPlan) -> dict[str, str]:
    """How messages name each pass (and each refused pass node, by id): its node's display name and id."""
    labels = {}
    for key, node_id in [(each.key, each.node_id) for each in plan.passes] + [(node_id, node_id) for node_id in plan.refused]:
        node = graph.nodes.get(node_id)
        node_type = node_type_for(node) if node is not None else None
        name = node_type.display_name if node_type is not None else "node"
        labels[key] = f"{name} '{node_id}'"
    return labels


def pass_problems(graph: MaterialGraph, plan: PassPlan) -> dict[str, str]:
    """The nodes of `graph` that cannot be drawn for a refused pass node: it (its reason) and every node downstream
    of it (`DEPENDS_ON_A_PROBLEM`, unless refused itself)."""
    if not plan.refused:
        return {}
    problems = dict.fromkeys(connected_nodes(graph, plan.refused, upstream=False), DEPENDS_ON_A_PROBLEM)
    problems.update(plan.refused)
    return problems


def plan_signature(plan: PassPlan | None) -> tuple[object, ...]:
    """What a host's drawing depends on in a plan: each pass's key, code, values, buffer and inputs, in order."""
    if plan is None:
        return ()
    return (tuple((each.key, each.code_fingerprint, each.value_fingerprint, each.spec, each.inputs) for each in plan.passes),
            plan.material_inputs, tuple(diagnostic.message for diagnostic in plan.errors), plan.displacement)


def same_passes(old: PassProgramCache, new: PassProgramCache) -> bool:
    """Whether two lowerings' passes draw the same (the older cache, and what the hosts took from it, may stay)."""
    return (plan_signature(old.plan) == plan_signature(new.plan) and old.labels == new.labels
            and old.problems == new.problems)


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

    def __init__(self, plan: PassPlan | None, labels: dict[str, str] | None = None,
                 problems: dict[str, str] | None = None, draft: PassProgramCache | None = None) -> None:
        self.plan = plan if plan is not None and (plan.passes or plan.refused) else None
        self.labels = dict(labels or {})
        self.problems = dict(problems or {})
        self.draft = draft
        self._caches = [ArtifactCache(each.verified, seed=each.artifact) for each in self.plan.passes] if self.plan else []
        self._programs: dict[str, PassPrograms] = {}

    @classmethod
    def for_graph(cls, graph: MaterialGraph, live: frozenset[tuple[str, str]] = frozenset(),
                  draft: bool = False, draft_from: int = 0) -> PassProgramCache:
        """Plan `graph`'s passes (none when it has no pass nodes) and keep them for compiling; `live`: values
        lowered as hidden uniforms (`plan_passes(live=...)`, the preview's live values); `draft`: plan them at
        draft resolution too (`PassPrograms.draft`) when a buffer of at least `draft_from` texels a side is smaller
        there."""
        plan = plan_passes(graph, live=live)
        draft_cache = None
        if draft and any(draft_spec(each.spec) != each.spec and each.spec.resolution >= draft_from
                         for each in plan.passes):
            draft_plan = plan_passes(graph, live=live, draft=True)
            draft_cache = cls(draft_plan, pass_labels(graph, draft_plan), pass_problems(graph, draft_plan))
        return cls(plan, pass_labels(graph, plan), pass_problems(graph, plan), draft_cache)

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
        # The passes of the nodes that are fine, whatever was refused (`PassPlan.refused`, `problems`).
        artifacts: list[ProgramArtifact] = []
        problem = ""
        for each, cache in zip(self.plan.passes, self._caches, strict=True):
            compiled = cache.get(target)
            if compiled.artifact is None:
                problem = f"{self.labels.get(each.key, each.key)}: {compiled.problem}"
                break
            artifacts.append(compiled.artifact)
        found = PassPrograms(target, self.plan, tuple(artifacts) if not problem else (), self.labels, problem,
                             self.problems, self.draft.get(target) if self.draft is not None else None)
        self._programs[target] = found
        return found


def with_pass_problems(result: LoweringResult, passes: PassProgramCache | None, graph: MaterialGraph) -> LoweringResult:
    """`result` (the material's lowering) with the problems of its texture passes it does not report already.

    A refused pass node feeding the output is an error of the material: its module samples a buffer no pass
    makes, so the result keeps no module to draw (the preview keeps its last picture, as for any material
    error). A refused pass node nothing of the output reads is a warning: the material draws.
    """
    plan = passes.plan if passes is not None else None
    if plan is None or (not plan.diagnostics and not plan.refused):
        return result
    outputs = [node_id for node_id, node in graph.nodes.items() if node.type_name in OUTPUT_NODE_TYPES]
    feeding = connected_nodes(graph, outputs)
    known = {(diagnostic.node_id, diagnostic.message) for diagnostic in result.diagnostics}
    added = [replace(diagnostic, severity="error" if diagnostic.node_id is None or diagnostic.node_id in feeding
                     else "warning")
             for diagnostic in plan.diagnostics if (diagnostic.node_id, diagnostic.message) not in known]
    blocked = ""
    if result.module is not None and passes is not None:
        blocked = PassPrograms(DEFAULT_TARGET, plan, labels=passes.labels).reads_refused(
            [uniform.name for uniform in result.module.uniforms])
    if not added and not blocked:
        return result
    if blocked and not any(diagnostic.severity == "error" for diagnostic in (*result.diagnostics, *added)):
        added.append(NodeDiagnostic(None, "graph", f"the material reads a texture pass that was refused: {blocked}"))
    changed = replace(result, diagnostics=[*result.diagnostics, *added])
    if blocked:
        changed.verified = changed.artifact = None
    return changed
