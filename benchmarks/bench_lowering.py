"""Material pipeline benchmark: snapshot, types, lowering, verification, publication and GLSL.

For graphs of 50, 200 and 1000 nodes (every node live: each value feeds
something, and the leftovers are summed into the Material Output), times

- snapshot: `to_dict()` then `from_dict()` (what the editor does to get a
  plain-data graph),
- types: type propagation over the whole graph,
- lowering: building the VPL module (both stages, helpers, provenance),
- publication: `VerifiedModule.create` (the writer runs the verifier on
  the module, writes canonical text and reads it back),
- glsl: `glsl.compile` (materializes the publication, then generates),

each the best of `--repeat` runs of `lower()` (which records its phase
timings), and the total of those. `lower()` verifies once, inside
publication; the verification column times the verifier alone on the same
module, to show how much of publication it is (it is not added to the
total). The goal is 200 nodes under 50 ms in total.

The graphs mix the catalog's node kinds: vector math, lighting, textures,
value noise, parameters and constants, seeded so every run builds the same
graph.

Run: ``.venv/bin/python benchmarks/bench_lowering.py [--sizes 50 200 1000] [--repeat 7]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from vpl_core.verify import verify

PHASES = ("snapshot", "types", "lowering", "publication", "glsl")
COLUMNS = ("snapshot", "types", "lowering", "verification", "publication", "glsl")

# (node type, input ports fed from earlier vec3 values, output port). All values are vec3 or
# float (floats broadcast into vec3 inputs), so every wire is valid.
OPERATIONS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("add", ("a", "b"), "out"),
    ("multiply", ("a", "b"), "out"),
    ("mix", ("a", "b"), "out"),
    ("max", ("a", "b"), "out"),
    ("clamp", ("x",), "out"),
    ("fract", ("x",), "out"),
    ("sin", ("x",), "out"),
    ("abs", ("x",), "out"),
    ("normalize", ("vector",), "out"),
    ("cross", ("a", "b"), "out"),
    ("reflect", ("incident",), "out"),
    ("lambert", ("normal",), "out"),
    ("fresnel", ("normal",), "out"),
    ("sample_texture", (), "rgb"),
    ("value_noise", (), "out"),
    ("vector_parameter", (), "out"),
    ("constant_vec3", (), "out"),
    ("normal", (), "out"),
    ("view_direction", (), "out"),
)


def build_graph(size: int) -> MaterialGraph:
    """A deterministic graph of exactly `size` nodes, all of which reach the output."""
    rng = random.Random(size)
    graph = MaterialGraph()
    texture = graph.add_node("texture_parameter")
    unconsumed: list[tuple[str, str]] = [(graph.add_node("world_position").id, "out")]
    recent: list[tuple[str, str]] = list(unconsumed)
    # Leave room for the adds that sum what is left, and for the output.
    while len(graph.nodes) + len(unconsumed) < size - 1:
        type_name, inputs, output = rng.choice(OPERATIONS)
        node = graph.add_node(type_name, position=(len(graph.nodes) * 10.0, 0.0))
        if type_name == "sample_texture":
            graph.connect(texture.id, "out", node.id, "texture")
        for port in inputs:
            source = unconsumed.pop(rng.randrange(len(unconsumed))) if unconsumed else rng.choice(recent[-16:])
            graph.connect(source[0], source[1], node.id, port)
        unconsumed.append((node.id, output))
        recent.append((node.id, output))
    total = unconsumed.pop()
    for value in unconsumed:
        add = graph.add_node("add")
        graph.connect(total[0], total[1], add.id, "a")
        graph.connect(value[0], value[1], add.id, "b")
        total = (add.id, "out")
    output = graph.add_node("material_output")
    graph.connect(total[0], total[1], output.id, "base_color")
    return graph


def measure(size: int, repeat: int) -> dict[str, float]:
    graph = build_graph(size)
    samples: dict[str, list[float]] = {phase: [] for phase in COLUMNS}
    for _ in range(repeat):
        started = time.perf_counter()
        snapshot = MaterialGraph.from_dict(graph.to_dict())
        samples["snapshot"].append(time.perf_counter() - started)
        result = lower(snapshot)
        if not result.ok:
            raise SystemExit(f"benchmark graph of {size} nodes does not lower: {result.diagnostics[:3]}")
        for phase in PHASES[1:]:
            samples[phase].append(result.timings[phase])
        started = time.perf_counter()
        verify(result.module)
        samples["verification"].append(time.perf_counter() - started)
    # Best of N: the machine is shared, and the minimum is the figure least disturbed by other work.
    best = {phase: min(values) for phase, values in samples.items()}
    best["instructions"] = float(sum(len(block.instructions) + 1 for _, function in result.module.functions() for block in function.blocks))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--repeat", type=int, default=7)
    arguments = parser.parse_args()
    lower(build_graph(10))  # warm imports and caches
    header = f"{'nodes':>6} " + " ".join(f"{column:>12}" for column in COLUMNS) + f" {'total':>9} {'instr':>7}"
    print("best-of-N milliseconds per phase (verification is part of publication, not added to the total)")
    print(header)
    for size in arguments.sizes:
        figures = measure(size, arguments.repeat)
        total = sum(figures[phase] for phase in PHASES)
        row = " ".join(f"{figures[column] * 1000:12.2f}" for column in COLUMNS)
        print(f"{size:>6} {row} {total * 1000:9.2f} {int(figures['instructions']):>7}")
        if size == 200:
            verdict = "meets" if total < 0.050 else "misses"
            print(f"       200 nodes: {total * 1000:.1f} ms total, {verdict} the 50 ms goal")


if __name__ == "__main__":
    main()
