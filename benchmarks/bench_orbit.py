"""Orbiting the preview: frames per second while the camera moves, and the time to a full frame once it stops.

The real `PreviewWidget` (its render thread, the default stage) draws the
painted-metal example at `--size` (512x512 by default). A timer orbits the
camera every 8 ms (a mouse reporting at 125 Hz) for `--seconds`; every new
frame the window puts on screen (`frameSwapped` after a paint of a frame not
shown before) counts. Then the orbit stops and the time to the first
full-resolution frame showing the last move on screen is the settle time.

Both ways in one run, each in a process of its own, rounds interleaved:
`VPL_PREVIEW_DRAFT=0` (every frame at full resolution) and the default
(draft frames while moving when full frames are slow). On a GPU both are the
same (full frames fit the budget); the difference is a software rasteriser's.

Run under a display: ``xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/bench_orbit.py``
(``--rounds``, ``--seconds``, ``--size``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_pipeline import machine  # noqa: E402

EXAMPLE = ROOT / "resources" / "examples" / "painted_metal.vpl"
MOVE_INTERVAL_MS = 8


def child(size: int, seconds: float) -> int:
    from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.preview.screenshot import load_program
    from app.preview.widget import PreviewWidget

    application = QApplication(sys.argv[:1])
    widget = PreviewWidget()
    widget.resize(size, size)
    widget.show()

    def wait_until(condition: Callable[[], bool], timeout_s: float = 120.0) -> None:
        deadline = time.perf_counter() + timeout_s
        while not condition():
            if time.perf_counter() > deadline:
                raise SystemExit("timed out")
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)

    wait_until(lambda: widget._initialized)
    artifact, parameters = load_program(str(EXAMPLE), widget.target)
    widget.set_artifact(artifact, parameters)
    wait_until(lambda: not widget.preparing_environment)
    widget.finish_rendering()
    wait_until(lambda: widget.shown_frame is not None)
    # Warm: a few frames drawn, so the driver's first-draw compilation is not in the figures.
    for _ in range(5):
        widget.camera.orbit(1.0, 0.0)
        widget._state.camera_changed()  # what a mouse drag does
        widget.finish_rendering()
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    time.sleep(0.5)
    QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

    shown: list[tuple[float, int, bool, int]] = []  # (time, serial, draft, commands) of each new frame on screen
    last = [0]

    def swapped() -> None:
        frame = widget.shown_frame
        if frame is not None and frame.serial != last[0]:
            last[0] = frame.serial
            shown.append((time.perf_counter(), frame.serial, frame.draft, frame.commands))

    widget.frameSwapped.connect(swapped)
    clock = QElapsedTimer()
    mover = QTimer()
    mover.setInterval(MOVE_INTERVAL_MS)

    def move() -> None:
        widget.camera.orbit(0.7, 0.15)
        widget._state.camera_changed()  # what a mouse drag does

    mover.timeout.connect(move)
    clock.start()
    started = time.perf_counter()
    mover.start()
    wait_until(lambda: time.perf_counter() - started >= seconds)
    mover.stop()
    stopped = time.perf_counter()
    posted = widget.posted_commands
    moving_frames = [entry for entry in shown if entry[0] <= stopped]
    wait_until(lambda: bool(shown) and shown[-1][3] >= posted and not shown[-1][2])
    settle = shown[-1][0] - stopped
    drafts = sum(1 for entry in moving_frames if entry[2])
    print("ORBIT", json.dumps({"fps": len(moving_frames) / (stopped - started), "settle_s": settle,
                               "drafts": drafts, "frames": len(moving_frames),
                               "renderer": widget.context_description}))
    widget.close()
    application.processEvents()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        return child(arguments.size, arguments.seconds)
    print(f"machine: {machine()}")
    results: dict[str, list[dict[str, float]]] = {"full frames only (VPL_PREVIEW_DRAFT=0)": [], "drafts (default)": []}
    renderer = ""
    for _ in range(arguments.rounds):
        for label, value in (("full frames only (VPL_PREVIEW_DRAFT=0)", "0"), ("drafts (default)", "1")):
            environment = dict(os.environ, VPL_PREVIEW_DRAFT=value)
            completed = subprocess.run(
                [sys.executable, __file__, "--child", "--size", str(arguments.size), "--seconds", str(arguments.seconds)],
                cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600, check=False)
            line = next((line for line in completed.stdout.splitlines() if line.startswith("ORBIT ")), "")
            if not line:
                raise SystemExit(f"the orbit child failed:\n{completed.stdout}\n{completed.stderr}")
            result = json.loads(line[len("ORBIT "):])
            renderer = result.pop("renderer")
            results[label].append(result)
    print(f"painted_metal, {arguments.size}x{arguments.size}, {renderer}; orbit {arguments.seconds:.1f} s, a move every"
          f" {MOVE_INTERVAL_MS} ms; medians of {arguments.rounds} interleaved rounds")
    print(f"   {'':<40}{'orbit fps':>10}{'drafts':>9}{'settle ms':>11}   (settle: last move -> full frame on screen)")
    for label, runs in results.items():
        fps = statistics.median(run["fps"] for run in runs)
        settle = statistics.median(run["settle_s"] for run in runs) * 1000
        drafts = statistics.median(run["drafts"] / max(1, run["frames"]) for run in runs)
        per_round = ", ".join(f"{run['fps']:.1f}" for run in runs)
        print(f"   {label:<40}{fps:>10.1f}{drafts:>9.0%}{settle:>11.0f}   (fps per round: {per_round})")
    print(f"load average at the end: {', '.join(f'{value:.2f}' for value in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
