"""Logic nodes: comparisons, boolean operations, the data-flow Select and the branching If.

If is the catalog's control node: it ends the current block with a
conditional branch to two new blocks, each copying its side's value into
one result register and branching to a join block, where lowering
continues. Both side values are computed before the branch (a node output
is computed once, in a block that dominates every use), so nothing, least
of all a texture sample, moves behind the branch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import NodeType, PortSpec, PropertySpec, register
from app.material.port_types import DYNAMIC, PortType
from vpl_core.ir.instructions import BinaryOperator, Builtin

if TYPE_CHECKING:
    from app.material.lowering import NodeContext
    from vpl_core.ir.values import RegisterValue

CATEGORY = "Logic"

OPERATORS: dict[str, BinaryOperator] = {
    "<": BinaryOperator.LESS,
    "<=": BinaryOperator.LESS_EQUAL,
    ">": BinaryOperator.GREATER,
    ">=": BinaryOperator.GREATER_EQUAL,
    "==": BinaryOperator.EQUAL,
    "!=": BinaryOperator.NOT_EQUAL,
}
OPERATOR_PROPERTY = PropertySpec("operator", "enum", ">", choices=tuple(OPERATORS))


def _condition(ctx: NodeContext) -> RegisterValue:
    return ctx.fn.compare(OPERATORS[ctx.choice("operator")], ctx.input("a"), ctx.input("b"))


def _lower_compare(ctx: NodeContext) -> None:
    ctx.set_output("out", _condition(ctx))


register(
    NodeType(
        "compare",
        "Compare",
        CATEGORY,
        "True when a <, <=, >, >=, == or != b (floats).",
        inputs=[PortSpec("a", PortType.FLOAT, 0.0), PortSpec("b", PortType.FLOAT, 0.5)],
        outputs=[PortSpec("out", PortType.BOOL)],
        properties=[OPERATOR_PROPERTY, PropertySpec("a", "float", 0.0), PropertySpec("b", "float", 0.5)],
        lower=_lower_compare,
        notes="One comparison instruction (less, greater_equal, ...) giving a bool.",
    )
)


def _lower_select(ctx: NodeContext) -> None:
    value = ctx.fn.builtin(Builtin.SELECT, ctx.output_type("out"), ctx.input("condition"), ctx.input("if_true"), ctx.input("if_false"))
    ctx.set_output("out", value)


register(
    NodeType(
        "select",
        "Select",
        CATEGORY,
        "if_true where the condition holds, else if_false (no branch).",
        inputs=[PortSpec("condition", PortType.BOOL, False), PortSpec("if_true", DYNAMIC, 1.0), PortSpec("if_false", DYNAMIC, 0.0)],
        outputs=[PortSpec("out", DYNAMIC)],
        properties=[
            PropertySpec("condition", "bool", False),
            PropertySpec("if_true", "float", 1.0),
            PropertySpec("if_false", "float", 0.0),
        ],
        lower=_lower_select,
        notes="Math extension `select` (data flow, no blocks).",
    )
)


def _lower_if(ctx: NodeContext) -> None:
    fn = ctx.fn
    if_true = ctx.input("if_true")
    if_false = ctx.input("if_false")
    condition = _condition(ctx)
    result = fn.register(ctx.output_type("out").vpl_type)
    true_block, false_block, join_block = fn.new_block(), fn.new_block(), fn.new_block()
    fn.branch_if(condition, true_block, false_block)
    fn.position_at(true_block)
    fn.copy(if_true, result=result)
    fn.branch(join_block)
    fn.position_at(false_block)
    fn.copy(if_false, result=result)
    fn.branch(join_block)
    fn.position_at(join_block)
    ctx.set_output("out", result)


register(
    NodeType(
        "if",
        "If",
        CATEGORY,
        "Compares a and b and branches: if_true when the comparison holds, else if_false.",
        inputs=[
            PortSpec("a", PortType.FLOAT, 0.0),
            PortSpec("b", PortType.FLOAT, 0.5),
            PortSpec("if_true", DYNAMIC, 1.0),
            PortSpec("if_false", DYNAMIC, 0.0),
        ],
        outputs=[PortSpec("out", DYNAMIC)],
        properties=[
            OPERATOR_PROPERTY,
            PropertySpec("a", "float", 0.0),
            PropertySpec("b", "float", 0.5),
            PropertySpec("if_true", "float", 1.0),
            PropertySpec("if_false", "float", 0.0),
        ],
        lower=_lower_if,
        control=True,
        notes=(
            "A comparison, then `branch_if` to two blocks that each `copy` one side into the result "
            "register and `branch` to a join block; later nodes continue in the join."
        ),
    )
)


def _logical(type_name: str, display_name: str, description: str, builtin: Builtin, names: tuple[str, ...]) -> None:
    def lower(ctx: NodeContext) -> None:
        ctx.set_output("out", ctx.fn.builtin(builtin, PortType.BOOL, *(ctx.input(name) for name in names)))

    register(
        NodeType(
            type_name,
            display_name,
            CATEGORY,
            description,
            inputs=[PortSpec(name, PortType.BOOL, False) for name in names],
            outputs=[PortSpec("out", PortType.BOOL)],
            properties=[PropertySpec(name, "bool", False) for name in names],
            lower=lower,
            notes=f"Math extension `{builtin.value}`.",
        )
    )


_logical("and", "And", "True when both a and b are true.", Builtin.LOGICAL_AND, ("a", "b"))
_logical("or", "Or", "True when a or b (or both) is true.", Builtin.LOGICAL_OR, ("a", "b"))
_logical("not", "Not", "True when a is false.", Builtin.LOGICAL_NOT, ("a",))
