"""VPL types (spec 4).

Structural types (void, scalars, vectors, matrices, samplers, arrays) are
frozen records (`vpl_core.records.record`) compared by value. A `RecordType` has nominal identity:
one declaration is one object, and two declarations with the same display
name and fields are different types. Records are mutable only so that a
reader can create the declaration before its fields are bound; everything
compares them by identity.

Constructors check local invariants that the text format can also express
(dimensions 2-4, positive array counts); the reader reports those as semantic
diagnostics before constructing. Whole-module rules (no void values, no
recursive records) belong to the verifier.
"""

from __future__ import annotations

import enum

from vpl_core.records import record as _record

# typing.TYPE_CHECKING without importing typing at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ScalarKind(enum.Enum):
    BOOL = "bool"
    INT = "int"
    FLOAT = "float"


class Type:
    """Base class of every VPL type."""

    __slots__ = ()

    @property
    def is_void(self) -> bool:
        return False


# The classes below are `record`s (`vpl_core.records`: what a dataclass
# generates, without compiling methods at import) and write their `__init__`
# out: the frozen structural types store their fields in the instance
# dictionary directly, past the frozen `__setattr__`. Equality, hashing, repr
# and immutability come from `record`.

#: The default of the list fields' written `__init__`: a new empty list each time, as `field(default_factory=list)`
#: gives (None passed explicitly stays None: malformed input the verifier reports).
_NEW_LIST: Any = object()


@_record(frozen=True)
class VoidType(Type):
    """No value; only a function return type."""

    @property
    def is_void(self) -> bool:
        return True

    def __str__(self) -> str:
        return "void"


@_record(frozen=True)
class ScalarType(Type):
    """A bool, int32 or binary32 float scalar."""

    kind: ScalarKind

    def __init__(self, kind: ScalarKind) -> None:
        self.__dict__["kind"] = kind

    def __str__(self) -> str:
        return self.kind.value


@_record(frozen=True)
class VectorType(Type):
    """2 to 4 components of one scalar kind."""

    kind: ScalarKind
    size: int

    def __init__(self, kind: ScalarKind, size: int) -> None:
        if not isinstance(size, int) or not 2 <= size <= 4:
            raise ValueError(f"vector size must be 2, 3 or 4, not {size!r}")
        fields = self.__dict__
        fields["kind"] = kind
        fields["size"] = size

    @property
    def element(self) -> ScalarType:
        return ScalarType(self.kind)

    def __str__(self) -> str:
        return f"vector {self.kind.value} {self.size}"


@_record(frozen=True)
class MatrixType(Type):
    """A floating matrix with 2-4 rows and 2-4 columns (rows first, as in the text)."""

    rows: int
    columns: int

    def __init__(self, rows: int, columns: int) -> None:
        for value in (rows, columns):
            if not isinstance(value, int) or not 2 <= value <= 4:
                raise ValueError(f"matrix dimensions must be 2, 3 or 4, not {value!r}")
        fields = self.__dict__
        fields["rows"] = rows
        fields["columns"] = columns

    @property
    def column_type(self) -> VectorType:
        return VectorType(ScalarKind.FLOAT, self.rows)

    def __str__(self) -> str:
        return f"matrix {self.rows} {self.columns}"


@_record(frozen=True)
class SamplerType(Type):
    """An opaque sampler; version 1 has only sampler2D."""

    kind: str = "sampler2D"

    def __init__(self, kind: str = "sampler2D") -> None:
        self.__dict__["kind"] = kind

    def __str__(self) -> str:
        return self.kind


@_record(frozen=True)
class ArrayType(Type):
    """A fixed, positive number of elements of one value type."""

    element: Type
    count: int

    def __init__(self, element: Type, count: int) -> None:
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"array count must be a positive integer, not {count!r}")
        fields = self.__dict__
        fields["element"] = element
        fields["count"] = count

    def __str__(self) -> str:
        return f"array {self.element} {self.count}"


class _FieldNames:
    """Counts every assignment of a field name anywhere, so that lookup indexes know when to rebuild."""

    generation = 0


@_record(eq=False)
class Field:
    """A named record field."""

    name: str
    type: Type

    def __init__(self, name: str, type: Type) -> None:
        self.name = name
        self.type = type

    def __setattr__(self, attribute: str, value: object) -> None:
        if attribute == "name":
            _FieldNames.generation += 1
        object.__setattr__(self, attribute, value)


@_record(eq=False, repr=False)
class RecordType(Type):
    """A record declaration; equality and hashing are by identity (nominal typing).

    Field lookups by name use an index built on first use, so that n
    lookups in a record of n fields cost O(n), not O(n^2) (a
    20,000-field record). The index is rebuilt whenever the field list was
    replaced or resized, any field was renamed or created, or the field found
    is no longer at its indexed position. Lookups answer as a linear scan
    would while the field names are unique, as in every valid record; in a
    record with duplicate names (invalid: the verifier rejects it before any
    lookup) they answer with a field of that name, not always the first.
    """

    name: str
    fields: list[Field]

    def __init__(self, name: str, fields: list[Field] = _NEW_LIST) -> None:
        self.name = name
        self.fields = [] if fields is _NEW_LIST else fields

    def _position(self, name: str) -> int:
        fields = self.fields
        index = self.__dict__.get("_field_index")
        if index is None or index[0] is not fields or index[1] != len(fields) or index[2] != _FieldNames.generation:
            index = self._build_index()
        found = index[3].get(name)
        if found is None:
            return -1
        position, expected = found
        if fields[position] is not expected or expected.name != name:
            # Moved within an unchanged-length list (e.g. swapped): rebuild once.
            found = self._build_index()[3].get(name)
            return -1 if found is None else found[0]
        return position

    def _build_index(self) -> tuple[list[Field], int, int, dict[str, tuple[int, Field]]]:
        positions: dict[str, tuple[int, Field]] = {}
        for position, candidate in enumerate(self.fields):
            positions.setdefault(candidate.name, (position, candidate))
        index = (self.fields, len(self.fields), _FieldNames.generation, positions)
        self.__dict__["_field_index"] = index
        return index

    def field_named(self, name: str) -> Field | None:
        position = self._position(name)
        return None if position < 0 else self.fields[position]

    def field_index(self, name: str) -> int:
        return self._position(name)

    def __str__(self) -> str:
        return f"record {self.name!r}"

    def __repr__(self) -> str:
        return f"RecordType({self.name!r}, id=0x{id(self):x})"


# Shared instances of the common structural types; equal to fresh ones.
VOID = VoidType()
BOOL = ScalarType(ScalarKind.BOOL)
INT = ScalarType(ScalarKind.INT)
FLOAT = ScalarType(ScalarKind.FLOAT)
SAMPLER2D = SamplerType()


def vec(size: int, kind: ScalarKind = ScalarKind.FLOAT) -> VectorType:
    return VectorType(kind, size)


def ivec(size: int) -> VectorType:
    return VectorType(ScalarKind.INT, size)


def bvec(size: int) -> VectorType:
    return VectorType(ScalarKind.BOOL, size)


def mat(rows: int, columns: int | None = None) -> MatrixType:
    return MatrixType(rows, rows if columns is None else columns)


def element_kind(value_type: Type) -> ScalarKind | None:
    """The scalar kind of a scalar, vector (its elements) or matrix (float)."""
    if isinstance(value_type, ScalarType):
        return value_type.kind
    if isinstance(value_type, VectorType):
        return value_type.kind
    if isinstance(value_type, MatrixType):
        return ScalarKind.FLOAT
    return None


def is_float_scalar(value_type: Type) -> bool:
    return isinstance(value_type, ScalarType) and value_type.kind is ScalarKind.FLOAT


def is_numeric_scalar(value_type: Type) -> bool:
    return isinstance(value_type, ScalarType) and value_type.kind is not ScalarKind.BOOL


def component_count(value_type: Type) -> int:
    """Scalar components of a scalar (1), vector (size) or matrix (rows*columns); 0 otherwise."""
    if isinstance(value_type, ScalarType):
        return 1
    if isinstance(value_type, VectorType):
        return value_type.size
    if isinstance(value_type, MatrixType):
        return value_type.rows * value_type.columns
    return 0
