"""VPL values (spec 5 and 6): registers, scalar constants, storage references.

Computation operands are registers or scalar constants (`Operand`). Storage
references are operands of loads and stores only. All value classes are
frozen: a descriptor is a value, so two descriptors with the same fields are
interchangeable. Derived references carry their own `storage_kind` (MEMBER
or INDEX) and slot 0, as the spec's object model does, so that the verifier
can reject a forged kind, slot or type.

Float constants keep their exact binary32 bit pattern: `-0.0` and `0.0` are
different constants, and equality and hashing go by bits.
"""

from __future__ import annotations

import enum
import math
import struct
from collections.abc import Callable

from vpl_core.ir.types import BOOL, FLOAT, INT, ScalarKind, ScalarType, Type
from vpl_core.records import record as _record

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def float32_bits(value: float) -> int:
    """The binary32 bit pattern of `value`, which must be representable."""
    bits: int = struct.unpack("<I", struct.pack("<f", value))[0]
    return bits


def float32_from_bits(bits: int) -> float:
    value: float = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    return value


def round_to_float32(value: float) -> float:
    """Round a Python float (binary64) to the nearest binary32, ties to even.

    Raises OverflowError when the result is not finite.
    """
    rounded: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return rounded


def is_float32(value: float) -> bool:
    if not math.isfinite(value):
        return False
    try:
        return round_to_float32(value) == value
    except OverflowError:
        return False


# The frozen value classes below keep their fields in slots and write their
# `__init__` out (`record(slots=True)`, `vpl_core.records`). The reader and
# the copy create tens of thousands of values per module: in slots each is
# one allocation of 48 bytes, where an instance dictionary made it two of 144
# together. They store each field through the slots' own descriptors
# (`_set_*`, taken once the class exists), which skips the frozen
# `__setattr__` (through `object.__setattr__` it would cost three times as
# much). Everything else (fields, equality, hashing, immutability) comes from
# `record`.


def _slot_setter(cls: type, name: str) -> Callable[[object, object], None]:
    """The `__set__` of the member descriptor of `cls`'s slot `name` (it stores past a frozen `__setattr__`)."""
    setter: Callable[[object, object], None] = vars(cls)[name].__set__
    return setter


@_record(frozen=True, slots=True)
class RegisterValue:
    """A function-local mutable register, named by its numeric index and typed."""

    index: int
    type: Type

    def __init__(self, index: int, type: Type) -> None:
        _set_register_index(self, index)
        _set_register_type(self, type)

    def __str__(self) -> str:
        return f"r{self.index}"


_set_register_index = _slot_setter(RegisterValue, "index")
_set_register_type = _slot_setter(RegisterValue, "type")


@_record(frozen=True, eq=False, slots=True)
class ConstantValue:
    """A bool, int32 or finite binary32 scalar literal of an explicit scalar type.

    For floats `value` is a Python float exactly representable in binary32;
    equality compares bit patterns so that -0.0 differs from 0.0.
    """

    type: Type
    value: bool | int | float

    def __init__(self, type: Type, value: bool | int | float) -> None:
        _set_constant_type(self, type)
        _set_constant_value(self, value)

    @staticmethod
    def of_bool(value: bool) -> ConstantValue:
        return ConstantValue(BOOL, bool(value))

    @staticmethod
    def of_int(value: int) -> ConstantValue:
        if not INT32_MIN <= value <= INT32_MAX:
            raise ValueError(f"integer constant {value} is outside the signed 32-bit range")
        return ConstantValue(INT, int(value))

    @staticmethod
    def of_float(value: float) -> ConstantValue:
        """A float constant; `value` is rounded to binary32 (nearest even)."""
        if not math.isfinite(value):
            raise ValueError("float constants must be finite")
        rounded = round_to_float32(float(value))
        return ConstantValue(FLOAT, rounded)

    @staticmethod
    def of_float_bits(bits: int) -> ConstantValue:
        return ConstantValue(FLOAT, float32_from_bits(bits))

    @property
    def bits(self) -> int | None:
        """The binary32 bits of a float constant, None for other kinds."""
        if isinstance(self.type, ScalarType) and self.type.kind is ScalarKind.FLOAT:
            return float32_bits(float(self.value))
        return None

    def _key(self) -> tuple[object, ...]:
        if isinstance(self.type, ScalarType) and self.type.kind is ScalarKind.FLOAT:
            try:
                return (self.type, "float", float32_bits(float(self.value)))
            except (OverflowError, TypeError, ValueError, struct.error):
                return (self.type, "invalid", repr(self.value))
        return (self.type, type(self.value).__name__, self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConstantValue) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return f"({self.type} {self.value!r})"


_set_constant_type = _slot_setter(ConstantValue, "type")
_set_constant_value = _slot_setter(ConstantValue, "value")

Operand = RegisterValue | ConstantValue


class StorageKind(enum.Enum):
    """Root storage namespaces (spec 6) and the two derived kinds (spec 6.1)."""

    LOCAL = "local"
    PARAMETER = "parameter"
    UNIFORM = "uniform"
    STAGE = "stage"
    MEMBER = "member"
    INDEX = "index"

    @property
    def is_root(self) -> bool:
        return self not in (StorageKind.MEMBER, StorageKind.INDEX)


@_record(frozen=True, slots=True)
class ReferenceValue:
    """A root storage descriptor: namespace, slot and the stored value type.

    Slots: LOCAL is a register index, PARAMETER the position in the current
    function's parameter list, UNIFORM the position in the module's uniform
    list, STAGE the position in the current stage's interface list.
    """

    storage_kind: StorageKind
    slot: int
    type: Type

    def __init__(self, storage_kind: StorageKind, slot: int, type: Type) -> None:
        _set_storage_kind(self, storage_kind)
        _set_slot(self, slot)
        _set_reference_type(self, type)

    @property
    def root(self) -> ReferenceValue:
        return self


_set_storage_kind = _slot_setter(ReferenceValue, "storage_kind")
_set_slot = _slot_setter(ReferenceValue, "slot")
_set_reference_type = _slot_setter(ReferenceValue, "type")


@_record(frozen=True, slots=True)
class MemberReferenceValue(ReferenceValue):
    """A record field of `base` storage; `type` is the field's declared type."""

    base: ReferenceValue = None  # type: ignore[assignment]  # a default only because the base class has defaulted fields; `create` always passes one
    field_name: str = ""

    def __init__(
        self, storage_kind: StorageKind, slot: int, type: Type, base: ReferenceValue = None, field_name: str = ""  # type: ignore[assignment]  # as the field: `create` always passes a base
    ) -> None:
        _set_storage_kind(self, storage_kind)
        _set_slot(self, slot)
        _set_reference_type(self, type)
        _set_member_base(self, base)
        _set_field_name(self, field_name)

    @staticmethod
    def create(base: ReferenceValue, field_name: str, type: Type) -> MemberReferenceValue:
        return MemberReferenceValue(StorageKind.MEMBER, 0, type, base, field_name)

    @property
    def root(self) -> ReferenceValue:
        # Iterative, and bounded, so that a forged cyclic path cannot recurse forever.
        reference: ReferenceValue = self
        for _ in range(100_000):
            if not isinstance(reference, (MemberReferenceValue, IndexReferenceValue)):
                return reference
            reference = reference.base
        raise ValueError("reference path is cyclic or too deep")


_set_member_base = _slot_setter(MemberReferenceValue, "base")
_set_field_name = _slot_setter(MemberReferenceValue, "field_name")


@_record(frozen=True, slots=True)
class IndexReferenceValue(ReferenceValue):
    """An array element of `base` storage selected by an integer register or constant."""

    base: ReferenceValue = None  # type: ignore[assignment]  # a default only because the base class has defaulted fields; `create` always passes one
    index: Operand = None  # type: ignore[assignment]  # a default only because the base class has defaulted fields; `create` always passes one

    def __init__(
        self, storage_kind: StorageKind, slot: int, type: Type, base: ReferenceValue = None, index: Operand = None  # type: ignore[assignment]  # as the fields: `create` always passes both
    ) -> None:
        _set_storage_kind(self, storage_kind)
        _set_slot(self, slot)
        _set_reference_type(self, type)
        _set_index_base(self, base)
        _set_index_operand(self, index)

    @staticmethod
    def create(base: ReferenceValue, index: Operand, type: Type) -> IndexReferenceValue:
        return IndexReferenceValue(StorageKind.INDEX, 0, type, base, index)

    root = MemberReferenceValue.root


_set_index_base = _slot_setter(IndexReferenceValue, "base")
_set_index_operand = _slot_setter(IndexReferenceValue, "index")


def local_ref(register: RegisterValue) -> ReferenceValue:
    return ReferenceValue(StorageKind.LOCAL, register.index, register.type)


class ReferenceSpellings:
    """The text of reference paths, spelled once per reference object (the VPL text writer's and the GLSL
    emitter's spellings, each with its own `spell`).

    Memoized by identity, not by value: a module read without positions shares one object per path, and
    hashing a long derived path would walk it. Each entry keeps its object alive, so an identity is never
    reused for another reference while the memo lives. The spelling function is passed on each call rather
    than stored, so a memo held by its speller makes no reference cycle.
    """

    __slots__ = ("_texts",)

    def __init__(self) -> None:
        self._texts: dict[int, tuple[ReferenceValue, str]] = {}

    def text(self, reference: ReferenceValue, spell: Callable[[ReferenceValue], str]) -> str:
        spelled = self._texts.get(id(reference))
        if spelled is not None and spelled[0] is reference:
            return spelled[1]
        text = spell(reference)
        self._texts[id(reference)] = (reference, text)
        return text
