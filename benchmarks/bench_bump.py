"""Normal From Height's filter: frame time and GLSL size with `filter_width` 0 (dfdx) and 2 (8 taps).

For every example with a Normal From Height node: the example as shipped
and the same with the filter on, rendered at SxS on the preview's sphere
(every frame ends in glFinish; Mesa llvmpipe runs on the CPU), interleaved
round by round so load changes hit both alike. Prints the median frame time
of each, their ratio, and the fragment GLSL's length in lines.
`triplanar_rock` is left out unless named with --include: with the filter
its 8 x 3 texture samples took Mesa llvmpipe more than 2 minutes to compile.
`--only NAME` measures only the examples named (the test suite's smallest
setting runs one: every example goes through the same code).

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_bump.py [--frames N] [--size S]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from bench_pbr import example_graph, on_offscreen_gl
from OpenGL import GL

from app.material.examples import EXAMPLE_GRAPHS, example_path
from app.material.lowering import lower
from app.preview.images import load_image_rgba
from app.preview.renderer import Framebuffer, Renderer
from app.session.textures import resolve_texture_path


def _renderer(name: str, width: float) -> tuple[Renderer, int]:
    graph = example_graph(name)
    for node in graph.nodes.values():
        if node.type_name == "normal_from_height":
            node.properties["filter_width"] = width
    result = lower(graph)
    if not result.ok:
        raise SystemExit(f"{name}: cannot lower: {result.diagnostics}")
    renderer = Renderer()
    for spec in result.parameters:
        if isinstance(spec.default, str):
            renderer.set_texture(spec.name, load_image_rgba(str(resolve_texture_path(spec.default, example_path(name).parent))))
        elif spec.default is not None and not isinstance(spec.default, str):
            renderer.set_parameter(spec.name, spec.default)
    renderer.build_program(result.artifact)
    return renderer, result.artifact.fragment_code.count("\n")


def frame_times(frames: int, size: int, include: list[str], only: list[str] | None = None) -> None:
    names = [name for name in sorted(EXAMPLE_GRAPHS) if (name != "triplanar_rock" or name in include)
             and any(node.type_name == "normal_from_height" for node in example_graph(name).nodes.values())]
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise SystemExit(f"no example with a Normal From Height node is named {', '.join(unknown)}")
        names = [name for name in names if name in only]
    target = Framebuffer(size, size)
    target.bind()
    for name in names:
        cases = {width: _renderer(name, width) for width in (0.0, 2.0)}
        samples: dict[float, list[float]] = {width: [] for width in cases}
        for renderer, _ in cases.values():  # warm-up: the driver compiles at the first draw
            renderer.render(size, size)
            GL.glFinish()
        for _ in range(frames):
            for width, (renderer, _) in cases.items():
                started = time.perf_counter()
                renderer.render(size, size)
                GL.glFinish()
                samples[width].append(time.perf_counter() - started)
        off, on = (statistics.median(samples[width]) * 1000.0 for width in (0.0, 2.0))
        print(f"{name:18s} dfdx {off:7.2f} ms ({cases[0.0][1]} lines)  filtered {on:7.2f} ms "
              f"({cases[2.0][1]} lines)  ratio {on / off:.2f}")
        for renderer, _ in cases.values():
            renderer.release()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--include", action="append", default=[], help="an example left out by default")
    parser.add_argument("--only", action="append", default=None, help="measure only this example (repeatable)")
    arguments = parser.parse_args()
    on_offscreen_gl(lambda: frame_times(arguments.frames, arguments.size, arguments.include, arguments.only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
