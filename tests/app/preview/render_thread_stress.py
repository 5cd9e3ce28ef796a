"""A stress run of the preview's render thread beside the window thread's garbage (issue 20 item 3).

Why: full test suites crashed (SIGSEGV) in the window thread's garbage
collection while a render thread was building a mesh, and only after
earlier tests had left garbage behind (docs/preview.md, "The render
thread"). This drives what those suites did, many times over, in one
process: the render thread builds meshes and programs and draws frames
while the window's thread makes cyclic garbage holding Qt objects (timers,
plain QObjects with connections, graphics scenes and items, offscreen
surfaces, images) with no parent, resizes the preview, collects, and
closes and re-creates previews (and so their threads).

It counts, per thread, the collections that freed something and the
garbage holders (`Holder`, each holding Qt objects) freed there: a holder
freed on the render thread means Qt objects of the window's thread were
deleted on the render thread, which Qt documents as unsafe (QObject:
"Calling delete on a QObject from a thread other than the one that owns
the object ... is unsafe"; QOffscreenSurface: "initialization and
destruction must always happen on the main (GUI) thread").

Run it long, in a process of its own, under Xvfb:

    PYTHONFAULTHANDLER=1 xvfb-run -a .venv/bin/python tests/app/preview/render_thread_stress.py --seconds 120

`tests/app/preview/test_preview_render_thread.py` runs it with a fixed,
small budget (a count of iterations, not a time) and asserts that no
holder was freed off the window's thread.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from preview_helpers import color_parameter_artifact, constant_color_artifact
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QRectF, QTimer
from PySide6.QtGui import QImage, QOffscreenSurface
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QGraphicsScene

from app.material.parameters import ParameterKind, ParameterSpec
from app.preview.mesh import MESH_NAMES
from app.preview.widget import RENDER_THREAD_VARIABLE, PreviewWidget
from vpl_core.ir.types import vec

#: Where each garbage holder was freed (thread name), across the process: `Holder.__del__` counts here.
freed_on: Counter[str] = Counter()


class Holder:
    """Cyclic garbage holding Qt objects made on the window's thread (it refers to itself)."""

    def __init__(self, surface: bool) -> None:
        self.me = self
        self.timer = QTimer()
        self.timer.setInterval(60_000)
        self.timer.start()                      # an active timer, as a test's object might leave
        self.object = QObject()
        self.object.destroyed.connect(lambda *_: None)
        self.scene = QGraphicsScene()
        for index in range(4):
            self.scene.addItem(QGraphicsRectItem(QRectF(index, index, 10, 10)))
        self.image = QImage(32, 32, QImage.Format.Format_RGBA8888)
        self.surface: QOffscreenSurface | None = None
        if surface:
            self.surface = QOffscreenSurface()
            self.surface.create()
        self.payload = [[index] for index in range(50)]  # allocations of its own

    def __del__(self) -> None:
        freed_on[threading.current_thread().name] += 1


@dataclass
class StressReport:
    iterations: int = 0
    widgets: int = 0
    frames: int = 0
    #: Collections that freed something, by the thread that ran them.
    collections: Counter[str] = field(default_factory=Counter)
    #: Garbage holders freed, by thread (see `Holder`).
    holders_freed: Counter[str] = field(default_factory=Counter)

    @property
    def freed_off_the_window_thread(self) -> int:
        main = threading.main_thread().name
        return sum(count for name, count in self.holders_freed.items() if name != main)

    def summary(self) -> str:
        return (f"iterations {self.iterations}, previews {self.widgets}, frames {self.frames}; "
                f"collections that freed something by thread: {dict(self.collections)}; "
                f"garbage holders freed by thread: {dict(self.holders_freed)}")


def _wait_until(application: QApplication, condition, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the preview did not get there in time")
        application.processEvents()
        time.sleep(0.002)


def _new_preview(application: QApplication, threaded: bool) -> PreviewWidget:
    widget = PreviewWidget()
    widget.resize(160 + random.randrange(80), 120 + random.randrange(80))
    widget.show()
    _wait_until(application, lambda: widget._initialized)
    if widget.threaded != threaded:
        raise RuntimeError(f"the preview was to draw {'on' if threaded else 'off'} the render thread")
    spec = ParameterSpec("tint", ParameterKind.COLOR, vec(4), (1.0, 0.0, 0.0, 1.0))
    widget.set_artifact(color_parameter_artifact(), [spec])
    return widget


def _close(application: QApplication, widget: PreviewWidget) -> int:
    frames = widget._thread.frames_drawn if widget._thread is not None else 0
    widget.close()
    widget.deleteLater()
    # Deleted now, as the event loop would: the widget's context goes, and with it the render thread.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    application.processEvents()
    return frames


def stress(iterations: int | None = None, seconds: float | None = None, *, seed: int = 1, threaded: bool = True,
           previews_every: int = 40, garbage_per_iteration: int = 6) -> StressReport:
    """Run until `iterations` or `seconds` is used up (one of them); `threaded`: with the render thread."""
    if (iterations is None) == (seconds is None):
        raise ValueError("give either iterations or seconds")
    previous_variable = os.environ.get(RENDER_THREAD_VARIABLE)
    os.environ[RENDER_THREAD_VARIABLE] = "1" if threaded else "0"
    application = QApplication.instance() or QApplication([])
    random.seed(seed)
    report = StressReport()
    main_thread = threading.main_thread().name
    before = Counter(freed_on)

    def on_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["collected"]:
            report.collections[threading.current_thread().name] += 1

    gc.callbacks.append(on_collection)
    deadline = time.monotonic() + seconds if seconds is not None else None
    widget: PreviewWidget | None = None
    try:
        while (iterations is None or report.iterations < iterations) and (
                deadline is None or time.monotonic() < deadline):
            step = report.iterations
            if widget is None or step % previews_every == previews_every - 1:
                if widget is not None:
                    report.frames += _close(application, widget)
                widget = _new_preview(application, threaded)
                report.widgets += 1
            # The render thread: a mesh to build (the crash came while one was built), values, programs.
            widget.set_mesh(random.choice(MESH_NAMES))
            widget.set_parameter("tint", (random.random(), random.random(), random.random(), 1.0))
            if step % 7 == 3:
                colour = (random.random(), random.random(), random.random(), 1.0)
                widget.set_artifact(constant_color_artifact(colour))  # a new program: compile, link, first draw
            elif step % 7 == 5:
                spec = ParameterSpec("tint", ParameterKind.COLOR, vec(4), (0.0, 1.0, 0.0, 1.0))
                widget.set_artifact(color_parameter_artifact(), [spec])
            if step % 5 == 2:
                widget.resize(140 + random.randrange(120), 100 + random.randrange(120))
            # The window's thread: garbage holding Qt objects, and its own collections now and then.
            for index in range(garbage_per_iteration):
                Holder(surface=index == 0 and step % 3 == 0)
            if step % 11 == 10:
                gc.collect()
            for _ in range(3):
                application.processEvents()
                time.sleep(0.001)
            report.iterations += 1
    finally:
        if widget is not None:
            report.frames += _close(application, widget)
        for _ in range(5):
            application.processEvents()
        gc.collect()
        gc.callbacks.remove(on_collection)
        if previous_variable is None:
            os.environ.pop(RENDER_THREAD_VARIABLE, None)
        else:
            os.environ[RENDER_THREAD_VARIABLE] = previous_variable
    report.holders_freed = Counter({name: count - before.get(name, 0) for name, count in freed_on.items()
                                    if count - before.get(name, 0)})
    report.holders_freed.setdefault(main_thread, 0)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--window-thread", action="store_true", help="draw in the window's thread (the control)")
    arguments = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    report = stress(seconds=arguments.seconds, seed=arguments.seed, threaded=not arguments.window_thread)
    print(report.summary(), flush=True)
    return 1 if report.freed_off_the_window_thread else 0


if __name__ == "__main__":
    sys.exit(main())
