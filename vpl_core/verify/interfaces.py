"""Stage interfaces (spec 6) and vertex-to-fragment linkage (spec 3.1).

Per stage: valid direction/semantic enums; nonempty names unique across
both directions; locations -1 (unspecified) or nonnegative, with explicit
locations and non-None semantics unique within one direction (simple
equality of start locations: overlapping spans of matrices/arrays are a
target concern, spec 12.2); Position only as a float vec4 vertex output or
fragment input at location -1; FragmentColor only as a float vec4 fragment
output; the vertex stage declares a Position output and the fragment stage a
FragmentColor output (spec 6.3).

Color and TexCoord carry no placement or type restriction in the spec: they
are tags that must agree across linkage when both sides give one, so they
are accepted on any direction in either stage with any value type.

Linkage: every fragment input other than Position matches exactly one
vertex output other than Position, by equal explicit location, or (both -1)
by exact name; there is no mixed inference. Types are equal (records
nominally, arrays with lengths).
"""

from __future__ import annotations

from collections.abc import Sequence

from vpl_core.ir.module import Direction, InterfaceVariable, Semantic, Stage, StageKind
from vpl_core.ir.type_rules import describe_type, types_equal
from vpl_core.ir.types import ScalarKind, VectorType
from vpl_core.verify.errors import InterfaceRule, ObjectRule, VerificationError, short_repr
from vpl_core.verify.well_formed_types import TypeChecker

_FLOAT_VEC4 = VectorType(ScalarKind.FLOAT, 4)
_LINKAGE_TAGS = (Semantic.COLOR, Semantic.TEXCOORD)


def check_interface(
    stage: Stage, kind: StageKind, variables: Sequence[object], types: TypeChecker
) -> tuple[InterfaceVariable, ...]:
    """Checks one stage's interface list; returns it as checked variables."""
    context = (stage,)
    names: set[str] = set()
    locations: dict[tuple[Direction, int], InterfaceVariable] = {}
    semantics: dict[tuple[Direction, Semantic], InterfaceVariable] = {}
    checked: list[InterfaceVariable] = []
    for variable in variables:
        if not isinstance(variable, InterfaceVariable):
            raise VerificationError(ObjectRule.WRONG_CLASS, f"{kind.value} interface holds a non-interface object", stage, ())
        _check_variable_fields(variable, context, types)
        direction = variable.direction
        if variable.name in names:
            raise VerificationError(
                InterfaceRule.DUPLICATE_NAME, f"{kind.value} stage has two interface variables named {variable.name!r}", variable, context
            )
        names.add(variable.name)
        if variable.location != -1:
            if (direction, variable.location) in locations:
                raise VerificationError(
                    InterfaceRule.DUPLICATE_LOCATION,
                    f"two {kind.value} {direction.value}puts use location {variable.location}", variable, context
                )
            locations[(direction, variable.location)] = variable
        if variable.semantic is not Semantic.NONE:
            if (direction, variable.semantic) in semantics:
                raise VerificationError(
                    InterfaceRule.DUPLICATE_SEMANTIC,
                    f"two {kind.value} {direction.value}puts have semantic {variable.semantic.value}", variable, context
                )
            semantics[(direction, variable.semantic)] = variable
        _check_semantic_placement(variable, kind, context)
        checked.append(variable)

    if kind is StageKind.VERTEX and (Direction.OUT, Semantic.POSITION) not in semantics:
        raise VerificationError(InterfaceRule.NO_POSITION, "vertex stage must declare a position output", stage, ())
    if kind is StageKind.FRAGMENT and (Direction.OUT, Semantic.FRAGMENT_COLOR) not in semantics:
        raise VerificationError(InterfaceRule.NO_FRAGMENT_COLOR, "fragment stage must declare a fragment_color output", stage, ())
    return tuple(checked)


def _check_variable_fields(variable: InterfaceVariable, context: tuple[Stage], types: TypeChecker) -> None:
    if not isinstance(variable.direction, Direction):
        raise VerificationError(ObjectRule.INVALID_ENUM, "interface variable has no valid direction", variable, context)
    if not isinstance(variable.semantic, Semantic):
        raise VerificationError(ObjectRule.INVALID_ENUM, "interface variable has no valid semantic", variable, context)
    if not isinstance(variable.name, str) or not variable.name:
        raise VerificationError(InterfaceRule.NAME, "interface variable names must be nonempty strings", variable, context)
    types.check_value_type(variable.type, variable, context, f"interface variable {variable.name!r}")
    location = variable.location
    if type(location) is not int or location < -1:
        raise VerificationError(
            InterfaceRule.LOCATION,
            f"interface location must be -1 (unspecified) or nonnegative, got {short_repr(location)}", variable, context
        )


def _check_semantic_placement(variable: InterfaceVariable, kind: StageKind, context: tuple[Stage]) -> None:
    semantic = variable.semantic
    if semantic is Semantic.POSITION:
        placed = (kind is StageKind.VERTEX and variable.direction is Direction.OUT) or (
            kind is StageKind.FRAGMENT and variable.direction is Direction.IN
        )
        if not placed:
            raise VerificationError(
                InterfaceRule.POSITION_PLACEMENT, "position is only a vertex output or a fragment input", variable, context
            )
        if not types_equal(variable.type, _FLOAT_VEC4):
            raise VerificationError(
                InterfaceRule.POSITION_TYPE, f"position must be vector float 4, got {describe_type(variable.type)}", variable, context
            )
        if variable.location != -1:
            raise VerificationError(InterfaceRule.POSITION_LOCATION, "position must have location -1", variable, context)
    elif semantic is Semantic.FRAGMENT_COLOR:
        if kind is not StageKind.FRAGMENT or variable.direction is not Direction.OUT:
            raise VerificationError(InterfaceRule.FRAGMENT_COLOR_PLACEMENT, "fragment_color is only a fragment output", variable, context)
        if not types_equal(variable.type, _FLOAT_VEC4):
            raise VerificationError(
                InterfaceRule.FRAGMENT_COLOR_TYPE,
                f"fragment_color must be vector float 4, got {describe_type(variable.type)}", variable, context
            )


def check_linkage(
    vertex: Stage,
    vertex_interface: Sequence[InterfaceVariable],
    fragment: Stage,
    fragment_interface: Sequence[InterfaceVariable],
) -> None:
    """Every ordinary fragment input links to exactly one ordinary vertex output (spec 3.1)."""
    # Candidates keyed by what an input matches on (explicit location, or name when both are -1),
    # so linkage stays linear in the number of interface variables.
    by_location: dict[int, list[InterfaceVariable]] = {}
    by_name: dict[str, list[InterfaceVariable]] = {}
    for output in vertex_interface:
        if output.direction is not Direction.OUT or output.semantic is Semantic.POSITION:
            continue
        if output.location != -1:
            by_location.setdefault(output.location, []).append(output)
        else:
            by_name.setdefault(output.name, []).append(output)
    context = (fragment,)
    for variable in fragment_interface:
        if variable.direction is not Direction.IN or variable.semantic is Semantic.POSITION:
            continue
        if variable.location != -1:
            matches = by_location.get(variable.location, [])
            where = f"at location {variable.location}"
        else:
            matches = by_name.get(variable.name, [])
            where = f"named {variable.name!r} without a location"
        if not matches:
            raise VerificationError(
                InterfaceRule.UNLINKED_INPUT, f"fragment input {variable.name!r} has no vertex output {where}", variable, context
            )
        if len(matches) > 1:
            raise VerificationError(
                InterfaceRule.AMBIGUOUS_LINK,
                f"fragment input {variable.name!r} matches more than one vertex output {where}", variable, context
            )
        (output,) = matches
        if not types_equal(variable.type, output.type):
            raise VerificationError(
                InterfaceRule.LINK_TYPE,
                f"fragment input {variable.name!r} has type {describe_type(variable.type)} but vertex output "
                f"{output.name!r} has {describe_type(output.type)}",
                variable,
                context,
            )
        if (
            variable.semantic in _LINKAGE_TAGS
            and output.semantic in _LINKAGE_TAGS
            and variable.semantic is not output.semantic
        ):
            raise VerificationError(
                InterfaceRule.LINK_TAG,
                f"fragment input {variable.name!r} is tagged {variable.semantic.value} but vertex output "
                f"{output.name!r} is tagged {output.semantic.value}",
                variable,
                context,
            )
