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
`ClassName(field=value, ...)` as `repr` (fields in `__slots__` order).
The IR's classes and `Diagnostic` keep their class bodies (annotated fields,
written-out `__init__`s) and take the `record` decorator instead of
`dataclass`: it adds the same equality, hash, `repr`, immutability and slots
with shared functions rather than code compiled per class, and names the
fields in `_fields`, which `vpl_core.ir.paths` walks. `replace`, `fields_of`
and `is_record` stand for `dataclasses.replace`, `fields` and `is_dataclass`.
"""

from __future__ import annotations

from operator import attrgetter

# typing.TYPE_CHECKING without importing typing at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    _C = TypeVar("_C", bound=type)
    _T = TypeVar("_T")


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


class FrozenInstanceError(AttributeError):
    """Assigning or deleting a field of a frozen `record` class (as `dataclasses.FrozenInstanceError`)."""


def record(*, frozen: bool = False, eq: bool = True, repr: bool = True, slots: bool = False) -> Callable[[_C], _C]:
    """A class decorator standing for `dataclass(frozen=..., eq=..., repr=..., slots=..., init=False)`.

    The fields are the class's annotated names in order, after those of its `record` bases; the class writes
    its own `__init__`. `eq` gives equality between instances of the same class by the tuple of field values
    and, with `frozen`, the hash of that tuple (`eq=False` keeps identity); `repr` gives
    `QualName(field=value, ...)`; `frozen` makes assigning or deleting a field raise `FrozenInstanceError`;
    `slots` recreates the class with its own fields as `__slots__` (class-level defaults dropped, as a
    dataclass does). The class's `_fields` names the fields in order and `_frozen` says whether it is frozen.
    """

    def decorate(cls: _C) -> _C:
        inherited: tuple[str, ...] = ()
        for base in reversed(cls.__mro__[1:]):
            inherited += tuple(name for name in vars(base).get("_fields", ()) if name not in inherited)
        own = tuple(name for name in vars(cls).get("__annotations__", {}) if name not in inherited)
        fields = inherited + own
        namespace = dict(cls.__dict__)
        if slots:
            for name in own:
                namespace.pop(name, None)
            namespace.pop("__dict__", None)
            namespace.pop("__weakref__", None)
            namespace["__slots__"] = own
        namespace["_fields"] = fields
        namespace["_frozen"] = frozen
        namespace["__match_args__"] = fields
        if eq:
            namespace["__eq__"] = _make_eq(fields)
            if frozen:
                namespace["__hash__"] = _make_hash(fields)
        if repr and "__repr__" not in cls.__dict__:
            namespace["__repr__"] = _field_repr
        if frozen:
            namespace["__setattr__"] = _frozen_setattr
            namespace["__delattr__"] = _frozen_delattr
            if slots:
                namespace["__getstate__"] = _slots_getstate
                namespace["__setstate__"] = _slots_setstate
        if not slots:
            for name, value in namespace.items():
                if name in cls.__dict__ and cls.__dict__[name] is value:
                    continue
                type.__setattr__(cls, name, value)
            return cls
        result: _C = type(cls)(cls.__name__, cls.__bases__, namespace)
        result.__qualname__ = cls.__qualname__
        return result

    return decorate


def _tuple_getter(fields: tuple[str, ...]) -> Callable[[object], tuple[object, ...]]:
    if not fields:
        return lambda instance: ()
    if len(fields) == 1:
        single = attrgetter(fields[0])
        return lambda instance: (single(instance),)
    getter: Callable[[object], tuple[object, ...]] = attrgetter(*fields)
    return getter


def _make_eq(fields: tuple[str, ...]) -> Callable[[object, object], object]:
    values = _tuple_getter(fields)

    def equal(self: object, other: object) -> object:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return equal


def _make_hash(fields: tuple[str, ...]) -> Callable[[object], int]:
    values = _tuple_getter(fields)

    def field_hash(self: object) -> int:
        return hash(values(self))

    return field_hash


def _field_repr(self: Any) -> str:
    fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
    return f"{self.__class__.__qualname__}({fields})"


def _frozen_setattr(self: Any, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _slots_getstate(self: Any) -> list[object]:
    return [getattr(self, name) for name in self._fields]


def _slots_setstate(self: Any, state: list[object]) -> None:
    for name, value in zip(self._fields, state, strict=True):
        object.__setattr__(self, name, value)


def is_record(instance: object) -> bool:
    """Whether `instance` is an instance of a `record` class or a `Record` (as `dataclasses.is_dataclass`)."""
    return not isinstance(instance, (type, tuple)) and hasattr(type(instance), "_fields")


def fields_of(instance: object) -> tuple[str, ...]:
    """The field names of a `record` class's instance, or of a `Record`'s; () for anything else (classes, tuples)."""
    if isinstance(instance, (type, tuple)):
        return ()
    names: tuple[str, ...] = getattr(type(instance), "_fields", ())
    return names


def replace(instance: _T, **changes: object) -> _T:
    """A new instance of `instance`'s class with `changes` to its fields, as `dataclasses.replace`."""
    if not is_record(instance):
        raise TypeError(f"replace() takes a record instance, not {type(instance).__qualname__}")
    arguments = {name: getattr(instance, name) for name in fields_of(instance)}
    unknown = set(changes) - set(arguments)
    if unknown:
        raise TypeError(f"{type(instance).__qualname__} has no fields {sorted(unknown)}")
    arguments.update(changes)
    return type(instance)(**arguments)
