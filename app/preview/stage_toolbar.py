"""The preview's stage toolbar: mesh, environment, background, exposure, tone mapper, light, animation, camera.

`StageToolbar` edits an `app.preview.stage.Stage` and emits `stageChanged`
with a copy after every change; it remembers the stage per user in
`QSettings` (key `preview/stage`, JSON of `Stage.to_dict`), so the next
session opens with it. `PreviewPanel` puts the toolbar above a preview
(`PreviewWidget` or `UnavailablePreview`) and wires them: stage changes go to
`preview.set_stage`, the play button to `set_playing` (and follows
`playingChanged`, since a material that uses Time starts the animation by
itself), the other buttons to `reset_time` / `reset_camera`. A host adds
the panel where it used to add the preview.

File and colour choices go through injectable choosers (`choose_mesh_file`,
`choose_environment_file`, `choose_color`) so tests drive the toolbar
without modal dialogs.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QMenu,
    QSlider,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from app.preview.mesh import MESH_NAMES
from app.preview.post import TONE_MAPPERS
from app.preview.stage import BACKGROUNDS, EXTRA_LIGHTS, MAX_LIGHT_SIZE, Stage, environment_names

if TYPE_CHECKING:
    from app.preview.host import PreviewHostWidget

SETTINGS_KEY = "preview/stage"
MESH_FILE_ITEM = "Mesh file…"
ENVIRONMENT_FILE_ITEM = "HDR file…"
BACKGROUND_TITLES = {"environment": "Environment", "blurred": "Blurred environment", "color": "Plain colour"}
#: Titles of names that do not read well capitalized.
TITLES = {"none": "Grey ambient"}

Chooser = Callable[[QWidget], str | None]
ColorChooser = Callable[[QWidget, tuple[float, float, float]], tuple[float, float, float] | None]


def _pick_mesh_file(parent: QWidget) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Preview mesh", "", "Meshes (*.obj *.gltf *.glb);;All files (*)")
    return path or None


def _pick_environment_file(parent: QWidget) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Lighting environment", "", "HDR images (*.hdr *.exr);;All files (*)")
    return path or None


def _pick_color(parent: QWidget, current: tuple[float, float, float]) -> tuple[float, float, float] | None:
    chosen = QColorDialog.getColor(QColor.fromRgbF(*current), parent, "Colour")
    return (chosen.redF(), chosen.greenF(), chosen.blueF()) if chosen.isValid() else None


def _swatch(button: QToolButton, rgb: tuple[float, float, float]) -> None:
    color = QColor.fromRgbF(*(min(max(c, 0.0), 1.0) for c in rgb))
    button.setStyleSheet(f"QToolButton {{ background: {color.name()}; min-width: 18px; }}")


class StageToolbar(QWidget):
    """Edits a `Stage`; see the module docstring."""

    stageChanged = Signal(object)  # a Stage (a copy)
    playToggled = Signal(bool)
    timeResetRequested = Signal()
    cameraResetRequested = Signal()

    def __init__(
        self,
        parent: QWidget | None = None,
        settings: QSettings | None = None,
        choose_mesh_file: Chooser = _pick_mesh_file,
        choose_environment_file: Chooser = _pick_environment_file,
        choose_color: ColorChooser = _pick_color,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("stageToolbar")
        self._settings = settings
        self._choose_mesh_file = choose_mesh_file
        self._choose_environment_file = choose_environment_file
        self._choose_color = choose_color
        self._stage = self._stored_stage()
        self._updating = False
        self._build()
        self._show(self._stage)

    # ---- state -----------------------------------------------------------------------------

    @property
    def stage(self) -> Stage:
        return copy.deepcopy(self._stage)

    def set_stage(self, stage: Stage) -> None:
        """Show `stage` (from a document, say) and announce it."""
        self._stage = copy.deepcopy(stage)
        self._show(self._stage)
        self._changed()

    def set_playing(self, playing: bool) -> None:
        """Reflect the preview's animation state without emitting `playToggled`."""
        self.play_button.blockSignals(True)
        self.play_button.setChecked(playing)
        self.play_button.blockSignals(False)
        self._show_play_icon(playing)

    def _stored_stage(self) -> Stage:
        if self._settings is None:
            return Stage()
        stored = self._settings.value(SETTINGS_KEY)
        try:
            data = json.loads(stored) if isinstance(stored, str) else None
        except ValueError:
            data = None  # a damaged setting: the default stage
        return Stage.from_dict(data)

    def _changed(self) -> None:
        if self._settings is not None:
            self._settings.setValue(SETTINGS_KEY, json.dumps(self._stage.to_dict()))
        self.stageChanged.emit(self.stage)

    # ---- widgets ---------------------------------------------------------------------------

    def _build(self) -> None:
        style = self.style()
        self.mesh_box = QComboBox(self)
        self.mesh_box.setObjectName("stageMesh")
        self.mesh_box.setToolTip("The mesh the material is shown on")
        self.environment_box = QComboBox(self)
        self.environment_box.setObjectName("stageEnvironment")
        self.environment_box.setToolTip("The lighting environment (image-based lighting)")
        self.background_box = QComboBox(self)
        self.background_box.setObjectName("stageBackground")
        self.background_box.setToolTip("What is behind the mesh")
        for name in BACKGROUNDS:
            self.background_box.addItem(BACKGROUND_TITLES[name], name)
        self.background_color_button = QToolButton(self)
        self.background_color_button.setObjectName("stageBackgroundColor")
        self.background_color_button.setToolTip("Background colour")

        self.exposure_box = QDoubleSpinBox(self)
        self.exposure_box.setObjectName("stageExposure")
        self.exposure_box.setRange(-10.0, 10.0)
        self.exposure_box.setSingleStep(0.25)
        self.exposure_box.setDecimals(2)
        self.exposure_box.setSuffix(" EV")
        self.exposure_box.setToolTip("Exposure in stops: each step of 1 doubles the light")
        self.tone_box = QComboBox(self)
        self.tone_box.setObjectName("stageToneMapper")
        self.tone_box.setToolTip("Tone mapper: how HDR light becomes display colour")
        for name, title in TONE_MAPPERS.items():
            self.tone_box.addItem(title, name)

        self.light_button = QToolButton(self)
        self.light_button.setObjectName("stageLight")
        self.light_button.setText("Light")
        self.light_button.setToolTip("The key light (direction, intensity, colour) and the environment's rotation and intensity")
        self.light_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.light_button)
        panel = QWidget(menu)
        form = QFormLayout(panel)
        self.azimuth_slider = QSlider(Qt.Orientation.Horizontal, panel)
        self.azimuth_slider.setRange(-180, 180)
        self.azimuth_slider.setObjectName("stageLightAzimuth")
        self.elevation_slider = QSlider(Qt.Orientation.Horizontal, panel)
        self.elevation_slider.setRange(-90, 90)
        self.elevation_slider.setObjectName("stageLightElevation")
        self.intensity_box = QDoubleSpinBox(panel)
        self.intensity_box.setRange(0.0, 1000.0)
        self.intensity_box.setDecimals(2)
        self.intensity_box.setSingleStep(0.25)
        self.intensity_box.setObjectName("stageLightIntensity")
        self.light_color_button = QToolButton(panel)
        self.light_color_button.setObjectName("stageLightColor")
        self.rotation_slider = QSlider(Qt.Orientation.Horizontal, panel)
        self.rotation_slider.setRange(-180, 180)
        self.rotation_slider.setObjectName("stageEnvironmentRotation")
        self.environment_intensity_box = QDoubleSpinBox(panel)
        self.environment_intensity_box.setRange(0.0, 100.0)
        self.environment_intensity_box.setDecimals(2)
        self.environment_intensity_box.setSingleStep(0.1)
        self.environment_intensity_box.setObjectName("stageEnvironmentIntensity")
        form.addRow("Key light azimuth", self.azimuth_slider)
        form.addRow("Key light elevation", self.elevation_slider)
        form.addRow("Key light intensity", self.intensity_box)
        form.addRow("Key light colour", self.light_color_button)
        self.light_size_box = QDoubleSpinBox(panel)
        self.light_size_box.setRange(0.0, MAX_LIGHT_SIZE)
        self.light_size_box.setDecimals(1)
        self.light_size_box.setSuffix("°")
        self.light_size_box.setObjectName("stageLightSize")
        self.light_size_box.setToolTip("The key light's size: 0 keeps a fixed soft edge; larger lights give wider "
                                       "penumbrae farther from the occluder")
        form.addRow("Key light size", self.light_size_box)
        # The fill and rim lights (Stage.set_extra_light): on, direction, intensity, colour.
        self.extra_controls: dict[str, tuple[QCheckBox, QSlider, QSlider, QDoubleSpinBox, QToolButton]] = {}
        for which in EXTRA_LIGHTS:
            title = which.capitalize()
            on = QCheckBox(f"{title} light", panel)
            on.setObjectName(f"stage{title}Light")
            on.setToolTip(f"The {which} light (no shadows)")
            azimuth = QSlider(Qt.Orientation.Horizontal, panel)
            azimuth.setRange(-180, 180)
            azimuth.setObjectName(f"stage{title}Azimuth")
            elevation = QSlider(Qt.Orientation.Horizontal, panel)
            elevation.setRange(-90, 90)
            elevation.setObjectName(f"stage{title}Elevation")
            intensity = QDoubleSpinBox(panel)
            intensity.setRange(0.0, 1000.0)
            intensity.setDecimals(2)
            intensity.setSingleStep(0.25)
            intensity.setObjectName(f"stage{title}Intensity")
            color = QToolButton(panel)
            color.setObjectName(f"stage{title}Color")
            form.addRow("", on)
            form.addRow(f"{title} azimuth", azimuth)
            form.addRow(f"{title} elevation", elevation)
            form.addRow(f"{title} intensity", intensity)
            form.addRow(f"{title} colour", color)
            self.extra_controls[which] = (on, azimuth, elevation, intensity, color)
        form.addRow("Environment rotation", self.rotation_slider)
        form.addRow("Environment intensity", self.environment_intensity_box)
        # Switches of the stage (Stage.set_switches): object name -> (label, tooltip).
        self.switch_boxes: dict[str, QCheckBox] = {}
        for name, label, tip in (
            ("light", "Key light", "The key light on (off: only the environment lights the material)"),
            ("shadows", "Shadows", "The key light casts soft shadows on the mesh (and the ground)"),
            ("ground", "Ground", "A ground under the mesh that catches its shadow and contact occlusion"),
            ("occlusion", "Ambient occlusion", "Occlusion from the mesh's own geometry on the environment's light"),
        ):
            box = QCheckBox(label, panel)
            box.setObjectName(f"stageSwitch{name.capitalize()}")
            box.setToolTip(tip)
            box.toggled.connect(lambda checked, switch=name: self._apply(lambda: self._stage.set_switches(**{switch: checked})))
            self.switch_boxes[name] = box
            form.addRow("", box)
        action = QWidgetAction(menu)
        action.setDefaultWidget(panel)
        menu.addAction(action)
        self.light_button.setMenu(menu)

        self.play_button = QToolButton(self)
        self.play_button.setObjectName("stagePlay")
        self.play_button.setCheckable(True)
        self.play_button.setToolTip("Play or pause the animation (materials that use Time play by themselves)")
        self._show_play_icon(False)
        self.restart_button = QToolButton(self)
        self.restart_button.setObjectName("stageRestart")
        self.restart_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_MediaSkipBackward))
        self.restart_button.setToolTip("Time back to 0")
        self.camera_button = QToolButton(self)
        self.camera_button.setObjectName("stageResetCamera")
        self.camera_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_BrowserReload))
        self.camera_button.setToolTip("Reset the camera (or double-click the preview)")

        top = QHBoxLayout()
        widget: QWidget
        for widget in (self.mesh_box, self.environment_box, self.background_box, self.background_color_button):
            top.addWidget(widget)
        top.addStretch(1)
        bottom = QHBoxLayout()
        for widget in (self.exposure_box, self.tone_box, self.light_button, self.play_button, self.restart_button, self.camera_button):
            bottom.addWidget(widget)
        bottom.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addLayout(bottom)

        self.mesh_box.activated.connect(self._mesh_chosen)
        self.environment_box.activated.connect(self._environment_chosen)
        self.background_box.activated.connect(self._background_chosen)
        self.background_color_button.clicked.connect(self._pick_background_color)
        self.exposure_box.valueChanged.connect(self._exposure_changed)
        self.tone_box.activated.connect(self._tone_chosen)
        self.azimuth_slider.valueChanged.connect(self._light_moved)
        self.elevation_slider.valueChanged.connect(self._light_moved)
        self.intensity_box.valueChanged.connect(self._light_moved)
        self.light_color_button.clicked.connect(self._pick_light_color)
        self.rotation_slider.valueChanged.connect(self._environment_adjusted)
        self.light_size_box.valueChanged.connect(lambda value: self._apply(lambda: self._stage.set_light_size(value)))
        for which, (on, azimuth, elevation, intensity, color) in self.extra_controls.items():
            on.toggled.connect(lambda checked, which=which: self._apply(lambda: self._stage.set_extra_light(which, enabled=checked)))
            for control in (azimuth, elevation, intensity):
                control.valueChanged.connect(lambda *_, which=which: self._extra_light_moved(which))
            color.clicked.connect(lambda *_, which=which: self._pick_extra_color(which))
        self.environment_intensity_box.valueChanged.connect(self._environment_adjusted)
        self.play_button.toggled.connect(self._play_toggled)
        self.restart_button.clicked.connect(self.timeResetRequested)
        self.camera_button.clicked.connect(self.cameraResetRequested)

    def _show_play_icon(self, playing: bool) -> None:
        icon = QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        self.play_button.setIcon(self.style().standardIcon(icon))

    def _fill(self, box: QComboBox, names: list[str], current: str, file_item: str) -> None:
        box.clear()
        for name in names:
            box.addItem(TITLES.get(name, name.capitalize()), name)
        if current not in names:
            box.addItem(current.replace("\\", "/").rsplit("/", 1)[-1], current)
        box.addItem(file_item, None)
        box.setCurrentIndex(max(box.findData(current), 0))

    def _show(self, stage: Stage) -> None:
        self._updating = True
        try:
            self._fill(self.mesh_box, list(MESH_NAMES), stage.mesh, MESH_FILE_ITEM)
            self._fill(self.environment_box, environment_names(), stage.environment, ENVIRONMENT_FILE_ITEM)
            self.background_box.setCurrentIndex(max(self.background_box.findData(stage.background), 0))
            _swatch(self.background_color_button, stage.background_color)
            self.exposure_box.setValue(stage.exposure)
            self.tone_box.setCurrentIndex(max(self.tone_box.findData(stage.tone_mapper), 0))
            self.azimuth_slider.setValue(round(stage.light_azimuth))
            self.elevation_slider.setValue(round(stage.light_elevation))
            self.intensity_box.setValue(stage.light_intensity)
            _swatch(self.light_color_button, stage.light_color)
            self.rotation_slider.setValue(round(stage.environment_rotation))
            self.environment_intensity_box.setValue(stage.environment_intensity)
            for name, on in (("light", stage.light_enabled), ("shadows", stage.shadows), ("ground", stage.ground),
                             ("occlusion", stage.occlusion)):
                self.switch_boxes[name].setChecked(on)
            self.light_size_box.setValue(stage.light_size)
            for which, (on_box, azimuth, elevation, intensity, color) in self.extra_controls.items():
                on_box.setChecked(getattr(stage, f"{which}_enabled"))
                azimuth.setValue(round(getattr(stage, f"{which}_azimuth")))
                elevation.setValue(round(getattr(stage, f"{which}_elevation")))
                intensity.setValue(getattr(stage, f"{which}_intensity"))
                _swatch(color, getattr(stage, f"{which}_color"))
        finally:
            self._updating = False

    # ---- reactions -------------------------------------------------------------------------

    def _apply(self, change: Callable[[], Any]) -> None:
        """Run a validated change on the stage; a refused value puts the controls back."""
        if self._updating:
            return
        try:
            change()
        except ValueError:
            self._show(self._stage)
            return
        self._changed()

    def _mesh_chosen(self, index: int) -> None:
        value = self.mesh_box.itemData(index)
        if value is None:
            value = self._choose_mesh_file(self)
            if value is None:
                self._show(self._stage)
                return
        def choose() -> None:
            self._stage.set_mesh(value)
            self._stage.set_camera(None)  # a new mesh is shown from its own three-quarter view

        self._apply(choose)
        self._show(self._stage)

    def _environment_chosen(self, index: int) -> None:
        value = self.environment_box.itemData(index)
        if value is None:
            value = self._choose_environment_file(self)
            if value is None:
                self._show(self._stage)
                return
        self._apply(lambda: self._stage.set_environment(value))
        self._show(self._stage)

    def _background_chosen(self, index: int) -> None:
        self._apply(lambda: self._stage.set_background(self.background_box.itemData(index)))

    def _pick_background_color(self) -> None:
        chosen = self._choose_color(self, self._stage.background_color)
        if chosen is not None:
            self._apply(lambda: self._stage.set_background(self._stage.background, chosen))
            _swatch(self.background_color_button, self._stage.background_color)

    def _exposure_changed(self, value: float) -> None:
        self._apply(lambda: self._stage.set_exposure(value))

    def _tone_chosen(self, index: int) -> None:
        self._apply(lambda: self._stage.set_tone_mapper(self.tone_box.itemData(index)))

    def _light_moved(self, *_: object) -> None:
        self._apply(lambda: self._stage.set_light(
            azimuth=self.azimuth_slider.value(), elevation=self.elevation_slider.value(), intensity=self.intensity_box.value()))

    def _environment_adjusted(self, *_: object) -> None:
        self._apply(lambda: self._stage.set_environment(
            self._stage.environment, rotation=self.rotation_slider.value(), intensity=self.environment_intensity_box.value()))

    def _pick_light_color(self) -> None:
        chosen = self._choose_color(self, self._stage.light_color)
        if chosen is not None:
            self._apply(lambda: self._stage.set_light(color=chosen))
            _swatch(self.light_color_button, self._stage.light_color)

    def _extra_light_moved(self, which: str) -> None:
        _on, azimuth, elevation, intensity, _color = self.extra_controls[which]
        self._apply(lambda: self._stage.set_extra_light(which, azimuth=azimuth.value(), elevation=elevation.value(),
                                                        intensity=intensity.value()))

    def _pick_extra_color(self, which: str) -> None:
        chosen = self._choose_color(self, getattr(self._stage, f"{which}_color"))
        if chosen is not None:
            self._apply(lambda: self._stage.set_extra_light(which, color=chosen))
            _swatch(self.extra_controls[which][4], getattr(self._stage, f"{which}_color"))

    def _play_toggled(self, playing: bool) -> None:
        self._show_play_icon(playing)
        self.playToggled.emit(playing)


class PreviewPanel(QWidget):
    """A `StageToolbar` above a preview, wired to it (see the module docstring)."""

    def __init__(self, preview: PreviewHostWidget, parent: QWidget | None = None, settings: QSettings | None = None,
                 **choosers: Any) -> None:
        super().__init__(parent)
        self.setObjectName("previewPanel")
        self.preview = preview
        self.toolbar = StageToolbar(self, settings, **choosers)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.toolbar)
        layout.addWidget(preview, 1)
        preview.set_stage(self.toolbar.stage)
        self.toolbar.stageChanged.connect(preview.set_stage)
        edited = getattr(preview, "stageEdited", None)  # the GL preview: the light or environment dragged
        if edited is not None:
            edited.connect(self.toolbar.set_stage)
        self.toolbar.playToggled.connect(preview.set_playing)
        self.toolbar.timeResetRequested.connect(preview.reset_time)
        self.toolbar.cameraResetRequested.connect(preview.reset_camera)
        preview.playingChanged.connect(self.toolbar.set_playing)
        self.toolbar.set_playing(preview.playing)
