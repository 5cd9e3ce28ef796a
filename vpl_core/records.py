"""`Record`: the base of small value classes written without `dataclasses`.

A dataclass compiles each method it generates with `exec` when its class is
created: about 0.7 M instructions per method, six methods for a frozen
class, paid at import by every `vpl` process. The verifier's and the GLSL
backend's internal records (built-in signatures, interface assignments,
helper summaries...) are plain classes on this base instead: each names its
fields in `__slots__` and sets them in its own `__init__`, declared `Final`
so that the type checker refuses to assign them afterwards. The base gives
them what a frozen dataclass generates besides: equality between instances
of the same class field by field, a hash of the field values and
`ClassName(field=value, ...)` as `repr` (fields in `__slots__` order). The IR keeps its dataclasses (`vpl_core.ir.paths` walks their
fields).
"""

from __future__ import annotations


class Record:
    """Fields in `__slots__`, set once by `__init__`; equality, hash and repr by field, as a frozen dataclass's.

    Slots whose names start with an underscore hold what the fields determine (caches): they take no part
    in equality, hash or repr.
    """

    __slots__: tuple[str, ...] = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls._fields = tuple(name for name in cls.__slots__ if not name.startswith("_"))

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{self.__class__.__qualname__}({fields})"
