"""Random valid VPL modules, built with the IR builder, for round-trip and property tests.

`random_module(seed)` builds a module that is valid by construction under
the whole specification (types, storage permissions, definite assignment,
output definedness, linkage, no recursion), so the real verifier accepts it.
It exercises what the text format must preserve: records with repeated
display names (nominal identity), nested arrays of records, all uniform
kinds, interface variables of both directions, helper functions with
parameters, non-dense register numbers, branches, loops, discard, derived
reference paths, every instruction form, math-extension calls, random float
bit patterns (signed zeros, subnormals, extremes) and display names with
quotes, backslashes, controls and non-ASCII characters.
"""

from __future__ import annotations

import random

from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    BinaryOperator,
    Builtin,
    ConstantValue,
    FunctionBuilder,
    MatrixType,
    Module,
    RecordType,
    ReferenceValue,
    RegisterValue,
    ScalarKind,
    ScalarType,
    Semantic,
    StageBuilder,
    Type,
    VectorType,
    add_uniform,
    element,
    local_ref,
    member,
    record,
    vec,
)
from vpl_core.ir.module import Function, StageKind
from vpl_core.verify.builtins import builtin_result_type

NAME_ALPHABET = "abcxyz_ 09\"'\\\t\n\u0000\u007f\u0085éß漢🎨\u200b"
MATH_BUILTINS = [builtin for builtin in Builtin if builtin.extension == "math"]


def random_name(rng: random.Random, taken: set[str]) -> str:
    """A nonempty display name not in `taken` (added to it), often with characters that need escaping."""
    while True:
        if rng.random() < 0.5:
            name = f"name{len(taken)}"
        else:
            name = "".join(rng.choice(NAME_ALPHABET) for _ in range(rng.randint(1, 8)))
        if name not in taken:
            taken.add(name)
            return name


def random_float_constant(rng: random.Random) -> ConstantValue:
    choice = rng.random()
    if choice < 0.3:
        return ConstantValue.of_float(rng.choice([0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 2.0, 1e-45, 3.4028234663852886e38]))
    while True:
        bits = rng.getrandbits(32)
        if (bits >> 23) & 0xFF != 0xFF:  # finite
            return ConstantValue.of_float_bits(bits)


class _TypePool:
    """The value types of one module: structural ones and a few record declarations."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.numeric: list[Type] = [INT, FLOAT, vec(2), vec(3), vec(4), VectorType(ScalarKind.INT, 3)]
        self.constructible: list[Type] = self.numeric + [BOOL, VectorType(ScalarKind.BOOL, 2), MatrixType(2, 3), MatrixType(4, 4)]
        self.records: list[RecordType] = []
        self.arrays: list[ArrayType] = []
        display_names = ["Light", "Cell", "Light"]  # a repeated display name: still distinct types
        for position in range(rng.randint(0, 3)):
            fields = []
            taken: set[str] = set()
            for _ in range(rng.randint(0, 3)):
                fields.append((random_name(rng, taken), self.any_aggregate_component()))
            self.records.append(record(display_names[position], fields))
        for _ in range(rng.randint(0, 2)):
            self.arrays.append(ArrayType(self.any_aggregate_component(), rng.randint(1, 3)))

    def any_aggregate_component(self) -> Type:
        candidates: list[Type] = self.constructible + self.records + self.arrays
        return self.rng.choice(candidates)

    def any_value_type(self) -> Type:
        return self.rng.choice(self.constructible + self.records + self.arrays)


class _FunctionWriter:
    """Emits random valid code into one function, tracking definitely assigned registers."""

    def __init__(
        self,
        rng: random.Random,
        builder: FunctionBuilder,
        pool: _TypePool,
        uniforms: list[ReferenceValue],
        helpers: list[Function],
        stage_is_fragment: bool,
        use_math: bool,
    ) -> None:
        self.rng = rng
        self.builder = builder
        self.pool = pool
        self.uniforms = uniforms
        self.helpers = helpers
        self.stage_is_fragment = stage_is_fragment
        self.use_math = use_math
        self.assigned: list[RegisterValue] = []
        self.next_register_index = 0

    # Registers -------------------------------------------------------------------------

    def new_register(self, value_type: Type) -> RegisterValue:
        # Sometimes skip numbers: register ids need not be dense.
        index = self.next_register_index + (self.rng.randint(1, 5) if self.rng.random() < 0.2 else 0)
        self.next_register_index = index + 1
        return self.builder.register(value_type, index=index)

    def assigned_of(self, value_type: Type) -> list[RegisterValue]:
        return [register for register in self.assigned if register.type == value_type]

    def constant_of(self, scalar: ScalarType) -> ConstantValue:
        if scalar.kind is ScalarKind.FLOAT:
            return random_float_constant(self.rng)
        if scalar.kind is ScalarKind.INT:
            return ConstantValue.of_int(self.rng.choice([0, 1, -1, 7, 2**31 - 1, -(2**31), self.rng.randint(-1000, 1000)]))
        return ConstantValue.of_bool(self.rng.random() < 0.5)

    def value_of(self, value_type: Type) -> RegisterValue:
        """A definitely assigned register holding a value of `value_type` (materialized if needed)."""
        existing = self.assigned_of(value_type)
        if existing and self.rng.random() < 0.6:
            return self.rng.choice(existing)
        destination = self.new_register(value_type)
        builder = self.builder
        if isinstance(value_type, ScalarType):
            builder.copy(self.constant_of(value_type), result=destination)
        elif isinstance(value_type, VectorType):
            element_type = ScalarType(value_type.kind)
            if self.rng.random() < 0.5:
                builder.construct(value_type, self.constant_of(element_type), result=destination)
            else:
                parts = [self.constant_of(element_type) for _ in range(value_type.size)]
                builder.construct(value_type, *parts, result=destination)
        elif isinstance(value_type, MatrixType):
            if self.rng.random() < 0.5:
                builder.construct(value_type, random_float_constant(self.rng), result=destination)
            else:
                columns = [self.value_of(vec(value_type.rows)) for _ in range(value_type.columns)]
                builder.construct(value_type, *columns, result=destination)
        elif isinstance(value_type, RecordType):
            fields = [self.value_of(field.type) for field in value_type.fields]
            builder.construct(value_type, *fields, result=destination)
        elif isinstance(value_type, ArrayType):
            elements = [self.value_of(value_type.element) for _ in range(value_type.count)]
            builder.construct(value_type, *elements, result=destination)
        else:
            raise AssertionError(value_type)
        self.assigned.append(destination)
        return destination

    # Storage paths ---------------------------------------------------------------------

    def random_path(self, root: ReferenceValue) -> ReferenceValue:
        reference = root
        for _ in range(self.rng.randint(0, 3)):
            if isinstance(reference.type, RecordType) and reference.type.fields:
                reference = member(reference, self.rng.choice(reference.type.fields).name)
            elif isinstance(reference.type, ArrayType):
                if self.rng.random() < 0.5:
                    reference = element(reference, self.rng.randrange(reference.type.count))
                else:
                    index = self.new_register(INT)
                    self.builder.copy(ConstantValue.of_int(self.rng.randrange(reference.type.count)), result=index)
                    self.assigned.append(index)
                    reference = element(reference, index)
            else:
                break
        return reference

    # Straight-line code ----------------------------------------------------------------

    def emit_random_instruction(self) -> None:
        rng = self.rng
        builder = self.builder
        choice = rng.randrange(11)
        if choice == 0:
            value_type = rng.choice(self.pool.numeric)
            lhs, rhs = self.value_of(value_type), self.value_of(value_type)
            operator = rng.choice([BinaryOperator.ADD, BinaryOperator.SUBTRACT, BinaryOperator.MULTIPLY])
            if isinstance(value_type, ScalarType) and value_type.kind is ScalarKind.FLOAT and rng.random() < 0.3:
                operator = BinaryOperator.DIVIDE
            self.assigned.append(builder.binary(operator, lhs, rhs, result=self.new_register(value_type)))
        elif choice == 1:
            value_type = rng.choice([INT, FLOAT])
            operator = rng.choice([operator for operator in BinaryOperator if operator.is_comparison])
            lhs = self.value_of(value_type)
            rhs = self.constant_of(value_type) if rng.random() < 0.5 else self.value_of(value_type)
            self.assigned.append(builder.binary(operator, lhs, rhs, result=self.new_register(BOOL)))
        elif choice == 2 and self.uniforms:
            uniform = rng.choice(self.uniforms)
            if uniform.type == SAMPLER2D:
                sampler = builder.load(uniform, result=self.new_register(SAMPLER2D))
                coordinates = self.value_of(vec(2))
                self.assigned.append(builder.texture(sampler, coordinates, result=self.new_register(vec(4))))
            else:
                path = self.random_path(uniform)
                self.assigned.append(builder.load(path, result=self.new_register(path.type)))
        elif choice == 3:
            aggregates = [register for register in self.assigned if isinstance(register.type, (RecordType, ArrayType))]
            if aggregates:
                target = self.random_path(local_ref(rng.choice(aggregates)))
                builder.store(target, self.value_of(target.type))
        elif choice == 4:
            vectors = [register for register in self.assigned if isinstance(register.type, VectorType)]
            if vectors:
                source = rng.choice(vectors)
                pattern = "".join(rng.choice("xyzw"[: source.type.size]) for _ in range(rng.randint(1, 4)))
                kind = source.type.kind
                result_type: Type = ScalarType(kind) if len(pattern) == 1 else VectorType(kind, len(pattern))
                self.assigned.append(builder.swizzle(source, pattern, result=self.new_register(result_type)))
        elif choice == 5:
            records = [register for register in self.assigned if isinstance(register.type, RecordType) and register.type.fields]
            if records:
                source = rng.choice(records)
                field = rng.choice(source.type.fields)
                self.assigned.append(builder.member(source, field.name, result=self.new_register(field.type)))
        elif choice == 6:
            arrays = [register for register in self.assigned if isinstance(register.type, ArrayType)]
            if arrays:
                source = rng.choice(arrays)
                index = ConstantValue.of_int(rng.randrange(source.type.count)) if rng.random() < 0.5 else self.index_register(source.type.count)
                self.assigned.append(builder.index(source, index, result=self.new_register(source.type.element)))
        elif choice == 7 and self.helpers:
            helper = rng.choice(self.helpers)
            arguments = [self.value_of(parameter.type) for parameter in helper.parameters]
            result = None if helper.return_type.is_void else self.new_register(helper.return_type)
            builder.call(helper, *arguments, result=result)
            if result is not None:
                self.assigned.append(result)
        elif choice == 8:
            destination = self.new_register(FLOAT)
            builder.construct(FLOAT, self.value_of(INT), result=destination)  # explicit int -> float
            self.assigned.append(destination)
        elif choice == 9 and self.use_math:
            self.emit_math()
        else:
            value_type = self.pool.any_value_type()
            source = self.value_of(value_type)
            self.assigned.append(builder.copy(source, result=self.new_register(value_type)))

    def index_register(self, count: int) -> RegisterValue:
        index = self.new_register(INT)
        self.builder.copy(ConstantValue.of_int(self.rng.randrange(count)), result=index)
        self.assigned.append(index)
        return index

    def emit_math(self) -> None:
        stage = StageKind.FRAGMENT if self.stage_is_fragment else StageKind.VERTEX
        for _ in range(10):
            builtin = self.rng.choice(MATH_BUILTINS)
            argument_type = self.rng.choice([FLOAT, vec(3), INT, BOOL])
            arguments = [self.value_of(argument_type) for _ in range(builtin.arity)]
            result_type = builtin_result_type(builtin, [argument.type for argument in arguments], stage)
            if isinstance(result_type, Type):
                self.assigned.append(
                    self.builder.call_builtin(builtin, result_type, *arguments, result=self.new_register(result_type))
                )
                return

    def emit_code(self, count: int) -> None:
        for _ in range(count):
            self.emit_random_instruction()

    # Control flow ----------------------------------------------------------------------

    def emit_control_flow(self, budget: int) -> None:
        """Random diamonds and counted loops; availability after a join is what held before it."""
        rng = self.rng
        builder = self.builder
        for _ in range(budget):
            self.emit_code(rng.randint(0, 3))
            shape = rng.randrange(3)
            before = list(self.assigned)
            if shape == 0:
                condition = self.value_of(BOOL)
                then_block, else_block, join = builder.new_block(), builder.new_block(), builder.new_block()
                builder.branch_if(condition, then_block, else_block)
                for branch in (then_block, else_block):
                    builder.position_at(branch)
                    self.assigned = list(before)
                    self.emit_code(rng.randint(0, 3))
                    if self.stage_is_fragment and branch is else_block and rng.random() < 0.3:
                        builder.discard()
                    else:
                        builder.branch(join)
                builder.position_at(join)
                self.assigned = before
            elif shape == 1:
                counter = self.new_register(INT)
                builder.copy(ConstantValue.of_int(0), result=counter)
                self.assigned.append(counter)
                before = list(self.assigned)
                test, body, done = builder.new_block(), builder.new_block(), builder.new_block()
                builder.branch(test)
                builder.position_at(test)
                condition = builder.binary(BinaryOperator.LESS, counter, ConstantValue.of_int(rng.randint(0, 3)), result=self.new_register(BOOL))
                builder.branch_if(condition, body, done)
                builder.position_at(body)
                self.emit_code(rng.randint(0, 3))
                builder.add(counter, ConstantValue.of_int(1), result=counter)
                builder.branch(test)
                builder.position_at(done)
                self.assigned = before


def _helper(rng: random.Random, stage: StageBuilder, pool: _TypePool, uniforms: list[ReferenceValue], callees: list[Function], is_fragment: bool, use_math: bool, taken: set[str]) -> Function:
    parameter_types = [rng.choice(pool.constructible + pool.records) for _ in range(rng.randint(0, 3))]
    return_type = rng.choice([VOID, rng.choice(pool.constructible + pool.records + pool.arrays)])
    builder = stage.function(random_name(rng, taken), return_type, parameter_types)
    writer = _FunctionWriter(rng, builder, pool, uniforms, callees, is_fragment, use_math)
    for parameter in builder.function.parameters:
        writer.assigned.append(builder.load(parameter, result=writer.new_register(parameter.type)))
        if rng.random() < 0.3:  # parameter storage is invocation-local and writable
            builder.store(parameter, writer.value_of(parameter.type))
    writer.emit_control_flow(rng.randint(0, 2))
    writer.emit_code(rng.randint(0, 3))
    builder.ret(None if return_type.is_void else writer.value_of(return_type))
    return builder.function


def random_module(seed: int, *, allow_math: bool = True) -> Module:
    """A random module, valid by construction; the same seed gives the same module."""
    rng = random.Random(seed)
    module = Module()
    pool = _TypePool(rng)
    use_math = allow_math and rng.random() < 0.5

    uniform_names: set[str] = set()
    uniforms: list[ReferenceValue] = []
    for _ in range(rng.randint(0, 4)):
        uniform_type = rng.choice(pool.constructible + pool.records + pool.arrays + [SAMPLER2D])
        if rng.random() < 0.2:
            uniform_type = ArrayType(rng.choice(pool.constructible + pool.records), rng.randint(1, 4))
        uniforms.append(add_uniform(module, random_name(rng, uniform_names), uniform_type))

    # Vertex stage: Position output, optional attribute input, optional varyings.
    vertex = StageBuilder(module.vertex)
    vertex_names: set[str] = set()
    fragment_names: set[str] = set()
    position = vertex.output(random_name(rng, vertex_names), vec(4), -1, Semantic.POSITION)
    attribute = vertex.input(random_name(rng, vertex_names), vec(3), 0) if rng.random() < 0.7 else None
    varyings: list[tuple[ReferenceValue, int]] = []
    for location in range(rng.randint(0, 2)):
        varying_type = rng.choice([FLOAT, vec(2), vec(4), MatrixType(3, 3), ArrayType(FLOAT, 2)])
        varyings.append((vertex.output(random_name(rng, vertex_names), varying_type, location + 1), location + 1))

    vertex_functions: set[str] = set()
    vertex_helpers: list[Function] = []
    for _ in range(rng.randint(0, 2)):
        vertex_helpers.append(_helper(rng, vertex, pool, uniforms, list(vertex_helpers), False, use_math, vertex_functions))
    vertex_entry = vertex.function(random_name(rng, vertex_functions), VOID, entry=True)
    writer = _FunctionWriter(rng, vertex_entry, pool, uniforms, vertex_helpers, False, use_math)
    if attribute is not None:
        writer.assigned.append(vertex_entry.load(attribute, result=writer.new_register(vec(3))))
    writer.emit_control_flow(rng.randint(0, 2))
    vertex_entry.store(position, writer.value_of(vec(4)))
    for varying, _ in varyings:
        vertex_entry.store(varying, writer.value_of(varying.type))
    vertex_entry.ret()
    # Helpers after the entry in list order too: call order and list order are independent.
    if rng.random() < 0.5:
        module.vertex.functions.reverse()

    # Fragment stage: FragmentColor output, inputs linked to some varyings by location.
    fragment = StageBuilder(module.fragment)
    color = fragment.output(random_name(rng, fragment_names), vec(4), 0, Semantic.FRAGMENT_COLOR)
    inputs = []
    for varying, location in varyings:
        if rng.random() < 0.6:
            inputs.append(fragment.input(random_name(rng, fragment_names), varying.type, location))
    fragment_functions: set[str] = set()
    fragment_helpers: list[Function] = []
    for _ in range(rng.randint(0, 2)):
        fragment_helpers.append(_helper(rng, fragment, pool, uniforms, list(fragment_helpers), True, use_math, fragment_functions))
    fragment_entry = fragment.function(random_name(rng, fragment_functions), VOID, entry=True)
    writer = _FunctionWriter(rng, fragment_entry, pool, uniforms, fragment_helpers, True, use_math)
    for fragment_input in inputs:
        writer.assigned.append(fragment_entry.load(fragment_input, result=writer.new_register(fragment_input.type)))
    writer.emit_control_flow(rng.randint(0, 3))
    fragment_entry.store(color, writer.value_of(vec(4)))
    if rng.random() < 0.2:
        fragment_entry.discard()
    else:
        fragment_entry.ret()
    return module


def minimal_module() -> Module:
    """The smallest useful valid module: constant position and colour."""
    module = Module()
    vertex = StageBuilder(module.vertex)
    position = vertex.output("position", vec(4), -1, Semantic.POSITION)
    main = vertex.function("main", VOID, entry=True)
    main.store(position, main.construct(vec(4), main.f(0.0), main.f(0.0), main.f(0.0), main.f(1.0)))
    main.ret()
    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), 0, Semantic.FRAGMENT_COLOR)
    main = fragment.function("main", VOID, entry=True)
    main.store(color, main.construct(vec(4), main.f(0.0), main.f(1.0), main.f(0.0), main.f(1.0)))
    main.ret()
    return module


def assert_same_module(left: Module, right: Module) -> None:
    """Assert that two modules describe the same program, up to object identity.

    Records must correspond one to one (nominal identity is preserved, not
    merged or split); blocks and callees must sit at the same list positions;
    float constants must have the same bits.
    """
    from vpl_core.ir.module import Block as BlockClass
    from vpl_core.ir.module import Stage
    from vpl_core.records import fields_of, is_record

    records: dict[int, RecordType] = {}
    records_reverse: dict[int, RecordType] = {}

    def same_type(left_type: object, right_type: object) -> None:
        # Explicit stack: types may nest deeply.
        stack = [(left_type, right_type)]
        while stack:
            a, b = stack.pop()
            if isinstance(a, RecordType):
                assert isinstance(b, RecordType), (a, b)
                if id(a) in records:
                    assert records[id(a)] is b, f"record {a.name!r} maps to two declarations"
                    continue
                assert id(b) not in records_reverse, f"two records map to {b.name!r}"
                records[id(a)], records_reverse[id(b)] = b, a
                assert a.name == b.name and len(a.fields) == len(b.fields)
                for field_a, field_b in zip(a.fields, b.fields):
                    assert field_a.name == field_b.name
                    stack.append((field_a.type, field_b.type))
            elif isinstance(a, ArrayType):
                assert isinstance(b, ArrayType) and a.count == b.count
                stack.append((a.element, b.element))
            else:
                assert a == b, (a, b)

    def same_value(a: object, b: object, stage_pair: tuple[Stage, Stage], blocks_pair: tuple[list, list]) -> None:
        if isinstance(a, BlockClass):
            assert blocks_pair[0].index(a) == blocks_pair[1].index(b)
        elif isinstance(a, Function):
            assert stage_pair[0].functions.index(a) == stage_pair[1].functions.index(b)
        elif isinstance(a, ConstantValue):
            assert isinstance(b, ConstantValue) and a == b and a.bits == b.bits
            same_type(a.type, b.type)
        elif isinstance(a, Type):
            same_type(a, b)
        elif isinstance(a, list):
            assert isinstance(b, list) and len(a) == len(b)
            for item_a, item_b in zip(a, b):
                same_value(item_a, item_b, stage_pair, blocks_pair)
        elif is_record(a):
            assert type(a) is type(b), (a, b)
            for name in fields_of(a):
                same_value(getattr(a, name), getattr(b, name), stage_pair, blocks_pair)
        else:
            assert a == b, (a, b)

    assert len(left.uniforms) == len(right.uniforms)
    for a, b in zip(left.uniforms, right.uniforms):
        assert (a.kind, a.name) == (b.kind, b.name)
        same_type(a.type, b.type)
    for stage_a, stage_b in zip(left.stages, right.stages):
        assert stage_a.kind is stage_b.kind
        assert len(stage_a.interface) == len(stage_b.interface)
        for a, b in zip(stage_a.interface, stage_b.interface):
            assert (a.direction, a.name, a.location, a.semantic) == (b.direction, b.name, b.location, b.semantic)
            same_type(a.type, b.type)
        assert len(stage_a.functions) == len(stage_b.functions)
        assert stage_a.functions.index(stage_a.entry) == stage_b.functions.index(stage_b.entry)
        for function_a, function_b in zip(stage_a.functions, stage_b.functions):
            assert function_a.name == function_b.name
            same_type(function_a.return_type, function_b.return_type)
            blocks_pair = (function_a.blocks, function_b.blocks)
            same_value(function_a.parameters, function_b.parameters, (stage_a, stage_b), blocks_pair)
            assert len(function_a.blocks) == len(function_b.blocks)
            for block_a, block_b in zip(function_a.blocks, function_b.blocks):
                same_value(block_a.instructions, block_b.instructions, (stage_a, stage_b), blocks_pair)
                same_value(block_a.terminator, block_b.terminator, (stage_a, stage_b), blocks_pair)
