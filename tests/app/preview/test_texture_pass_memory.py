"""Internal passes share buffers: the allocation, and that the results are those of a buffer per pass.

The allocator (`texture_passes.assign_slots`) is checked against lifetimes computed here from the run order;
the plan's memory figure against the memory the GL runner allocates; the GL results of every node output
(Flood Fill, Flood Fill to Random Colour, Distance, Bevel of a brick mask) against the same schedule drawn
with a buffer per pass, texel for texel; and a pass drawn again alone (its record dropped) whose shared
input buffer was reused in between: its input is drawn again first, and its result is the fresh one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

import app.material.catalog  # noqa: F401 - registers every node type (texture-space nodes included)
from app.material import texture_passes as tp
from app.material.lowering import lower
from app.material.pass_planner import plan_passes
from app.preview.renderer import Renderer
from app.preview.texture_passes_gl import PassSchedule, buffer_slots, schedule_for
from app.preview.thumbnails import FlatCamera, square_mesh
from app.session.pass_programs import PassProgramCache
from tests.app.preview.test_texture_regions_gl import SIZE, regions_graph


@pytest.fixture(autouse=True)
def small_buffers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(tp, "RESOLUTIONS", (SIZE, *tp.RESOLUTIONS))
    yield


def lifetimes(plan: tp.PassPlan) -> dict[str, tuple[int, int]]:
    """Each pass's (draw index, index of the last draw reading it)."""
    span = {each.key: (index, index) for index, each in enumerate(plan.passes)}
    for index, each in enumerate(plan.passes):
        for item in each.inputs:
            first, _ = span[item.key]
            span[item.key] = (first, max(span[item.key][1], index))
    return span


def test_internal_passes_share_buffers_only_when_their_lifetimes_do_not_overlap() -> None:
    graph = regions_graph()
    graph.nodes["mask"].properties["resolution"] = "2048"
    plan = plan_passes(graph)
    assert plan.ok and not plan.refused
    slots = tp.assign_slots(tp.slot_requests(plan.passes))
    span = lifetimes(plan)
    kept = {each.key for each in plan.passes if each.output is not None}
    specs = {each.key: each.spec for each in plan.passes}
    for first in plan.passes:
        for second in plan.passes:
            if first.key >= second.key or slots[first.key] != slots[second.key]:
                continue
            assert first.key not in kept and second.key not in kept, (first.key, second.key)
            assert specs[first.key] == specs[second.key]
            (a0, a1), (b0, b1) = span[first.key], span[second.key]
            assert a1 < b0 or b1 < a0, f"{first.key} {span[first.key]} and {second.key} {span[second.key]} overlap"
    each_own = sum(each.spec.memory_bytes for each in plan.passes)
    by_slot = {slots[each.key]: each.spec.memory_bytes for each in plan.passes}
    assert plan.memory_bytes == sum(by_slot.values()) < each_own / 3
    # At 2048², Flood Fill, Distance and Bevel of one mask fit the budget now (a buffer per pass: 1.6 GiB).
    assert each_own > tp.MEMORY_BUDGET_BYTES >= plan.memory_bytes


def unshared(schedule: PassSchedule) -> PassSchedule:
    return PassSchedule(tuple(replace(draw, keep=True) for draw in schedule.passes), schedule.material_inputs)


def renderer_for(schedule: PassSchedule) -> Renderer:
    graph = regions_graph()
    renderer = Renderer()
    renderer.set_mesh(square_mesh())
    renderer.camera = FlatCamera()  # type: ignore[assignment]
    renderer.set_values({})
    renderer.build_program(lower(graph).artifact, schedule)
    renderer.render_linear(4, 4)
    return renderer


def test_shared_buffers_draw_what_a_buffer_per_pass_draws(current_gl: object) -> None:
    graph = regions_graph()
    programs = PassProgramCache.for_graph(graph).get("glsl420")
    assert programs is not None and programs.ok
    schedule = schedule_for(programs)
    outputs = [draw.name for draw in schedule.passes if draw.keep]
    assert {"mask", "fill", "colour", "distance", "bevel"} <= set(outputs)
    shared, alone = renderer_for(schedule), renderer_for(unshared(schedule))
    try:
        assert len(set(buffer_slots(schedule).values())) < len(schedule.passes)
        assert shared.passes.buffer_count() < alone.passes.buffer_count() == len(schedule.passes)
        assert shared.passes.memory_bytes() == programs.plan.memory_bytes < alone.passes.memory_bytes()
        for name in outputs:
            assert np.array_equal(shared.passes.read_pass(name), alone.passes.read_pass(name)), name

        # A late pass of Bevel drawn again alone: the internal passes it reads lost their buffers to later passes
        # of the same filter, so they are drawn again first (their versions stay: nothing after them changes).
        bevel = next(draw for draw in schedule.passes if draw.name == "bevel")
        assert any(not shared.passes.texture(source) for source in bevel.inputs.values()), "an input's buffer was reused"
        before = shared.passes.read_pass("bevel")
        renders = dict(shared.passes.renders)
        del shared.passes._rendered["bevel"]  # as if only its own values had changed
        shared.render_linear(4, 4)
        drawn = {name: count - renders.get(name, 0) for name, count in shared.passes.renders.items()
                 if count != renders.get(name, 0)}
        assert drawn["bevel"] == 1 and len(drawn) > 1, drawn
        assert all(name.startswith("bevel") for name in drawn), drawn
        assert np.array_equal(shared.passes.read_pass("bevel"), before)
    finally:
        shared.release()
        alone.release()
