"""`GraphAnnotations`: what the last lowering found, drawn on the nodes of the level shown.

Error and warning markers, the resolved port types and each node's cost
footer (View > Node Cost). They are kept here and drawn again whenever the
view shows new node objects (another level, a structural edit, a load).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from app.graph.nodes import REROUTE_TYPE
from app.graph.view import MaterialNodeGraph
from app.material.cost import MaterialCost, describe_count, describe_node
from app.material.lowering import LoweringResult
from app.material.node_types import NodeDiagnostic


class GraphAnnotations:
    """See the module docstring. `level` tells which definition's body the view shows (None: the material)."""

    def __init__(self, view: MaterialNodeGraph, level: Callable[[], str | None]) -> None:
        self.view = view
        self._level = level
        #: Whether nodes show their cost footer (View > Node Cost), and the costs of the last lowering.
        self.costs_visible = False
        self._costs: MaterialCost | None = None
        #: The costs of a group body's nodes, by definition id (from the same lowering as `_costs`).
        self._level_costs: Callable[[str], MaterialCost | None] | None = None
        self._level_cost_cache: dict[str, MaterialCost | None] = {}
        self._diagnostics: Sequence[NodeDiagnostic] = ()
        self._result: LoweringResult | None = None

    def forget(self) -> None:
        """Another document: the last lowering was another document's."""
        self._diagnostics, self._result = (), None

    def redraw(self) -> None:
        """The view shows new node objects: they show what the last lowering found about them."""
        self.show_diagnostics(self._diagnostics)
        if self._result is not None:
            self.show_port_types(self._result)
        self.apply_costs()

    def node_label(self, node_id: str | None) -> str:
        if node_id is None:
            return ""
        node = self.view.node_by_stable_id(node_id)
        return f"{node.name()} ({node_id})" if node is not None else node_id

    def show_diagnostics(self, diagnostics: Sequence[NodeDiagnostic]) -> None:
        """Error markers on the nodes the diagnostics name (and none on the others)."""
        self._diagnostics = diagnostics
        messages: dict[str, list[str]] = {}
        level = self._level()
        for diagnostic in diagnostics:
            prefix = "" if diagnostic.severity == "error" else "warning: "
            if level is not None:
                # Inside a group: the problems of its body's nodes, on those nodes.
                if diagnostic.scope == level and diagnostic.scoped_node is not None:
                    messages.setdefault(diagnostic.scoped_node, []).append(prefix + diagnostic.message)
            elif diagnostic.node_id is not None:
                messages.setdefault(diagnostic.node_id, []).append(prefix + diagnostic.message)
        for node in self.view.material_nodes():
            node.view.set_diagnostics(messages.get(node.stable_id, []))

    def show_costs(self, costs: MaterialCost | None, level_costs: Callable[[str], MaterialCost | None] | None = None) -> None:
        """Each node's cost (footer text and tooltip lines) from the last lowering (None: not known).

        `level_costs` gives the costs of a group body's nodes (by definition id), asked for when the view shows one.
        """
        self._costs = costs
        self._level_costs = level_costs
        self._level_cost_cache.clear()
        self.apply_costs()

    def shown_costs(self) -> MaterialCost | None:
        level = self._level()
        if level is None or self._costs is None:
            return self._costs
        if level not in self._level_cost_cache:
            self._level_cost_cache[level] = self._level_costs(level) if self._level_costs is not None else None
        return self._level_cost_cache[level]

    def set_costs_visible(self, visible: bool) -> None:
        self.costs_visible = visible
        self.apply_costs()

    def apply_costs(self) -> None:
        if not self.costs_visible:
            # Footers and their tooltip lines show only with View > Node Cost: they are made when it is
            # turned on (`set_costs_visible`), not for every lowering (a slider's drag lowers many times).
            for node in self.view.material_nodes():
                if node.type_name != REROUTE_TYPE:
                    node.view.set_cost_shown(False)
            return
        costs = self.shown_costs()
        nodes = self.view.nodes_by_stable_id()

        def label(node_id: str | None) -> str:
            node = nodes.get(node_id) if node_id is not None else None
            return f"{node.name()} ({node_id})" if node is not None else (node_id or "")

        for node_id, node in nodes.items():
            if node.type_name == REROUTE_TYPE:
                continue  # a reroute emits nothing and has no room for a footer
            node.view.set_cost_shown(True)
            cost = costs.node(node_id) if costs is not None else None
            if cost is None:
                node.view.set_cost("0 instr" if costs is not None else "", [])
            else:
                node.view.set_cost(describe_count(cost.total), describe_node(cost, label))

    def show_port_types(self, result: LoweringResult) -> None:
        self._result = result
        level = self._level()
        port_types = result.port_types if level is None else result.scoped_port_types.get(level, {})
        for node in self.view.material_nodes():
            node.refresh_title()
            resolved: dict[tuple[str, str], object] = {}
            for direction, ports in (("in", node.input_ports()), ("out", node.output_ports())):
                for port in ports:
                    port_type = port_types.get((node.stable_id, port.name()))
                    if port_type is not None:
                        resolved[(direction, port.name())] = port_type
            node.show_port_types(resolved)
