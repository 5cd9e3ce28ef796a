"""Property: the CFG analysis agrees with a structured oracle under single deletions.

Hypothesis generates structured fragment-entry programs (assignments,
whole-local stores, output stores, if/else, while and do-while loops,
early returns and discards) that are valid by construction, lowers them to
VPL blocks with the builder, and checks:

- the unmodified module is accepted;
- deleting any single copy or store is rejected exactly when the oracle says
  some later read (or a return's output requirement) depended on it, and
  accepted otherwise.

The oracle evaluates definite assignment on the structured program itself
(intersection at if/else joins, loop bodies that may run zero times, a
do-while body that runs at least once, nothing checked after a return or
discard), so it is independent of the verifier's block graph, worklist and
bit sets.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_dataflow_support import fragment_module
from tiers import examples

from vpl_core.ir import BOOL, INT, BinaryOperator, FunctionBuilder, local_ref, vec
from vpl_core.verify import VerificationError, Verifier, dataflow
from vpl_core.verify.errors import DataFlowRule

REGISTERS = 4
OUTPUT = "color"  # the oracle's name for the fragment color output

# Statements: ("copy_const", id, dst) ("copy_reg", id, dst, src) ("add", id, dst, a, b)
# ("store_local", id, dst, src) ("out", id) ("if", cond, then, else)
# ("while", cond, body) ("dowhile", body, cond) ("return",) ("discard",)
Statement = tuple


@dataclass
class _Generator:
    data: st.DataObject
    budget: int = 14
    ids: itertools.count = field(default_factory=itertools.count)

    def draw(self, strategy):
        return self.data.draw(strategy)

    def block(self, assigned: frozenset, depth: int) -> tuple[list[Statement], frozenset | None]:
        """Statements valid under `assigned`, and what is assigned after them (None: no fallthrough)."""
        statements: list[Statement] = []
        current: frozenset | None = assigned
        length = self.draw(st.integers(0, 4))
        for _ in range(length):
            if self.budget <= 0:
                break
            self.budget -= 1
            # Code after a return/discard is unreachable; generate it against
            # the last reachable set so that it is still well formed.
            basis = current if current is not None else assigned
            statement, after = self.statement(basis, depth)
            statements.append(statement)
            if current is not None:
                current = after
        return statements, current

    def statement(self, assigned: frozenset, depth: int) -> tuple[Statement, frozenset | None]:
        registers = sorted(name for name in assigned if isinstance(name, int))
        kinds = ["copy_const", "out"]
        if registers:
            kinds += ["copy_reg", "add", "store_local"]
            if depth < 3:
                kinds += ["if", "while", "dowhile"]
        if OUTPUT in assigned:
            kinds.append("return")
        kinds.append("discard")
        kind = self.draw(st.sampled_from(kinds))
        destination = self.draw(st.integers(0, REGISTERS - 1))
        if kind == "copy_const":
            return (kind, next(self.ids), destination), assigned | {destination}
        if kind == "out":
            return (kind, next(self.ids)), assigned | {OUTPUT}
        if kind in ("copy_reg", "store_local"):
            source = self.draw(st.sampled_from(registers))
            return (kind, next(self.ids), destination, source), assigned | {destination}
        if kind == "add":
            left, right = self.draw(st.sampled_from(registers)), self.draw(st.sampled_from(registers))
            return (kind, next(self.ids), destination, left, right), assigned | {destination}
        if kind == "if":
            condition = self.draw(st.sampled_from(registers))
            then_body, then_after = self.block(assigned, depth + 1)
            else_body, else_after = self.block(assigned, depth + 1)
            return (kind, condition, then_body, else_body), _join(then_after, else_after)
        if kind == "while":
            condition = self.draw(st.sampled_from(registers))
            body, _ = self.block(assigned, depth + 1)
            return (kind, condition, body), assigned
        if kind == "dowhile":
            body, after = self.block(assigned, depth + 1)
            if after is None:
                return (kind, body, registers[0]), None
            condition = self.draw(st.sampled_from(sorted(name for name in after if isinstance(name, int))))
            return (kind, body, condition), after
        return (kind,), None


def _join(left: frozenset | None, right: frozenset | None) -> frozenset | None:
    if left is None:
        return right
    if right is None:
        return left
    return left & right


class _Oracle:
    """Definite assignment on the structured program, skipping statement `skip`."""

    def __init__(self, skip: int | None) -> None:
        self.skip = skip
        self.valid = True

    def need(self, assigned: frozenset, name: object) -> None:
        if name not in assigned:
            self.valid = False

    def block(self, statements: list[Statement], assigned: frozenset | None) -> frozenset | None:
        for statement in statements:
            if assigned is None:
                return None  # unreachable code is not availability-checked
            assigned = self.statement(statement, assigned)
        return assigned

    def statement(self, statement: Statement, assigned: frozenset) -> frozenset | None:
        kind = statement[0]
        if kind in ("copy_const", "copy_reg", "add", "store_local", "out"):
            for source in statement[3:]:
                self.need(assigned, source)
            if statement[1] == self.skip:
                return assigned
            return assigned | {OUTPUT if kind == "out" else statement[2]}
        if kind == "if":
            self.need(assigned, statement[1])
            return _join(self.block(statement[2], assigned), self.block(statement[3], assigned))
        if kind == "while":
            self.need(assigned, statement[1])
            self.block(statement[2], assigned)
            return assigned
        if kind == "dowhile":
            after = self.block(statement[1], assigned)
            if after is not None:
                self.need(after, statement[2])
            return after
        if kind == "return":
            self.need(assigned, OUTPUT)
        return None

    def program(self, statements: list[Statement]) -> bool:
        after = self.block(statements, frozenset())
        if after is not None:
            self.need(after, OUTPUT)  # the implicit final return
        return self.valid


def _lower(statements: list[Statement], skip: int | None):
    """Build the module; the statement with id `skip` emits nothing."""
    built = fragment_module()
    main = built.entry()
    registers = [main.register(INT) for _ in range(REGISTERS)]

    def fresh_block_if_terminated() -> None:
        if main.is_terminated:
            main.position_at(main.new_block())

    def condition_of(register_number: int):
        flag = main.register(BOOL)
        return main.binary(BinaryOperator.LESS, registers[register_number], main.i(2), result=flag)

    def emit(block_statements: list[Statement], builder: FunctionBuilder) -> None:
        for statement in block_statements:
            fresh_block_if_terminated()
            kind = statement[0]
            skipped = kind in ("copy_const", "copy_reg", "add", "store_local", "out") and statement[1] == skip
            if kind == "copy_const" and not skipped:
                builder.copy(builder.i(statement[1] % 5), result=registers[statement[2]])
            elif kind == "copy_reg" and not skipped:
                builder.copy(registers[statement[3]], result=registers[statement[2]])
            elif kind == "add" and not skipped:
                builder.add(registers[statement[3]], registers[statement[4]], result=registers[statement[2]])
            elif kind == "store_local" and not skipped:
                builder.store(local_ref(registers[statement[2]]), registers[statement[3]])
            elif kind == "out":
                value = builder.construct(vec(4), builder.f(0.25))
                if not skipped:
                    builder.store(built.color, value)
            elif kind == "if":
                then_block, else_block, join = builder.new_block(), builder.new_block(), builder.new_block()
                builder.branch_if(condition_of(statement[1]), then_block, else_block)
                for target, body in ((then_block, statement[2]), (else_block, statement[3])):
                    builder.position_at(target)
                    emit(body, builder)
                    if not builder.is_terminated:
                        builder.branch(join)
                builder.position_at(join)
            elif kind == "while":
                header, body_block, exit_block = builder.new_block(), builder.new_block(), builder.new_block()
                builder.branch(header)
                builder.position_at(header)
                builder.branch_if(condition_of(statement[1]), body_block, exit_block)
                builder.position_at(body_block)
                emit(statement[2], builder)
                if not builder.is_terminated:
                    builder.branch(header)
                builder.position_at(exit_block)
            elif kind == "dowhile":
                body_block, exit_block = builder.new_block(), builder.new_block()
                builder.branch(body_block)
                builder.position_at(body_block)
                emit(statement[1], builder)
                if not builder.is_terminated:
                    builder.branch_if(condition_of(statement[2]), body_block, exit_block)
                builder.position_at(exit_block)
            elif kind == "return":
                builder.ret()
            elif kind == "discard":
                builder.discard()

    emit(statements, main)
    fresh_block_if_terminated()
    main.ret()
    return built.module


def _write_ids(statements: list[Statement]) -> list[int]:
    ids: list[int] = []
    for statement in statements:
        kind = statement[0]
        if kind in ("copy_const", "copy_reg", "add", "store_local", "out"):
            if kind != "add":  # the property is about copies and stores
                ids.append(statement[1])
        elif kind == "if":
            ids += _write_ids(statement[2]) + _write_ids(statement[3])
        elif kind == "while":
            ids += _write_ids(statement[2])
        elif kind == "dowhile":
            ids += _write_ids(statement[1])
    return ids


#: What the oracle's programs can get wrong: reads of unassigned registers and outputs.
AVAILABILITY_RULES = frozenset(
    {DataFlowRule.UNASSIGNED_REGISTER, DataFlowRule.UNASSIGNED_OUTPUT_READ, DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN}
)


def _accepted(module) -> bool:
    try:
        dataflow.check_module(module)
    except VerificationError as error:
        assert error.kind in AVAILABILITY_RULES, error.message
        with_verifier = None
        try:
            Verifier().run(module)
        except VerificationError as again:
            with_verifier = (again.kind, again.message)
        assert with_verifier == (error.kind, error.message)
        return False
    Verifier().run(module)
    return True


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_deleting_a_copy_or_store_is_rejected_exactly_when_a_later_read_depends_on_it(data):
    generator = _Generator(data)
    program, _ = generator.block(frozenset(), 0)
    if not _Oracle(None).program(program):
        # Programs that never assign the output before the final return are
        # invalid as generated; make them valid by ending with an output store.
        program = program + [("out", next(generator.ids))]
    assert _Oracle(None).program(program)
    assert _accepted(_lower(program, skip=None))
    for write in _write_ids(program):
        expected = _Oracle(write).program(program)
        assert _accepted(_lower(program, skip=write)) == expected, (program, write)


def test_the_oracle_and_lowering_agree_on_a_known_dependency():
    program = [("copy_const", 0, 1), ("while", 1, [("add", 1, 1, 1, 1)]), ("out", 2)]
    assert _Oracle(None).program(program)
    assert _accepted(_lower(program, skip=None))
    assert not _Oracle(0).program(program)
    assert not _accepted(_lower(program, skip=0))
    assert not _Oracle(2).program(program)
    assert not _accepted(_lower(program, skip=2))
