"""A parameter slider drag in the editor window: the window thread's time per step, and that it never rebuilds.

Each step of the drag is what the panel's slider does: the parameter's new
value goes through the window (an undoable edit of the document), the
session's `ParameterModel`, the panel, and the preview, which takes the new
values without a new program. Prints, per preview (OpenGL with its render
thread, the CPU preview):

- the median and 90th percentile of one step on the window's thread, and
  of the part of it spent handing the values to the preview;
- the programs built and lowerings run during the drag (both must be 0:
  a value is a uniform, never a new program).

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_values.py [--steps N] [--previews gl,cpu]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

PARAMETER = "shininess"  # the float parameter of the example (1..256)
EXAMPLE = "lit_blinn_phong"


def child(preview_kind: str, steps: int) -> int:
    """One drag in a fresh window; prints one line of figures."""
    from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings
    from PySide6.QtWidgets import QApplication

    import app.preview.context as context_module
    from app.session.recovery import RecoveryStore
    from app.ui.dialogs import SaveChoice
    from app.ui.main_window import MainWindow
    from app.ui.node_thumbnails import THUMBNAILS_SETTING

    application = QApplication(sys.argv[:1])
    if preview_kind == "cpu":
        context_module.create_context = lambda profile: None  # as on a machine without OpenGL
    folder = Path(tempfile.mkdtemp(prefix="bench-values-"))
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(THUMBNAILS_SETTING, False)
    window = MainWindow(settings=settings, recovery=RecoveryStore(folder / "recovery"))
    window.load_example(EXAMPLE)
    window.flush()
    window.show()
    preview = window.preview
    deadline = time.perf_counter() + 120.0
    while (preview.preparing_environment or (preview_kind == "gl" and not preview.threaded)) \
            and time.perf_counter() < deadline:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    window.flush()
    lowered: list[object] = []
    window.session.lowered.connect(lowered.append)

    # The part of a step spent giving the preview its values: whichever method the host offers for it.
    handed: list[float] = []
    for name in ("set_values", "set_parameter"):
        method = getattr(preview, name, None)
        if method is None:
            continue

        def timed(*arguments: object, _method: object = method) -> None:
            started = time.perf_counter()
            _method(*arguments)  # type: ignore[operator]
            handed.append(time.perf_counter() - started)

        setattr(preview, name, timed)

    builds_before = _builds(preview)
    slider = window.parameters_panel.editor(PARAMETER).slider
    slider.setSliderDown(True)
    totals: list[float] = []
    marks: list[int] = []
    for step in range(steps):
        marks.append(len(handed))
        started = time.perf_counter()
        slider.setValue(100 + (step * 37) % 800)
        totals.append(time.perf_counter() - started)
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    slider.setSliderDown(False)
    window.flush()
    if hasattr(preview, "finish_rendering"):
        preview.finish_rendering()
    per_step = [sum(handed[marks[index]:(marks[index + 1] if index + 1 < len(marks) else len(handed))])
                for index in range(len(marks))]
    builds = _builds(preview) - builds_before
    lowerings = len(lowered)
    print(f"{preview_kind}: {steps} steps; step on the window thread median {_ms(statistics.median(totals))}, "
          f"p90 {_ms(_p90(totals))}; handing the values to the preview median {_ms(statistics.median(per_step))}, "
          f"p90 {_ms(_p90(per_step))}; programs built during the drag {builds}, lowerings {lowerings}", flush=True)
    window.prompts.ask_save_changes = lambda _parent, _name: SaveChoice.DISCARD  # the drag modified it
    window.close()
    del application
    return 0


def _builds(preview: object) -> int:
    """Programs the preview was asked to build so far (GL: build serial; CPU: program generation)."""
    return int(getattr(preview, "_build_serial", getattr(preview, "_generation", 0)))


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        return child(sys.argv[2], int(sys.argv[3]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300, help="slider steps in the drag")
    parser.add_argument("--previews", default="gl,cpu", help="gl, cpu or both (comma-separated)")
    arguments = parser.parse_args()
    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3] if Path('/proc/loadavg').exists() else 'n/a'}")
    for kind in arguments.previews.split(","):
        # Each in its own process: a window's threads and caches do not carry into the other's figures.
        completed = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", kind, str(arguments.steps)],
                                   capture_output=True, text=True, check=False)
        sys.stdout.write(completed.stdout)
        if completed.returncode != 0:
            sys.stderr.write(completed.stderr[-3000:])
            return completed.returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
