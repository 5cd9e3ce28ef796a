"""The structural layer raises nothing but VerificationError, on any object graph made of IR classes.

Random malformed graphs: take a valid module that uses every kind of IR
object, deep-copy it (so no shared singleton such as `FLOAT` is touched),
then replace 1-3 randomly chosen fields or list elements with None, junk
values, wrong enum members, fresh objects, other objects of the same graph,
or the holder itself (cycles), or delete/duplicate list elements. The check
must either pass or raise VerificationError, and never through its
"internal verifier error" safety net (which would mean a checker bug).

A second property runs the data-flow layer on every mutated graph the
structural layer accepted: that layer assumes everything this one checks,
so an exception other than VerificationError there means a gap here (or a
bug there).

`VPL_FUZZ_EXAMPLES` raises the example count for a longer local run; the
default is derandomized so CI is reproducible.
"""

from __future__ import annotations

import contextlib
import copy
import enum
import math
import os
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import examples

from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    BinaryOperator,
    Block,
    Builtin,
    ConstantValue,
    DeclareLocalInstruction,
    Direction,
    DiscardTerminator,
    Field,
    Function,
    FunctionBuilder,
    IndexReferenceValue,
    MemberReferenceValue,
    Module,
    RecordType,
    ReferenceValue,
    RegisterValue,
    ReturnTerminator,
    ScalarKind,
    Semantic,
    StageBuilder,
    StageKind,
    StorageKind,
    UniformKind,
    add_uniform,
    bvec,
    element,
    ivec,
    local_ref,
    mat,
    member,
    record,
    vec,
)
from vpl_core.records import fields_of, is_record
from vpl_core.verify import VerificationError, Verifier, dataflow, structure
from vpl_core.verify.errors import InternalRule, VerifierRule

EXAMPLES = int(os.environ.get("VPL_FUZZ_EXAMPLES", "0")) or examples(300)
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize="VPL_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def rich_module() -> Module:
    """A valid module using every kind of IR object the verifier knows."""
    module = Module()
    light = record("Light", [("direction", vec(3)), ("colors", ArrayType(vec(4), 2))])
    scene_type = record("Scene", [("model", mat(4)), ("light", light), ("time", FLOAT)])
    scene = add_uniform(module, "scene", scene_type)
    albedo = add_uniform(module, "albedo", SAMPLER2D)
    weights = add_uniform(module, "weights", ArrayType(FLOAT, 4))

    vertex = StageBuilder(module.vertex)
    position_in = vertex.input("position", vec(3), location=0)
    uv_in = vertex.input("texcoord", vec(2), location=2, semantic=Semantic.TEXCOORD)
    clip = vertex.output("clip", vec(4), semantic=Semantic.POSITION)
    uv_out = vertex.output("v_uv", vec(2), location=0, semantic=Semantic.TEXCOORD)
    normal_out = vertex.output("normal", vec(3))
    v = vertex.function("vertex_main", entry=True)
    model = v.load(member(scene, "model"))
    position = v.construct(vec(4), v.load(position_in), v.f(1.0))
    v.store(clip, v.multiply(model, position))
    v.store(uv_out, v.load(uv_in))
    v.store(normal_out, v.swizzle(position, "xyz"))
    v.ret()

    fragment = StageBuilder(module.fragment)
    uv = fragment.input("v_uv", vec(2), location=0, semantic=Semantic.TEXCOORD)
    normal = fragment.input("normal", vec(3))
    color = fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)

    shade = fragment.function("shade", vec(4), [vec(3), INT])
    _build_shade(shade, scene, albedo, weights, uv, light)
    clip_alpha = fragment.function("clip_alpha", VOID, [FLOAT])
    _build_clip(clip_alpha)

    f = fragment.function("fragment_main", entry=True)
    lit = f.call(shade.function, f.load(normal), f.i(2))
    assert lit is not None
    f.call(clip_alpha.function, f.swizzle(lit, "w"))
    f.store(color, lit)
    f.ret()
    return module


def _build_shade(
    shade: FunctionBuilder,
    scene: ReferenceValue,
    albedo: ReferenceValue,
    weights: ReferenceValue,
    uv: ReferenceValue,
    light: RecordType,
) -> None:
    s = shade
    cells = s.register(ArrayType(light, 2))
    counter = s.register(INT)
    total = s.register(FLOAT)
    keep_going = s.register(BOOL)
    base = s.load(member(scene, "light"))
    s.construct(ArrayType(light, 2), base, base, result=cells)
    s.copy(s.i(0), result=counter)
    s.copy(s.f(0.0), result=total)
    loop, body, done = s.new_block(), s.new_block(), s.new_block()
    s.branch(loop)

    s.position_at(loop)
    s.binary(BinaryOperator.LESS, counter, s.load(s.parameter(1)), result=keep_going)
    s.branch_if(keep_going, body, done)

    s.position_at(body)
    weight = s.load(element(weights, counter))
    s.add(total, weight, result=total)
    s.store(element(member(element(local_ref(cells), counter), "colors"), 1), s.construct(vec(4), total))
    s.add(counter, s.i(1), result=counter)
    s.branch(loop)

    s.position_at(done)
    surface = s.texture(s.load(albedo), s.load(uv))
    direction = s.call_builtin(Builtin.NORMALIZE, vec(3), s.load(s.parameter(0)))
    s.store(s.parameter(0), direction)
    light_direction = s.member(s.index(cells, s.i(0)), "direction")
    facing = s.call_builtin(Builtin.DOT, FLOAT, direction, light_direction)
    facing = s.call_builtin(Builtin.CLAMP, FLOAT, facing, s.f(0.0), s.f(1.0))
    mask = s.construct(bvec(4), s.b(True))
    tinted = s.call_builtin(Builtin.MIX, vec(4), surface, s.multiply(surface, facing), mask)
    steps = s.call_builtin(Builtin.FLOAT_TO_INT, ivec(4), tinted)
    s.construct(vec(4), s.swizzle(steps, "x"), s.f(0.0), s.f(0.0), s.f(1.0))
    wave = s.call_builtin(Builtin.SIN, FLOAT, s.load(member(scene, "time")))
    s.ret(s.call_builtin(Builtin.SELECT, vec(4), s.binary(BinaryOperator.GREATER, wave, s.f(0.0)), tinted, surface))


def _build_clip(clip: FunctionBuilder) -> None:
    alpha = clip.load(clip.parameter(0))
    transparent = clip.binary(BinaryOperator.LESS, alpha, clip.f(0.5))
    gone, kept = clip.new_block(), clip.new_block()
    clip.branch_if(transparent, gone, kept)
    clip.position_at(gone)
    clip.discard()
    clip.position_at(kept)
    clip.ret()


def test_rich_module_is_valid() -> None:
    module = rich_module()
    structure.check_module(module)
    Verifier().run(module)


# Mutation machinery -----------------------------------------------------------------------

Slot = tuple[Any, Any]  # (holder, attribute name or list index)

JUNK: list[Callable[[], object]] = [
    lambda: None, lambda: 0, lambda: 1, lambda: -1, lambda: 2**40, lambda: True, lambda: False,
    lambda: "", lambda: "x", lambda: "xyzw", lambda: 1.5, lambda: math.nan, lambda: math.inf,
    list, lambda: [None], lambda: (), dict, lambda: object(),
    lambda: StorageKind.MEMBER, lambda: StorageKind.INDEX, lambda: StorageKind.UNIFORM,
    lambda: StorageKind.STAGE, lambda: StorageKind.LOCAL, lambda: StorageKind.PARAMETER,
    lambda: Direction.IN, lambda: Direction.OUT, lambda: Semantic.POSITION, lambda: Semantic.FRAGMENT_COLOR,
    lambda: Semantic.COLOR, lambda: UniformKind.RECORD, lambda: UniformKind.ARRAY, lambda: UniformKind.SCALAR,
    lambda: StageKind.VERTEX, lambda: StageKind.FRAGMENT, lambda: Builtin.NONE, lambda: Builtin.TEXTURE,
    lambda: Builtin.DFDX, lambda: Builtin.SELECT, lambda: BinaryOperator.ADD, lambda: BinaryOperator.LESS,
    lambda: ScalarKind.INT, lambda: ScalarKind.BOOL,
    lambda: Block(), lambda: Block([], ReturnTerminator()), lambda: Block([], DiscardTerminator()),
    lambda: Function("f", copy.deepcopy(VOID)), lambda: copy.deepcopy(VOID), lambda: copy.deepcopy(FLOAT),
    lambda: copy.deepcopy(INT), lambda: copy.deepcopy(BOOL), lambda: vec(4), lambda: mat(3), lambda: ivec(2),
    lambda: ArrayType(copy.deepcopy(FLOAT), 3), lambda: RecordType("R", []),
    lambda: RecordType("R", [Field("x", copy.deepcopy(FLOAT))]), lambda: Field("y", copy.deepcopy(INT)),
    lambda: RegisterValue(0, copy.deepcopy(FLOAT)), lambda: RegisterValue(500, copy.deepcopy(INT)),
    lambda: ConstantValue.of_int(7), lambda: ConstantValue.of_float(2.0), lambda: ConstantValue.of_bool(True),
    lambda: ReferenceValue(StorageKind.STAGE, 0, vec(4)), lambda: ReferenceValue(StorageKind.UNIFORM, 1, copy.deepcopy(SAMPLER2D)),
    lambda: ReferenceValue(StorageKind.LOCAL, 0, vec(4)),
    lambda: MemberReferenceValue.create(ReferenceValue(StorageKind.UNIFORM, 0, copy.deepcopy(FLOAT)), "time", copy.deepcopy(FLOAT)),
    lambda: IndexReferenceValue.create(ReferenceValue(StorageKind.UNIFORM, 2, copy.deepcopy(FLOAT)), ConstantValue.of_int(9), copy.deepcopy(FLOAT)),
    lambda: DeclareLocalInstruction(RegisterValue(3, copy.deepcopy(FLOAT)), copy.deepcopy(FLOAT)),
    lambda: ReturnTerminator(), lambda: DiscardTerminator(),
]  # fmt: skip


def collect(root: object) -> tuple[list[Slot], list[object]]:
    """Every mutable slot (record field or list element) and every object reachable from `root`."""
    slots: list[Slot] = []
    objects: list[object] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if is_record(current):
            objects.append(current)
            for name in fields_of(current):
                slots.append((current, name))
                stack.append(getattr(current, name, None))
        elif isinstance(current, list):
            objects.append(current)
            for position, item in enumerate(current):
                slots.append((current, position))
                stack.append(item)
    return slots, objects


def assign(slot: Slot, value: object) -> None:
    holder, key = slot
    if isinstance(holder, list):
        holder[key] = value
    else:
        object.__setattr__(holder, key, value)  # frozen records too, as a buggy producer could


def current_value(slot: Slot) -> object:
    holder, key = slot
    return holder[key] if isinstance(holder, list) else getattr(holder, key)


def same_kind(data: st.DataObject, value: object, objects: list[object], slots: list[Slot]) -> object:
    """A plausible replacement: another value of the same class, so that subtle mistakes are made."""
    if isinstance(value, enum.Enum):
        return data.draw(st.sampled_from(list(type(value))), label="member")
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + data.draw(st.integers(-2, 2), label="delta")
    if isinstance(value, str):
        strings = sorted({v for v in map(current_value, slots) if isinstance(v, str)})
        return data.draw(st.sampled_from(strings), label="string")
    candidates = [candidate for candidate in objects if type(candidate) is type(value)]
    if not candidates:
        return value
    return candidates[data.draw(st.integers(0, len(candidates) - 1), label="same kind")]


ALL_ACTIONS = ("same kind", "same kind", "junk", "graph object", "holder", "delete", "duplicate")


def mutate(data: st.DataObject, module: Module, actions: tuple[str, ...] = ALL_ACTIONS, most: int = 3) -> None:
    for _ in range(data.draw(st.integers(1, most), label="mutations")):
        slots, objects = collect(module)
        slot = slots[data.draw(st.integers(0, len(slots) - 1), label="slot")]
        holder, key = slot
        action = data.draw(st.sampled_from(actions), label="action")
        if action in ("delete", "duplicate") and not isinstance(holder, list):
            action = "same kind"
        if action == "same kind":
            assign(slot, same_kind(data, current_value(slot), objects, slots))
        elif action in ("delete", "duplicate"):
            if action == "delete":
                del holder[key]
            else:
                holder.insert(key, holder[key])
        elif action == "holder":
            assign(slot, holder)
        elif action == "graph object":
            assign(slot, objects[data.draw(st.integers(0, len(objects) - 1), label="object")])
        else:
            assign(slot, JUNK[data.draw(st.integers(0, len(JUNK) - 1), label="junk")]())


BASE = rich_module()


def fresh_module() -> Module:
    return copy.deepcopy(BASE)


@FUZZ
@given(st.data())
def test_malformed_graphs_raise_only_verification_errors(data: st.DataObject) -> None:
    module = fresh_module()
    mutate(data, module)
    try:
        structure.check_module(module)
    except VerificationError as error:
        assert isinstance(error.kind, VerifierRule) and error.kind is not InternalRule.CHECKER_FAILED, error.message
        assert isinstance(error.message, str) and error.message


@FUZZ
@given(st.data())
def test_graphs_accepted_by_the_structural_layer_are_safe_for_data_flow(data: st.DataObject) -> None:
    module = fresh_module()
    mutate(data, module, ("same kind", "delete", "duplicate"), most=2)
    try:
        structure.check_module(module)
    except VerificationError:
        return
    with contextlib.suppress(VerificationError):
        dataflow.check_module(module)


def test_check_never_mutates_the_module() -> None:
    module = fresh_module()
    before = collect(module)
    snapshot = [(id(holder), key, id(current_value((holder, key)))) for holder, key in before[0]]
    structure.check_module(module)
    after = [(id(holder), key, id(current_value((holder, key)))) for holder, key in collect(module)[0]]
    assert snapshot == after


def test_malformed_module_check_is_repeatable_on_one_verifier() -> None:
    verifier = Verifier()
    module = fresh_module()
    block = module.fragment.functions[0].blocks[1]
    saved = block.terminator
    block.terminator = None
    messages = []
    for _ in range(2):
        try:
            verifier.run(module)
        except VerificationError as error:
            messages.append((error.message, error.subject))
    assert len(messages) == 2 and messages[0] == messages[1]
    assert messages[0][1] is block
    block.terminator = saved
    verifier.run(module)
