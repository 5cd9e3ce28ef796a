"""The node catalog: every material node type, registered, by name and by category.

Importing this module imports `app.material.nodes`, whose category modules
register their node types (`app.material.node_types.register`), and
`app.material.custom_code` and `app.material.groups`, which register their
*dynamic* types (`node_types.register_dynamic`: ports built from the node
and its `Scope`), so `NODE_TYPES` and `resolve_node_type` here are always
complete. What a node type is (`NodeType`, `PortSpec`, `PropertySpec`,
`Scope`, the property readers, the registries) is defined in
`app.material.node_types`; this module only gathers them. The lowering, the
drag check and the editor import the catalog; the node modules, the group
modules, the graph model and the type propagation never do (the catalog
imports the group modules, which build graphs and propagate types): they
read the registries of `node_types`, complete once the catalog is imported.
"""

from __future__ import annotations

# Imported for their effect, in this order (palette order): every category registers its node types,
# then Custom Code (a static type and a dynamic one) and the groups register theirs.
from app.material import nodes as _nodes  # noqa: F401 - imported for its effect (registration)

# isort: split
from app.material import custom_code as _custom_code
from app.material import groups as _groups  # noqa: F401 - imported for its effect (registration)
from app.material.node_types import (
    CATEGORIES,
    DYNAMIC_NODE_TYPES,
    NODE_TYPES,
    NodeType,
    Scope,
    node_type_for,
    resolve_node_type,
)

# Custom Code registers its static type when its module is first imported, which may be before the
# category modules (a caller that imports `app.material.custom_code` first); the catalog's order (the
# palette's and the reference's) must not depend on that, so it comes after every category's types.
NODE_TYPES[_custom_code.CUSTOM_CODE_TYPE] = NODE_TYPES.pop(_custom_code.CUSTOM_CODE_TYPE)

__all__ = ["DYNAMIC_NODE_TYPES", "NODE_TYPES", "Scope", "categories", "node_type", "node_type_for", "resolve_node_type"]


def node_type(name: str) -> NodeType:
    """The node type of that name; KeyError when there is none."""
    return NODE_TYPES[name]


def categories() -> dict[str, list[NodeType]]:
    """Node types by category, categories in palette order, types in catalog order."""
    grouped: dict[str, list[NodeType]] = {name: [] for name in CATEGORIES}
    for candidate in NODE_TYPES.values():
        grouped[candidate.category].append(candidate)
    return {name: types for name, types in grouped.items() if types}
