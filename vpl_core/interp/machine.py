"""Executing one stage of a verified module for a batch of lanes (spec 3.2, 5-8).

`Program.from_verified(verified)` is the only way in: it materializes the
`VerifiedModule` (spec 11: a fresh, separately verified module), so the
interpreter never runs an unverified graph, and prepares per function the
block numbering and the scheduling order.

`Machine.run()` runs the stage's entry function for every lane at once.
Control flow is per lane: each lane has a *current block* (its program
counter) in every active call frame, and the machine repeatedly executes
one block for all lanes that are at it, with those lanes as the mask, then
moves each lane to its successor. The block chosen next is the one with
the smallest reverse-post-order number among the blocks lanes wait at, so
lanes that took different sides of a branch meet again at the join before
it runs (structured code runs every block once per loop iteration), and
loops iterate until their last lane leaves. Any control-flow graph works,
irreducible ones included: the scheduling affects only how often a block
runs, never what a lane computes.

Instructions compute for all lanes and write their results only into the
masked lanes of the destination. A call runs the callee with the caller's
mask; its returns collect the result lane by lane. Discard removes lanes
from the whole invocation (`alive`), in every active frame. Registers start
as zeros (the verifier's definite assignment makes them unobservable).

Precision tracking (`tracked=True`) attaches radii to every value (see
`vpl_core.interp.numeric`) and records in `unstable` the lanes whose path
through the program GLSL's precision could change: a branch on an uncertain
condition, an uncertain or out-of-range dynamic index, an undefined
derivative. Their outputs are not comparable with another implementation.

Undefined behaviour (spec 6.1, 4.1) is given a value here, and the lane is
marked unstable: out-of-range dynamic indices read the nearest element and
are not written; integer division by zero gives 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vpl_core.interp import numeric as nm
from vpl_core.interp import operations as ops
from vpl_core.interp.lanes import (
    MAX_ELEMENTS,
    InterpreterError,
    Tree,
    Value,
    clip_index,
    element_count,
    put_element,
    replace_field,
    select_field,
    take_element,
    where_value,
)
from vpl_core.interp.texture import Texture2D, implicit_lod, needs_lod, sample, sample_radius
from vpl_core.ir.instructions import (
    BinaryInstruction,
    BranchTerminator,
    Builtin,
    CallInstruction,
    ConditionalBranchTerminator,
    ConstructInstruction,
    CopyInstruction,
    DeclareLocalInstruction,
    DiscardTerminator,
    IndexInstruction,
    LoadInstruction,
    MemberInstruction,
    ReturnTerminator,
    StoreInstruction,
    SwizzleInstruction,
)
from vpl_core.ir.module import Block, Direction, Function, Module, Semantic, Stage, StageKind
from vpl_core.ir.types import ArrayType, RecordType, Type, VoidType
from vpl_core.ir.values import (
    ConstantValue,
    IndexReferenceValue,
    MemberReferenceValue,
    Operand,
    ReferenceValue,
    RegisterValue,
    StorageKind,
)
from vpl_core.publish import VerifiedModule

#: Block executions one stage run may take before the interpreter gives up (spec 3.2 does not reject infinite loops).
DEFAULT_STEP_LIMIT = 200_000


@dataclass
class FunctionInfo:
    """A function's blocks with their positions and reverse-post-order ranks."""

    function: Function
    blocks: list[Block]
    index: dict[int, int]            # id(block) -> position
    rank: np.ndarray                 # position -> reverse-post-order rank (unreachable: large)
    order: np.ndarray                # rank -> position
    registers: dict[int, Type]

    @classmethod
    def prepare(cls, function: Function) -> FunctionInfo:
        blocks = list(function.blocks)
        index = {id(block): position for position, block in enumerate(blocks)}
        visited: set[int] = set()
        post: list[int] = []
        # Iterative depth-first search from the entry block (post-order).
        stack: list[tuple[int, int]] = [(0, 0)]
        visited.add(0)
        while stack:
            position, child = stack[-1]
            terminator = blocks[position].terminator
            successors = [index[id(block)] for block in terminator.successors()] if terminator is not None else []
            if child < len(successors):
                stack[-1] = (position, child + 1)
                successor = successors[child]
                if successor not in visited:
                    visited.add(successor)
                    stack.append((successor, 0))
            else:
                stack.pop()
                post.append(position)
        reverse_post = list(reversed(post))
        rank = np.full(len(blocks), len(blocks) + 1, dtype=np.int64)
        for order, position in enumerate(reverse_post):
            rank[position] = order
        registers: dict[int, Type] = {}
        for instruction in blocks[0].instructions:
            if isinstance(instruction, DeclareLocalInstruction):
                registers[instruction.register.index] = instruction.type
        return cls(function, blocks, index, rank, np.array(reverse_post, dtype=np.int64), registers)


@dataclass
class StageInfo:
    """A stage's functions' `FunctionInfo`, by function identity."""

    stage: Stage
    functions: dict[int, FunctionInfo]  # id(function) -> info

    def info(self, function: Function) -> FunctionInfo:
        return self.functions[id(function)]

    def slot_of(self, name: str) -> int:
        for slot, variable in enumerate(self.stage.interface):
            if variable.name == name:
                return slot
        raise KeyError(name)

    @property
    def position_input(self) -> int | None:
        for slot, variable in enumerate(self.stage.interface):
            if variable.direction is Direction.IN and variable.semantic is Semantic.POSITION:
                return slot
        return None

    @property
    def position_output(self) -> int | None:
        for slot, variable in enumerate(self.stage.interface):
            if variable.direction is Direction.OUT and variable.semantic is Semantic.POSITION:
                return slot
        return None

    @property
    def color_output(self) -> int | None:
        for slot, variable in enumerate(self.stage.interface):
            if variable.direction is Direction.OUT and variable.semantic is Semantic.FRAGMENT_COLOR:
                return slot
        return None

    @property
    def can_discard(self) -> bool:
        """Whether a block reachable in some function of the stage ends in discard."""
        for info in self.functions.values():
            for position, block in enumerate(info.blocks):
                reachable = info.rank[position] < len(info.blocks)
                if reachable and isinstance(block.terminator, DiscardTerminator):
                    return True
        return False


class Program:
    """A verified module ready to run: its materialization plus per-function scheduling data."""

    def __init__(self, module: Module, label: str | None = None) -> None:
        self.module = module
        self.label = label
        self.vertex = self._stage(module.vertex)
        self.fragment = self._stage(module.fragment)
        #: Scalar components in the module's largest value (register, parameter, uniform, interface variable).
        self.largest_value = max([1] + [element_count(value_type) for value_type in self._value_types()])

    def _value_types(self) -> list[Type]:
        types: list[Type] = [uniform.type for uniform in self.module.uniforms]
        for stage in (self.vertex, self.fragment):
            types += [variable.type for variable in stage.stage.interface]
            for info in stage.functions.values():
                types += list(info.registers.values())
                types += [parameter.type for parameter in info.function.parameters]
                types.append(info.function.return_type)
        return types

    def lanes_per_batch(self, wanted: int) -> int:
        """How many lanes fit in one batch under `MAX_ELEMENTS` for this module's largest value (0: none fits)."""
        return min(wanted, MAX_ELEMENTS // self.largest_value)

    @classmethod
    def from_verified(cls, verified: VerifiedModule) -> Program:
        if not isinstance(verified, VerifiedModule):
            raise TypeError(f"the interpreter runs a VerifiedModule, not {type(verified).__name__}")
        return cls(verified.materialize(), verified.label)

    @staticmethod
    def _stage(stage: Stage) -> StageInfo:
        return StageInfo(stage, {id(function): FunctionInfo.prepare(function) for function in stage.functions})

    def stage(self, kind: StageKind) -> StageInfo:
        return self.vertex if kind is StageKind.VERTEX else self.fragment

    def uniform_slot(self, name: str) -> int | None:
        for slot, uniform in enumerate(self.module.uniforms):
            if uniform.name == name:
                return slot
        return None


@dataclass
class Frame:
    """The registers and parameters of one call being interpreted."""

    registers: dict[int, Value] = field(default_factory=dict)
    parameters: list[Value] = field(default_factory=list)


@dataclass
class StageResult:
    """What one stage run produced: every interface output (slot -> value), and per lane whether it
    was discarded (`alive` False) and whether its path is uncertain (`unstable`, only when tracking)."""

    outputs: dict[int, Value]
    alive: np.ndarray
    unstable: np.ndarray
    steps: int


class Machine:
    """One stage, one batch of lanes; see the module docstring."""

    def __init__(
        self,
        program: Program,
        kind: StageKind,
        lanes: int,
        inputs: dict[int, Value],
        uniforms: dict[int, Value],
        textures: Sequence[Texture2D] = (),
        *,
        tracked: bool = False,
        quads: bool = False,
        step_limit: int = DEFAULT_STEP_LIMIT,
    ) -> None:
        if quads and lanes % 4:
            raise ValueError("quad lanes come in groups of four")
        if lanes * program.largest_value > MAX_ELEMENTS:
            raise InterpreterError(
                f"the module's largest value has {program.largest_value} components; {lanes} lanes of it exceed the "
                f"interpreter's limit of {MAX_ELEMENTS} components per value")
        self.program = program
        self.kind = kind
        self.stage = program.stage(kind)
        self.lanes = lanes
        self.tracked = tracked
        self.quads = quads
        self.textures = list(textures)
        self.uniforms = uniforms
        self.storage: dict[int, Value] = dict(inputs)
        for slot, variable in enumerate(self.stage.stage.interface):
            if variable.direction is Direction.OUT:
                self.storage[slot] = ops.zero_value(variable.type, lanes, tracked)
            elif slot not in self.storage:
                raise InterpreterError(f"no value for the {kind.value} input {variable.name!r}")
        self.alive = np.ones(lanes, dtype=bool)
        self.unstable = np.zeros(lanes, dtype=bool)
        self.step_limit = step_limit
        self.steps = 0
        self._constants: dict[ConstantValue, Value] = {}

    # Running ------------------------------------------------------------------------------------

    def run(self) -> StageResult:
        entry = self.stage.stage.entry
        if entry is None:
            raise InterpreterError(f"the {self.kind.value} stage has no entry function")
        with np.errstate(all="ignore"):
            self.call(entry, [], np.ones(self.lanes, dtype=bool))
        outputs = {slot: value for slot, value in self.storage.items() if self.stage.stage.interface[slot].direction is Direction.OUT}
        return StageResult(outputs, self.alive.copy(), self.unstable.copy(), self.steps)

    def call(self, function: Function, arguments: list[Value], mask: np.ndarray) -> Value | None:
        info = self.stage.info(function)
        frame = Frame(parameters=list(arguments))
        counter = np.full(self.lanes, -1, dtype=np.int64)
        counter[mask] = 0
        returns_value = not isinstance(function.return_type, VoidType)
        result = ops.zero_value(function.return_type, self.lanes, self.tracked) if returns_value else None
        while True:
            active = (counter >= 0) & self.alive
            if not active.any():
                break
            position = int(info.order[info.rank[counter[active]].min()])
            lanes = active & (counter == position)
            self.steps += 1
            if self.steps > self.step_limit:
                raise InterpreterError(
                    f"the {self.kind.value} stage did not finish within {self.step_limit} block executions "
                    f"(in function {function.name!r}); an infinite loop?"
                )
            result = self._execute_block(info, frame, info.blocks[position], lanes, counter, result)
        return result

    def _execute_block(self, info: FunctionInfo, frame: Frame, block: Block, lanes: np.ndarray,
                       counter: np.ndarray, result: Value | None) -> Value | None:
        mask = lanes
        for instruction in block.instructions:
            if isinstance(instruction, DeclareLocalInstruction):
                continue
            self._execute(instruction, frame, info, mask)
            if isinstance(instruction, CallInstruction) and instruction.callee is not None:
                mask = mask & self.alive
                if not mask.any():
                    counter[lanes] = -1
                    return result
        terminator = block.terminator
        if isinstance(terminator, BranchTerminator):
            counter[mask] = info.index[id(terminator.target)]
        elif isinstance(terminator, ConditionalBranchTerminator):
            condition = self._operand(terminator.condition, frame)
            taken = np.asarray(condition.data, dtype=bool)
            if self.tracked and condition.error is not None:
                self.unstable |= mask & (np.asarray(condition.error) > 0)
            counter[mask & taken] = info.index[id(terminator.true_target)]
            counter[mask & ~taken] = info.index[id(terminator.false_target)]
        elif isinstance(terminator, ReturnTerminator):
            if terminator.value is not None and result is not None:
                result = where_value(self._full(mask), self._operand(terminator.value, frame), result)
            counter[lanes] = -1
        elif isinstance(terminator, DiscardTerminator):
            self.alive &= ~mask
            counter[lanes] = -1
        else:  # pragma: no cover - a verified module has terminators everywhere
            raise InterpreterError(f"block without a terminator in {info.function.name!r}")
        return result

    def _full(self, mask: np.ndarray) -> np.ndarray | None:
        """None (every lane) when the mask covers all lanes, so writes skip the select."""
        return None if mask.all() else mask

    # Instructions -------------------------------------------------------------------------------

    def _assign(self, frame: Frame, register: RegisterValue, value: Value, mask: np.ndarray) -> None:
        full = self._full(mask)
        if full is None:
            frame.registers[register.index] = value
            return
        old = frame.registers.get(register.index)
        if old is None:
            old = ops.zero_value(register.type, self.lanes, self.tracked)
        frame.registers[register.index] = where_value(full, value, old)

    def _execute(self, instruction: object, frame: Frame, info: FunctionInfo, mask: np.ndarray) -> None:
        if isinstance(instruction, CopyInstruction):
            self._assign(frame, instruction.result, self._operand(instruction.source, frame), mask)
        elif isinstance(instruction, BinaryInstruction):
            value = ops.binary(instruction.operator, self._operand(instruction.lhs, frame), instruction.lhs.type,
                               self._operand(instruction.rhs, frame), instruction.rhs.type)
            self._assign(frame, instruction.result, value, mask)
        elif isinstance(instruction, LoadInstruction):
            self._assign(frame, instruction.result, self._load(instruction.source, frame, mask), mask)
        elif isinstance(instruction, StoreInstruction):
            self._store(instruction.target, self._operand(instruction.value, frame), frame, mask)
        elif isinstance(instruction, ConstructInstruction):
            operands = [(self._operand(operand, frame), operand.type) for operand in instruction.arguments]
            self._assign(frame, instruction.result, ops.construct(instruction.type, operands, self.lanes), mask)
        elif isinstance(instruction, SwizzleInstruction):
            self._assign(frame, instruction.result, ops.swizzle(self._operand(instruction.source, frame), instruction.pattern), mask)
        elif isinstance(instruction, MemberInstruction):
            source = self._operand(instruction.source, frame)
            record = instruction.source.type
            assert isinstance(record, RecordType)
            self._assign(frame, instruction.result, _member(source, record, instruction.field_name), mask)
        elif isinstance(instruction, IndexInstruction):
            source = self._operand(instruction.source, frame)
            array = instruction.source.type
            assert isinstance(array, ArrayType)
            index = self._checked_index(self._operand(instruction.index, frame), array.count, mask, instruction.index)
            self._assign(frame, instruction.result, _element(source, index), mask)
        elif isinstance(instruction, CallInstruction):
            self._call_instruction(instruction, frame, mask)
        else:  # pragma: no cover - every verified instruction kind is listed above
            raise InterpreterError(f"unknown instruction {type(instruction).__name__}")

    def _call_instruction(self, instruction: CallInstruction, frame: Frame, mask: np.ndarray) -> None:
        arguments = [self._operand(operand, frame) for operand in instruction.arguments]
        if instruction.callee is not None:
            value = self.call(instruction.callee, arguments, mask)
            if instruction.result is not None and value is not None:
                self._assign(frame, instruction.result, value, mask & self.alive)
            return
        builtin = instruction.builtin
        assert instruction.result is not None
        if builtin in (Builtin.TEXTURE, Builtin.TEXTURE_LOD):
            value = self._texture(instruction, arguments, mask)
        elif builtin in (Builtin.DFDX, Builtin.DFDY, Builtin.FWIDTH):
            value = self._derivative(builtin, arguments[0], mask)
        else:
            operands = [(argument, operand.type) for argument, operand in zip(arguments, instruction.arguments)]
            value = ops.call_math(builtin, operands, instruction.result.type)
        self._assign(frame, instruction.result, value, mask)

    # Operands and storage -----------------------------------------------------------------------

    def _operand(self, operand: Operand, frame: Frame) -> Value:
        if isinstance(operand, RegisterValue):
            value = frame.registers.get(operand.index)
            if value is None:
                value = ops.zero_value(operand.type, self.lanes, self.tracked)
                frame.registers[operand.index] = value
            return value
        cached = self._constants.get(operand)
        if cached is None:
            cached = ops.constant_value(operand.type, operand.value, self.lanes, self.tracked)
            self._constants[operand] = cached
        return cached

    def _root(self, reference: ReferenceValue, frame: Frame) -> Value:
        kind = reference.storage_kind
        if kind is StorageKind.LOCAL:
            value = frame.registers.get(reference.slot)
            if value is None:
                value = ops.zero_value(reference.type, self.lanes, self.tracked)
            return value
        if kind is StorageKind.PARAMETER:
            return frame.parameters[reference.slot]
        if kind is StorageKind.UNIFORM:
            return self.uniforms[reference.slot]
        return self.storage[reference.slot]

    def _path(self, reference: ReferenceValue, frame: Frame, mask: np.ndarray) -> tuple[ReferenceValue, list[_Selector]]:
        """The root and the selectors from the root outwards (indices read now: spec 6.1)."""
        selectors: list[_Selector] = []
        current = reference
        while isinstance(current, (MemberReferenceValue, IndexReferenceValue)):
            base = current.base
            if isinstance(current, MemberReferenceValue):
                assert isinstance(base.type, RecordType)
                selectors.append(_Member(base.type, current.field_name))
            else:
                assert isinstance(base.type, ArrayType)
                selectors.append(self._checked_index(self._operand(current.index, frame), base.type.count, mask, current.index))
            current = base
        selectors.reverse()
        return current, selectors

    def _load(self, reference: ReferenceValue, frame: Frame, mask: np.ndarray) -> Value:
        root, selectors = self._path(reference, frame, mask)
        value = self._root(root, frame)
        for selector in selectors:
            value = _member(value, selector.record, selector.name) if isinstance(selector, _Member) else _element(value, selector)
        return value

    def _store(self, reference: ReferenceValue, value: Value, frame: Frame, mask: np.ndarray) -> None:
        root, selectors = self._path(reference, frame, mask)
        old = self._root(root, frame)
        new = _put(old, selectors, value, self._full(mask))
        kind = root.storage_kind
        if kind is StorageKind.LOCAL:
            frame.registers[root.slot] = new
        elif kind is StorageKind.PARAMETER:
            frame.parameters[root.slot] = new
        elif kind is StorageKind.STAGE:
            self.storage[root.slot] = new
        else:  # pragma: no cover - the verifier rejects stores to uniforms
            raise InterpreterError("store to read-only storage")

    def _checked_index(self, index: Value, count: int, mask: np.ndarray, operand: Operand) -> _Index:
        """A dynamic index clipped to the array; out-of-range or uncertain indices make active lanes unstable."""
        if isinstance(operand, ConstantValue):
            return _Index(int(operand.value), mask)
        data = np.asarray(index.data)
        inside = (data >= 0) & (data < count)
        bad = mask & ~inside
        if index.error is not None:
            bad |= mask & (np.asarray(index.error) > 0)
        self.unstable |= bad
        return _Index(clip_index(data, count), mask & inside)

    # Derivatives and textures -------------------------------------------------------------------

    def _quad_partners(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For every lane, the lanes its fine x and y differences use, and the other row's / column's."""
        lane = np.arange(self.lanes)
        corner = lane & 3
        base = lane - corner
        x0 = base + (corner & 2)          # same row, left
        y0 = base + (corner & 1)          # same column, bottom
        return x0, x0 + 1, y0, y0 + 2

    def _quad_complete(self, mask: np.ndarray) -> np.ndarray:
        """Per lane: whether all four lanes of its quad are active (derivatives are defined only then)."""
        quads = (mask & self.alive).reshape(-1, 4).all(axis=1)
        return np.repeat(quads, 4)

    def _differences(self, operand: Value, axis: str, mask: np.ndarray) -> nm.Num:
        """Fine derivative of `operand` along window x or y, its radius covering the coarse choice."""
        if not self.quads:
            raise InterpreterError("derivatives need fragment lanes in quads")
        data = np.asarray(operand.data)
        errors = None if operand.error is None else np.asarray(operand.error)
        x0, x1, y0, y1 = self._quad_partners()
        if axis == "x":
            low, high = x0, x1
            other_low, other_high = x0 ^ 2, x1 ^ 2   # the other row of the quad
        else:
            low, high = y0, y1
            other_low, other_high = y0 ^ 1, y1 ^ 1   # the other column
        difference = nm.subtract(nm.Num(data[high], None if errors is None else errors[high]),
                                 nm.Num(data[low], None if errors is None else errors[low]))
        if difference.r is None or errors is None:
            return difference
        other = data[other_high].astype(np.float64) - data[other_low].astype(np.float64)
        # GLSL lets dFdx be the fine difference of the lane's row or the coarse one of either row.
        choice = np.abs(other - difference.v.astype(np.float64))
        complete = self._quad_complete(mask).reshape((-1,) + (1,) * (data.ndim - 1))
        error = np.where(complete, difference.r + choice + errors[other_high] + errors[other_low], np.inf)
        self.unstable |= mask & ~self._quad_complete(mask)
        return nm.finish(difference.v, error)

    def _derivative(self, builtin: Builtin, operand: Value, mask: np.ndarray) -> Value:
        if builtin is Builtin.DFDX:
            return ops.val(self._differences(operand, "x", mask))
        if builtin is Builtin.DFDY:
            return ops.val(self._differences(operand, "y", mask))
        return ops.val(nm.add(nm.absolute(self._differences(operand, "x", mask)), nm.absolute(self._differences(operand, "y", mask))))

    def _texture(self, instruction: CallInstruction, arguments: list[Value], mask: np.ndarray) -> Value:
        sampler, coordinates = arguments[0], arguments[1]
        ids = np.asarray(sampler.data)
        coords = np.asarray(coordinates.data)
        s, t = coords[:, 0], coords[:, 1]
        explicit = instruction.builtin is Builtin.TEXTURE_LOD
        result = np.zeros((self.lanes, 4), dtype=np.float64)
        radius = np.zeros((self.lanes, 4), dtype=np.float64) if self.tracked else None
        for texture_id in np.unique(ids[mask]) if mask.any() else []:
            lanes = mask & (ids == texture_id)
            if texture_id < 0:
                # No texture bound: GL's result for an incomplete texture, (0, 0, 0, 1).
                result[lanes] = (0.0, 0.0, 0.0, 1.0)
                continue
            if texture_id >= len(self.textures):
                raise InterpreterError(f"sampler value {int(texture_id)} names no texture of this batch")
            texture = self.textures[int(texture_id)]
            lod, lod_spread = self._lod(texture, explicit, arguments, coordinates, mask)
            result[lanes] = sample(texture, s[lanes], t[lanes], lod[lanes])
            if radius is not None:
                coordinate_error = np.asarray(coordinates.error) if coordinates.error is not None else np.zeros_like(coords, dtype=np.float64)
                radius[lanes] = sample_radius(texture, s[lanes], t[lanes], lod[lanes], lod_spread[lanes],
                                              coordinate_error[lanes, 0], coordinate_error[lanes, 1], result[lanes])
        value = result.astype(np.float32)
        return Value(value, None if radius is None else nm.finish(value, radius).r)

    def _lod(self, texture: Texture2D, explicit: bool, arguments: list[Value], coordinates: Value,
             mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The level of detail per lane and how far an implementation's may differ (spec 7.3.1)."""
        zeros = np.zeros(self.lanes, dtype=np.float64)
        if explicit:
            lod = np.asarray(arguments[2].data, dtype=np.float64)
            spread = (np.asarray(arguments[2].error) if arguments[2].error is not None else zeros) + 2.0**-8
            return lod, spread
        if self.kind is StageKind.VERTEX or not needs_lod(texture):
            return zeros, zeros
        ds_dx = self._differences(Value(np.asarray(coordinates.data)[:, 0]), "x", mask).v
        dt_dx = self._differences(Value(np.asarray(coordinates.data)[:, 1]), "x", mask).v
        ds_dy = self._differences(Value(np.asarray(coordinates.data)[:, 0]), "y", mask).v
        dt_dy = self._differences(Value(np.asarray(coordinates.data)[:, 1]), "y", mask).v
        lod = implicit_lod(texture, ds_dx, dt_dx, ds_dy, dt_dy)
        # GL allows approximating rho (up to a factor of sqrt 2), coarse or fine derivatives and one
        # LOD per quad: one level either way covers them. Divergent quads have no defined LOD.
        spread = np.where(self._quad_complete(mask), 1.0, np.inf)
        if coordinates.error is not None:
            spread = np.where(np.isfinite(np.asarray(coordinates.error)).all(axis=1), spread, np.inf)
        if self.tracked:
            self.unstable |= mask & ~self._quad_complete(mask)
        return lod, spread


@dataclass(frozen=True)
class _Index:
    """A selected element: a constant position or a clipped per-lane array, and the lanes that may write."""

    position: int | np.ndarray
    writable: np.ndarray


@dataclass(frozen=True)
class _Member:
    """A selected record field."""

    record: RecordType
    name: str


_Selector = _Member | _Index


def _member(value: Value, record: RecordType, name: str) -> Value:
    return Value(select_field(value.data, record, name), None if value.error is None else select_field(value.error, record, name))


def _element(value: Value, index: _Index) -> Value:
    return Value(take_element(value.data, index.position), None if value.error is None else take_element(value.error, index.position))


def _put(old: Value, selectors: list[_Selector], new: Value, mask: np.ndarray | None) -> Value:
    """`old` with the storage the selectors reach replaced by `new` in the lanes of `mask`."""
    if not selectors:
        return where_value(mask, new, old)
    selector = selectors[0]
    if isinstance(selector, _Member):
        inner = _put(_member(old, selector.record, selector.name), selectors[1:], new, mask)
        data = replace_field(old.data, selector.record, selector.name, inner.data)
        error = None
        if old.error is not None and inner.error is not None:
            error = replace_field(old.error, selector.record, selector.name, inner.error)
        return Value(data, error)
    index = selector
    inner = _put(_element(old, index), selectors[1:], new, mask)
    writable = index.writable if mask is None else (mask & index.writable)
    data = put_element(old.data, index.position, inner.data, writable)
    error = None
    if old.error is not None and inner.error is not None:
        error = put_element(old.error, index.position, inner.error, writable)
    return Value(data, error)


def uniform_values(program: Program, values: dict[str, Tree], lanes: int, tracked: bool) -> dict[int, Value]:
    """Per-slot lane values for the module's uniforms from per-invocation trees by name (missing: zero)."""
    from vpl_core.interp.lanes import broadcast_lanes, zero_errors, zeros

    result: dict[int, Value] = {}
    for slot, uniform in enumerate(program.module.uniforms):
        tree = values.get(uniform.name)
        if tree is None:
            tree = zeros(uniform.type, ())
        data = broadcast_lanes(tree, lanes)
        result[slot] = Value(data, broadcast_lanes(zero_errors(uniform.type, ()), lanes) if tracked else None)
    return result
