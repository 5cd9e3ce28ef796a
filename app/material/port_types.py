"""Port types of material nodes and the rules for connecting them.

A port carries one of seven types: `float`, `vec2`, `vec3`, `vec4` (float
scalars and vectors), `color` (a float vec4 that prefers a colour widget),
`texture` (a sampler2D) or `bool`. An input port either has one of these
fixed types or is *dynamic*: it takes the width of what is connected, and
all dynamic inputs of one node unify to one width that the node's dynamic
outputs also take (add, multiply, mix, ...; `app.material.propagation`).

Connection rules (the editor refuses a drag that breaks them, naming both
types; `app.material.connections`):

- equal types always connect;
- `float` connects to every float-valued input (vec2/3/4, colour, dynamic):
  the scalar is broadcast to every component (an explicit splat
  construction, as GLSL's `vecN(x)`);
- `color` and `vec4` connect to each other freely (same VPL type, vec4);
- `color` into a `vec3` input drops alpha (`.xyz`); `vec3` into a `color`
  input gains alpha 1.0;
- `color` into a `float` input gives its luminance, as Blender converts a
  colour socket into a value socket: `dot(rgb, LUMINANCE_WEIGHTS)`, the
  Rec. 709 / sRGB primaries' weights of linear light (alpha is ignored).
  No other width changes are implicit: a vec4 into a vec3 input, or a vec2
  into a vec3 input, is refused (use Swizzle/Split/Compose);
- `texture` into a `float`, `vec3`, `vec4` or `color` input is read at the
  mesh's texture coordinates, as a Texture Sample node reads it (then
  converted from the colour as above: a float input gets the luminance);
- `texture` connects to nothing else but `texture` (not to dynamic
  inputs), `bool` only to `bool`.

This module knows nothing of nodes or graphs: it is the bottom of
`app.material` (it imports only `vpl_core.ir.types`).
"""

from __future__ import annotations

import enum

from vpl_core.ir.types import BOOL as VPL_BOOL
from vpl_core.ir.types import FLOAT as VPL_FLOAT
from vpl_core.ir.types import SAMPLER2D, Type, vec


class PortType(enum.Enum):
    """A resolved port type; the value is the spelling shown to users and saved in files."""

    FLOAT = "float"
    VEC2 = "vec2"
    VEC3 = "vec3"
    VEC4 = "vec4"
    COLOR = "color"
    TEXTURE = "texture"
    BOOL = "bool"

    @property
    def is_numeric(self) -> bool:
        """Float scalars, vectors and colours: the types arithmetic nodes accept."""
        return self not in (PortType.TEXTURE, PortType.BOOL)

    @property
    def width(self) -> int:
        """Float components (colour: 4); 0 for texture and bool."""
        return _WIDTHS[self]

    @property
    def vpl_type(self) -> Type:
        return _VPL_TYPES[self]

    def __str__(self) -> str:
        return self.value


_WIDTHS = {
    PortType.FLOAT: 1,
    PortType.VEC2: 2,
    PortType.VEC3: 3,
    PortType.VEC4: 4,
    PortType.COLOR: 4,
    PortType.TEXTURE: 0,
    PortType.BOOL: 0,
}

_VPL_TYPES: dict[PortType, Type] = {
    PortType.FLOAT: VPL_FLOAT,
    PortType.VEC2: vec(2),
    PortType.VEC3: vec(3),
    PortType.VEC4: vec(4),
    PortType.COLOR: vec(4),
    PortType.TEXTURE: SAMPLER2D,
    PortType.BOOL: VPL_BOOL,
}


def float_type(width: int) -> PortType:
    """The float scalar (1) or vector (2-4) port type of a width."""
    return {1: PortType.FLOAT, 2: PortType.VEC2, 3: PortType.VEC3, 4: PortType.VEC4}[width]


class Constraint(enum.Enum):
    """A port whose type is decided by what is connected."""

    DYNAMIC = "dynamic"

    def __str__(self) -> str:
        return "float or vector (dynamic)"


DYNAMIC = Constraint.DYNAMIC
PortConstraint = PortType | Constraint


#: The weights of a linear colour's luminance (ITU-R BT.709, the sRGB primaries: Y = 0.2126 R + 0.7152 G + 0.0722 B),
#: what a colour connected to a float input gives (Blender's colour-to-value conversion uses the same weights).
LUMINANCE_WEIGHTS = (0.2126, 0.7152, 0.0722)


def conversion(source: PortType, target: PortType) -> str | None:
    """How a value of `source` type reaches a fixed `target` input, or None if it cannot.

    Returns "same", "broadcast" (float splat), "drop_alpha" (colour to vec3),
    "add_alpha" (vec3 to colour), "luminance" (colour to float) or "sample"
    (a texture read at the mesh's texture coordinates, then the colour converted).
    """
    if source is target:
        return "same"
    if source is PortType.TEXTURE and target.is_numeric:
        return "sample" if conversion(PortType.COLOR, target) is not None else None
    if {source, target} == {PortType.COLOR, PortType.VEC4}:
        return "same"
    if source is PortType.FLOAT and target.is_numeric:
        return "broadcast"
    if source is PortType.COLOR and target is PortType.VEC3:
        return "drop_alpha"
    if source is PortType.VEC3 and target is PortType.COLOR:
        return "add_alpha"
    if source is PortType.COLOR and target is PortType.FLOAT:
        return "luminance"
    return None


def refusal(source: PortType, target: PortConstraint, target_port: str) -> str | None:
    """Why `source` cannot feed an input of `target` type, or None when it can (ignoring siblings)."""
    if isinstance(target, Constraint):
        if source.is_numeric:
            return None
        return f"type mismatch: {source} cannot connect to input '{target_port}', which takes a float or vector"
    if conversion(source, target) is None:
        return f"type mismatch: {source} cannot connect to input '{target_port}' of type {target}"
    return None
