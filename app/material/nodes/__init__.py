"""Node type definitions, one module per palette category; importing this registers them all.

Each module declares its node types with `catalog.register(NodeType(...))`
next to the function that lowers them, so a node's ports, properties and
VPL stay in one place. Import order is palette order.
"""

from app.material.nodes import inputs, lighting, logic, maths, output, pbr, procedural, textures, vectors
