"""`start_gl_worker`: a background worker that draws with an OpenGL context of its own (the node thumbnails,
the texture view).

The offscreen surface and the context are created on the GUI thread and the context is moved to the
worker's thread: constructing a QOpenGLContext on the worker deadlocks under llvmpipe (docs/decisions.md,
"One kind of background work"). On the worker, `setup` makes the context current and builds the service's
state (its renderer); `teardown`, after the last job, releases that state, deletes the context on its own
thread and has the GUI thread destroy the surface, as Qt requires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtGui import QOffscreenSurface

from app.gui_post import QtThread, gui_post
from app.preview.context import Profile, context_problem, create_context, preview_surface_format
from app.workers import Worker

_delete = cast(Callable[[QObject], None], shiboken6.delete)  # shiboken6's untyped helper, typed

S = TypeVar("S")
T = TypeVar("T")


class NoContextError(RuntimeError):
    """The worker cannot draw at all: no context of the profile, or it cannot be made current."""


def start_gl_worker(owner: QObject, profile: Profile, label: str, name: str, make_state: Callable[[], S],
                    release: Callable[[S], None], on_result: Callable[[T], None],
                    on_error: Callable[[BaseException], None]) -> tuple[Worker[T], list[S]]:
    """Start a worker thread `name` drawing with a context of `profile` (module docstring); returns it and the
    list that holds its state once `make_state` has run on it (jobs read `states[0]`).

    `label` names the worker in the error raised when its context cannot be made current ("the thumbnails'");
    that error, and no context of the profile at all, reach `on_error` as a `NoContextError`. The worker is
    closed when `owner` is destroyed without being stopped.
    """
    surface = QOffscreenSurface()
    surface.setFormat(preview_surface_format(profile))
    surface.create()
    context = create_context(profile)
    post = gui_post()
    states: list[S] = []

    def setup() -> None:  # on the worker's thread
        problem = context_problem(context, profile)
        if not problem and context is not None and not context.makeCurrent(surface):
            problem = f"{label} OpenGL context could not be made current"
        if problem:
            raise NoContextError(problem)
        states.append(make_state())

    def teardown() -> None:  # on the worker's thread, after the last job
        try:
            if states:
                release(states[0])
            if context is not None:
                context.doneCurrent()
        finally:
            if context is not None:
                _delete(context)  # on its own thread, whatever still refers to the wrapper
            post(surface.destroy)  # on the GUI thread, as Qt requires, once nothing draws into it

    worker: Worker[T] = Worker(name, on_result, on_error, post, spawn=QtThread, setup=setup, teardown=teardown)
    if context is not None:
        context.moveToThread(cast(QtThread, worker.thread).qthread)
    owner.destroyed.connect(lambda *_: worker.close(0.0))  # destroyed with its parent, never stopped
    worker.start()
    return worker, states
