"""Random valid VPL modules for property tests of the GLSL backend.

`RandomModule(data).build()` draws a module, valid by construction, that
mixes what the backend has to get right together: record and array
uniforms (std140 blocks), sampler aliases, flat and smooth varyings with
explicit and unspecified locations, nested storage paths on locals,
parameters, uniforms and outputs, structured control flow (if/else,
loops with counters, early returns, discards) lowered to explicit blocks,
helper calls (value-returning, output-writing, discarding), and arithmetic,
construction, extraction and math-extension operations over many types.

Every register of the fragment entry is assigned in the entry block before
any random statement, and the colour output is written first, so definite
assignment and output definedness hold on every path without bookkeeping.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

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
    Module,
    RegisterValue,
    Semantic,
    StageBuilder,
    add_uniform,
    element,
    ivec,
    local_ref,
    mat,
    member,
    record,
    vec,
)


class RandomModule:
    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.cell = record("Cell", [("color", vec(4)), ("id", INT), ("values", ArrayType(FLOAT, 3))])
        self.cells = ArrayType(self.cell, 2)
        self.floats = ArrayType(FLOAT, 3)

    def draw(self, strategy):
        return self.data.draw(strategy)

    def chance(self) -> bool:
        return self.draw(st.booleans())

    # Module --------------------------------------------------------------------------------------

    def build(self) -> Module:
        module = Module()
        self.module = module
        self.u_tint = add_uniform(module, "tint", vec(4))
        self.u_cell = add_uniform(module, "cell", self.cell) if self.chance() else None
        self.u_palette = add_uniform(module, "palette", ArrayType(vec(4), 3)) if self.chance() else None
        self.u_image = add_uniform(module, "image", SAMPLER2D) if self.chance() else None
        self.u_matrix = add_uniform(module, "matrix", mat(4)) if self.chance() else None
        varyings = self._vertex_stage()
        self._fragment_stage(varyings)
        return module

    def _vertex_stage(self) -> list[tuple[str, object, int]]:
        vertex = StageBuilder(self.module.vertex)
        position = vertex.input("position", vec(3), 0)
        clip = vertex.output("clip", vec(4), semantic=Semantic.POSITION)
        candidates = [("smooth3", vec(3)), ("count", INT), ("pair", ivec(2)), ("weights", ArrayType(FLOAT, 2)),
                      ("basis", mat(2)), ("tagged", record("Tagged", [("value", FLOAT), ("tag", INT)]))]
        varyings: list[tuple[str, object, int]] = []
        used_explicit: set[int] = set()
        for name, value_type in candidates:
            if not self.chance():
                continue
            location = -1
            if self.chance():
                location = self.draw(st.integers(10, 13))  # spans up to 2 end by 15 (the ES guarantee)
                if location in used_explicit or location + 1 in used_explicit:
                    location = -1
                else:
                    used_explicit.update({location, location + 1})
            varyings.append((name, value_type, location))
        references = {name: vertex.output(name, value_type, location) for name, value_type, location in varyings}
        main = vertex.function("vertex_main", VOID, entry=True)
        helper = vertex.function("to_clip", vec(4), [vec(3)])
        helper_value = helper.load(helper.parameter(0))
        helper.ret(helper.construct(vec(4), helper_value, helper.f(1.0)))
        clip_value = main.call(helper.function, main.load(position))
        if self.u_matrix is not None:
            clip_value = main.multiply(main.load(self.u_matrix), clip_value)
        main.store(clip, clip_value)
        for name, value_type, _ in varyings:
            main.store(references[name], self._constant_value(main, value_type))
        main.ret()
        return varyings

    def _constant_value(self, builder: FunctionBuilder, value_type) -> RegisterValue:
        if value_type == FLOAT:
            return builder.copy(builder.f(0.5))
        if value_type == INT:
            return builder.copy(builder.i(3))
        if isinstance(value_type, ArrayType):
            return builder.construct(value_type, *[builder.f(0.25)] * value_type.count)
        if value_type == mat(2):
            return builder.construct(value_type, builder.f(1.0))
        if value_type == ivec(2):
            return builder.construct(value_type, builder.i(1), builder.i(-2))
        if value_type == vec(3):
            return builder.construct(value_type, builder.f(0.25))
        return builder.construct(value_type, builder.f(0.5), builder.i(7))  # Tagged

    # Fragment ------------------------------------------------------------------------------------

    def _fragment_stage(self, varyings: list[tuple[str, object, int]]) -> None:
        fragment = StageBuilder(self.module.fragment)
        self.color = fragment.output("color", vec(4), 0, Semantic.FRAGMENT_COLOR)
        self.inputs = {}
        for name, value_type, location in varyings:
            if self.chance():
                self.inputs[name] = fragment.input(name, value_type, location)
        self.extras = fragment.output("extras", ArrayType(vec(4), 2), -1) if self.chance() else None
        entry = fragment.function("fragment_main", VOID, entry=True)
        self.helpers = self._helpers(fragment)
        self.f = entry
        self._registers(entry)
        self.budget = self.draw(st.integers(3, 25))
        self._statements(depth=0)
        entry.store(self.color, self.r["v4"])
        entry.ret()

    def _helpers(self, fragment: StageBuilder) -> dict[str, FunctionBuilder]:
        helpers: dict[str, FunctionBuilder] = {}
        shade = fragment.function("shade", vec(4), [vec(4), FLOAT])
        value = shade.load(shade.parameter(0))
        amount = shade.load(shade.parameter(1))
        value = shade.multiply(value, amount)
        shade.store(shade.parameter(0), value)
        shade.ret(shade.load(shade.parameter(0)))
        helpers["shade"] = shade
        write = fragment.function("write_color", VOID, [vec(4)])
        write.store(self.color, write.load(write.parameter(0)))
        write.ret()
        helpers["write"] = write
        maybe_discard = fragment.function("maybe_discard", FLOAT, [FLOAT])
        argument = maybe_discard.load(maybe_discard.parameter(0))
        condition = maybe_discard.binary(BinaryOperator.GREATER, argument, maybe_discard.f(100.0))
        discard_block, keep_block = maybe_discard.new_block(), maybe_discard.new_block()
        maybe_discard.branch_if(condition, discard_block, keep_block)
        maybe_discard.position_at(discard_block)
        maybe_discard.discard()
        maybe_discard.position_at(keep_block)
        maybe_discard.ret(argument)
        helpers["maybe_discard"] = maybe_discard
        always_discard = fragment.function("always_discard", self.cell, [])
        always_discard.discard()
        helpers["always_discard"] = always_discard
        cell_sum = fragment.function("cell_sum", FLOAT, [self.cells, INT])
        index = cell_sum.load(cell_sum.parameter(1))
        path = element(member(element(cell_sum.parameter(0), index), "values"), 2)
        cell_sum.store(path, cell_sum.f(4.0))
        cell_sum.ret(cell_sum.load(path))
        helpers["cell_sum"] = cell_sum
        if self.u_image is not None:
            sample = fragment.function("sample", vec(4), [SAMPLER2D, vec(2)])
            alias = sample.load(sample.parameter(0))
            sample.ret(sample.texture(alias, sample.load(sample.parameter(1))))
            helpers["sample"] = sample
        return helpers

    def _registers(self, f: FunctionBuilder) -> None:
        r = {
            "f": f.copy(f.f(0.5)), "g": f.copy(f.f(-1.25)), "i": f.copy(f.i(1)), "j": f.copy(f.i(-7)),
            "b": f.copy(f.b(True)),
        }
        r["v2"] = f.construct(vec(2), r["f"], r["g"])
        r["v3"] = f.construct(vec(3), f.f(0.0), f.f(1.0), f.f(2.0))
        r["v4"] = f.construct(vec(4), r["v3"], r["f"])
        r["w4"] = f.construct(vec(4), f.f(1.0))
        r["iv2"] = f.construct(ivec(2), r["i"], r["j"])
        r["m2"] = f.construct(mat(2), f.f(1.0), f.f(2.0), f.f(3.0), f.f(4.0))
        r["m32"] = f.construct(mat(3, 2), f.f(1.0))
        r["a"] = f.construct(self.floats, f.f(1.0), f.f(2.0), f.f(3.0))
        r["cell"] = f.construct(self.cell, r["v4"], r["i"], r["a"])
        r["cells"] = f.construct(self.cells, r["cell"], r["cell"])
        if self.u_image is not None:
            r["s"] = f.load(self.u_image)
            r["t"] = f.copy(r["s"])
        f.store(self.color, r["v4"])
        if self.extras is not None:
            f.store(self.extras, f.construct(ArrayType(vec(4), 2), r["v4"], r["w4"]))
        self.r = r

    def _statements(self, depth: int) -> None:
        count = self.draw(st.integers(1, 5))
        for _ in range(count):
            if self.budget <= 0:
                return
            self.budget -= 1
            kinds = ["operation"] * 4 + ["call"]
            if depth < 2:
                kinds += ["if", "loop"]
            kind = self.draw(st.sampled_from(kinds))
            if kind == "operation":
                self.draw(st.sampled_from(self._operations()))()
            elif kind == "call":
                self.draw(st.sampled_from(self._calls()))()
            elif kind == "if":
                self._if(depth)
            else:
                self._loop(depth)

    def _if(self, depth: int) -> None:
        f, r = self.f, self.r
        f.binary(BinaryOperator.LESS, r["f"], r["g"], result=r["b"])
        then_block, else_block, join = f.new_block(), f.new_block(), f.new_block()
        f.branch_if(r["b"], then_block, else_block)
        for block in (then_block, else_block):
            f.position_at(block)
            self._statements(depth + 1)
            ending = self.draw(st.sampled_from(["join"] * 4 + ["return", "discard"]))
            if ending == "return":
                f.store(self.color, r["w4"])
                f.ret()
            elif ending == "discard":
                f.discard()
            else:
                f.branch(join)
        f.position_at(join)

    def _loop(self, depth: int) -> None:
        f = self.f
        counter = f.copy(f.i(0))
        test, body, exit_block = f.new_block(), f.new_block(), f.new_block()
        f.branch(test)
        f.position_at(test)
        condition = f.binary(BinaryOperator.LESS, counter, f.i(self.draw(st.integers(1, 3))))
        f.branch_if(condition, body, exit_block)
        f.position_at(body)
        self._statements(depth + 1)
        f.add(counter, f.i(1), result=counter)
        f.branch(test)
        f.position_at(exit_block)

    def _calls(self) -> list[Callable[[], None]]:
        f, r, h = self.f, self.r, self.helpers
        calls = [
            lambda: f.call(h["shade"].function, r["v4"], r["f"], result=r["w4"]),
            lambda: f.call(h["write"].function, r["w4"]),
            lambda: f.call(h["maybe_discard"].function, r["g"], result=r["f"]),
            lambda: f.call(h["cell_sum"].function, r["cells"], r["i"], result=r["g"]),
        ]
        if "sample" in h:
            calls.append(lambda: f.call(h["sample"].function, r["t"], r["v2"], result=r["v4"]))
        if self.chance():
            calls.append(lambda: f.call(h["always_discard"].function, result=r["cell"]))
        return calls

    def _operations(self) -> list[Callable[[], None]]:
        f, r = self.f, self.r
        index = lambda: f.i(self.draw(st.integers(0, 1)))  # noqa: E731
        operations: list[Callable[[], None]] = [
            lambda: f.add(r["f"], r["g"], result=r["f"]),
            lambda: f.binary(BinaryOperator.DIVIDE, r["g"], r["f"], result=r["g"]),
            lambda: f.multiply(r["i"], r["j"], result=r["j"]),
            lambda: f.binary(BinaryOperator.DIVIDE, r["j"], f.i(-3), result=r["j"]),
            lambda: f.subtract(r["iv2"], r["iv2"], result=r["iv2"]),
            lambda: f.multiply(r["v4"], r["f"], result=r["v4"]),
            lambda: f.multiply(r["f"], r["w4"], result=r["w4"]),
            lambda: f.multiply(r["m2"], r["v2"], result=r["v2"]),
            lambda: f.multiply(r["m32"], r["v2"], result=r["v3"]),
            lambda: f.multiply(r["m2"], r["m2"], result=r["m2"]),
            lambda: f.binary(BinaryOperator.GREATER_EQUAL, r["i"], f.i(-2147483648), result=r["b"]),
            lambda: f.binary(BinaryOperator.NOT_EQUAL, r["b"], f.b(False), result=r["b"]),
            lambda: f.construct(FLOAT, r["j"], result=r["g"]),
            lambda: f.construct(vec(4), r["v2"], r["i"], f.f(-0.0), result=r["w4"]),
            lambda: f.swizzle(r["v4"], "zyx", result=r["v3"]),
            lambda: f.swizzle(r["w4"], "w", result=r["f"]),
            lambda: f.member(r["cell"], "color", result=r["w4"]),
            lambda: f.index(r["a"], r["i"], result=r["g"]),
            lambda: f.index(r["cells"], index(), result=r["cell"]),
            lambda: f.store(member(element(local_ref(r["cells"]), r["i"]), "color"), r["v4"]),
            lambda: f.store(element(member(local_ref(r["cell"]), "values"), index()), r["f"]),
            lambda: f.load(element(member(element(local_ref(r["cells"]), index()), "values"), r["i"]), result=r["g"]),
            lambda: f.store(local_ref(r["a"]), r["a"]),
            lambda: f.load(self.u_tint, result=r["w4"]),
            lambda: f.call_builtin(Builtin.SIN, FLOAT, r["f"], result=r["g"]),
            lambda: f.call_builtin(Builtin.MIX, vec(4), r["v4"], r["w4"], r["f"], result=r["v4"]),
            lambda: f.call_builtin(Builtin.CLAMP, INT, r["j"], f.i(-5), f.i(5), result=r["j"]),
            lambda: f.call_builtin(Builtin.DOT, FLOAT, r["v3"], r["v3"], result=r["f"]),
            lambda: f.call_builtin(Builtin.NORMALIZE, vec(3), r["v3"], result=r["v3"]),
            lambda: f.call_builtin(Builtin.FLOAT_TO_INT, INT, r["g"], result=r["i"]),
            lambda: f.call_builtin(Builtin.SELECT, self.cell, r["b"], r["cell"], r["cell"], result=r["cell"]),
            lambda: f.call_builtin(Builtin.SELECT, self.cells, r["b"], r["cells"], r["cells"], result=r["cells"]),
            lambda: f.call_builtin(Builtin.LOGICAL_NOT, BOOL, r["b"], result=r["b"]),
            lambda: f.call_builtin(Builtin.NEGATE, mat(2), r["m2"], result=r["m2"]),
            lambda: f.call_builtin(Builtin.FWIDTH, vec(2), r["v2"], result=r["v2"]),
            lambda: f.call_builtin(Builtin.ATAN2, FLOAT, r["f"], r["g"], result=r["g"]),
        ]
        if self.u_cell is not None:
            operations += [
                lambda: f.load(self.u_cell, result=r["cell"]),
                lambda: f.load(element(member(self.u_cell, "values"), r["i"]), result=r["f"]),
            ]
        if self.u_palette is not None:
            operations.append(lambda: f.load(element(self.u_palette, r["i"]), result=r["w4"]))
        if "s" in r:
            operations += [
                lambda: f.texture(r["s"], r["v2"], result=r["v4"]),
                lambda: f.call_builtin(Builtin.TEXTURE_LOD, vec(4), r["t"], r["v2"], r["f"], result=r["w4"]),
            ]
        if self.extras is not None:
            operations.append(lambda: f.store(element(self.extras, index()), r["w4"]))
        for name, reference in self.inputs.items():
            if name == "tagged":
                operations.append(lambda reference=reference: f.load(member(reference, "tag"), result=r["j"]))
            elif name == "weights":
                operations.append(lambda reference=reference: f.load(element(reference, index()), result=r["f"]))
            elif name == "smooth3":
                operations.append(lambda reference=reference: f.load(reference, result=r["v3"]))
            elif name == "pair":
                operations.append(lambda reference=reference: f.load(reference, result=r["iv2"]))
        return operations

