"""Random valid VPL modules for the differential tests (interpreter vs. GLSL backend on a real driver).

`RandomProgram(data).build()` draws, through Hypothesis (so failures
shrink), a module that is valid by construction and whose values differ
from pixel to pixel:

- **types**: bool/int/float scalars and vectors, matrices of several
  shapes, arrays, records with array fields, arrays of records;
- **uniforms** of those types (plain, array and record uniforms: std140
  blocks on the GPU) with random values, and optionally a sampler with a
  small random mipmapped texture and random sampler state;
- **vertex stage**: random code over the position and texture-coordinate
  inputs and the uniforms, writing random varyings (float, vectors, a
  matrix, an array, flat ints, a flat record), explicit or allocated
  locations;
- **fragment stage**: random code over gl_FragCoord, the varyings and the
  uniforms: arithmetic of every shape, comparisons, constructors and
  conversions, swizzles, member and index extraction (constant and dynamic
  indices, kept in range with clamp), loads and partial stores through
  member/index paths, every math built-in signature whose operand types
  are at hand (`vpl_core.verify.builtins.concrete_signatures`),
  derivatives, texture and texture_lod; if/else, loops with counters and
  data-dependent exits, early returns, discard; helper functions with
  parameters (written locally), early returns, discards, output writes and
  calls of earlier helpers;
- **outputs**: the colour (vec4, location 0) and a second vec4, an ivec4
  and a float array at further locations, each assigned first and then
  overwritten by whatever the program computed.

Registers are tracked per scope: a register is offered as an operand only
where it is definitely assigned (spec 5.2), so every module verifies; the
GLSL restrictions (spec 12.4 and the ES rules) are respected so every
module compiles for glsl420, es300 and es320.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

from vpl_core.interp import SamplerState, Texture2D
from vpl_core.interp.texture import Filter, Wrap
from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    BinaryOperator,
    Builtin,
    FunctionBuilder,
    MatrixType,
    Module,
    RecordType,
    RegisterValue,
    ScalarType,
    Semantic,
    StageBuilder,
    Type,
    VectorType,
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
from vpl_core.ir.values import ConstantValue, Operand, ReferenceValue
from vpl_core.verify.builtins import concrete_signatures

FLOAT_LITERALS = [0.0, 1.0, -1.0, 0.5, -0.25, 2.0, 3.75, 0.125, -3.5, 10.0, 0.001, -0.0, 1.5, 7.0]
INT_LITERALS = [0, 1, -1, 2, 3, -7, 5, 16, 100, -2147483648, 2147483647, 65536]


@dataclass
class Scope:
    """Registers definitely assigned here, by type (records by identity)."""

    registers: dict[Type, list[RegisterValue]] = field(default_factory=dict)
    readonly: set[int] = field(default_factory=set)  # loop counters: never overwritten

    def copy(self) -> Scope:
        return Scope({key: list(values) for key, values in self.registers.items()}, set(self.readonly))

    def add(self, register: RegisterValue) -> None:
        self.registers.setdefault(register.type, []).append(register)

    def of(self, value_type: Type) -> list[RegisterValue]:
        return self.registers.get(value_type, [])


class RandomProgram:
    def __init__(self, data: st.DataObject, *, fragment_budget: tuple[int, int] = (6, 40)) -> None:
        self.data = data
        self.fragment_budget = fragment_budget
        self.uniform_values: dict[str, Any] = {}
        self.arr = ArrayType(FLOAT, 3)
        self.varr = ArrayType(vec(4), 2)
        self.cell = record("Cell", [("color", vec(4)), ("id", INT), ("values", self.arr)])
        self.cells = ArrayType(self.cell, 2)
        self.tagged = record("Tagged", [("value", FLOAT), ("tag", INT)])
        self.universe: list[Type] = [
            FLOAT, INT, BOOL, vec(2), vec(3), vec(4), ivec(2), ivec(3), ivec(4), bvec(2), bvec(3), bvec(4),
            mat(2), mat(3), mat(4), mat(2, 3), mat(3, 2), self.arr, self.varr, self.cell, self.cells,
        ]  # fmt: skip
        self.signatures = self._signatures()
        self.sampler_uniform: ReferenceValue | None = None

    # Drawing helpers -------------------------------------------------------------------------------

    def draw(self, strategy: st.SearchStrategy) -> Any:
        return self.data.draw(strategy)

    def chance(self, probability: float = 0.5) -> bool:
        return self.draw(st.integers(0, 999)) < probability * 1000

    def pick(self, items: list) -> Any:
        return items[self.draw(st.integers(0, len(items) - 1))]

    def _signatures(self) -> dict[Builtin, list[tuple[tuple[Type, ...], Type]]]:
        table = {}
        for builtin in Builtin:
            if builtin.extension != "math" or builtin in (Builtin.DFDX, Builtin.DFDY, Builtin.FWIDTH, Builtin.TEXTURE_LOD):
                continue
            table[builtin] = concrete_signatures(builtin, self.universe)
        return table

    # Values ------------------------------------------------------------------------------------

    def python_value(self, value_type: Type) -> Any:
        """A random uniform value in the interpreter's Python conventions."""
        if value_type == FLOAT:
            return self.draw(st.sampled_from([0.0, 0.5, -1.25, 2.0, 0.75, -0.5, 1.0, 3.0, 0.1]))
        if value_type == INT:
            return self.draw(st.sampled_from([0, 1, 2, -3, 5, 7, -1]))
        if value_type == BOOL:
            return self.chance()
        if isinstance(value_type, VectorType):
            return [self.python_value(ScalarType(value_type.kind)) for _ in range(value_type.size)]
        if isinstance(value_type, MatrixType):
            return np.array([[self.python_value(FLOAT) for _ in range(value_type.columns)] for _ in range(value_type.rows)])
        if isinstance(value_type, ArrayType):
            return [self.python_value(value_type.element) for _ in range(value_type.count)]
        if isinstance(value_type, RecordType):
            return {record_field.name: self.python_value(record_field.type) for record_field in value_type.fields}
        raise TypeError(value_type)

    def texture(self) -> Texture2D:
        size = self.draw(st.sampled_from([2, 4, 8]))
        seed = self.draw(st.integers(0, 2**16))
        image = np.random.default_rng(seed).integers(0, 256, size=(size, size, 4), dtype=np.uint8)
        wrap = self.draw(st.sampled_from([Wrap.REPEAT, Wrap.CLAMP_TO_EDGE, Wrap.MIRRORED_REPEAT]))
        min_filter = self.draw(st.sampled_from(list(Filter)))
        mag_filter = self.draw(st.sampled_from([Filter.NEAREST, Filter.LINEAR]))
        return Texture2D.from_image(image, sampler=SamplerState(wrap, wrap, min_filter, mag_filter))

    # The module ---------------------------------------------------------------------------------

    def build(self) -> Module:
        module = Module()
        self.module = module
        self.uniforms: list[ReferenceValue] = []
        for name in ("u_float", "u_vec4", "u_ivec2", "u_mat", "u_array", "u_cell", "u_cells", "u_flag"):
            value_type = {"u_float": FLOAT, "u_vec4": vec(4), "u_ivec2": ivec(2), "u_mat": self.pick([mat(2), mat(3), mat(2, 3)]),
                          "u_array": self.varr, "u_cell": self.cell, "u_cells": self.cells, "u_flag": BOOL}[name]
            if name != "u_float" and not self.chance(0.6):
                continue
            reference = add_uniform(module, name, value_type)
            self.uniforms.append(reference)
            self.uniform_values[name] = self.python_value(value_type)
        if self.chance(0.4):
            self.sampler_uniform = add_uniform(module, "u_image", SAMPLER2D)
            self.uniform_values["u_image"] = self.texture()
        varyings = self._vertex_stage()
        self._fragment_stage(varyings)
        return module

    def _vertex_stage(self) -> list[tuple[str, Type, int]]:
        vertex = StageBuilder(self.module.vertex)
        position = vertex.input("position", vec(3), 0)
        texcoord = vertex.input("texcoord", vec(2), 2, Semantic.TEXCOORD) if self.chance(0.8) else None
        clip = vertex.output("clip", vec(4), semantic=Semantic.POSITION)
        candidates = [("v_float", FLOAT), ("v_vec2", vec(2)), ("v_vec3", vec(3)), ("v_vec4", vec(4)), ("v_int", INT),
                      ("v_ivec2", ivec(2)), ("v_mat", mat(2)), ("v_array", ArrayType(FLOAT, 2)), ("v_tagged", self.tagged)]
        varyings: list[tuple[str, Type, int]] = []
        used: set[int] = set()
        for name, value_type in candidates:
            if not self.chance(0.5):
                continue
            location = -1
            if self.chance(0.3):
                location = self.draw(st.integers(8, 12))
                if used & {location, location + 1}:
                    location = -1
                else:
                    used |= {location, location + 1}
            varyings.append((name, value_type, location))
        outputs = {name: vertex.output(name, value_type, location) for name, value_type, location in varyings}
        main = vertex.function("vertex_main", VOID, entry=True)
        body = Body(self, main, "vertex", Scope())
        position_value = main.load(position)
        main.store(clip, main.construct(vec(4), position_value, main.f(1.0)))
        body.scope.add(position_value)
        if texcoord is not None:
            body.scope.add(main.load(texcoord))
        body.load_uniforms()
        for name, value_type, _ in varyings:
            # Assigned before any early return (spec 6.3), overwritten at the end.
            main.store(outputs[name], body.fresh(value_type))
        body.statements(self.draw(st.integers(1, 10)), depth=1)
        for name, value_type, _ in varyings:
            main.store(outputs[name], body.operand(value_type, constant=False))
        main.ret()
        return varyings

    def _fragment_stage(self, varyings: list[tuple[str, Type, int]]) -> None:
        fragment = StageBuilder(self.module.fragment)
        self.color = fragment.output("color", vec(4), 0, Semantic.FRAGMENT_COLOR)
        self.data_output = fragment.output("data", vec(4), 1) if self.chance(0.5) else None
        self.int_output = fragment.output("ints", ivec(4), 2) if self.chance(0.5) else None
        self.pair_output = fragment.output("pair", ArrayType(FLOAT, 2), 3) if self.chance(0.3) else None
        frag_coord = fragment.input("frag_coord", vec(4), -1, Semantic.POSITION) if self.chance(0.8) else None
        inputs = {name: fragment.input(name, value_type, location) for name, value_type, location in varyings if self.chance(0.8)}
        helpers: list[FunctionBuilder] = []
        for index in range(self.draw(st.integers(0, 3))):
            helpers.append(self._helper(fragment, f"helper{index}", helpers))
        main = fragment.function("fragment_main", VOID, entry=True)
        body = Body(self, main, "fragment", Scope(), helpers=helpers)
        self.fragment_outputs_initialised(main)
        if frag_coord is not None:
            coordinates = main.load(frag_coord)
            body.scope.add(coordinates)
            body.scope.add(main.swizzle(coordinates, "xy"))
        for reference in inputs.values():
            body.scope.add(main.load(reference))
        body.load_uniforms()
        body.statements(self.draw(st.integers(*self.fragment_budget)), depth=0)
        body.write_outputs()
        main.ret()

    def fragment_outputs_initialised(self, main: FunctionBuilder) -> None:
        main.store(self.color, main.construct(vec(4), main.f(0.25)))
        if self.data_output is not None:
            main.store(self.data_output, main.construct(vec(4), main.f(-1.0)))
        if self.int_output is not None:
            main.store(self.int_output, main.construct(ivec(4), main.i(3)))
        if self.pair_output is not None:
            main.store(self.pair_output, main.construct(ArrayType(FLOAT, 2), main.f(1.0), main.f(2.0)))

    def _helper(self, fragment: StageBuilder, name: str, earlier: list[FunctionBuilder]) -> FunctionBuilder:
        parameter_types = [self.pick(self.universe) for _ in range(self.draw(st.integers(0, 3)))]
        if self.sampler_uniform is not None and self.chance(0.3):
            parameter_types.append(SAMPLER2D)
        return_type = self.pick([VOID, FLOAT, vec(3), vec(4), INT, self.cell, self.arr])
        helper = fragment.function(name, return_type, parameter_types)
        body = Body(self, helper, "fragment", Scope(), helpers=earlier, in_helper=True)
        for slot, parameter_type in enumerate(parameter_types):
            body.scope.add(helper.load(helper.parameter(slot)))
            if parameter_type != SAMPLER2D and self.chance(0.3):
                body.store_into(helper.parameter(slot), parameter_type)
        body.statements(self.draw(st.integers(1, 8)), depth=1)
        body.finish_function()
        return helper


class Body:
    """Random statements in one function, with the scope of definitely assigned registers."""

    def __init__(self, program: RandomProgram, builder: FunctionBuilder, stage: str, scope: Scope,
                 helpers: list[FunctionBuilder] | None = None, in_helper: bool = False) -> None:
        self.p = program
        self.f = builder
        self.stage = stage
        self.scope = scope
        self.helpers = helpers or []
        self.in_helper = in_helper

    # Operands -----------------------------------------------------------------------------------

    def constant(self, value_type: Type) -> ConstantValue:
        if value_type == FLOAT:
            return self.f.f(self.p.pick(FLOAT_LITERALS))
        if value_type == INT:
            return self.f.i(self.p.pick(INT_LITERALS))
        return self.f.b(self.p.chance())

    def fresh(self, value_type: Type) -> RegisterValue:
        """A new register of the type, built from constants (and registers where handy)."""
        f = self.f
        if isinstance(value_type, ScalarType):
            register = f.copy(self.constant(value_type))
        elif isinstance(value_type, VectorType):
            scalar = ScalarType(value_type.kind)
            if self.p.chance(0.3):
                register = f.construct(value_type, self.scalar_operand(scalar))
            else:
                register = f.construct(value_type, *[self.scalar_operand(scalar) for _ in range(value_type.size)])
        elif isinstance(value_type, MatrixType):
            if self.p.chance(0.4):
                register = f.construct(value_type, self.scalar_operand(FLOAT))
            else:
                columns = [self.operand(vec(value_type.rows)) for _ in range(value_type.columns)]
                register = f.construct(value_type, *columns)
        elif isinstance(value_type, ArrayType):
            register = f.construct(value_type, *[self.operand(value_type.element) for _ in range(value_type.count)])
        elif isinstance(value_type, RecordType):
            register = f.construct(value_type, *[self.operand(record_field.type) for record_field in value_type.fields])
        else:
            raise TypeError(value_type)
        self.scope.add(register)
        return register

    def scalar_operand(self, value_type: Type) -> Operand:
        if self.p.chance(0.35) or not self.scope.of(value_type):
            if self.scope.of(value_type) and self.p.chance(0.5):
                return self.p.pick(self.scope.of(value_type))
            return self.constant(value_type)
        return self.p.pick(self.scope.of(value_type))

    def operand(self, value_type: Type, constant: bool = True) -> Operand:
        if isinstance(value_type, ScalarType) and constant:
            return self.scalar_operand(value_type)
        registers = self.scope.of(value_type)
        if registers and (self.p.chance(0.85)):
            # Prefer recent registers: they carry the most computation.
            return registers[-1 - min(self.p.draw(st.integers(0, 6)), len(registers) - 1)]
        return self.fresh(value_type)

    def destination(self, value_type: Type) -> RegisterValue | None:
        """Overwrite an existing register now and then (values then merge across control flow)."""
        registers = [register for register in self.scope.of(value_type) if register.index not in self.scope.readonly]
        if registers and self.p.chance(0.3):
            return self.p.pick(registers)
        return None

    def emit(self, value_type: Type, make: Callable[[RegisterValue | None], RegisterValue]) -> RegisterValue:
        target = self.destination(value_type)
        register = make(target)
        if target is None:
            self.scope.add(register)
        return register

    def available(self, value_type: Type) -> bool:
        return isinstance(value_type, ScalarType) or bool(self.scope.of(value_type)) or self.p.chance(0.15)

    # Storage ------------------------------------------------------------------------------------

    def load_uniforms(self) -> None:
        for reference in self.p.uniforms:
            if self.p.chance(0.7):
                self.scope.add(self.f.load(reference))
        if self.p.sampler_uniform is not None:
            self.scope.add(self.f.load(self.p.sampler_uniform))

    def path_into(self, root: ReferenceValue, value_type: Type) -> tuple[ReferenceValue, Type]:
        """A random member/index path below a root of this type."""
        reference, current = root, value_type
        while isinstance(current, (ArrayType, RecordType)) and self.p.chance(0.7):
            if isinstance(current, RecordType):
                chosen = self.p.pick(current.fields)
                reference, current = member(reference, chosen.name), chosen.type
            else:
                reference, current = element(reference, self.index_operand(current.count)), current.element
        return reference, current

    def index_operand(self, count: int) -> Operand:
        if self.p.chance(0.5) or not self.scope.of(INT):
            return self.f.i(self.p.draw(st.integers(0, count - 1)))
        # A dynamic index kept in range (out-of-range access is undefined, spec 6.1).
        return self.f.call_builtin(Builtin.CLAMP, INT, self.p.pick(self.scope.of(INT)), self.f.i(0), self.f.i(count - 1))

    def store_into(self, root: ReferenceValue, value_type: Type) -> None:
        reference, selected = self.path_into(root, value_type)
        self.f.store(reference, self.operand(selected))

    # Statements ---------------------------------------------------------------------------------

    def statements(self, count: int, depth: int) -> None:
        for _ in range(count):
            if self.f.is_terminated:
                return
            kinds = ["operation"] * 6 + ["builtin"] * 4 + ["storage"] * 2
            if self.helpers:
                kinds += ["call"] * 2
            if depth < 3:
                kinds += ["if", "loop"]
            if self.stage == "fragment":
                kinds += ["derivative"]
                if self.p.sampler_uniform is not None:
                    kinds += ["texture"]
            kind = self.p.pick(kinds)
            getattr(self, f"_{kind}")(depth)

    def _operation(self, depth: int) -> None:
        choices = [self._float_arithmetic, self._int_arithmetic, self._aggregate_arithmetic, self._comparison,
                   self._construct, self._swizzle, self._extract, self._copy]
        self.p.pick(choices)()

    def _float_arithmetic(self) -> None:
        value_type = self.p.pick([FLOAT, vec(2), vec(3), vec(4)])
        operator = self.p.pick([BinaryOperator.ADD, BinaryOperator.SUBTRACT, BinaryOperator.MULTIPLY, BinaryOperator.DIVIDE])
        lhs, rhs = self.operand(value_type), self.operand(value_type)
        self.emit(value_type, lambda target: self.f.binary(operator, lhs, rhs, result=target))

    def _int_arithmetic(self) -> None:
        value_type = self.p.pick([INT, ivec(2), ivec(3), ivec(4)])
        operator = self.p.pick([BinaryOperator.ADD, BinaryOperator.SUBTRACT, BinaryOperator.MULTIPLY, BinaryOperator.DIVIDE])
        lhs = self.operand(value_type)
        if operator is BinaryOperator.DIVIDE and value_type == INT and self.p.chance(0.6):
            rhs: Operand = self.f.i(self.p.pick([2, 3, 7, -5, 16]))  # constant zero and -1 divisors are verifier errors
        else:
            rhs = self.operand(value_type, constant=False)
        self.emit(value_type, lambda target: self.f.binary(operator, lhs, rhs, result=target))

    def _aggregate_arithmetic(self) -> None:
        f = self.f
        shape = self.p.pick([mat(2), mat(3), mat(4), mat(2, 3), mat(3, 2)])
        form = self.p.pick(["matrix_vector", "matrix_matrix", "scale", "scale_first", "componentwise", "vector_scale"])
        if form == "matrix_vector":
            matrix, vector = self.operand(shape), self.operand(vec(shape.columns))
            self.emit(vec(shape.rows), lambda target: f.multiply(matrix, vector, result=target))
        elif form == "matrix_matrix":
            other = self.p.pick([mat(shape.columns, columns) for columns in (2, 3, 4)])
            lhs, rhs = self.operand(shape), self.operand(other)
            self.emit(MatrixType(shape.rows, other.columns), lambda target: f.multiply(lhs, rhs, result=target))
        elif form == "scale":
            matrix, scalar = self.operand(shape), self.operand(FLOAT)
            operator = self.p.pick([BinaryOperator.MULTIPLY, BinaryOperator.DIVIDE])
            self.emit(shape, lambda target: f.binary(operator, matrix, scalar, result=target))
        elif form == "scale_first":
            scalar, vector_type = self.operand(FLOAT), self.p.pick([vec(3), shape])
            value = self.operand(vector_type)
            self.emit(vector_type, lambda target: f.multiply(scalar, value, result=target))
        elif form == "componentwise":
            lhs, rhs = self.operand(shape), self.operand(shape)
            operator = self.p.pick([BinaryOperator.ADD, BinaryOperator.SUBTRACT, BinaryOperator.DIVIDE])
            self.emit(shape, lambda target: f.binary(operator, lhs, rhs, result=target))
        else:
            vector_type = self.p.pick([vec(2), vec(3), vec(4)])
            vector, scalar = self.operand(vector_type), self.operand(FLOAT)
            operator = self.p.pick([BinaryOperator.MULTIPLY, BinaryOperator.DIVIDE])
            self.emit(vector_type, lambda target: f.binary(operator, vector, scalar, result=target))

    def _comparison(self) -> None:
        value_type = self.p.pick([FLOAT, FLOAT, INT, BOOL])
        if value_type == BOOL:
            operator = self.p.pick([BinaryOperator.EQUAL, BinaryOperator.NOT_EQUAL])
        else:
            operator = self.p.pick([op for op in BinaryOperator if op.is_comparison])
        lhs, rhs = self.operand(value_type), self.operand(value_type)
        self.emit(BOOL, lambda target: self.f.binary(operator, lhs, rhs, result=target))

    def _construct(self) -> None:
        f = self.f
        form = self.p.pick(["vector", "int_to_float", "float_vector_from_ints", "matrix", "array", "record"])
        if form == "vector":
            value_type = self.p.pick([vec(2), vec(3), vec(4), ivec(3), bvec(2), vec(4)])
            parts: list[Operand] = []
            remaining = value_type.size
            while remaining:
                size = self.p.draw(st.integers(1, remaining))
                part_type = ScalarType(value_type.kind) if size == 1 else VectorType(value_type.kind, size)
                parts.append(self.operand(part_type))
                remaining -= size
            self.emit(value_type, lambda target: f.construct(value_type, *parts, result=target))
        elif form == "int_to_float":
            source = self.operand(INT)
            self.emit(FLOAT, lambda target: f.construct(FLOAT, source, result=target))
        elif form == "float_vector_from_ints":
            parts = [self.operand(self.p.pick([INT, FLOAT])) for _ in range(3)]
            self.emit(vec(3), lambda target: f.construct(vec(3), *parts, result=target))
        elif form == "matrix":
            value_type = self.p.pick([mat(2), mat(3), mat(2, 3), mat(4)])
            if self.p.chance(0.3):
                scalar = self.operand(FLOAT)
                self.emit(value_type, lambda target: f.construct(value_type, scalar, result=target))
            else:
                columns = [self.operand(vec(value_type.rows)) for _ in range(value_type.columns)]
                self.emit(value_type, lambda target: f.construct(value_type, *columns, result=target))
        else:
            value_type = self.p.pick([self.p.arr, self.p.varr, self.p.cells]) if form == "array" else self.p.cell
            self.fresh(value_type)

    def _swizzle(self) -> None:
        value_type = self.p.pick([vec(2), vec(3), vec(4), ivec(4), bvec(3)])
        source = self.operand(value_type, constant=False)
        letters = "xyzw"[: value_type.size]
        pattern = "".join(self.p.pick(list(letters)) for _ in range(self.p.draw(st.integers(1, 4))))
        result_type = ScalarType(value_type.kind) if len(pattern) == 1 else VectorType(value_type.kind, len(pattern))
        self.emit(result_type, lambda target: self.f.swizzle(source, pattern, result=target))

    def _extract(self) -> None:
        value_type = self.p.pick([self.p.arr, self.p.varr, self.p.cell, self.p.cells])
        source = self.operand(value_type, constant=False)
        if isinstance(value_type, RecordType):
            chosen = self.p.pick(value_type.fields)
            self.emit(chosen.type, lambda target: self.f.member(source, chosen.name, result=target))
        else:
            index = self.index_operand(value_type.count)
            self.emit(value_type.element, lambda target: self.f.index(source, index, result=target))

    def _copy(self) -> None:
        value_type = self.p.pick(self.p.universe)
        source = self.operand(value_type, constant=False)
        self.emit(value_type, lambda target: self.f.copy(source, result=target))

    def _builtin(self, depth: int) -> None:
        builtin = self.p.pick(list(self.p.signatures))
        candidates = [(arguments, result) for arguments, result in self.p.signatures[builtin]
                      if all(self.available(argument) for argument in arguments)]
        if not candidates:
            return
        arguments, result = self.p.pick(candidates)
        operands = [self.operand(argument) for argument in arguments]
        self.emit(result, lambda target: self.f.call_builtin(builtin, result, *operands, result=target))

    def _derivative(self, depth: int) -> None:
        builtin = self.p.pick([Builtin.DFDX, Builtin.DFDY, Builtin.FWIDTH])
        value_type = self.p.pick([FLOAT, vec(2), vec(3), vec(4)])
        source = self.operand(value_type, constant=False)
        self.emit(value_type, lambda target: self.f.call_builtin(builtin, value_type, source, result=target))

    def _texture(self, depth: int) -> None:
        samplers = self.scope.of(SAMPLER2D)
        if not samplers:
            return
        sampler = self.p.pick(samplers)
        coordinates = self.operand(vec(2))
        if self.p.chance(0.5):
            self.emit(vec(4), lambda target: self.f.texture(sampler, coordinates, result=target))
        else:
            lod = self.operand(FLOAT)
            self.emit(vec(4), lambda target: self.f.call_builtin(Builtin.TEXTURE_LOD, vec(4), sampler, coordinates, lod, result=target))

    def _storage(self, depth: int) -> None:
        f = self.f
        form = self.p.pick(["local", "uniform", "output"] if self.stage == "fragment" else ["local", "uniform"])
        if form == "local":
            value_type = self.p.pick([self.p.arr, self.p.varr, self.p.cell, self.p.cells, vec(4)])
            target = self.operand(value_type, constant=False)
            if self.p.chance(0.6):
                self.store_into(local_ref(target), value_type)
            else:
                reference, selected = self.path_into(local_ref(target), value_type)
                self.emit(selected, lambda result: f.load(reference, result=result))
        elif form == "uniform":
            if not self.p.uniforms:
                return
            root = self.p.pick(self.p.uniforms)
            reference, selected = self.path_into(root, root.type)
            self.emit(selected, lambda result: f.load(reference, result=result))
        else:
            outputs = [(self.p.color, vec(4))]
            if self.p.data_output is not None:
                outputs.append((self.p.data_output, vec(4)))
            if self.p.int_output is not None:
                outputs.append((self.p.int_output, ivec(4)))
            if self.p.pair_output is not None:
                # ES: fragment-output arrays take constant indices only.
                outputs.append((element(self.p.pair_output, self.f.i(self.p.draw(st.integers(0, 1)))), FLOAT))
            reference, value_type = self.p.pick(outputs)
            f.store(reference, self.operand(value_type, constant=False))

    def _call(self, depth: int) -> None:
        helper = self.p.pick(self.helpers)
        function = helper.function
        arguments = []
        for parameter in function.parameters:
            if parameter.type == SAMPLER2D:
                samplers = self.scope.of(SAMPLER2D)
                if not samplers:
                    return
                arguments.append(self.p.pick(samplers))
            else:
                arguments.append(self.operand(parameter.type))
        if function.return_type == VOID:
            self.f.call(function, *arguments)
        else:
            self.emit(function.return_type, lambda target: self.f.call(function, *arguments, result=target))

    def _condition(self) -> Operand:
        if self.scope.of(BOOL) and self.p.chance(0.4):
            return self.p.pick(self.scope.of(BOOL))
        value_type = self.p.pick([FLOAT, FLOAT, INT])
        operator = self.p.pick([BinaryOperator.LESS, BinaryOperator.GREATER_EQUAL, BinaryOperator.NOT_EQUAL, BinaryOperator.LESS_EQUAL])
        lhs, rhs = self.operand(value_type, constant=False), self.operand(value_type)
        condition = self.f.binary(operator, lhs, rhs)
        self.scope.add(condition)
        return condition

    def _if(self, depth: int) -> None:
        f = self.f
        condition = self._condition()
        then_block, else_block, join = f.new_block(), f.new_block(), f.new_block()
        f.branch_if(condition, then_block, else_block)
        outer = self.scope
        for block in (then_block, else_block):
            f.position_at(block)
            self.scope = outer.copy()
            self.statements(self.p.draw(st.integers(0, 4)), depth + 1)
            ending = self.p.pick(["join"] * 6 + ["return", "discard"] if self.stage == "fragment" else ["join"] * 6 + ["return"])
            if ending == "return":
                self.finish_function()
            elif ending == "discard":
                f.discard()
            else:
                f.branch(join)
        self.scope = outer
        f.position_at(join)

    def _loop(self, depth: int) -> None:
        f = self.f
        counter = f.copy(f.i(0))
        test, body, exit_block = f.new_block(), f.new_block(), f.new_block()
        f.branch(test)
        f.position_at(test)
        condition = f.binary(BinaryOperator.LESS, counter, f.i(self.p.draw(st.integers(1, 4))))
        f.branch_if(condition, body, exit_block)
        f.position_at(body)
        outer = self.scope
        self.scope = outer.copy()
        self.scope.add(counter)
        self.scope.readonly.add(counter.index)
        self.statements(self.p.draw(st.integers(1, 4)), depth + 1)
        if not f.is_terminated:
            if self.p.chance(0.3):
                # A data-dependent exit from the middle of the loop.
                rest = f.new_block()
                f.branch_if(self._condition(), exit_block, rest)
                f.position_at(rest)
            f.add(counter, f.i(1), result=counter)
            f.branch(test)
        self.scope = outer
        f.position_at(exit_block)

    def finish_function(self) -> None:
        """Return (a value of the return type in a helper); the entry's outputs were assigned first."""
        return_type = self.f.function.return_type
        if return_type == VOID:
            self.f.ret()
        else:
            self.f.ret(self.operand(return_type, constant=False))

    def write_outputs(self) -> None:
        """Overwrite the outputs with combinations of what the program computed."""
        f, p = self.f, self.p
        for output, count in ((p.color, 4), (p.data_output, 4)):
            if output is None:
                continue
            parts: list[Operand] = []
            remaining = count
            while remaining:
                size = min(remaining, p.pick([1, 1, 2, 3, 4]))
                parts.append(self.operand(FLOAT if size == 1 else vec(size), constant=False))
                remaining -= size
            f.store(output, f.construct(vec(4), *parts))
        if p.int_output is not None:
            f.store(p.int_output, f.construct(ivec(4), *[self.operand(INT, constant=False) for _ in range(4)]))
        if p.pair_output is not None:
            f.store(element(p.pair_output, f.i(1)), self.operand(FLOAT, constant=False))
