"""Names and values shared by node groups and the Custom Code node, with no dependencies but the port types.

Kept apart from app/material/groups.py so that app/material/custom_code.py
(imported while the catalog registers its types) can use them whichever
module is imported first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from app.material.port_types import PortType

#: The property of a group node that names its definition.
#: The type of a group instance node (`app.material.groups`), which names its definition in FUNCTION_PROPERTY.
GROUP_TYPE = "group"
FUNCTION_PROPERTY = "function"
PORT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
RESERVED_PORT_NAMES = frozenset({FUNCTION_PROPERTY, "true", "false", "void"})


def port_name_problem(name: str, taken: Iterable[str] = ()) -> str | None:
    """Why `name` cannot name an interface port (None: it can)."""
    if not PORT_NAME.match(name):
        return f"'{name}' is not a port name: use a letter, then letters, digits or underscores (at most 64)"
    if name in RESERVED_PORT_NAMES:
        return f"'{name}' is reserved"
    if name in set(taken):
        return f"there is already a port called '{name}'"
    return None


def slug(text: str, fallback: str = "group") -> str:
    """A lower-case identifier made from `text` ("Wet Mask" -> "wet_mask")."""
    words = re.findall(r"[A-Za-z0-9]+", text)
    value = "_".join(word.lower() for word in words)
    if not value or not value[0].isalpha():
        value = f"{fallback}_{value}" if value else fallback
    return value[:48]


def unique(base: str, taken: Iterable[str]) -> str:
    """`base`, or `base_2`, `base_3`, ... whichever is not taken."""
    used = taken if isinstance(taken, (set, frozenset)) else set(taken)  # a set is read as it is, not copied
    if base not in used:
        return base
    number = 2
    while f"{base}_{number}" in used:
        number += 1
    return f"{base}_{number}"


#: The property kind that holds an unconnected input's value, per port type.
VALUE_KINDS = {
    PortType.FLOAT: "float",
    PortType.VEC2: "vector",
    PortType.VEC3: "vector",
    PortType.VEC4: "vector",
    PortType.COLOR: "color",
    PortType.BOOL: "bool",
}


def zero_value(port_type: PortType) -> Any:
    """The value of an interface port without a default: zeros (opaque black for colours), false."""
    if port_type is PortType.BOOL:
        return False
    if port_type is PortType.COLOR:
        return (0.0, 0.0, 0.0, 1.0)
    if port_type.width > 1:
        return (0.0,) * port_type.width
    return 0.0
