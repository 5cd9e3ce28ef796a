"""Checks of a material that the lowering does not make, because the shader does not depend on them.

A Float Parameter's range only drives the panel's slider, so a wrong one
still lowers; it is reported here as a warning on the node (the material
keeps working): a minimum above the maximum, and a value outside the range.
"""

from __future__ import annotations

from app.material.graph import MaterialGraph
from app.material.node_types import NodeDiagnostic, as_number
from app.material.traversal import node_id_key

RANGED_PARAMETER_TYPES = ("float_parameter",)


def _format(number: float) -> str:
    return f"{number:g}"


def range_problems(graph: MaterialGraph) -> list[NodeDiagnostic]:
    """Warnings for parameter ranges the slider cannot use, in node order."""
    problems: list[NodeDiagnostic] = []
    for node_id in sorted(graph.nodes, key=node_id_key):
        node = graph.nodes[node_id]
        if node.type_name not in RANGED_PARAMETER_TYPES:
            continue
        low = as_number(node.properties.get("minimum", 0.0), 0.0)
        high = as_number(node.properties.get("maximum", 1.0), 1.0)
        value = as_number(node.properties.get("default", low), low)
        if low > high:
            problems.append(NodeDiagnostic(node_id, "graph", f"the minimum {_format(low)} is greater than the maximum "
                                           f"{_format(high)}: the slider cannot show this range (swap them)", "warning"))
        elif not low <= value <= high:
            problems.append(NodeDiagnostic(node_id, "graph", f"the value {_format(value)} is outside the range "
                                           f"[{_format(low)}, {_format(high)}] of its slider", "warning"))
    return problems
