"""Texture passes in the GL preview: a material with buffers against a single-pass material of the same look.

Both materials are drawn by the preview's `Renderer` on the sphere into an
offscreen framebuffer of SIZE x SIZE (each frame ends in glFinish and a
read-back, so a time is the GPU's, here Mesa llvmpipe on the CPU), side by
side in one run (the two alternate, RUNS times, medians printed):

1. a first full render: a fresh renderer links every program and draws a
   frame (for the pass material: every pass into its buffer, then the
   material);
2. a value edit upstream of one buffer (`--upstream`, a parameter a pass
   reads): that buffer and every pass reading it draw again, then the frame;
3. a value edit downstream of all buffers (`--downstream`, a parameter only
   the material reads): the frame alone (goal: no buffer drawn again).

Each case is printed as the pass material's time, the single-pass
material's, their ratio, and the pass draws and program links it took; then
the memory the buffers take. Without `--example` the pass material is
"bumpy tiles": a checker (times `depth`) in a Texture Buffer of SIZE² (16-bit),
blurred, turned into a normal map by Height to Normal; base colour the blurred
height times `tint`. Its single-pass twin computes the same look per point (the
unblurred checker, Normal From Height on it). `--example FILE --single FILE`
measures two saved materials instead (e.g. the stone wall and its single-pass
twin, benchmarks/stone_wall_single_pass.vpl), with the parameter names given;
`--resolution` sets the example's buffers' resolution.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_texture_passes.py [--size 1024] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
# A first render links programs the driver may have cached on disk from an earlier run: off, so every run links.
os.environ["MESA_SHADER_CACHE_DISABLE"] = "true"


def passes_graph(size: int) -> Any:
    """Bumpy tiles with texture passes (see the module docstring)."""
    import app.material.catalog  # noqa: F401 - registers every node type
    from app.material.graph import MaterialGraph

    graph = MaterialGraph()
    graph.add_node("texcoord", node_id="uv")
    graph.add_node("checker", node_id="tiles", properties={"scale": 8.0})
    graph.add_node("float_parameter", node_id="depth", properties={"name": "depth", "default": 1.0, "minimum": 0.0, "maximum": 1.0})
    graph.add_node("multiply", node_id="height_value")
    graph.add_node("texture_buffer", node_id="height", properties={"resolution": str(size), "format": "16-bit"})
    graph.add_node("blur", node_id="blur", properties={"radius": 4.0 / 512})
    graph.add_node("height_to_normal", node_id="bump", properties={"intensity": 0.01})
    graph.add_node("sample_texture", node_id="colour")
    graph.add_node("sample_texture", node_id="normal_texture")
    graph.add_node("normal_map", node_id="normal_map")
    graph.add_node("float_parameter", node_id="tint", properties={"name": "tint", "default": 1.0, "minimum": 0.0, "maximum": 2.0})
    graph.add_node("multiply", node_id="tinted")
    graph.add_node("surface_output", node_id="out", properties={"roughness": 0.5})
    graph.connect("uv", "out", "tiles", "uv")
    graph.connect("tiles", "out", "height_value", "a")
    graph.connect("depth", "out", "height_value", "b")
    graph.connect("height_value", "out", "height", "input")
    graph.connect("height", "out", "blur", "image")
    graph.connect("blur", "out", "bump", "height")
    graph.connect("blur", "out", "colour", "texture")
    graph.connect("bump", "out", "normal_texture", "texture")
    graph.connect("colour", "rgb", "tinted", "a")
    graph.connect("tint", "out", "tinted", "b")
    graph.connect("tinted", "out", "out", "base_color")
    graph.connect("normal_texture", "rgb", "normal_map", "tangent_normal")
    graph.connect("normal_map", "normal_out", "out", "normal")
    return graph


def single_pass_graph() -> Any:
    """The same look in one pass: the checker per point, its bump by Normal From Height."""
    import app.material.catalog  # noqa: F401 - registers every node type
    from app.material.graph import MaterialGraph

    graph = MaterialGraph()
    graph.add_node("texcoord", node_id="uv")
    graph.add_node("checker", node_id="tiles", properties={"scale": 8.0})
    graph.add_node("float_parameter", node_id="depth", properties={"name": "depth", "default": 1.0, "minimum": 0.0, "maximum": 1.0})
    graph.add_node("multiply", node_id="height_value")
    graph.add_node("normal_from_height", node_id="bump")
    graph.add_node("float_parameter", node_id="tint", properties={"name": "tint", "default": 1.0, "minimum": 0.0, "maximum": 2.0})
    graph.add_node("multiply", node_id="tinted")
    graph.add_node("surface_output", node_id="out", properties={"roughness": 0.5})
    graph.connect("uv", "out", "tiles", "uv")
    graph.connect("tiles", "out", "height_value", "a")
    graph.connect("depth", "out", "height_value", "b")
    graph.connect("height_value", "out", "bump", "height")
    graph.connect("height_value", "out", "tinted", "a")
    graph.connect("tint", "out", "tinted", "b")
    graph.connect("tinted", "out", "out", "base_color")
    graph.connect("bump", "normal_out", "out", "normal")
    return graph


def load_graph(path: str) -> Any:
    from app.material.document import load_file

    loaded = load_file(Path(path))
    if loaded.graph is None:
        raise SystemExit(f"{path}: no editable graph in this file")
    return loaded.graph


@dataclass
class Material:
    """A material ready to draw: its program, its texture passes (empty schedule for none), its parameters."""

    name: str
    graph: Any
    artifact: Any
    schedule: Any
    values: dict[str, Any]
    #: The schedule with its draft passes (`PassSchedule.draft`), for the draft case only: the other cases draw
    #: `schedule`, which has none, so their links and times are those of the passes alone.
    draft_schedule: Any = None


def prepare(name: str, graph: Any) -> Material:
    from app.material.lowering import lower
    from app.material.parameters import material_values
    from app.material.texture_passes import has_pass_nodes
    from app.preview.texture_passes_gl import schedule_for
    from app.session.pass_programs import PassProgramCache, with_pass_parameters

    lowered = lower(graph)
    if not lowered.ok:
        raise SystemExit(f"{name} does not lower: " + "; ".join(d.message for d in lowered.errors))
    programs = PassProgramCache.for_graph(graph, draft=True).get("glsl420") if has_pass_nodes(graph) else None
    specs = with_pass_parameters(lowered.parameters, programs.plan) if programs is not None else lowered.parameters
    values, _ = material_values(specs, graph)
    schedule = schedule_for(programs)
    return Material(name, graph, lowered.artifact, replace(schedule, draft=None), dict(values),
                    schedule if schedule.draft is not None else None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1024, help="frame and buffer side in pixels (default 1024)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--example", help="a material with texture passes (.vpl) instead of bumpy tiles")
    parser.add_argument("--single", help="its single-pass twin (.vpl); required with --example")
    parser.add_argument("--upstream", default="depth", help="a parameter a pass reads")
    parser.add_argument("--downstream", default="tint", help="a parameter only the material reads")
    parser.add_argument("--resolution", type=int, help="with --example: every Texture Buffer at this resolution "
                        "(its filters follow it), e.g. 1024 for an example saved at 512")
    arguments = parser.parse_args()
    if bool(arguments.example) != bool(arguments.single):
        parser.error("--example and --single go together")

    from OpenGL import GL
    from PySide6.QtGui import QGuiApplication

    from app.preview.context import OffscreenContext
    from app.preview.renderer import Renderer

    application = QGuiApplication(sys.argv[:1])  # noqa: F841 - the context needs it alive
    context = OffscreenContext()  # noqa: F841 - current for the whole run
    print(f"GL: {GL.glGetString(GL.GL_RENDERER).decode()} / {GL.glGetString(GL.GL_VERSION).decode()}")
    size = arguments.size
    if arguments.example:
        example = load_graph(arguments.example)
        if arguments.resolution:
            for node in example.nodes.values():
                if node.type_name == "texture_buffer":
                    node.properties["resolution"] = str(arguments.resolution)
        with_passes = prepare(Path(arguments.example).stem, example)
        single = prepare(Path(arguments.single).stem, load_graph(arguments.single))
    else:
        with_passes = prepare("bumpy tiles (Texture Buffer + Blur + Height to Normal)", passes_graph(size))
        single = prepare("bumpy tiles, single pass", single_pass_graph())
    for material in (with_passes, single):
        for name in (arguments.upstream, arguments.downstream):
            if name not in material.values:
                raise SystemExit(f"{material.name} has no parameter {name!r} (parameters: {', '.join(material.values)})")
    print(f"pass material: {with_passes.name}: {len(with_passes.schedule.passes)} passes "
          f"({', '.join(f'{p.name} {p.resolution}² {p.format}' for p in with_passes.schedule.passes)})")
    print(f"single-pass material: {single.name}")
    print(f"frame {size}x{size} on the sphere, glFinish and read-back per frame, {arguments.runs} runs, medians")

    cases = ("first full render", f"edit upstream of a buffer ({arguments.upstream})",
             f"edit downstream of all buffers ({arguments.downstream})")
    times: dict[tuple[str, str], list[float]] = {}
    counts: dict[tuple[str, str], tuple[int, int]] = {}
    memory = 0
    drafts: list[float] = []  # an edit upstream drawn as the preview's draft frame: passes and frame at half a side

    def run(material: Material) -> None:
        nonlocal memory
        renderer = Renderer()
        try:
            renderer.set_mesh("sphere")
            renderer.set_values(material.values)
            started = time.perf_counter()
            renderer.build_program(material.artifact, material.schedule)
            renderer.render_image(size, size)
            elapsed = time.perf_counter() - started
            record(material, cases[0], elapsed, renderer)
            memory = max(memory, renderer.passes.memory_bytes())
            for case, name in ((cases[1], arguments.upstream), (cases[2], arguments.downstream)):
                before = (renderer.passes.pass_renders, renderer.link_count + renderer.passes.link_count)
                value = material.values[name]
                renderer.set_parameter(name, (value * 0.5 if isinstance(value, (int, float)) and value else 0.5))
                started = time.perf_counter()
                renderer.render_image(size, size)
                elapsed = time.perf_counter() - started
                record(material, case, elapsed, renderer, before)
                renderer.set_parameter(name, value)
                renderer.render_image(8, 8)  # back to the start for the next case (not timed)
            if material.draft_schedule is not None:
                renderer.build_program(material.artifact, material.draft_schedule)  # no link: the draft passes link below
                renderer.drafting = True
                renderer.render_image(8, 8)  # the draft passes link and draw first (not timed)
                value = material.values[arguments.upstream]
                renderer.set_parameter(arguments.upstream, value * 0.5 if isinstance(value, (int, float)) and value else 0.5)
                started = time.perf_counter()
                renderer.render_image(size // 2, size // 2)
                drafts.append(time.perf_counter() - started)
                renderer.drafting = False
                renderer.set_parameter(arguments.upstream, value)
        finally:
            renderer.release()

    def record(material: Material, case: str, seconds: float, renderer: Renderer, before: tuple[int, int] = (0, 0)) -> None:
        times.setdefault((material.name, case), []).append(seconds)
        counts[(material.name, case)] = (renderer.passes.pass_renders - before[0],
                                         renderer.link_count + renderer.passes.link_count - before[1])

    for _ in range(arguments.runs):
        for material in (with_passes, single):
            run(material)

    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n")
    print(f"{'case':<48} {'passes':>9} {'single':>9} {'ratio':>7}  pass draws  links")
    for case in cases:
        mine = statistics.median(times[(with_passes.name, case)])
        theirs = statistics.median(times[(single.name, case)])
        draws, links = counts[(with_passes.name, case)]
        print(f"{case:<48} {mine * 1000:7.0f}ms {theirs * 1000:7.0f}ms {mine / theirs:6.2f}x  {draws:10d}  {links:5d}")
    if drafts:
        full = statistics.median(times[(with_passes.name, cases[1])])
        print(f"{'edit upstream, draft frame (passes, frame: half a side)':<48} {statistics.median(drafts) * 1000:7.0f}ms"
              f" {'':>9} {statistics.median(drafts) / full:6.2f}x of the full frame's edit")
    print(f"\nbuffer memory: {memory / 2**20:.1f} MiB "
          f"({', '.join(f'{p.name} {p.resolution}² {p.format}' for p in with_passes.schedule.passes)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
