"""Interface locations and names (spec 12.2).

Per stage and direction, explicit locations are kept and checked; then the
unspecified ones are allocated in source order, each taking the lowest free
range of its span that avoids every explicit range and every range assigned
before it. Spans follow GLSL: scalars and vectors one location, a matrix
one per column, arrays and records the sum of their elements' and fields'
spans. Fragment inputs are not allocated: each inherits the resolved
location of the vertex output it links to (spec 3.1: equal explicit
locations, or equal names when both are unspecified). Position is the
built-in gl_Position / gl_FragCoord and has no location.

Overlapping ranges and ranges outside the signed GL integer range are
target errors. The limits a target guarantees (GL_MAX_VERTEX_ATTRIBS and
friends) are checked afterwards, on the resolved locations (`limits.py`).
"""

from __future__ import annotations

from vpl_core.backends.glsl import names
from vpl_core.backends.glsl.errors import LocationRule
from vpl_core.diagnostics import TargetError
from vpl_core.ir.module import Direction, InterfaceVariable, Module, Semantic, Stage, StageKind
from vpl_core.ir.types import ArrayType, MatrixType, RecordType, ScalarKind, ScalarType, Type, VectorType
from vpl_core.ir.values import INT32_MAX
from vpl_core.records import Record

# typing.TYPE_CHECKING without importing typing at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final


def location_span(value_type: Type) -> int:
    """Locations a value of this type occupies in a GLSL interface."""
    if isinstance(value_type, MatrixType):
        return value_type.columns
    if isinstance(value_type, ArrayType):
        return value_type.count * location_span(value_type.element)
    if isinstance(value_type, RecordType):
        return sum(location_span(field.type) for field in value_type.fields)
    return 1


def contains_integer(value_type: Type) -> bool:
    """True if any leaf of the type is an int scalar or vector (such varyings are `flat`)."""
    if isinstance(value_type, (ScalarType, VectorType)):
        return value_type.kind is ScalarKind.INT
    if isinstance(value_type, ArrayType):
        return contains_integer(value_type.element)
    if isinstance(value_type, RecordType):
        return any(contains_integer(field.type) for field in value_type.fields)
    return False


class InterfaceAssignment(Record):
    """How one interface variable appears in GLSL."""

    __slots__ = ("builtin", "flat", "gl_name", "location", "slot", "variable")

    def __init__(self, variable: InterfaceVariable, slot: int, gl_name: str, location: int, builtin: bool, flat: bool) -> None:
        self.variable: Final = variable
        self.slot: Final = slot
        self.gl_name: Final = gl_name
        self.location: Final = location  # -1 for the built-in Position variables
        self.builtin: Final = builtin  # gl_Position / gl_FragCoord: no declaration
        self.flat: Final = flat  # integer-containing varying: `flat` on both sides


class StageInterface(Record):
    """A stage's interface variables with their resolved locations, by slot."""

    __slots__ = ("assignments", "stage")

    def __init__(self, stage: Stage, assignments: tuple[InterfaceAssignment, ...]) -> None:
        self.stage: Final = stage
        self.assignments: Final = assignments

    def for_slot(self, slot: int) -> InterfaceAssignment:
        return self.assignments[slot]


def _describe(variable: InterfaceVariable) -> str:
    return f"{variable.direction.value}put {variable.name!r}"


def _allocate(stage: Stage, direction: Direction) -> dict[int, int]:
    """Resolved locations of the non-Position variables of one direction, by slot.

    O(n log n) in the number of variables: explicit ranges are checked by
    sorting, and first-fit allocation scans the free gaps from a per-span
    hint (for a given span the first gap that fits only moves forward, since
    allocation only shrinks gaps), instead of rescanning every range per
    variable (quadratic).
    """
    explicit: list[tuple[int, int, int, InterfaceVariable]] = []  # (start, end exclusive, slot, variable)
    unspecified: list[tuple[int, InterfaceVariable]] = []
    for slot, variable in enumerate(stage.interface):
        if variable.direction is not direction or variable.semantic is Semantic.POSITION:
            continue
        if variable.location == -1:
            unspecified.append((slot, variable))
            continue
        span = location_span(variable.type)
        if variable.location < 0 or variable.location + span - 1 > INT32_MAX:
            raise TargetError(
                LocationRule.OUT_OF_RANGE,
                f"{stage.kind.value} {_describe(variable)} at location {variable.location} spans "
                f"{span} locations, outside the GL location range 0..{INT32_MAX}",
                subject=variable,
            )
        explicit.append((variable.location, variable.location + span, slot, variable))
    occupied = sorted((start, end) for start, end, _, _ in explicit)
    if any(occupied[index][0] < occupied[index - 1][1] for index in range(1, len(occupied))):
        _report_overlap(stage, explicit)
    resolved = {slot: start for start, _, slot, _ in explicit}

    gaps: list[list[int]] = []  # free [start, end) intervals in increasing order
    free_from = 0
    for start, end in occupied:
        if start > free_from:
            gaps.append([free_from, start])
        free_from = max(free_from, end)
    gaps.append([free_from, INT32_MAX + 1])
    hints: dict[int, int] = {}  # span -> first gap that may still hold it
    for slot, variable in unspecified:
        span = location_span(variable.type)
        position = hints.get(span, 0)
        while position < len(gaps) and gaps[position][1] - gaps[position][0] < span:
            position += 1
        if position == len(gaps):
            raise TargetError(
                LocationRule.EXHAUSTED,
                f"{stage.kind.value} {_describe(variable)} needs {span} locations; none are free "
                f"within the GL location range",
                subject=variable,
            )
        hints[span] = position
        resolved[slot] = gaps[position][0]
        gaps[position][0] += span
    return resolved


def _report_overlap(stage: Stage, explicit: list[tuple[int, int, int, InterfaceVariable]]) -> None:
    """Raise for the first explicit variable (source order) overlapping an earlier one, naming the earliest."""
    for index, (start, end, _, variable) in enumerate(explicit):
        for other_start, other_end, _, other in explicit[:index]:
            if start < other_end and other_start < end:
                raise TargetError(
                    LocationRule.OVERLAP,
                    f"{stage.kind.value} {_describe(variable)} occupies locations {start}..{end - 1}, "
                    f"overlapping {_describe(other)} at {other_start}..{other_end - 1}",
                    subject=variable,
                )
    raise AssertionError("sorted ranges overlap but no pair does")


def _vertex_outputs(vertex: Stage) -> tuple[dict[int, int], dict[str, int]]:
    """Slots of the vertex outputs a fragment input can link to: by explicit location, and by name
    for unspecified locations (the first such output wins, as a scan in slot order would find)."""
    by_location: dict[int, int] = {}
    by_name: dict[str, int] = {}
    for slot, candidate in enumerate(vertex.interface):
        if candidate.direction is not Direction.OUT or candidate.semantic is Semantic.POSITION:
            continue
        if candidate.location == -1:
            by_name.setdefault(candidate.name, slot)
        else:
            by_location.setdefault(candidate.location, slot)
    return by_location, by_name


def _gl_name(stage_kind: StageKind, direction: Direction, location: int) -> str:
    if stage_kind is StageKind.VERTEX:
        return names.attribute_name(location) if direction is Direction.IN else names.varying_name(location)
    return names.varying_name(location) if direction is Direction.IN else names.output_name(location)


def resolve_interfaces(module: Module) -> tuple[StageInterface, StageInterface]:
    """The GLSL names and locations of both stages' interface variables."""
    vertex, fragment = module.vertex, module.fragment
    vertex_locations = {**_allocate(vertex, Direction.IN), **_allocate(vertex, Direction.OUT)}
    fragment_locations = _allocate(fragment, Direction.OUT)
    outputs_by_location, outputs_by_name = _vertex_outputs(vertex)
    for slot, variable in enumerate(fragment.interface):
        if variable.direction is not Direction.IN or variable.semantic is Semantic.POSITION:
            continue
        # Spec 3.1: equal explicit locations, or equal names when both are unspecified.
        if variable.location != -1:
            linked = outputs_by_location.get(variable.location)
        else:
            linked = outputs_by_name.get(variable.name)
        if linked is None:
            # The verifier guarantees linkage; this guards a module from elsewhere.
            raise TargetError(LocationRule.UNLINKED, f"fragment {_describe(variable)} has no linked vertex output", subject=variable)
        fragment_locations[slot] = vertex_locations[linked]

    def stage_interface(stage: Stage, locations: dict[int, int]) -> StageInterface:
        assignments = []
        for slot, variable in enumerate(stage.interface):
            if variable.semantic is Semantic.POSITION:
                gl_name = "gl_Position" if stage.kind is StageKind.VERTEX else "gl_FragCoord"
                assignments.append(InterfaceAssignment(variable, slot, gl_name, -1, True, False))
                continue
            location = locations[slot]
            is_varying = (stage.kind is StageKind.VERTEX) is (variable.direction is Direction.OUT)
            flat = is_varying and contains_integer(variable.type)
            assignments.append(
                InterfaceAssignment(
                    variable, slot, _gl_name(stage.kind, variable.direction, location), location, False, flat
                )
            )
        return StageInterface(stage, tuple(assignments))

    return stage_interface(vertex, vertex_locations), stage_interface(fragment, fragment_locations)
