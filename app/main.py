"""`vpl-editor [FILE] [--screenshot PNG] [--preview-screenshot PNG | --turntable OUT [--frames N]] [--size WxH] [stage] [--gl ...]`.

`vpl-editor --version` prints the version; `vpl-editor --about` prints what
Help > About shows (version, Qt, platform, and the OpenGL context the
preview would get, probed offscreen), for bug reports and support.

Without FILE the editor opens on the built-in example material
(`app.material.examples.DEFAULT_EXAMPLE`). The window is shown first and the
document opened right after its first paint (start-up);
then it offers any autosave a crashed editor left behind.

`--screenshot PNG` opens the file (or the example), lets the window render
until the preview has drawn or failed (bounded by `--timeout` seconds), saves
a grab of the whole window as shown (preview overlay included) and exits 0; no dialog is shown in this mode
(problems go to stderr). `--preview-screenshot PNG [--size WxH]` renders one
offscreen preview frame of the file (`app.preview.screenshot`) without
opening the window; `--mesh`, `--environment`, `--exposure`,
`--tone-mapper`, `--camera`, `--light`, `--shadows`, `--ground`, `--occlusion`, `--fill`, `--rim`,
`--light-size`, `--background`, `--time` and `--set NAME=VALUE` choose what it shows,
over the stage saved with the document if it has one (else the default
stage). A wrong value prints one line and exits 2. `--turntable OUT.gif|OUT.mp4
[--frames N] [--turn mesh|environment]` renders the same stage turning once
(`app.preview.turntable`).

`--gl` picks the preview's OpenGL profile: `desktop` (OpenGL 4.2 core),
`es` (OpenGL ES 3.2) or `auto` (desktop when a 4.2 core context can be
created, else ES 3.2). Without it the `VPL_PREVIEW_GL` environment variable
decides, and without that `auto`. The window shows the active profile in
its status bar.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from vpl_core.version import VersionAction, version

if TYPE_CHECKING:  # the editor's modules load lazily (start-up time): annotations only here
    from PySide6.QtWidgets import QWidget

    from app.ui.dialogs import Prompts
    from app.ui.main_window import MainWindow

APPLICATION_NAME = "vpl-editor"
DEFAULT_SCREENSHOT_TIMEOUT = 20.0
#: The longest --timeout (a day): Qt's timers take milliseconds as a 32-bit int.
MAX_SCREENSHOT_TIMEOUT = 86400.0


def _timeout(text: str) -> float:
    """--timeout: finite seconds from 0 to MAX_SCREENSHOT_TIMEOUT ("1e999" raised OverflowError in QTimer)."""
    from vpl_core.numbers import NumberError, read_number

    try:
        return read_number(text, "the wait (seconds)", 0.0, MAX_SCREENSHOT_TIMEOUT)
    except NumberError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vpl-editor", description="Node-based material editor for VPL.")
    parser.add_argument("--version", action=VersionAction)
    parser.add_argument("--about", action="store_true",
                        help="print the About details (version, Qt, OpenGL renderer) and exit")
    parser.add_argument("file", nargs="?", help="a .vpl file to open (default: the built-in example material)")
    parser.add_argument("--screenshot", metavar="PNG", help="save a screenshot of the window and exit")
    parser.add_argument("--preview-screenshot", metavar="PNG",
                        help="render one preview frame of FILE offscreen, save it and exit")
    parser.add_argument("--size", metavar="WxH", default=None, help="size of --preview-screenshot (default 512x512)")
    parser.add_argument("--timeout", type=_timeout, default=DEFAULT_SCREENSHOT_TIMEOUT,
                        help="longest wait, in seconds, for the preview before --screenshot grabs the window")
    parser.add_argument("--gl", choices=("desktop", "es", "auto"), default=None,
                        help="the preview's OpenGL profile: desktop (4.2 core), es (ES 3.2) or auto "
                             "(desktop if available, else ES); default: $VPL_PREVIEW_GL, else auto")
    stage = parser.add_argument_group("stage of --preview-screenshot")
    stage.add_argument("--mesh", metavar="NAME|PATH", help="sphere (default), cube, plane, ... or a mesh file")
    stage.add_argument("--environment", metavar="NAME|PATH", help="the lighting environment: a bundled name or an HDR file")
    stage.add_argument("--exposure", metavar="EV", help="exposure in stops (default 0)")
    stage.add_argument("--tone-mapper", metavar="NAME", help="pbr_neutral (default), aces, agx, reinhard or none")
    stage.add_argument("--time", metavar="SECONDS", help="the scene time the frame shows (default 0)")
    stage.add_argument("--camera", metavar="YAW,PITCH,DISTANCE",
                       help="camera in degrees and units (default: the mesh's three-quarter view)")
    stage.add_argument("--light", metavar="on|off", help="the key light (default on)")
    stage.add_argument("--shadows", metavar="on|off", help="the key light's shadows (default off)")
    stage.add_argument("--ground", metavar="on|off", help="a ground that catches shadows and contact occlusion (default off)")
    stage.add_argument("--occlusion", metavar="on|off", help="ambient occlusion from the mesh's geometry (default off)")
    stage.add_argument("--fill", metavar="on|off", help="the fill light, low on the right, no shadows (default off)")
    stage.add_argument("--rim", metavar="on|off", help="the rim light, behind and above, no shadows (default off)")
    stage.add_argument("--light-size", metavar="DEGREES",
                       help="the key light's angular diameter for soft shadows, 0 to 30 (default 0: fixed filter)")
    stage.add_argument("--background", metavar="color|environment|blurred",
                       help="what is behind the mesh (default: the stage's, else the plain colour)")
    stage.add_argument("--turntable", metavar="OUT.gif|OUT.mp4",
                       help="render the mesh (or environment) turning once, save the animation and exit")
    stage.add_argument("--frames", metavar="N", help="frames of --turntable (default 36)")
    stage.add_argument("--turn", choices=("mesh", "environment"), default="mesh", help="what --turntable turns")
    stage.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="assignments",
                       help="set a material parameter (repeatable): 0.5 | 0.1,0.2,0.3 | #ff8800 | image.png")
    return parser


def preview_gl_choice(arguments: argparse.Namespace) -> str:
    """--gl when given, else VPL_PREVIEW_GL, else auto; ValueError for a bad VPL_PREVIEW_GL."""
    from app.preview.context import choose

    return choose(arguments.gl)


def _example_source() -> str:
    """The shipped file of the default example (for --preview-screenshot without FILE)."""
    from app.material.examples import DEFAULT_EXAMPLE, example_path

    return str(example_path(DEFAULT_EXAMPLE))


def _preview_stage(arguments: argparse.Namespace, source: str) -> tuple[object, float, set[str]]:
    """(Stage, time, the stage fields the options chose): the stage saved with the document `source` (else
    the default one), the stage options overriding it; ValueError with a one-line message for a wrong value.
    A saved value that is not used is noted on stderr (the default is drawn instead)."""
    from app.preview.screenshot import saved_stage
    from app.preview.stage import Stage
    from vpl_core.numbers import read_time

    notes: list[str] = []
    stage = saved_stage(source, notes) or Stage()
    for note in notes:
        print(f"{source}: note: {note}", file=sys.stderr)
    chosen: set[str] = set()
    if arguments.mesh is not None:
        stage.set_mesh(arguments.mesh)
        chosen.add("mesh")
    if arguments.environment is not None:
        stage.set_environment(arguments.environment)
        chosen.add("environment")
    if arguments.exposure is not None:
        stage.set_exposure(arguments.exposure)
    if arguments.tone_mapper is not None:
        stage.set_tone_mapper(arguments.tone_mapper)
    stage.set_switches(light=arguments.light, shadows=arguments.shadows, ground=arguments.ground,
                       occlusion=arguments.occlusion)
    if arguments.fill is not None:
        stage.set_extra_light("fill", enabled=arguments.fill)
    if arguments.rim is not None:
        stage.set_extra_light("rim", enabled=arguments.rim)
    if arguments.light_size is not None:
        stage.set_light_size(arguments.light_size)
    if arguments.background is not None:
        stage.set_background(arguments.background)
    if arguments.camera is not None:
        stage.set_camera(arguments.camera)
    time = read_time(arguments.time) if arguments.time is not None else 0.0
    return stage, time, chosen


def _preview_screenshot(arguments: argparse.Namespace, gl: str) -> int:
    from app.preview.screenshot import DEFAULT_SIZE, parse_size, preview_screenshot

    source = arguments.file or _example_source()
    try:
        size = parse_size(arguments.size) if arguments.size else DEFAULT_SIZE
        stage, time, chosen = _preview_stage(arguments, source)
    except ValueError as error:
        print(f"vpl-editor: {error}", file=sys.stderr)
        return 2
    return preview_screenshot(source, arguments.preview_screenshot, size, gl=gl, stage=stage, time=time,
                              assignments=arguments.assignments, chosen=chosen)


def _turntable(arguments: argparse.Namespace, gl: str) -> int:
    from app.preview.screenshot import DEFAULT_SIZE, parse_size
    from app.preview.turntable import DEFAULT_FRAMES, check_output, parse_frames, turntable

    source = arguments.file or _example_source()
    try:
        check_output(arguments.turntable)
        frames = parse_frames(arguments.frames) if arguments.frames is not None else DEFAULT_FRAMES
        size = parse_size(arguments.size) if arguments.size else DEFAULT_SIZE
        stage, time, _chosen = _preview_stage(arguments, source)
    except ValueError as error:
        print(f"vpl-editor: {error}", file=sys.stderr)
        return 2
    return turntable(source, arguments.turntable, size, frames, gl=gl, stage=stage, time=time,  # type: ignore[arg-type]  # _preview_stage returns a Stage
                     assignments=arguments.assignments, turn=arguments.turn)


def _print_about(gl: str) -> int:
    """`--about`: the About facts on stdout; the OpenGL rows from an offscreen probe of the preview's profile."""
    from app.preview.screenshot import ensure_gui_application
    from app.ui.about import about_facts, facts_text, gl_facts, probe_gl_facts

    application = ensure_gui_application()
    gl_rows = probe_gl_facts(gl) if application is not None else gl_facts("", {}, "no display")
    sys.stdout.write(facts_text(about_facts(gl=gl_rows)))
    return 0


def _quiet_prompts() -> Prompts:
    """Prompts for unattended runs: nothing modal, problems to stderr."""
    from app.ui.dialogs import Prompts, SaveChoice

    def report(_parent: object, title: str, message: str, details: Sequence[str]) -> None:
        print(f"vpl-editor: {title}: {message}", file=sys.stderr)
        for line in details:
            print(f"  {line}", file=sys.stderr)

    return Prompts(
        ask_save_changes=lambda _parent, _name: SaveChoice.DISCARD,
        show_error=report,
        offer_recovery=lambda _parent, _entries: None,
        choose_open_path=lambda _parent, _directory: None,
        choose_save_path=lambda _parent, _suggested: None,
        choose_export_dir=lambda _parent, _directory: None,
        ask_text=lambda _parent, _title, _label, _initial: None,
        choose_mtlx_material=lambda _parent, _document, names: names[0] if names else None,
    )


#: Set when SIGTERM asked an unattended run to stop (`quit_on_sigterm`); its waits end and it cleans up.
TERMINATED = threading.Event()


def quit_on_sigterm() -> Callable[[], None]:
    """Until the returned function is called, SIGTERM ends the event loops instead of killing the process.

    The default action kills the process where it stands, leaving the
    unattended run's scratch settings folder in the temporary directory;
    here the handler sets `TERMINATED` and quits every event loop, and the
    run returns through its clean-up. A timer gives Python a turn every
    0.1 s so the handler runs while Qt waits in its own code.
    """
    from PySide6.QtCore import QCoreApplication, QTimer

    def terminate(_number: int, _frame: object) -> None:
        TERMINATED.set()
        QCoreApplication.exit(128 + signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, terminate)
    wake = QTimer()
    wake.timeout.connect(lambda: None)
    wake.start(100)

    def restore() -> None:
        wake.stop()
        signal.signal(signal.SIGTERM, previous)

    return restore


def take_screenshot(window: MainWindow, png_path: str, timeout_seconds: float, preview_settled: list[bool]) -> int:
    """Run the event loop until the preview has drawn or failed (bounded), then grab the window."""
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    if TERMINATED.is_set():
        return 128 + signal.SIGTERM
    window.flush()
    loop = QEventLoop()
    waits_for_preview = window.current_artifact is not None and getattr(window.preview, "available", False)
    if waits_for_preview and not preview_settled[0]:
        window.preview.programReady.connect(loop.quit)
        window.preview.programFailed.connect(loop.quit)
        QTimer.singleShot(int(timeout_seconds * 1000), loop.quit)
        if not preview_settled[0] and not TERMINATED.is_set():
            loop.exec()
    if waits_for_preview and window.preview.preparing_environment and not TERMINATED.is_set():
        # The stage's environment is being prepared in a worker: show the lit material, not the stand-in.
        window.preview.environmentReady.connect(loop.quit)
        window.preview.environmentFailed.connect(loop.quit)
        QTimer.singleShot(int(timeout_seconds * 1000), loop.quit)
        if window.preview.preparing_environment and not TERMINATED.is_set():
            loop.exec()
    if TERMINATED.is_set():
        return 128 + signal.SIGTERM
    window.thumbnails.wait(timeout_seconds)  # the node thumbnails (their own worker; none when turned off)
    # No fixed wait: what is pending is done now. Posted events (layouts, the preview's
    # frame hand-over) are delivered, a coalesced CPU frame is drawn at once, and the grab paints every
    # widget itself.
    QCoreApplication.processEvents()
    render_now = getattr(window.preview, "render_now", None)
    if callable(render_now) and window.current_artifact is not None:
        render_now()
    QCoreApplication.processEvents()
    from app.ui.window_layout import grab_window

    image = grab_window(window)  # with the preview's error overlay, which window.grab() misses
    if image.isNull() or not image.save(png_path, "PNG"):
        print(f"vpl-editor: cannot write the screenshot {png_path}", file=sys.stderr)
        return 1
    return 0


def quicken_pyside_import_hook() -> None:
    """PySide6's import hook reads every module imported after it for the word "PySide6"; make that a plain read.

    The hook (`shibokensupport.feature`, for `from __feature__ import ...`)
    calls `inspect.getsource` on each newly imported module, which tokenises
    the whole file through `linecache`: about 0.3 s over the editor's 550
    modules at start-up. Searching the file's bytes gives
    the same answer for a source file; anything else (frozen, no file) still
    goes to PySide6's own check.
    """
    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if original is None or getattr(original, "quickened", False):
        return

    def mod_uses_pyside(module: object) -> bool:
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            try:
                with open(path, "rb") as source:
                    return b"PySide6" in source.read()
            except OSError:
                pass
        return bool(original(module))

    mod_uses_pyside.quickened = True  # type: ignore[attr-defined]  # marks the replacement (idempotence)
    feature._mod_uses_pyside = mod_uses_pyside  # type: ignore[union-attr]  # PySide6's private hook


def ensure_standard_streams() -> None:
    """Give a windowed executable somewhere to write.

    A windowed PyInstaller build (Windows' vpl-editor.exe, the macOS .app)
    starts with sys.stdout and sys.stderr set to None; argparse's --version
    and --help, and every problem report, would then raise instead.
    """
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - lives as long as the process


def _open_initial(window: MainWindow, file: str | None, unattended: bool) -> bool:
    """Open FILE (or the example) and show the window; False when an unattended run cannot open FILE."""
    opened = window.open_file(file, ask_to_save=False) if file else False
    if file and not opened and unattended:
        return False
    if not opened:
        window.load_example()
    window.show()
    return True


#: Longest wait for the window's first paint before `after_first_paint` runs its action anyway (a window
#: that starts minimised or on a hidden desktop paints late or never).
FIRST_PAINT_FALLBACK_MS = 1000


def after_first_paint(window: QWidget, action: Callable[[], None]) -> None:
    """Run `action` once, on the event loop's turn after `window` first paints (or after the fallback delay)."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    class FirstPaint(QObject):
        def __init__(self) -> None:
            super().__init__(window)
            self.done = False

        def eventFilter(self, _watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint:
                QTimer.singleShot(0, self.run)
            return False

        def run(self) -> None:
            if self.done:
                return
            self.done = True
            window.removeEventFilter(self)
            action()

    watch = FirstPaint()
    window.installEventFilter(watch)
    QTimer.singleShot(FIRST_PAINT_FALLBACK_MS, watch.run)


def main(argv: Sequence[str] | None = None) -> int:
    ensure_standard_streams()
    arguments = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        gl = preview_gl_choice(arguments)
    except ValueError as error:
        print(f"vpl-editor: {error}", file=sys.stderr)
        return 2
    if arguments.turntable:
        return _turntable(arguments, gl)
    if arguments.frames is not None:
        print("vpl-editor: --frames goes with --turntable", file=sys.stderr)
        return 2
    if arguments.preview_screenshot:
        return _preview_screenshot(arguments, gl)
    if arguments.about:
        return _print_about(gl)

    from PySide6.QtWidgets import QApplication

    quicken_pyside_import_hook()
    application = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else APPLICATION_NAME])
    from app.preview.context import align_pyopengl_platform

    align_pyopengl_platform(application.platformName())  # before anything imports OpenGL
    application.setApplicationName(APPLICATION_NAME)
    application.setOrganizationName(APPLICATION_NAME)
    application.setApplicationVersion(version())
    application.setDesktopFileName(APPLICATION_NAME)  # matches vpl-editor.desktop (taskbar icon on Wayland)

    from app.ui.icons import application_icon

    application.setWindowIcon(application_icon())

    from app.ui.main_window import MainWindow

    unattended = bool(arguments.screenshot)
    settings = None
    scratch: tempfile.TemporaryDirectory[str] | None = None
    restore_sigterm: Callable[[], None] | None = None
    if unattended:
        from PySide6.QtCore import QSettings

        # A screenshot run must not touch the user's recent-files list, nor leave its scratch settings behind
        # (SIGTERM included: it ends the run through the clean-up below).
        restore_sigterm = quit_on_sigterm()
        scratch = tempfile.TemporaryDirectory(prefix="vpl-editor-settings-")
        settings = QSettings(str(Path(scratch.name) / "settings.ini"), QSettings.Format.IniFormat)
    try:
        window = MainWindow(prompts=_quiet_prompts() if unattended else None, settings=settings, preview_gl=gl)
    except BaseException:
        if scratch is not None:
            scratch.cleanup()
        raise
    preview_settled = [False]

    def settled(*_: object) -> None:
        preview_settled[0] = True

    # Connected before anything can build a program, so no signal is missed.
    window.preview.programReady.connect(settled)
    window.preview.programFailed.connect(settled)

    if unattended:
        code = 1
        try:
            if not TERMINATED.is_set() and _open_initial(window, arguments.file, unattended):
                code = take_screenshot(window, arguments.screenshot, arguments.timeout, preview_settled)
            if TERMINATED.is_set():
                code = 128 + signal.SIGTERM
            return code
        finally:
            window.close()
            window.settings.sync()  # nothing left to write when the directory goes
            if scratch is not None:
                scratch.cleanup()
            _end_background_work(code)
            if restore_sigterm is not None:
                restore_sigterm()
    # The window first, the document right after its first paint: reading, showing and
    # lowering the document and the preview's first program are not what the first frame needs.
    window.show()
    opened_meanwhile = [False]
    window.documentOpened.connect(lambda: opened_meanwhile.__setitem__(0, True))

    def open_document() -> None:
        if not opened_meanwhile[0]:  # unless the desktop handed the editor a file first (macOS)
            _open_initial(window, arguments.file, unattended)
        window.check_recovery()

    after_first_paint(window, open_document)

    from app.ui.file_open import FileOpenRelay

    application.installEventFilter(FileOpenRelay(window))  # files from Finder while running (macOS)
    code = application.exec()
    window.settings.sync()
    _end_background_work(code)
    return code


#: How long the editor, its window closed, waits for background work to end before it quits.
QUIT_WAIT_S = 120.0


def _end_background_work(code: int) -> None:
    """Close every background worker (`app.workers.close_all`), waiting at most `QUIT_WAIT_S` in all.

    A worker ends after the stage it is in: at once usually, tens of seconds for a very large graph's
    thumbnails. Should one never end (a driver call that hangs), the editor names it and quits without it,
    everything saved already: a thread still running while Python tears down would abort the process.
    """
    from app.workers import close_all

    left = close_all(QUIT_WAIT_S)
    if not left and "app.preview.render_thread" in sys.modules:
        from app.preview.render_thread import close_all as release_render_threads

        release_render_threads()  # their threads have ended: their offscreen surfaces go here, on this thread
    if left:
        print(f"vpl-editor: background work did not end within {QUIT_WAIT_S:.0f} s ({', '.join(left)}); "
              "quitting without it", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
