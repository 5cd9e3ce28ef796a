"""How a port's data type looks in the graph: its colour and its tooltip.

Colours are fixed per type family so an artist learns them once: scalars
grey, 2/3/4-vectors green/yellow/blue, colours orange, matrices purple,
samplers red, booleans and integers their own hues. A type the table does not
know gets a stable colour derived from its name, never a random one.
"""

from __future__ import annotations

import hashlib

from app.graph.rich_text import escaped

Color = tuple[int, int, int]

TYPE_COLORS: dict[str, Color] = {
    "float": (161, 161, 161),
    "vec2": (99, 199, 99),
    "vec3": (230, 200, 60),
    "vec4": (100, 150, 240),
    "color": (240, 140, 50),
    "color3": (240, 140, 50),
    "color4": (240, 110, 80),
    "bool": (200, 100, 200),
    "int": (60, 200, 200),
    "uint": (60, 170, 200),
    "mat2": (170, 110, 230),
    "mat3": (150, 100, 230),
    "mat4": (130, 90, 230),
    "sampler2d": (220, 60, 60),
    "texture": (220, 60, 60),
}

#: Ports that adapt to what is connected (their type comes from propagation).
GENERIC_COLOR: Color = (220, 220, 220)
GENERIC_NAMES = {"dynamic", "any", "generic"}


def type_label(port_type: object) -> str:
    """The short, GLSL-like spelling of a port type: "vec3" for VPL's `vector float 3`.

    Catalog port types may be VPL types or plain strings (generic ports such
    as "any"); both are accepted.
    """
    if port_type is None:
        return "?"
    words = str(port_type).split()
    if "(dynamic)" in words:
        return "dynamic"
    if len(words) == 3 and words[0] == "vector":
        prefix = {"float": "", "int": "i", "bool": "b", "uint": "u"}.get(words[1], words[1][:1])
        return f"{prefix}vec{words[2]}"
    if len(words) == 3 and words[0] == "matrix":
        return f"mat{words[1]}" if words[1] == words[2] else f"mat{words[2]}x{words[1]}"
    return " ".join(words)


def _normalise(label: str) -> str:
    text = label.strip().lower().replace(" ", "")
    if "dynamic" in text:
        return "dynamic"
    if text.startswith("sampler"):
        return "sampler2d"
    return text


def port_color(port_type: object) -> Color:
    label = _normalise(type_label(port_type))
    if label in TYPE_COLORS:
        return TYPE_COLORS[label]
    if label in GENERIC_NAMES or not label or label == "?":
        return GENERIC_COLOR
    digest = hashlib.sha1(label.encode("utf-8")).digest()
    # Keep derived colours light enough to read on the dark graph background.
    return (90 + digest[0] % 150, 90 + digest[1] % 150, 90 + digest[2] % 150)


#: Short forms of app.material.port_types.conversion's answers, for tooltips.
_CONVERSION_WORDS = {"same": "as is", "broadcast": "broadcast", "drop_alpha": "alpha dropped", "add_alpha": "alpha 1 added",
                     "luminance": "luminance", "sample": "read at the mesh's texture coordinates"}


def accepted_sources(declared: object) -> str:
    """What an input of the declared type accepts besides its own type: "float (broadcast), vec3 (alpha 1 added)"."""
    from app.material.port_types import Constraint, PortType, conversion

    if isinstance(declared, Constraint):
        return "any float, vector or colour (all dynamic inputs take one width; floats broadcast)"
    if not isinstance(declared, PortType):
        return ""
    accepted = [
        f"{source} ({_CONVERSION_WORDS[kind]})"
        for source in PortType
        if source is not declared and (kind := conversion(source, declared)) is not None
    ]
    return ", ".join(accepted)


def port_tooltip(port_name: str, declared: object, resolved: object | None, connected_from: str = "",
                 is_input: bool = False) -> str:
    lines = [f"<b>{escaped(port_name)}</b>"]
    declared_label = type_label(declared)
    if resolved is not None and type_label(resolved) != declared_label:
        lines.append(f"type: {type_label(resolved)} (declared {declared_label})")
    else:
        lines.append(f"type: {declared_label}")
    if is_input:
        accepted = accepted_sources(declared)
        if accepted:
            lines.append(f"also accepts: {accepted}")
    if connected_from:
        lines.append(f"from: {escaped(connected_from)}")
    return "<br/>".join(lines)
