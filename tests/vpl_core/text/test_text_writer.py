"""The canonical writer (spec 11): deterministic ids and layout, preservation, verification, fixed point."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from text_support import assert_same_module, minimal_module, random_module
from tiers import examples

from vpl_core.diagnostics import SemanticError, SyntacticError
from vpl_core.ir import (
    FLOAT,
    INT,
    ArrayType,
    Builtin,
    CallInstruction,
    ConstantValue,
    ConstructInstruction,
    CopyInstruction,
    Field,
    FunctionBuilder,
    MatrixType,
    Module,
    StageBuilder,
    StoreInstruction,
    add_uniform,
    local_ref,
    member,
    record,
    vec,
)
from vpl_core.publish import VerifiedModule
from vpl_core.text import read, read_file, write
from vpl_core.text.errors import SyntaxRule, WriterRule
from vpl_core.text.writer import MAX_REFERENCE_DEPTH, quote
from vpl_core.verify.errors import TerminatorRule, TypeRule

SPEC_EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "spec"

CANONICAL_EXAMPLE = """\
(module 1
  (types
    (type t0 vector float 4)
    (type t1 void))
  (uniforms)
  (vertex f0
    (interface
      (out s0 "position" t0 -1 position))
    (functions
      (function f0 "vertex_main" t1
        (parameters)
        (registers (register r0 t0))
        (block b0
          (construct r0 (float 1.0))
          (store (stage s0) r0)
          (return)))))
  (fragment f0
    (interface
      (out s0 "color" t0 0 fragment_color))
    (functions
      (function f0 "fragment_main" t1
        (parameters)
        (registers (register r0 t0))
        (block b0
          (construct r0 (float 1.0) (float 0.0) (float 0.0) (float 1.0))
          (store (stage s0) r0)
          (return))))))
"""


def test_canonical_text_of_the_spec_example() -> None:
    assert write(read_file(SPEC_EXAMPLES / "canonical-example.vpl")) == CANONICAL_EXAMPLE


@pytest.mark.parametrize("path", sorted(SPEC_EXAMPLES.glob("*.vpl")), ids=lambda path: path.name)
def test_spec_examples_publish_materialize_write_and_read_back(path: Path) -> None:
    module = read_file(path)
    published = VerifiedModule.create(module, label=path.name)
    materialized = published.materialize()
    assert materialized is not module
    assert_same_module(module, materialized)
    text = write(materialized)
    assert text == published.text
    assert write(read(text)) == text  # canonical fixed point
    assert text.endswith(")\n") and "\r" not in text and "\t" not in text


def fixed_point(module: Module) -> str:
    text = write(module)
    again = read(text)
    assert_same_module(module, again)
    assert write(again) == text
    return text


def test_float_bits_and_signed_zero_are_preserved() -> None:
    module = minimal_module()
    construct = module.fragment.entry.blocks[0].instructions[1]
    constants = [
        ConstantValue.of_float_bits(0x80000000),
        ConstantValue.of_float_bits(0x00000001),
        ConstantValue.of_float_bits(0x7F7FFFFF),
        ConstantValue.of_float_bits(0x3DCCCCCD),
    ]
    construct.arguments = constants
    text = fixed_point(module)
    assert "(construct r0 (float -0.0) (float 1e-45) (float 3.4028235e38) (float 0.1))" in text
    read_back = read(text).fragment.entry.blocks[0].instructions[1].arguments
    assert [constant.bits for constant in read_back] == [constant.bits for constant in constants]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", '"plain"'),
        ('say "hi"', r'"say \"hi\""'),
        ("back\\slash", r'"back\\slash"'),
        ("it's", '"it\'s"'),
        ("tab\tnewline\ncr\rnul\x00", r'"tab\u0009newline\u000acr\u000dnul\u0000"'),
        ("del\x7f c1\x85 \x9f", r'"del\u007f c1\u0085 \u009f"'),
        ("é漢🎨\u200b\ufeff", '"é漢🎨\u200b\ufeff"'),
    ],
)
def test_strings_use_double_quotes_and_escape_controls(text: str, expected: str) -> None:
    assert quote(text) == expected


@settings(max_examples=examples(300), deadline=None)
@given(st.text(min_size=1, max_size=20))
def test_any_display_name_round_trips(name: str) -> None:
    name = name.encode("utf-16", "surrogatepass").decode("utf-16", "replace")  # scalar values only
    module = minimal_module()
    module.fragment.entry.name = name
    text = fixed_point(module)
    assert read(text).fragment.entry.name == name


def test_type_ids_follow_first_discovery_order() -> None:
    module = minimal_module()
    inner = record("Inner", [("m", MatrixType(2, 3))])
    outer = record("Outer", [("inner", inner), ("count", INT)])
    add_uniform(module, "outers", ArrayType(outer, 2))  # an array uniform names its element type
    add_uniform(module, "scale", FLOAT)
    text = fixed_point(module)
    assert text.index("(type t0 record \"Outer\" (field \"inner\" t1) (field \"count\" t3))") > 0
    assert '(type t1 record "Inner" (field "m" t2))' in text
    assert "(type t2 matrix 2 3)" in text
    assert "(type t3 int)" in text
    assert "(type t4 float)" in text
    assert "(type t5 vector float 4)" in text  # then the vertex interface
    assert "(type t6 void)" in text  # then the vertex entry's return type
    assert "(type t7" not in text
    assert '(array u0 "outers" t0 2)' in text and '(scalar u1 "scale" t4)' in text


def test_nominal_records_keep_their_declarations_and_structural_types_share_one() -> None:
    module = minimal_module()
    first = record("Same", [("x", INT)])
    second = record("Same", [("x", INT)])
    add_uniform(module, "a", first)
    add_uniform(module, "b", first)
    add_uniform(module, "c", second)
    add_uniform(module, "d", vec(4))  # equal to, but not the same object as, the interface type
    text = fixed_point(module)
    assert text.count('record "Same"') == 2
    assert text.count("vector float 4") == 1
    read_back = read(text)
    a, b, c, _ = read_back.uniforms
    assert a.type is b.type and a.type is not c.type


def test_ids_are_list_positions_and_register_numbers_are_preserved() -> None:
    module = minimal_module()
    fragment = StageBuilder(module.fragment)
    helper = fragment.function("helper", FLOAT, [FLOAT, INT])
    value = helper.register(FLOAT, index=41)
    helper.load(helper.parameter(0), result=value)
    skip = helper.new_block()
    helper.branch(skip)
    helper.position_at(skip)
    helper.ret(value)
    entry = FunctionBuilder(module.fragment.entry)
    result = entry.register(FLOAT, index=7)
    entry.block.instructions.insert(-1, CallInstruction(result, helper.function, Builtin.NONE, [ConstantValue.of_float(2.0), ConstantValue.of_int(3)]))
    text = fixed_point(module)
    assert '(function f1 "helper" t' in text
    assert "(parameters (parameter p0 t2) (parameter p1 t3))" in text
    assert "(register r41 t2)" in text and "(register r7 t2)" in text
    assert "(load r41 (parameter p0))" in text and "(branch b1)" in text and "(block b1" in text
    assert "(call r7 f1 (float 2.0) (int 3))" in text


def test_math_extension_is_declared_only_when_used() -> None:
    module = minimal_module()
    assert "extensions" not in write(module)
    builder = FunctionBuilder(module.fragment.entry)
    constant = builder.register(FLOAT)
    builder.block.instructions.insert(-1, CallInstruction(constant, None, Builtin.SIN, [ConstantValue.of_float(0.5)]))
    text = fixed_point(module)
    assert text.startswith('(module 1\n  (extensions "math")\n  (types\n')
    assert "(sin r1 (float 0.5))" in text
    with pytest.raises(SyntacticError) as raised:
        read(text, strict_v1=True)
    assert raised.value.kind is SyntaxRule.STRICT_V1_EXTENSION


def test_the_writer_verifies_first() -> None:
    module = minimal_module()
    module.fragment.entry.blocks[0].terminator = None
    with pytest.raises(SemanticError) as raised:
        write(module)
    assert raised.value.kind is TerminatorRule.MISSING  # the verifier's rule, not the writer's


def reference_chain_module(depth: int) -> Module:
    """A valid module storing through `depth` member references of a local record chain."""
    module = minimal_module()
    types = [FLOAT]
    for level in range(depth):
        types.append(record(f"R{level}", [("f", types[-1])]))
    builder = FunctionBuilder(module.fragment.entry)
    value = builder.register(types[0])
    builder.block.instructions.insert(-1, CopyInstruction(value, ConstantValue.of_float(1.0)))
    # Build the nested value bottom-up, then store through the full path.
    current = value
    for level_type in types[1:]:
        wrapper = builder.register(level_type)
        builder.block.instructions.insert(-1, ConstructInstruction(wrapper, level_type, [current]))
        current = wrapper
    path = local_ref(current)
    for _ in range(depth):
        path = member(path, "f")
    builder.block.instructions.insert(-1, StoreInstruction(path, value))
    return module


def test_reference_paths_up_to_the_writing_limit_are_written() -> None:
    text = fixed_point(reference_chain_module(MAX_REFERENCE_DEPTH))
    assert text.count("(member_ref") == MAX_REFERENCE_DEPTH


def test_reference_paths_beyond_the_writing_limit_are_rejected() -> None:
    module = reference_chain_module(MAX_REFERENCE_DEPTH + 1)
    with pytest.raises(SemanticError) as raised:
        write(module)
    assert raised.value.kind is WriterRule.REFERENCE_DEPTH


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_modules_round_trip_and_writing_is_a_fixed_point(seed: int) -> None:
    module = random_module(seed)
    text = fixed_point(module)
    assert text == write(read(text))
    assert VerifiedModule.create(module).text == text


def deep_array_module(depth: int) -> Module:
    module = minimal_module()
    value_type = FLOAT
    for _ in range(depth):
        value_type = ArrayType(value_type, 2)
    add_uniform(module, "deep", value_type)
    return module


def test_types_up_to_the_reader_depth_are_written() -> None:
    # The uniform names its element type: 128 array declarations over float, 128 edges.
    fixed_point(deep_array_module(129))


@pytest.mark.parametrize("depth", [130, 5_000])
def test_types_deeper_than_the_reader_accepts_are_rejected_without_recursion(depth: int) -> None:
    module = deep_array_module(depth)
    with pytest.raises(SemanticError) as raised:
        write(module)
    assert raised.value.kind is WriterRule.TYPE_DEPTH
    assert raised.value.subject is module.uniforms[-1]


def test_recursive_records_are_rejected() -> None:
    module = minimal_module()
    loop = record("Loop", [])
    loop.fields.append(Field("self", ArrayType(loop, 2)))
    add_uniform(module, "loop", loop)
    with pytest.raises(SemanticError) as raised:
        write(module)
    assert raised.value.kind is TypeRule.RECURSIVE


def test_numbers_the_text_cannot_hold_are_semantic_errors_of_the_writer() -> None:
    too_far = minimal_module()
    too_far.fragment.interface[0].location = 2**31
    huge = minimal_module()
    add_uniform(huge, "huge", ArrayType(FLOAT, 2**64))
    for module, subject, kind in (
        (too_far, too_far.fragment.interface[0], WriterRule.NOT_EXPRESSIBLE),
        (huge, huge.uniforms[0], WriterRule.SIZE_RANGE),
    ):
        with pytest.raises(SemanticError) as raised:
            write(module)
        assert raised.value.subject is subject and raised.value.kind is kind
        assert raised.value.diagnostic.label is None  # the writer's own diagnostic, not a read-back failure
