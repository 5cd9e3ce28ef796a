"""Lowering node groups: one VPL helper function per group definition, one call per instance.

A definition becomes a fragment-stage helper named after it (`group_` and
its name: groups.function_name), with one parameter per interface input
(VPL parameters are passed by value; samplers too), then one per surface
source the body reads among `lowering.SHIFTABLE_SOURCES` (texcoord, world
position, vertex colour; through nested groups too), and returning its one
output, a record `<name>_outputs` with a field per output when it has
several, or nothing when it has none. An instance evaluates its inputs,
calls the helper (passing the material's surface sources, or moved ones
when a filtered bump lowers it again at another point:
`_Lowering.relower_input`) and reads the record's fields its consumers use. The body
is lowered once, into the helper, by a function lowering
(`_Lowering.function_lowering`) that shares the module; nested groups call
their own helpers from inside it.

**The same pixels as the flat graph.** Grouping must not change what a
material computes, and a few node lowerings look at their surroundings:

- *control dependence* (`NodeContext.control_dependent`): a texture sample
  after an If node uses `texture_lod` (implicit derivatives are undefined
  in non-uniform control flow, spec 7.3.1), and Normal From Height refuses
  to run there. In the flat graph a node is control dependent exactly when
  it is downstream of a (live) If node. Inside a helper that is: downstream
  of an If in the body, or of an instance input fed from downstream of an
  If (at the call site), or of a nested group output that comes from an If.
  This module computes those sets port by port (`_reach`: an instance
  passes control on only to the outputs that depend on the controlled
  inputs, `BodyAnalysis.depends`) and hands them to the lowering as
  `forced_control`.
- the *source of a texture input* (`NodeContext.source_node`): Texture
  Sample decodes sRGB when its texture comes from a Texture Parameter in
  sRGB; inside a helper the source is the node feeding the instance.

Both can differ between instances, so a helper is made per *specialization
key*: the controlled inputs that reach a control-sensitive node, and for
each texture input the kind and colour space of what feeds it. Almost
every group has one key (one helper, shared by every instance); when
instances differ, the second helper is named `group_<name>_2` and so on.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.material.graph import Connection, GroupDefinition, MaterialGraph, Node
from app.material.group_names import FUNCTION_PROPERTY, slug, zero_value
from app.material.groups import (
    GROUP_INPUT_TYPE,
    GROUP_OUTPUT_TYPE,
    GROUP_TYPE,
    call_cycles,
    callee_map,
    callers,
    function_name,
    instances,
    reachable,
)
from app.material.node_types import LoweringFailure, NodeDiagnostic, NodeType, Scope, input_default, node_type_for
from app.material.port_types import PortType
from app.material.propagation import TypeResolution, propagate
from app.material.traversal import connected_nodes, node_id_key, topological_order
from vpl_core.ir.builder import record
from vpl_core.ir.module import Function
from vpl_core.ir.types import VOID, RecordType, Type
from vpl_core.ir.values import Operand, ReferenceValue, RegisterValue, StorageKind

if TYPE_CHECKING:
    from app.material.lowering import LoweringResult, NodeContext, _Lowering

#: Node types whose lowering reads `NodeContext.control_dependent` (a test checks this list against the catalog).
CONTROL_SENSITIVE_TYPES = frozenset({"sample_texture", "triplanar_texture", "normal_from_height"})

HelperKey = tuple[frozenset[str], tuple[tuple[str, Any], ...]]

#: How deeply groups may nest (a helper calling a helper ...). Deeper chains are a diagnostic naming the chain:
#: GLSL compilers and the interpreter follow calls one frame per level.
MAX_GROUP_DEPTH = 256


@dataclass(slots=True)
class Reach:
    """What depends on a set of controlled nodes and ports at one level (see `_reach`)."""

    nodes: set[str] = field(default_factory=set)
    ports: set[tuple[str, str]] = field(default_factory=set)
    #: Group instance -> its inputs fed from something controlled.
    instance_inputs: dict[str, frozenset[str]] = field(default_factory=dict)

    def feeds(self, graph: MaterialGraph, node_id: str, port: str) -> bool:
        """Whether input `port` of `node_id` is fed from something controlled."""
        connection = graph.connection_into(node_id, port)
        return connection is not None and (
            connection.source_node in self.nodes or (connection.source_node, connection.source_port) in self.ports
        )


@dataclass(slots=True)
class BodyAnalysis:
    """Facts about one definition's body, computed once per lowering."""

    definition: GroupDefinition
    scope: Scope
    resolution: TypeResolution
    output_node: str | None
    extra_outputs: list[str]
    live: set[str]
    control_nodes: set[str]
    #: Outputs computed downstream of an If (in the body or a nested group): their consumers are control dependent.
    tainted: frozenset[str] = frozenset()
    #: Output -> the inputs whose values reach it.
    depends: dict[str, frozenset[str]] = field(default_factory=dict)
    #: Inputs that reach a control-sensitive node (so whether they are controlled changes the helper).
    sensitive: frozenset[str] = frozenset()


@dataclass(slots=True)
class HelperRequest:
    """A helper to make: the lowering that calls it, the definition, its specialization key and call-site facts."""

    caller: _Lowering
    definition: GroupDefinition
    key: HelperKey
    outer_sources: dict[str, Node | None]
    top_owner: str


@dataclass(slots=True)
class CallData:
    """What the Group Input and Group Output nodes of one helper need while it is lowered."""

    definition: GroupDefinition
    function: Function
    result_record: RecordType | None
    loaded: dict[str, RegisterValue] = field(default_factory=dict)


class GroupState:
    """The groups of one lowering: analyses, helpers made, and per-level data (keyed by lowering object)."""

    def __init__(self, document: MaterialGraph, live: set[str]) -> None:
        self.document = document
        self.functions = document.functions
        top = instances(document)
        #: Each definition's callees, worked out once for every walk below.
        self.callees = callee_map(self.functions)
        self.used = sorted(reachable(self.functions, (_function_id(node) for node in top), self.callees), key=node_id_key)
        self.live_top = live
        self.live_used = reachable(self.functions, (_function_id(node) for node in top if node.id in live), self.callees)
        self.cycles = call_cycles(self.functions, self.callees)
        # Each definition's anchor: the first live top-level instance that reaches it, else the first one.
        # A definition reached from an earlier instance had everything below it reached from there too,
        # so each walk stops at what is anchored already: one pass over the definitions in all.
        self.anchor: dict[str, str | None] = {}
        for node in [node for node in top if node.id in live] + top:
            stack = [_function_id(node)]
            while stack:
                current = stack.pop()
                if current in self.anchor or current not in self.functions:
                    continue
                self.anchor[current] = node.id
                stack.extend(self.callees[current])
        self._analyses: dict[str, BodyAnalysis] = {}
        #: Analyses without the control facts, of definitions on a call cycle met while analysing it.
        self._bare: dict[str, BodyAnalysis] = {}
        self._analyzing: set[str] = set()
        #: The group node types the bodies' scopes resolve, shared by all of them (`Scope.types`).
        self.types: dict[tuple[str, str], NodeType] = {}
        self.helpers: dict[tuple[str, HelperKey], tuple[Function, RecordType | None]] = {}
        #: Each helper's surface-source parameters (after its interface inputs), in order: what a call passes.
        self.helper_sources: dict[int, list[str]] = {}
        self.helper_names: set[str] = set()
        self._next_suffix: dict[str, int] = {}
        self.level_controls: dict[int, dict[str, frozenset[str]]] = {}
        self.calls: dict[int, CallData] = {}
        self.result: LoweringResult | None = None

    # Diagnostics --------------------------------------------------------------------------------

    def scoped_diagnostic(self, function_id: str, node_id: str | None, message: str, category: str = "graph") -> NodeDiagnostic:
        analysis = self.analysis(function_id)
        live = function_id in self.live_used and (node_id is None or node_id in analysis.live)
        return NodeDiagnostic(self.anchor.get(function_id), category, message, "error" if live else "warning",
                              scope=function_id, scoped_node=node_id)

    def check(self, result: LoweringResult) -> None:
        """Type errors and misplaced interface nodes in every used body, and the bodies' resolved port types."""
        self.result = result
        for function_id in self.used:
            analysis = self.analysis(function_id)
            # The analysis's own map (made for this lowering, which only reads it), not a copy per definition.
            result.scoped_port_types[function_id] = analysis.resolution.port_types
            for node_id in sorted(analysis.resolution.errors, key=node_id_key):
                for message in analysis.resolution.errors[node_id]:
                    result.diagnostics.append(self.scoped_diagnostic(function_id, node_id, message))
            for extra in analysis.extra_outputs:
                result.diagnostics.append(self.scoped_diagnostic(
                    function_id, extra, f"a group has one Group Output; this one is ignored ({analysis.output_node} is used)"))

    def depth_diagnostic(self) -> NodeDiagnostic | None:
        """The error for live groups nested more than MAX_GROUP_DEPTH deep, naming the deepest chain; else None.

        Worked out from each body's live instances alone (the nodes its Group Output reads: what a helper
        lowers), before any body is analysed, so that refusing a chain thousands of levels deep costs one walk
        over the definitions rather than the analysis of every body. A definition's depth is the longest
        chain of calls its helper makes at run time, counting itself; calls within one call cycle (a type
        error reported by `check`) are not followed.
        """
        top = sorted((node for node in instances(self.document) if node.id in self.live_top), key=lambda node: node_id_key(node.id))
        depth: dict[str, int] = {}
        deepest_call: dict[str, tuple[str, str]] = {}  # definition -> (its instance, the callee) on its deepest chain
        for root in dict.fromkeys(_function_id(node) for node in top):
            if root not in self.functions:
                continue
            stack: list[tuple[str, list[tuple[str, str]] | None]] = [(root, None)]
            while stack:
                current, calls = stack.pop()
                if current in depth:
                    continue
                if calls is None:  # first visit: its callees first, then itself
                    calls = self._live_calls(current)
                    stack.append((current, calls))
                    stack.extend((callee, None) for _, callee in calls if callee not in depth)
                    continue
                depth[current] = 1
                for instance, callee in calls:
                    if depth[callee] + 1 > depth[current]:
                        depth[current] = depth[callee] + 1
                        deepest_call[current] = (instance, callee)
        roots = [_function_id(node) for node in top if _function_id(node) in depth]
        if not roots:
            return None
        start = max(roots, key=lambda function_id: depth[function_id])  # the first of the deepest
        if depth[start] <= MAX_GROUP_DEPTH:
            return None
        chain, current, instance = [start], start, ""
        while len(chain) <= MAX_GROUP_DEPTH:
            instance, current = deepest_call[current]
            chain.append(current)
        names = [self.functions[function_id].name for function_id in chain]
        message = f"groups are nested more than {MAX_GROUP_DEPTH} deep ({_chain_text(names)}); ungroup some levels"
        return NodeDiagnostic(self.anchor.get(chain[-2]), "graph", message, "error", scope=chain[-2], scoped_node=instance)

    def read_nodes(self, graph: MaterialGraph, scope: Scope, roots: Iterable[str]) -> set[str]:
        """The nodes `roots` read: everything upstream of them, through a group instance only along the inputs its
        helper reads (`read_inputs`). A node that feeds only an input the body ignores is not lowered, as in the
        flat graph, where it is dead: lowering it could put a branch (an If) before what the flat graph emits in
        the entry block, and a texture read there would lose its mip filtering."""
        incoming = _incoming(graph)
        found: set[str] = set()
        stack = list(roots)
        while stack:
            node_id = stack.pop()
            if node_id in found:
                continue
            found.add(node_id)
            node = graph.nodes[node_id]
            connections = incoming.get(node_id, [])
            if node.type_name == GROUP_TYPE and _function_id(node) in self.functions and node_type_for(node, scope) is not None:
                read = read_inputs(self.analysis(_function_id(node)))
                connections = [connection for connection in connections if connection.target_port in read]
            stack.extend(connection.source_node for connection in connections)
        return found

    def _live_calls(self, function_id: str) -> list[tuple[str, str]]:
        """(instance, callee) of each live instance in a definition's body whose callee exists and is not on a
        call cycle with it, in the body's order."""
        body = self.functions[function_id].body
        found = [node for node in body.nodes.values() if node.type_name == GROUP_TYPE and _function_id(node) in self.functions]
        if not found:
            return []
        _, live = _outputs_and_live(body)
        cycle = self.cycles.get(function_id)
        return [(node.id, _function_id(node)) for node in found
                if node.id in live and (cycle is None or self.cycles.get(_function_id(node)) != cycle)]

    # Analyses -----------------------------------------------------------------------------------

    def analysis(self, function_id: str) -> BodyAnalysis:
        """The facts about a definition's body; its callees are analysed first, in one walk without recursion.

        A definition met again while it is being analysed (a recursive
        definition: its instance has a type error and nothing is lowered)
        answers without its control facts.
        """
        found = self._analyses.get(function_id)
        if found is not None:
            return found
        if function_id in self._analyzing:
            return self._bare_analysis(function_id)
        # Post-order over the callees not analysed yet: each is analysed after everything it calls.
        work: list[tuple[str, list[str]]] = [(function_id, self._pending_callees(function_id))]
        self._analyzing.add(function_id)
        try:
            while work:
                current, pending = work[-1]
                if pending:
                    callee = pending.pop()
                    if callee not in self._analyses and callee not in self._analyzing:
                        self._analyzing.add(callee)
                        work.append((callee, self._pending_callees(callee)))
                    continue
                work.pop()
                self._analyses[current] = self._analyze(current)
                self._analyzing.discard(current)
        finally:
            self._analyzing.difference_update(current for current, _ in work)
        return self._analyses[function_id]

    def _pending_callees(self, function_id: str) -> list[str]:
        return sorted((callee for callee in self.callees[function_id] if callee in self.functions),
                      key=node_id_key, reverse=True)

    def _bare_analysis(self, function_id: str) -> BodyAnalysis:
        found = self._bare.get(function_id)
        if found is None:
            definition = self.functions[function_id]
            scope = Scope(self.functions, definition, self.cycles, self.types)
            body = definition.body
            resolution = propagate(body, scope=scope)
            outputs, live = _outputs_and_live(body)
            output_node = outputs[0] if outputs else None
            control_nodes = {node_id for node_id in live if _is_control(body.nodes[node_id], scope)}
            found = self._bare[function_id] = BodyAnalysis(definition, scope, resolution, output_node, outputs[1:], live,
                                                           control_nodes)
        return found

    def _analyze(self, function_id: str) -> BodyAnalysis:
        """The full analysis of one definition whose callees are analysed (or, on a cycle, being analysed)."""
        bare = self._bare_analysis(function_id)
        analysis = BodyAnalysis(bare.definition, bare.scope, bare.resolution, bare.output_node, bare.extra_outputs,
                                bare.live, bare.control_nodes)
        definition, body, scope, output_node = analysis.definition, analysis.definition.body, analysis.scope, analysis.output_node
        inputs_of = [node.id for node in body.nodes.values() if node.type_name == GROUP_INPUT_TYPE]
        order, incoming = analysis.resolution.order, _incoming(body)
        tainted = self._reach(body, scope, analysis.control_nodes, set(), True, order, incoming)
        analysis.tainted = frozenset(self._outputs_fed(definition, output_node, tainted))
        sensitive: set[str] = set()
        for port in definition.inputs:
            reach = self._reach(body, scope, set(), {(node_id, port.name) for node_id in inputs_of}, False, order, incoming)
            for output in self._outputs_fed(definition, output_node, reach):
                analysis.depends[output] = analysis.depends.get(output, frozenset()) | {port.name}
            if self._is_sensitive(body, analysis.live, reach):
                sensitive.add(port.name)
        analysis.sensitive = frozenset(sensitive)
        self._bare.pop(function_id, None)
        return analysis

    def _is_sensitive(self, body: MaterialGraph, live: set[str], reach: Reach) -> bool:
        if any(body.nodes[node_id].type_name in CONTROL_SENSITIVE_TYPES for node_id in reach.nodes & live):
            return True
        for node_id, controlled in reach.instance_inputs.items():
            callee = _function_id(body.nodes[node_id])
            if node_id in live and callee in self.functions and controlled & self.analysis(callee).sensitive:
                return True
        return False

    @staticmethod
    def _outputs_fed(definition: GroupDefinition, output_node: str | None, reach: Reach) -> set[str]:
        if output_node is None:
            return set()
        return {port.name for port in definition.outputs if reach.feeds(definition.body, output_node, port.name)}

    def _reach(self, graph: MaterialGraph, scope: Scope, whole: set[str], ports: set[tuple[str, str]],
               include_tainted: bool, order: list[str], incoming: dict[str, list[Connection]]) -> Reach:
        """Nodes and output ports downstream of `whole` (nodes) and `ports` (output ports).

        `order` is the graph's topological order (its type resolution's) and `incoming` its connections by
        target node (`_incoming`): a body's walks share them.

        An ordinary node fed from anything controlled is controlled as a
        whole (as the flat graph's `connected_nodes`); a group instance
        passes control on only to the outputs that depend on its controlled
        inputs, plus (with `include_tainted`) the outputs its body computes
        after an If.
        """
        reach = Reach(set(), set(ports))
        for node_id in order:
            node = graph.nodes[node_id]
            fed = {
                connection.target_port for connection in incoming.get(node_id, ())
                if connection.source_node in reach.nodes or (connection.source_node, connection.source_port) in reach.ports
            }
            if node.type_name == GROUP_TYPE:
                callee = _function_id(node)
                if callee not in self.functions or node_type_for(node, scope) is None:
                    continue
                analysis = self.analysis(callee)
                controlled = frozenset(fed)
                if controlled:
                    reach.instance_inputs[node_id] = controlled
                outputs = set(analysis.tainted) if include_tainted else set()
                outputs |= {output for output, inputs in analysis.depends.items() if inputs & controlled}
                reach.ports |= {(node_id, output) for output in outputs}
            elif node_id in whole or fed:
                reach.nodes.add(node_id)
        return reach

    # Levels -------------------------------------------------------------------------------------

    def prepare(self, lowering: _Lowering, control_nodes: set[str]) -> None:
        """The material's level: which nodes count as control dependent, and which instance inputs are controlled."""
        reach = self._reach(lowering.graph, lowering.scope, control_nodes, set(), True, lowering.resolution.order,
                            _incoming(lowering.graph))
        lowering.forced_control = set(reach.nodes)
        self.level_controls[id(lowering)] = reach.instance_inputs

    def helper(self, caller: _Lowering, definition: GroupDefinition, key: HelperKey, outer_sources: dict[str, Node | None],
               top_owner: str) -> tuple[Function, RecordType | None]:
        """The helper of `definition` for `key`, lowered on first use.

        Nested groups are lowered without recursion: each helper's body is a
        generator (`_lower_helper`) that, before an instance whose helper is
        not made yet, hands that request here and waits; the stack of
        suspended bodies is the nesting, checked against MAX_GROUP_DEPTH.
        Helpers are made in the order a recursive walk would make them.
        """
        made = self.helpers.get((definition.id, key))
        if made is not None:
            return made
        stack: list[tuple[str, Generator[HelperRequest, None, None]]] = [
            (definition.name, self._lower_helper(HelperRequest(caller, definition, key, outer_sources, top_owner)))]
        failure: BaseException | None = None
        while stack:
            _name, body = stack[-1]
            try:
                request = body.throw(failure) if failure is not None else next(body)
            except StopIteration:
                stack.pop()
                failure = None
                continue
            except BaseException as error:  # handed to the body that asked for this helper, as a call would
                stack.pop()
                if not stack:
                    raise
                failure = error
                continue
            failure = None
            if len(stack) >= MAX_GROUP_DEPTH:
                chain = [name for name, _body in stack] + [request.definition.name]
                failure = LoweringFailure(
                    f"groups are nested more than {MAX_GROUP_DEPTH} deep ({_chain_text(chain)}); "
                    "ungroup some levels")
                continue
            stack.append((request.definition.name, self._lower_helper(request)))
        return self.helpers[(definition.id, key)]

    def _lower_helper(self, request: HelperRequest) -> Generator[HelperRequest, None, None]:
        """Make the helper of `request` and lower its body; yields a request before an instance needing another."""
        caller, definition, key = request.caller, request.definition, request.key
        analysis = self.analysis(definition.id)
        name = self._helper_name(function_name(definition))
        result_record: RecordType | None = None
        return_type: Type = VOID
        if len(definition.outputs) == 1:
            return_type = definition.outputs[0].type.vpl_type
        elif definition.outputs:
            result_record = record(f"{slug(definition.name)}_outputs", [(port.name, port.type.vpl_type) for port in definition.outputs])
            return_type = result_record
        function = caller.fragment_stage.function(name, return_type, [port.type.vpl_type for port in definition.inputs]).function
        self.helpers[(definition.id, key)] = (function, result_record)

        body = definition.body
        child = caller.function_lowering(body, analysis.resolution, analysis.scope, function, request.top_owner)
        child.outer_sources = dict(request.outer_sources)
        child.report = lambda node_id, message: self._report(definition.id, node_id, message)
        child.shiftable_source = self._source_parameter(child, function)
        self.calls[id(child)] = CallData(definition, function, result_record)
        order = self._prepare_body(child, analysis, key)
        try:
            for node_id in order:
                node = body.nodes[node_id]
                node_type = node_type_for(node, analysis.scope)
                if node_type is None:
                    continue  # reported by `check`
                child.owner = node_id
                try:
                    ctx = child.node_context(node, node_type)
                    if node.type_name == GROUP_TYPE:
                        nested, _ = _instance_request(ctx)
                        if (nested.definition.id, nested.key) not in self.helpers:
                            yield nested
                    node_type.lower(ctx)
                except LoweringFailure as failure:
                    child.report(node_id, str(failure))
                    return
            if not child.fragment_main.is_terminated:
                child.owner = ""
                _return(child, self.calls[id(child)], [_zero(child, port.type) for port in definition.outputs])
        finally:
            self._release(child)

    def _prepare_body(self, child: _Lowering, analysis: BodyAnalysis, key: HelperKey) -> list[str]:
        """A helper body's control facts for `key` set on `child`; returns the live nodes in the order to lower them.

        A function of its own so that what it makes on the way is dropped before the body is lowered: the
        body's generator stays suspended while its nested groups are lowered, one per level of a chain.
        """
        body = analysis.definition.body
        inputs_of = [node.id for node in body.nodes.values() if node.type_name == GROUP_INPUT_TYPE]
        controlled_ports = {(node_id, port) for node_id in inputs_of for port in key[0]}
        reach = self._reach(body, analysis.scope, analysis.control_nodes, controlled_ports, True, analysis.resolution.order,
                            _incoming(body))
        child.forced_control = reach.nodes
        self.level_controls[id(child)] = reach.instance_inputs
        block_controlled = connected_nodes(body, analysis.control_nodes, upstream=False) & analysis.live
        priority = {node_id: (1 if node_id in block_controlled else 0) for node_id in analysis.live}
        if analysis.output_node is not None:
            priority[analysis.output_node] = 2
        order, _ = topological_order(body, priority)
        return [node_id for node_id in order if node_id in analysis.live]

    def _source_parameter(self, child: _Lowering, function: Function) -> Callable[[str, Type], Operand]:
        """How the body of helper `function` reads a shiftable surface source: a parameter added on first use.

        The helper reads the same value as it would from the varying, but a call can pass another one, so
        `_Lowering.relower_input` can compute a grouped height at moved surface points (a filtered bump).
        """
        def read(name: str, value_type: Type) -> Operand:
            parameter = ReferenceValue(StorageKind.PARAMETER, len(function.parameters), value_type)
            function.parameters.append(parameter)
            self.helper_sources.setdefault(id(function), []).append(name)
            return child.fragment_main.load(parameter)

        return read

    def _release(self, child: _Lowering) -> None:
        """Drop what only the lowering of one helper's body reads, once it is lowered.

        The body is complete, so its builder puts its deferred declarations
        in place now (`finish` is idempotent: `finish_functions` may call it
        again) and leaves the lowering's list of builders when it is the
        last one, as it is unless the body made a library helper; the
        child's references to its builder and to itself (the source
        parameter's closure) go, so the child and its builder are freed here
        instead of every level's staying in memory to the end of the
        lowering. What stays (a builder kept in the list) holds no per-body
        maps: those are cleared.
        """
        self.calls.pop(id(child), None)
        self.level_controls.pop(id(child), None)
        for per_body in (child.values, child.incoming, child.sources, child.outer_sources):
            per_body.clear()
        child.used_outputs.clear()
        child.forced_control.clear()
        child.shiftable_source = None
        builder = child.fragment_main
        builder.finish()
        if child.builders and child.builders[-1] is builder:
            child.builders.pop()
        del child.fragment_main

    def _helper_name(self, base: str) -> str:
        """`base`, or `base_2`, `base_3`, ... whichever no helper has (as `group_names.unique`).

        The suffix tried last per base is kept: every smaller one stays taken, so many
        helpers of one name cost one step each, not a scan of all of them.
        """
        if base not in self.helper_names:
            self.helper_names.add(base)
            return base
        number = self._next_suffix.get(base, 2)
        while f"{base}_{number}" in self.helper_names:
            number += 1
        self._next_suffix[base] = number + 1
        name = f"{base}_{number}"
        self.helper_names.add(name)
        return name

    def _report(self, function_id: str, node_id: str | None, message: str) -> None:
        if self.result is not None:
            self.result.diagnostics.append(self.scoped_diagnostic(function_id, node_id, message))


# Node lowerings ------------------------------------------------------------------------------------


def read_inputs(analysis: BodyAnalysis) -> frozenset[str]:
    """The inputs a definition's helper reads: those whose values reach its outputs, and every texture input (a
    sampler argument is the texture itself, not a computed value)."""
    textures = {port.name for port in analysis.definition.inputs if port.type is PortType.TEXTURE}
    return frozenset(textures.union(*analysis.depends.values()))


def _arguments(ctx: NodeContext, definition: GroupDefinition, analysis: BodyAnalysis) -> list[Operand]:
    """The call's arguments: each input the helper reads as connected; the default of one it ignores, whose source
    the lowering leaves out (`GroupState.read_nodes`)."""
    read = read_inputs(analysis)
    return [ctx.input(port.name) if port.name in read
            else ctx.lowering.default_operand(input_default(ctx.node, ctx.node_type, port.name), ctx.input_type(port.name))
            for port in definition.inputs]


def _instance_request(ctx: NodeContext) -> tuple[HelperRequest, list[Operand]]:
    """What an instance's call needs: its arguments (evaluated first, as the call does), the helper's key."""
    lowering = ctx.lowering
    state: GroupState = lowering.groups
    definition = lowering.scope.functions[_function_id(ctx.node)]
    analysis = state.analysis(definition.id)
    arguments = _arguments(ctx, definition, analysis)
    controlled = state.level_controls.get(id(lowering), {}).get(ctx.node.id, frozenset())
    origins: list[tuple[str, Any]] = []
    outer_sources: dict[str, Node | None] = {}
    for port in definition.inputs:
        if port.type is PortType.TEXTURE:
            source = ctx.source_node(port.name)
            outer_sources[port.name] = source
            origins.append((port.name, None if source is None else (source.type_name, source.properties.get("color_space"))))
    key: HelperKey = (frozenset(controlled & analysis.sensitive), tuple(origins))
    return HelperRequest(lowering, definition, key, outer_sources, lowering.top_owner or ctx.node.id), arguments


def lower_instance(ctx: NodeContext) -> None:
    """A call of the definition's helper; each used output read from the result."""
    request, arguments = _instance_request(ctx)
    definition = request.definition
    function, result_record = ctx.lowering.groups.helper(request.caller, definition, request.key, request.outer_sources,
                                                         request.top_owner)
    # The surface sources the body reads: the material's, or (lowered again by `relower_input`) moved ones.
    arguments += [ctx.source(name) for name in ctx.lowering.groups.helper_sources.get(id(function), ())]
    fn = ctx.fn
    called = fn.call(function, *arguments)
    if called is None:
        return
    if result_record is None:
        ctx.set_output(definition.outputs[0].name, called)
        return
    for port in definition.outputs:
        if ctx.output_used(port.name):
            ctx.set_output(port.name, fn.member(called, port.name))


def _outputs_and_live(body: MaterialGraph) -> tuple[list[str], set[str]]:
    """A body's Group Outputs in node id order, and the nodes the first one reads (what its helper lowers)."""
    outputs = sorted((node.id for node in body.nodes.values() if node.type_name == GROUP_OUTPUT_TYPE), key=node_id_key)
    return outputs, (connected_nodes(body, [outputs[0]]) if outputs else set())


def _chain_text(names: list[str]) -> str:
    """A chain of group names for a message: all of a short one, the ends of a long one."""
    shown = names if len(names) <= 8 else [*names[:4], f"... {len(names) - 8} more ...", *names[-4:]]
    return " \u2192 ".join(f"'{name}'" for name in shown)


def _call_data(ctx: NodeContext) -> CallData:
    state: GroupState | None = ctx.lowering.groups
    data = state.calls.get(id(ctx.lowering)) if state is not None else None
    if data is None:
        raise LoweringFailure("Group Input and Group Output work only inside a group")
    return data


def lower_group_input(ctx: NodeContext) -> None:
    """The helper's parameters, each loaded once (in the entry block: the node has no inputs)."""
    data = _call_data(ctx)
    for index, port in enumerate(data.definition.inputs):
        if not ctx.output_used(port.name):
            continue
        loaded = data.loaded.get(port.name)
        if loaded is None:
            parameter: ReferenceValue = data.function.parameters[index]
            loaded = data.loaded[port.name] = ctx.fn.load(parameter)
        ctx.set_output(port.name, loaded)


def lower_group_output(ctx: NodeContext) -> None:
    """Return the connected values (a record of them when the group has several outputs)."""
    data = _call_data(ctx)
    _return(ctx.lowering, data, [ctx.input(port.name) for port in data.definition.outputs])


def _return(lowering: _Lowering, data: CallData, values: list[Operand]) -> None:
    fn = lowering.fragment_main
    if not values:
        fn.ret()
    elif data.result_record is None:
        fn.ret(values[0])
    else:
        fn.ret(fn.construct(data.result_record, *values))


def _zero(lowering: _Lowering, port_type: PortType) -> Operand:
    return lowering.default_operand(zero_value(port_type), port_type)


def _incoming(graph: MaterialGraph) -> dict[str, list[Connection]]:
    """Each node's incoming connections, gathered once: scanning all of them per node was quadratic."""
    incoming: dict[str, list[Connection]] = {}
    for connection in graph.connections:
        incoming.setdefault(connection.target_node, []).append(connection)
    return incoming


def _function_id(node: Node) -> str:
    return str(node.properties.get(FUNCTION_PROPERTY))


def _is_control(node: Node, scope: Scope) -> bool:
    node_type = node_type_for(node, scope)
    return node_type is not None and node_type.control


def definitions_with_problems(functions: dict[str, GroupDefinition], scopes: Iterable[str]) -> set[str]:
    """The definitions that hold (directly or through nested groups) one of `scopes`: their instances show a marker."""
    return callers(functions, scopes)
