"""The node catalog: every material node type, registered, by name and by category.

Importing this module imports `app.material.nodes`, whose category modules
register their node types (`app.material.node_types.register`), so
`NODE_TYPES` here is always complete. What a node type is (`NodeType`,
`PortSpec`, `PropertySpec`, the property readers) is defined in
`app.material.node_types`; this module only gathers them. Everything that
looks node types up by name (the graph model, the type propagation, the
lowering, the editor) imports the catalog; the node modules never do.
"""

from __future__ import annotations

from app.material import nodes as _nodes  # noqa: F401 - imported for its effect: every category registers its node types
from app.material.node_types import CATEGORIES, NODE_TYPES, NodeType

__all__ = ["NODE_TYPES", "categories", "node_type"]


def node_type(name: str) -> NodeType:
    """The node type of that name; KeyError when there is none."""
    return NODE_TYPES[name]


def categories() -> dict[str, list[NodeType]]:
    """Node types by category, categories in palette order, types in catalog order."""
    grouped: dict[str, list[NodeType]] = {name: [] for name in CATEGORIES}
    for candidate in NODE_TYPES.values():
        grouped[candidate.category].append(candidate)
    return {name: types for name, types in grouped.items() if types}
