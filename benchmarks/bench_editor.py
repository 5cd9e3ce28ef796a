"""Editor latency benchmark: the real window, measured.

Four figures, each printed with the machine and its load average:

- **start-up**: from starting `vpl-editor` (a new process, as a user does) to
  the main window's first paint, and to the preview's first frame of the
  default material. The child process records when each happened
  (`time.time()`, compared with the parent's clock before the launch).
- **edit -> pixels** for the 200-node benchmark graph of
  `bench_lowering.py`: from a discrete edit of a constant's value (through
  `MainWindow.nodes.set_node_property`, as the properties panel does) to
  the preview showing the first frame with the new value. The first edit
  of the value builds the preview's live program (docs/editor.md, "Live
  values": the value as a hidden uniform; `programReady`, then the widget's
  next `frameSwapped`: the lowering on the worker, publication, GLSL, the
  driver's compile and link and the first draw); the edits measured after
  that warm-up post the value to that program, and the time is to the
  `frameSwapped` of the first frame drawn after the post (with the render
  thread: of the paint of the first frame drawn with everything the edit
  posted, `Frame.commands` against the thread's count of posts). Measured with the
  preview's render thread and without it (`VPL_PREVIEW_RENDER_THREAD=0`:
  the window's thread compiles, links and draws), each in a process of its
  own, rounds interleaved so both see the same machine.
- **UI stall while dragging**: a node-property slider of the same graph
  dragged at 60 steps per second for a few seconds (`continuing=True`, as
  the slider does while its button is down) while a 2 ms heartbeat timer on
  the window's thread records the longest gap between its ticks: the longest
  time the window could not answer input. Both ways, as edit -> pixels.
- **opening large graphs**: `MainWindow.load_graph` of 500, 1,000 and 2,000
  nodes (the view, the snapshot, the session; the lowering runs on the
  worker), and the ratio 2,000 / 1,000 (2.0 is linear). `--opening-repeat N` opens each size N times
  (openings vary more than their work: the collector, the machine's load), `--opening-sizes` chooses the
  sizes (e.g. 10000), `--skip-interactive` leaves out edit -> pixels and the drag.

Run under a display (Xvfb here): ``./run-editor``'s environment, e.g.
``xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/bench_editor.py``
(``--quick`` for fewer repetitions).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_lowering import build_graph  # noqa: E402
from bench_pipeline import machine  # noqa: E402

#: The child of the start-up measure: `vpl-editor`'s own `main()`, reporting its first paints.
STARTUP_PROBE = """
import sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

application = QApplication([sys.argv[0]])
seen = {}

class Watch(QObject):
    def eventFilter(self, watched, event):
        if isinstance(watched, QMainWindow) and "hooked" not in seen and hasattr(watched, "preview"):
            # Hooked at the window's first event, before it is shown: the preview builds its first program
            # when its context is made, during the window's first paint, possibly before that paint ends.
            seen["hooked"] = True
            preview = watched.preview
            preview.programReady.connect(lambda: preview.frameSwapped.connect(shown))
            preview.programFailed.connect(lambda _message: QTimer.singleShot(0, application.quit))
        if event.type() == QEvent.Type.Paint and isinstance(watched, QMainWindow) and "window" not in seen:
            seen["window"] = time.time()
        return False

def shown():
    seen.setdefault("preview", time.time())
    QTimer.singleShot(0, application.quit)

watch = Watch()
application.installEventFilter(watch)
QTimer.singleShot(60_000, application.quit)
import app.main
code = app.main.main([])
print("FIRST-PAINTS", seen.get("window", 0.0), seen.get("preview", 0.0))
"""


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.0f} ms (min {min(samples) * 1000:.0f}, max {max(samples) * 1000:.0f}, n={len(samples)})"


def measure_startup(runs: int) -> tuple[list[float], list[float]]:
    """Seconds from launching the editor to its first painted window and to the preview's first frame, per run.

    As an installed editor starts: with its modules' bytecode cached (pip and the desktop bundle install it
    compiled). The children write it to a scratch `PYTHONPYCACHEPREFIX` even where `PYTHONDONTWRITEBYTECODE`
    is set (compiling the editor's 550 modules again costs about 0.5 s per start); one uncounted run first
    fills it.
    """
    window_times: list[float] = []
    preview_times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-editor-") as home:
        # A fresh user: no recent files, no recovery prompt, nothing of the real user's touched.
        environment = dict(os.environ, HOME=home, XDG_CONFIG_HOME=home, XDG_DATA_HOME=home, XDG_CACHE_HOME=home,
                           PYTHONPYCACHEPREFIX=str(Path(home) / "pycache"))
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        for run in range(runs + 1):
            started = time.time()
            completed = subprocess.run([sys.executable, "-c", STARTUP_PROBE], cwd=ROOT, env=environment,
                                       capture_output=True, text=True, timeout=300, check=False)
            line = next((line for line in completed.stdout.splitlines() if line.startswith("FIRST-PAINTS")), "")
            if not line:
                raise SystemExit(f"start-up probe failed:\n{completed.stdout}\n{completed.stderr}")
            if run == 0:
                continue  # the warm-up run: fills the bytecode cache
            _, window, preview = line.split()
            window_times.append(float(window) - started)
            if float(preview):
                preview_times.append(float(preview) - started)
    return window_times, preview_times


def make_window() -> Any:
    from PySide6.QtCore import QSettings

    from app.main import _quiet_prompts
    from app.ui.main_window import MainWindow
    from app.ui.recovery import RecoveryStore

    scratch = Path(tempfile.mkdtemp(prefix="bench-editor-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(prompts=_quiet_prompts(), settings=settings, recovery=RecoveryStore(scratch / "recovery"))
    window.resize(1600, 1000)
    window.show()
    return window


def wait_until(condition: Callable[[], bool], timeout_s: float = 120.0) -> None:
    from PySide6.QtCore import QCoreApplication, QEventLoop

    deadline = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > deadline:
            import faulthandler

            faulthandler.dump_traceback(sys.stderr, all_threads=True)  # where each thread was when it stuck
            raise SystemExit("timed out")
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)


def graph_with_constant(size: int) -> tuple[Any, str]:
    """The benchmark graph, laid out on a grid, with one constant whose value is edited."""
    graph = build_graph(size)
    for index, node in enumerate(graph.nodes.values()):
        node.position = (float(index % 40) * 260.0, float(index // 40) * 180.0)
    constant = next(node_id for node_id, node in graph.nodes.items() if node.type_name == "constant_vec3")
    return graph, constant


def measure_edit_to_pixels(window: Any, constant: str, edits: int) -> list[float]:
    """Seconds from each edit to the first frame on screen that shows it (a new program's, or a live value's)."""
    preview = window.preview
    state = {"ready": False, "swapped": False, "any_swap": False, "commands": 0}

    def on_ready() -> None:
        state["ready"] = True

    def on_swapped() -> None:
        state["any_swap"] = True
        frame = getattr(preview, "shown_frame", None)  # the render thread's frame the widget just painted
        # Full resolution only: edits in quick succession on a slow renderer show draft frames first.
        state["commands"] = frame.commands if frame is not None and not getattr(frame, "draft", False) else 0
        if state["ready"]:
            state["swapped"] = True

    def value_shown() -> Callable[[], bool]:
        """Asked right after an edit: whether a frame showing everything it posted is on screen."""
        if not getattr(preview, "threaded", False):
            return lambda: state["any_swap"]  # the window's thread uploads the value when it paints the next frame
        posted = preview.posted_commands
        return lambda: state["commands"] >= posted

    preview.programReady.connect(on_ready)
    preview.frameSwapped.connect(on_swapped)
    samples: list[float] = []
    for edit in range(edits):
        value = (0.1 + 0.8 * (edit % 7) / 7.0, 0.5, 0.25)
        state.update(ready=False, swapped=False, any_swap=False, commands=0)
        posts = window.presenter.live_posts
        started = time.perf_counter()
        window.nodes.set_node_property(constant, "value", value)
        if window.presenter.live_posts > posts:
            wait_until(value_shown())  # a live value: no new program, its next frame shows it
        else:
            wait_until(lambda: state["swapped"])
        samples.append(time.perf_counter() - started)
    preview.programReady.disconnect(on_ready)
    preview.frameSwapped.disconnect(on_swapped)
    return samples


def measure_drag_stall(window: Any, constant: str, seconds: float, drag: bool = True) -> tuple[float, float, int]:
    """(longest gap, 99th percentile gap) between heartbeats in seconds, and how many programs were shown.

    `drag=False` measures the same heartbeat with the window idle: the stalls the machine itself causes
    (other processes on its cores), to read the dragging figure against.
    """
    from PySide6.QtCore import QTimer

    ticks: list[float] = []
    heartbeat = QTimer()
    heartbeat.setInterval(2)
    heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    shown = [0]
    window.preview.programReady.connect(lambda: shown.__setitem__(0, shown[0] + 1))
    step = [0]

    def move() -> None:
        if not drag:
            return
        step[0] += 1
        value = 0.5 + 0.4 * ((step[0] % 60) / 60.0)
        window.nodes.set_node_property(constant, "value", (value, 0.3, 0.6), continuing=True)

    slider = QTimer()
    slider.setInterval(16)
    slider.timeout.connect(move)
    heartbeat.start()
    slider.start()
    end = time.perf_counter() + seconds
    wait_until(lambda: time.perf_counter() > end, timeout_s=seconds + 60)
    slider.stop()
    heartbeat.stop()
    gaps = sorted(later - earlier for earlier, later in itertools.pairwise(ticks))
    return gaps[-1], gaps[int(len(gaps) * 0.99)], shown[0]


def measure_opening(window: Any, sizes: list[int]) -> dict[int, float]:
    """Seconds from `load_graph` of the benchmark graph to the view's first paint, per size; prints each split.

    Each size opens over the default example (loaded before, not timed), as a user opens a large file in an
    editor that shows the example, not over the previous large graph. `load_graph` builds the view, snapshots
    it and opens the session; the first `processEvents` paints the view. The lowering runs on the worker from
    there: the time until its outcome is applied (diagnostics, port types, parameters, the code) is printed
    too, as is the process's CPU time to the first paint (on a loaded machine the wall time is several times it).
    """
    from PySide6.QtCore import QCoreApplication

    seconds: dict[int, float] = {}
    for size in sizes:
        window.load_example()
        window.flush()
        QCoreApplication.processEvents()
        graph, _ = graph_with_constant(size)
        started, cpu = time.perf_counter(), time.process_time()
        window.load_graph(graph, f"{size} nodes")
        loaded = time.perf_counter()
        QCoreApplication.processEvents()  # the first paint of the view
        seconds[size] = time.perf_counter() - started
        cpu = time.process_time() - cpu
        wait_until(lambda: window.result is not None)
        lowered = time.perf_counter() - started
        print(f"  opening {size} nodes: {seconds[size]:.2f} s to the view's first paint (load_graph "
              f"{loaded - started:.2f} s; CPU time {cpu:.2f} s), {lowered:.2f} s to the lowering applied")
    return seconds


#: The two ways the preview can draw, as `VPL_PREVIEW_RENDER_THREAD` chooses them.
RENDER_MODES = {"render thread": "1", "window's thread": "0"}


def start_application() -> Any:
    from PySide6.QtWidgets import QApplication

    application = QApplication.instance() or QApplication([sys.argv[0]])
    from app.preview.context import align_pyopengl_platform

    align_pyopengl_platform(application.platformName())
    return application


def interactive_child(edits: int, drag_s: float) -> int:
    """One round of edit -> pixels, the idle heartbeat and the drag, in this process; one JSON line on stdout."""
    start_application()
    window = make_window()
    graph, constant = graph_with_constant(200)
    window.load_graph(graph, "200 nodes")
    wait_until(lambda: window.result is not None and window.result.ok)
    measure_edit_to_pixels(window, constant, 2)  # warm-up: the first program of the graph
    samples = measure_edit_to_pixels(window, constant, edits)
    idle = measure_drag_stall(window, constant, drag_s, drag=False)
    drag = measure_drag_stall(window, constant, drag_s)
    print("INTERACTIVE " + json.dumps({"threaded": getattr(window.preview, "threaded", False), "edits": samples,
                                       "idle": idle, "drag": drag}), flush=True)
    os._exit(0)  # no teardown: the figures are out, and closing would ask about unsaved changes


def measure_interactive(rounds: int, edits: int, drag_s: float) -> dict[str, dict[str, Any]]:
    """`interactive_child` in a new process per round and mode, modes alternating; the rounds' results by mode."""
    results: dict[str, dict[str, Any]] = {mode: {"edits": [], "idle": [], "drag": [], "threaded": set()}
                                          for mode in RENDER_MODES}
    for _ in range(rounds):
        for mode, value in RENDER_MODES.items():
            environment = dict(os.environ, VPL_PREVIEW_RENDER_THREAD=value)
            completed = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--interactive-child", str(edits), str(drag_s)],
                cwd=ROOT, env=environment, capture_output=True, text=True, timeout=900, check=False)
            line = next((line for line in completed.stdout.splitlines() if line.startswith("INTERACTIVE ")), "")
            if not line:
                raise SystemExit(f"interactive round failed ({mode}):\n{completed.stdout}\n{completed.stderr}")
            figures = json.loads(line.split(" ", 1)[1])
            result = results[mode]
            result["edits"] += figures["edits"]
            result["idle"].append(figures["idle"])
            result["drag"].append(figures["drag"])
            result["threaded"].add(figures["threaded"])
    return results


def print_interactive(results: dict[str, dict[str, Any]], drag_s: float) -> None:
    for mode, result in results.items():
        threaded = result["threaded"] == {True}
        if (mode == "render thread") != threaded:
            print(f"  ({mode}: the preview ran {'with' if threaded else 'without'} its render thread)")
        print(f"{mode}:")
        print(f"  edit -> pixels, 200 nodes: median {median_ms(result['edits'])}")
        idle_longest = max(longest for longest, _, _ in result["idle"])
        idle_p99 = statistics.median(p99 for _, p99, _ in result["idle"])
        print(f"  idle window, {len(result['idle'])} x {drag_s:.0f} s (the machine's own stalls): longest "
              f"{idle_longest * 1000:.0f} ms, 99th percentile {idle_p99 * 1000:.0f} ms")
        longests = [longest for longest, _, _ in result["drag"]]
        p99 = statistics.median(p99 for _, p99, _ in result["drag"])
        programs = sum(shown for _, _, shown in result["drag"])
        print(f"  dragging a property slider of the 200-node graph, {len(longests)} x {drag_s:.0f} s: longest UI "
              f"stall {max(longests) * 1000:.0f} ms (median of the rounds' longest "
              f"{statistics.median(longests) * 1000:.0f} ms), 99th percentile {p99 * 1000:.0f} ms, "
              f"programReady {programs} times")
    print("  (programReady comes once the newest program has drawn; frames of intermediate programs show without it)")


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--interactive-child":
        return interactive_child(int(sys.argv[2]), float(sys.argv[3]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--skip-startup", action="store_true")
    parser.add_argument("--startup-runs", type=int, default=None,
                        help="counted editor starts (after one uncounted start); default 3 with --quick, else 7")
    parser.add_argument("--skip-opening", action="store_true")
    parser.add_argument("--skip-interactive", action="store_true", help="no edit -> pixels and no drag")
    parser.add_argument("--opening-sizes", type=lambda text: [int(size) for size in text.split(",")],
                        default=[500, 1000, 2000], help="node counts to open, comma-separated (500,1000,2000)")
    parser.add_argument("--opening-repeat", type=int, default=1,
                        help="open each size this many times in the one window (the figures vary between openings)")
    arguments = parser.parse_args()
    runs, rounds, edits, drag_s = (3, 1, 7, 2.0) if arguments.quick else (7, 3, 7, 5.0)
    if arguments.startup_runs is not None:
        runs = max(1, arguments.startup_runs)
    print(machine())

    if not arguments.skip_startup:
        window_times, preview_times = measure_startup(runs)
        print(f"start-up: first painted window {median_ms(window_times)}")
        if preview_times:
            print(f"start-up: first preview frame  {median_ms(preview_times)}")

    if not arguments.skip_interactive:
        print_interactive(measure_interactive(rounds, edits, drag_s), drag_s)
    if arguments.skip_opening:
        print(f"load average at end: {', '.join(f'{value:.2f}' for value in os.getloadavg())}")
        return 0
    start_application()
    window = make_window()
    openings: dict[int, list[float]] = {size: [] for size in arguments.opening_sizes}
    for _ in range(arguments.opening_repeat):
        for size, seconds in measure_opening(window, arguments.opening_sizes).items():
            openings[size].append(seconds)
    print("opening (to the view's first paint): " + ", ".join(
        f"{size} nodes median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}, "
        f"n={len(times)})" for size, times in openings.items()))
    if 1000 in openings and 2000 in openings:
        print(f"  2000/1000 (medians) = {statistics.median(openings[2000]) / statistics.median(openings[1000]):.2f}")
    from app.ui.dialogs import SaveChoice

    window.prompts.ask_save_changes = lambda _parent, _name: SaveChoice.DISCARD
    window.close()
    print(f"load average at end: {', '.join(f'{value:.2f}' for value in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
