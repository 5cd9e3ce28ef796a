"""`NodeThumbnails`: keeps the thumbnails on the graph's nodes in step with the material.

It watches the session (a lowering, another document, parameter values,
texture images), the preview's stage (light, background colour; never its
exposure or tone mapper: `SWATCH_DISPLAY`) and clock, and after each change asks the thumbnail worker
(`app.preview.thumbnails.ThumbnailService`, its own thread and OpenGL
context) for exactly the thumbnails whose content changed: a node's
fingerprint (`app.material.node_previews.fingerprints`) covers everything
upstream of it, so an edit redraws the nodes downstream of the edited one
and nothing else; a change of the drawing settings redraws all. Requests
are coalesced (one per event-loop turn) and the worker drops what a newer
request replaces, so the UI thread only hashes the graph and paints images.

Thumbnails whose sub-graph reads the time are redrawn while the preview
plays, at most `ANIMATION_INTERVAL_MS` apart and only when the worker is
idle (a slow machine draws fewer frames, it never queues them).

Only the nodes in view are drawn (what a large graph's first paint and
its worker can afford; a professional editor does the same): a node whose
rectangle does not meet the part of the scene the viewer shows keeps its
place for a thumbnail (the layout never depends on the view) and its last
image, and is asked for once the view pans or zooms to it (the viewport's
paints are watched; the visible rectangle is compared at most every
`VIEW_CHANGE_INTERVAL_MS`). A viewer that is not shown (no visible
rectangle yet) counts every node as in view.

Toggles: all thumbnails (View > Node Previews, remembered in QSettings)
and per node (the node's right-click menu; for the session, not saved in
the document). Without an OpenGL preview (the CPU preview) there are no
thumbnails.

`NodePin` is the node menu's "Preview This Node": the main preview shows
that node's output (the sub-graph feeding it lowered with it as the unlit
result, `lowering.PreviewOutputs`, on the stage's mesh with the stage's
display transform) instead of the material, through every edit, until
"Unpin Node Preview" (or the node is deleted, or another document opens).
The status bar says which node is pinned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPoint, QRectF, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QLabel, QMenu

from app.graph.nodes import MaterialNode
from app.material.graph import MaterialGraph, Node
from app.material.node_previews import (
    fingerprints,
    level_preview_graph,
    material_output_name,
    node_program,
    preview_port,
    structure_key,
)
from app.material.parameters import ParameterKind, node_value_property, parameter_nodes
from app.material.propagation import propagate
from app.preview.thumbnails import THUMBNAIL_PIXELS, ThumbnailBatch, ThumbnailJob, ThumbnailService, wait_until
from app.preview.widget import PreviewWidget
from app.session.textures import TextureLoadError, resolve_texture_path

if TYPE_CHECKING:
    from app.material.node_previews import ThumbnailProgram
    from app.ui.main_window import MainWindow

ANIMATION_INTERVAL_MS = 250
#: How often a moving view (pans, zooms) asks for the thumbnails it brought into view.
VIEW_CHANGE_INTERVAL_MS = 120
THUMBNAILS_SETTING = "graph/show_thumbnails"
#: Stage entries that change no thumbnail: the environment lights only the Surface Output (never
#: previewed), and mesh thumbnails always show a sphere from the front (app/preview/thumbnails.py).
_UNUSED_STAGE_KEYS = ("environment", "environment_rotation", "environment_intensity", "background", "mesh", "camera")

#: The display transform of every thumbnail, whatever the stage's: a thumbnail shows a value, and the value
#: of a swatch must not change with the stage's exposure or tone curve. Linear values are only clipped and
#: sRGB-encoded, so a swatch of a colour looks as the colour picked.
SWATCH_DISPLAY = {"exposure": 0.0, "tone_mapper": "none"}

#: How long closing the window waits for the thumbnails' worker to end; a worker busy with a large graph's
#: stage ends in the background (app/preview/thumbnails.py, "Stopping"), and the application waits for it
#: before it quits, so the window closes at once.
CLOSE_WAIT_MS = 100


class NodeThumbnails(QObject):
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.editor = window.graph_editor
        self.enabled = bool(window.settings.value(THUMBNAILS_SETTING, True, type=bool))
        self.size = THUMBNAIL_PIXELS
        self.available = isinstance(window.preview, PreviewWidget)
        self.service: ThumbnailService | None = None
        #: Nodes whose thumbnail the user turned off (this session, this document).
        self.hidden: set[str] = set()
        #: What the image on each node shows (its fingerprint when drawn); and what is being drawn.
        self.shown: dict[str, str] = {}
        self._requested: dict[str, str] = {}
        self._settings_key = ""
        self._generation = 0
        self.program: ThumbnailProgram | None = None
        self.problem = ""
        self.batches = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._scheduled_refresh)
        self._view_timer = QTimer(self)
        self._view_timer.setSingleShot(True)
        self._view_timer.setInterval(VIEW_CHANGE_INTERVAL_MS)
        self._view_timer.timeout.connect(self._follow_view)
        #: The visible scene rectangle the last refresh asked for.
        self._refreshed_view = QRectF()
        self._viewport = self.editor.graph.viewer().viewport()
        self._viewport.installEventFilter(self)
        self._animation = QTimer(self)
        self._animation.setInterval(ANIMATION_INTERVAL_MS)
        self._animation.timeout.connect(self._animate)
        session = self.session
        session.lowered.connect(lambda _result: self.schedule())
        session.document_changed.connect(self._on_document_changed)
        self.editor.viewRebuilt.connect(self._on_view_rebuilt)
        #: The graph of the level the view shows (`level_preview_graph`), for the document and level it was made of.
        self._level_graph: tuple[MaterialGraph, str | None, MaterialGraph] | None = None
        #: Batches of jobs up to this generation are for another level's nodes (same ids, other nodes): dropped.
        self._stale_generation = 0
        session.parameters.value_changed.connect(lambda _change: self.schedule())
        session.textures.changed.connect(lambda _images: self.schedule())
        window.preview_panel.toolbar.stageChanged.connect(lambda _stage: self.schedule())
        window.preview.playingChanged.connect(self._follow_playing)
        self._tell_placement()

    # ---- switches -------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.enabled and self.available and not self.session.read_only

    def _tell_placement(self) -> None:
        """New nodes are placed with room for a thumbnail while thumbnails are shown (`place_in_free_space`)."""
        self.editor.graph.thumbnails_shown = self.enabled and self.available

    def set_enabled(self, enabled: bool) -> None:
        """All thumbnails on or off (View > Node Previews)."""
        self.enabled = enabled
        self._tell_placement()
        self.window.settings.setValue(THUMBNAILS_SETTING, enabled)
        if not enabled:
            self._animation.stop()
        self.refresh()

    def node_visible(self, node_id: str) -> bool:
        return node_id not in self.hidden

    def set_node_visible(self, node_id: str, visible: bool) -> None:
        """One node's thumbnail on or off (its right-click menu)."""
        if visible:
            self.hidden.discard(node_id)
        else:
            self.hidden.add(node_id)
        self.refresh()

    def shutdown(self) -> None:
        """Stop the worker (the window is closing)."""
        self._timer.stop()
        self._view_timer.stop()
        self._animation.stop()
        if self.service is not None:
            self.service.stop(CLOSE_WAIT_MS)

    # ---- requests -------------------------------------------------------------------------

    def schedule(self) -> None:
        """Refresh after the current event-loop turn (many changes in one turn ask once).

        Not while a gesture continues (a slider drag), nor before the preview has drawn its new program,
        nor while value edits the preview shows live are settling (`settling_values`): the window
        schedules once the gesture has ended and the preview has settled, the session's next lowering
        (`lowered`) once the values have stopped changing.
        """
        if not self.window.gesture.active and not self.window.presenter.preview_pending and not self.settling_values:
            self._timer.start()

    @property
    def settling_values(self) -> bool:
        """The last edit changed only values the preview's live program shows (no new program), and the lowering
        that follows such edits once they stop (`LIVE_SETTLE_MS`) has not come yet.

        Meanwhile the thumbnails wait, as the panels do: a value is a literal in the thumbnails' module, so
        each refresh would lower, link and draw it again on the worker, whose CPU, GIL and repaints of the
        graph view delayed the value's own frame on the render thread (docs/performance-history.md, section 4).
        """
        session = self.session
        return session.live_edit and session.needs_lowering

    def _scheduled_refresh(self) -> None:
        if not self.settling_values:  # a value edit came after the refresh was scheduled: `lowered` asks again
            self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        # The viewer repaints after every pan and zoom: look whether other nodes came into view.
        if watched is self._viewport and event.type() == QEvent.Type.Paint and not self._view_timer.isActive():
            self._view_timer.start()
        return False

    def _visible_scene_rect(self) -> QRectF | None:
        """The part of the scene the viewer shows; None when it shows nothing yet (every node counts as in view)."""
        viewer = self.editor.graph.viewer()
        if not viewer.isVisible() or self._viewport.rect().isEmpty():
            return None
        return viewer.mapToScene(self._viewport.rect()).boundingRect()

    def _follow_view(self) -> None:
        visible = self._visible_scene_rect()
        if visible is not None and visible != self._refreshed_view and self.active:
            self.schedule()

    def _on_document_changed(self, document: object) -> None:
        self.hidden.clear()
        self.shown.clear()
        self._requested.clear()
        self.program = None
        self.schedule()

    def _on_view_rebuilt(self) -> None:
        # The view shows new node objects (a group's body, the level left, a structural edit): they show nothing yet.
        self._stale_generation = self._generation
        self.shown.clear()
        self._requested.clear()
        self.program = None
        self.schedule()

    def graph(self) -> MaterialGraph:
        """The graph the thumbnails of the level the view shows are drawn from (`level_preview_graph`)."""
        document, level = self.session.graph, self.editor.level
        cached = self._level_graph
        if cached is None or cached[0] is not document or cached[1] != level:
            cached = self._level_graph = (document, level, level_preview_graph(document, level))
        return cached[2]

    def _settings(self) -> tuple[dict[str, object], str]:
        stage = self.window.preview_panel.toolbar.stage.to_dict()
        for key in _UNUSED_STAGE_KEYS:
            stage.pop(key, None)
        stage.update(SWATCH_DISPLAY)
        output_name = material_output_name(self.session.graph)
        return stage, repr((self.size, output_name, sorted(stage.items())))

    def _image(self, node: Node, stored: object) -> np.ndarray | None:
        """The pixels of a texture parameter node's image (None: none chosen, or unreadable: the checker)."""
        if not isinstance(stored, str) or not stored:
            return None
        color_space = str(node.properties.get("color_space", "srgb"))
        try:
            return self.session.textures.cache.get(resolve_texture_path(stored, self.session.directory), color_space).pixels
        except TextureLoadError:
            return None  # the material's own textures report it in Diagnostics; a swatch shows the checker

    def values_and_images(self, graph: MaterialGraph) -> tuple[dict[str, object], dict[str, np.ndarray | None],
                                                                 dict[str, object]]:
        """(uniform values, texture pixels, per-node fingerprint extras) for the parameters of `graph`."""
        parameters = self.session.parameters
        images = self.session.textures.images
        values: dict[str, object] = {}
        textures: dict[str, np.ndarray | None] = {}
        for spec in parameters.specs:
            if spec.kind is ParameterKind.TEXTURE:
                image = images.get(spec.name)
                textures[spec.name] = image.pixels if image is not None else None
            elif spec.kind is not ParameterKind.OTHER:
                values[spec.name] = parameters.value(spec.name)
        # A parameter node that feeds nothing the material uses has no spec in the session: its thumbnail shows
        # its own value (and image), not the uniform's zero or an image left from another document.
        for name, node in parameter_nodes(graph).items():
            if name in values or name in textures:
                continue
            stored = node.properties.get(node_value_property(node) or "")
            if node.type_name == "texture_parameter":
                textures[name] = self._image(node, stored)
            elif isinstance(stored, (int, float)):
                values[name] = float(stored)
            elif isinstance(stored, (list, tuple)):
                values[name] = tuple(float(component) for component in stored)
        extras: dict[str, object] = {}
        for name, node in parameter_nodes(graph).items():
            if name in textures:
                extras[node.id] = ("image", id(textures[name]) if textures[name] is not None else None)
            elif name in values:
                extras[node.id] = ("value", values[name])
        return values, textures, extras

    def refresh(self, force: frozenset[str] = frozenset(), time: float | None = None) -> bool:
        """Ask for every shown thumbnail in view that is out of date (and those in `force`); False when nothing was asked."""
        self._timer.stop()
        graph = self.graph()
        if not self.active:
            for node in self.editor.graph.material_nodes():
                node.view.set_thumbnail_shown(False)
            return False
        result = self.session.result
        port_types = (result.port_types if result is not None and not self.session.needs_lowering
                      and graph is self.session.graph else propagate(graph).port_types)
        wanted: list[str] = []
        visible = self._visible_scene_rect()
        self._refreshed_view = visible if visible is not None else QRectF()
        for node in self.editor.graph.material_nodes():
            node_id = node.stable_id
            shown = node_id not in self.hidden and preview_port(graph, node_id, port_types) is not None
            node.view.set_thumbnail_shown(shown)
            if shown and (visible is None or visible.intersects(node.view.sceneBoundingRect())):
                wanted.append(node_id)
        stage, settings_key = self._settings()
        if settings_key != self._settings_key:
            self._settings_key = settings_key
            self.shown.clear()
            self._requested.clear()
        values, textures, extras = self.values_and_images(graph)
        prints = fingerprints(graph, extras)
        dirty = [node_id for node_id in wanted if self.shown.get(node_id) != prints.get(node_id) or node_id in force]
        if not dirty or (not force and all(self._requested.get(node_id) == prints.get(node_id) for node_id in dirty)):
            return False
        self._generation += 1
        output_name = material_output_name(self.session.graph)  # the material's: a group's body has no output node
        job = ThumbnailJob(
            generation=self._generation,
            graph=graph.copy(),
            structure=structure_key(graph, output_name),
            output_name=output_name,
            nodes=tuple(dirty),
            values=values,
            textures=textures,
            stage=stage,
            time=self._time() if time is None else time,
            size=self.size,
            fingerprints={node_id: prints[node_id] for node_id in dirty},
        )
        for node_id in dirty:
            self._requested[node_id] = prints[node_id]
        self._service().submit(job)
        return True

    def _service(self) -> ThumbnailService:
        if self.service is None:
            service = ThumbnailService(self.window.preview.profile, self)
            service.rendered.connect(self._on_rendered)
            service.failed.connect(self._on_failed)
            self.service = service
        return self.service

    def _time(self) -> float:
        return float(self.window.preview.time)  # not `renderer.time`: that would wait for the render thread

    # ---- results --------------------------------------------------------------------------

    def _on_rendered(self, batch: ThumbnailBatch) -> None:
        if batch.generation <= self._stale_generation:
            return
        self.batches += 1
        if batch.program is not None:
            self.program = batch.program
        self.problem = batch.problem
        nodes = self.editor.graph.nodes_by_stable_id()  # one read: a batch has up to 64 images
        for node_id, image in batch.images.items():
            node = nodes.get(node_id)
            if node is not None:
                node.view.set_thumbnail(image)
            self.shown[node_id] = batch.fingerprints.get(node_id, "")
        if batch.final:
            program = self.program
            for node_id, fingerprint in batch.fingerprints.items():
                if node_id in batch.images:
                    continue
                reason = batch.problems.get(node_id) or batch.problem or (
                    program.problems.get(node_id, "") if program is not None else "")
                if reason or (program is not None and program.selector(node_id) is None):
                    node = nodes.get(node_id)
                    if node is not None:
                        node.view.set_thumbnail(None, _short(reason or "no preview"))
                    self.shown[node_id] = fingerprint
            # What this job did not get to (a newer one interrupted it) is asked for again.
            self._requested = {node: print_ for node, print_ in self._requested.items() if self.shown.get(node) != print_}
            self._follow_playing(getattr(self.window.preview, "playing", False))
            self.schedule()

    def _on_failed(self, reason: str) -> None:
        self.problem = reason
        self.available = False
        self._tell_placement()
        for node in self.editor.graph.material_nodes():
            node.view.set_thumbnail_shown(False)

    # ---- animation ------------------------------------------------------------------------

    def _animated_visible(self) -> frozenset[str]:
        program = self.program
        if program is None or not self.active:
            return frozenset()
        return frozenset(node_id for node_id in program.animated if node_id not in self.hidden)

    def _follow_playing(self, playing: bool) -> None:
        if playing and self._animated_visible():
            if not self._animation.isActive():
                self._animation.start()
        else:
            self._animation.stop()

    def _animate(self) -> None:
        animated = self._animated_visible()
        if not animated:
            self._animation.stop()
            return
        if self.service is not None and self.service.busy:
            return  # the worker is still on the last frame: skip this one rather than queue it
        self.refresh(force=animated)

    # ---- tests and tools ------------------------------------------------------------------

    def wait(self, timeout_seconds: float = 60.0) -> bool:
        """Process events until every requested thumbnail has arrived (True) or the timeout (False)."""
        application = QApplication.instance()

        def settled() -> bool:
            if self._timer.isActive() or self.window.presenter.preview_pending or self.settling_values:
                return False
            service = self.service
            return service is None or (not service.busy and not self._requested_pending())

        return wait_until(settled, application.processEvents, timeout_seconds)

    def _requested_pending(self) -> bool:
        return any(self.shown.get(node) != print_ for node, print_ in self._requested.items())


def _short(reason: str) -> str:
    """A note that fits in the thumbnail's square."""
    text = reason.strip().rstrip(".")
    return text if len(text) <= 60 else text[:57] + "\u2026"


# The node menu ------------------------------------------------------------------------------------


def node_menu(window: MainWindow, node_id: str) -> QMenu:
    """The right-click menu of a node: its thumbnail, "Preview This Node", then the graph's editing actions."""
    menu = QMenu(window)
    menu.setObjectName("nodeMenu")
    thumbnails, pin = window.thumbnails, window.node_pin
    graph = thumbnails.graph()
    has_port = node_id in graph.nodes and preview_port(graph, node_id, propagate(graph).port_types) is not None
    show = QAction("Show &Thumbnail", menu, checkable=True)
    show.setChecked(thumbnails.node_visible(node_id))
    show.setEnabled(has_port and thumbnails.active)
    show.setStatusTip("This node's live thumbnail (View > Node Previews turns all of them on or off)")
    show.toggled.connect(lambda visible: thumbnails.set_node_visible(node_id, visible))
    menu.addAction(show)
    if pin.pinned == node_id:
        unpin = QAction("&Unpin Node Preview", menu)
        unpin.triggered.connect(lambda _checked=False: pin.set_pinned(None))
        menu.addAction(unpin)
    else:
        preview = QAction("&Preview This Node", menu)
        # The main preview shows a node of the material (inside a group, a body's node has no place of its own).
        preview.setEnabled(has_port and not window.session.read_only and window.graph_editor.level is None)
        preview.setStatusTip("Show this node's output in the main preview until unpinned")
        preview.triggered.connect(lambda _checked=False: pin.set_pinned(node_id))
        menu.addAction(preview)
    view = QAction("&View Texture", menu)
    view.setEnabled(has_port and thumbnails.available and not window.session.read_only)
    view.setStatusTip("Open this node's output in the Texture View: zoom, pan, tiling, channels, texel values")
    view.triggered.connect(lambda _checked=False: window.texture_view.open_node(node_id))
    menu.addAction(view)
    menu.addSeparator()
    menu.addActions(window.graph.viewer().context_menus()["graph"].actions())
    return menu


def show_node_menu(window: MainWindow, view_id: str, position: QPoint) -> bool:
    """`TypedNodeViewer.node_menu_handler`: select the node (editing actions act on it) and pop its menu up."""
    node = window.graph.get_node_by_id(view_id)
    if not isinstance(node, MaterialNode):
        return False
    if not node.selected():
        window.graph.clear_selection()
        node.set_selected(True)
    node_menu(window, node.stable_id).popup(position)
    return True


# "Preview This Node" ------------------------------------------------------------------------------


class NodePin(QObject):
    """The node the main preview shows instead of the material (module docstring); None: the material."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.pinned: str | None = None
        self.problem = ""
        self._shown: tuple[str, str, int] | None = None
        self.label = QLabel(window)
        self.label.setObjectName("pinnedNodeLabel")
        self.label.setToolTip("The main preview shows this node's output; right-click the node to unpin")
        window.statusBar().addPermanentWidget(self.label)
        self.unpin_action = QAction("Unpin Node Preview", window)
        self.unpin_action.setStatusTip("The main preview shows the material again")
        self.unpin_action.triggered.connect(lambda _checked=False: self.set_pinned(None))
        self.unpin_action.setEnabled(False)
        self.session.document_changed.connect(lambda _document: self.set_pinned(None, show=False))

    def set_pinned(self, node_id: str | None, show: bool = True) -> None:
        """Pin `node_id` (None: unpin) and show the result in the main preview."""
        previous = self.window.graph.node_by_stable_id(self.pinned) if self.pinned is not None else None
        if previous is not None:
            previous.view.set_pinned(False)
        self.pinned = node_id
        current = self.window.graph.node_by_stable_id(node_id) if node_id is not None else None
        if current is not None:
            current.view.set_pinned(True)
        self._shown = None
        self.problem = ""
        self._update_label()
        if show and self.session.result is not None and self.session.result.verified is not None:
            self.window.presenter.show_program()

    def _update_label(self) -> None:
        node_id = self.pinned
        self.unpin_action.setEnabled(node_id is not None)
        label = self.window.graph_editor.annotations.node_label(node_id) if node_id is not None else ""
        self.label.setText(f"Preview pinned to {label}" if node_id is not None else "")

    def show_program(self) -> bool:
        """Hand the main preview the pinned node's program; False when nothing is pinned (show the material).

        Called by the presenter instead of showing the material's program.
        Lowers the pinned sub-graph on the UI thread, as the material's own
        lowering does (a sub-graph is never larger than the material).
        """
        node_id = self.pinned
        if node_id is None or self.session.read_only:
            return False
        preview = self.window.preview
        program = node_program(self.session.graph, node_id, preview.target)
        if program is None:  # the node is gone (or shows nothing any more): back to the material
            self.set_pinned(None, show=False)
            return False
        artifact, problem = program.artifact, program.problem
        self.problem = problem
        self._update_label()
        if problem or artifact is None:
            self._shown = None
            preview.show_problem(f"The pinned node {self.window.graph_editor.annotations.node_label(node_id)} cannot be previewed: "
                                 f"{problem}")
            return True
        passes = self.session.preview_passes(preview.target)  # a buffer or filter node shows its texture
        if passes is not None and node_id in passes.problems:  # a refused pass node, or one reading it
            self._shown = None
            preview.show_problem(f"The pinned node {self.window.graph_editor.annotations.node_label(node_id)} cannot be "
                                 f"previewed: {passes.problems[node_id]}")
            return True
        key = (artifact.vertex_code, artifact.fragment_code, id(passes))
        if key != self._shown:
            self._shown = key
            preview.set_artifact(artifact, self.session.parameters.specs, self.session.preview_values(), passes)
        return True

