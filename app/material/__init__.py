"""The material layer: graph document, node catalog, lowering to VPL, and .vpl documents (no Qt).

- `graph`: `MaterialGraph`, `Node`, `Connection`, `Frame` (plain data, stable ids, JSON dictionaries).
- `port_types`, `traversal`, `propagation`, `connections`: port types and connection rules, graph
  walks, type propagation, the editor's drag check (`can_connect`).
- `node_types`: what a node type is (static and dynamic), `Scope`, the registries.
- `catalog` (+ `nodes/`): every node type with its ports, properties and lowering.
- `lowering`: `lower(graph) -> LoweringResult` (module, verified module, GLSL artifact,
  diagnostics per node, resolved port types, parameters, provenance); never raises.
- `document`: saving and opening .vpl documents (graph block + hash, read-only rule, atomic save).
- `examples`: the shipped example materials; `reference`: docs/material-nodes.md.
- `scene`, `parameters`: the preview host contract and the parameters panel's input.
"""
