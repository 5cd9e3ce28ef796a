"""ParametersPanel: one editor per spec, signals, dialogs (replaced), values from the ParameterModel."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from app.material.parameters import ParameterKind, ParameterSpec
from app.preview.parameters_panel import ParametersPanel
from app.session.parameters import ParameterModel
from vpl_core.ir.types import FLOAT, SAMPLER2D, Field, RecordType, mat, vec

ROUGHNESS = ParameterSpec("roughness", ParameterKind.FLOAT, FLOAT, 0.5, 0.0, 2.0, label="Roughness")
OFFSET = ParameterSpec("offset", ParameterKind.VECTOR, vec(3), (0.0, 1.0, 2.0))
TINT = ParameterSpec("tint", ParameterKind.COLOR, vec(4), (1.0, 0.0, 0.0, 1.0))
ALBEDO = ParameterSpec("albedo", ParameterKind.TEXTURE, SAMPLER2D, None)
RECORD = ParameterSpec("light", ParameterKind.OTHER, RecordType("Light", [Field("m", mat(4))]), None)
SPECS = [ROUGHNESS, OFFSET, TINT, ALBEDO, RECORD]


@pytest.fixture
def panel(qtbot):
    panel = ParametersPanel()
    qtbot.addWidget(panel)
    panel.set_parameters(SPECS)
    return panel


def test_one_editor_per_parameter_with_defaults(panel: ParametersPanel) -> None:
    assert [spec.name for spec in panel.specs] == ["roughness", "offset", "tint", "albedo", "light"]
    assert panel.values() == {"roughness": 0.5, "offset": (0.0, 1.0, 2.0), "tint": (1.0, 0.0, 0.0, 1.0),
                              "albedo": None, "light": None}
    roughness = panel.editor("roughness")
    assert roughness.spin.maximum() == 2.0 and roughness.slider.value() == 250
    assert len(panel.editor("offset").spins) == 3
    assert panel.editor("albedo").button.text() == "Checker (default)"
    assert isinstance(panel.editor("light"), QLabel) and not panel.editor("light").isEnabled()


def test_slider_and_spin_box_emit_values(qtbot, panel: ParametersPanel) -> None:
    roughness = panel.editor("roughness")
    with qtbot.waitSignal(panel.parameterChanged) as emitted:
        roughness.slider.setValue(1000)
    assert emitted.args == ["roughness", 2.0]
    assert roughness.spin.value() == 2.0
    with qtbot.waitSignal(panel.parameterChanged) as emitted:
        roughness.spin.setValue(1.0)
    assert emitted.args == ["roughness", 1.0] and roughness.slider.value() == 500
    with qtbot.waitSignal(panel.parameterChanged) as emitted:
        panel.editor("offset").spins[1].setValue(-3.0)
    assert emitted.args == ["offset", (0.0, -3.0, 2.0)]


def test_colour_button_uses_the_colour_dialog(qtbot, panel: ParametersPanel, monkeypatch) -> None:
    asked = []

    def pick(initial: QColor, parent, with_alpha: bool) -> QColor:
        asked.append((initial.name(), with_alpha))
        return QColor.fromRgbF(0.0, 0.5, 1.0, 0.25)

    monkeypatch.setattr(ParametersPanel, "pick_color", pick)
    with qtbot.waitSignal(panel.parameterChanged) as emitted:
        panel.editor("tint").click()
    assert asked == [("#ff0000", True)]
    name, value = emitted.args
    # The dialog answers in display terms (sRGB 0.5); the material stores linear values (0.214).
    assert name == "tint" and value == pytest.approx((0.0, 0.214, 1.0, 0.25), abs=1 / 255)


def test_colour_button_shows_display_hex_with_alpha_apart(panel: ParametersPanel) -> None:
    panel.set_parameters(SPECS, {"tint": (1.0, 0.2158, 0.0, 0.03)})
    button = panel.editor("tint")
    # Not `#08ff3600` (alpha first, linear values): the colour as it looks, then its alpha.
    assert button.text() == "#ff8000  α 0.03"
    assert "linear RGB 1.000, 0.216, 0.000" in button.toolTip()


def test_cancelled_colour_dialog_changes_nothing(qtbot, panel: ParametersPanel, monkeypatch) -> None:
    monkeypatch.setattr(ParametersPanel, "pick_color", lambda initial, parent, alpha: QColor())
    with qtbot.assertNotEmitted(panel.parameterChanged):
        panel.editor("tint").click()
    assert panel.values()["tint"] == (1.0, 0.0, 0.0, 1.0)


def test_image_picker_shows_the_file_name_and_resets(qtbot, panel: ParametersPanel, monkeypatch) -> None:
    monkeypatch.setattr(ParametersPanel, "pick_image", lambda parent: "/textures/bricks.png")
    editor = panel.editor("albedo")
    with qtbot.waitSignal(panel.textureChanged) as emitted:
        editor.button.click()
    assert emitted.args == ["albedo", "/textures/bricks.png"]
    assert editor.button.text() == "bricks.png" and editor.reset.isEnabled()
    with qtbot.waitSignal(panel.textureChanged) as emitted:
        editor.reset.click()
    assert emitted.args == ["albedo", None] and editor.button.text() == "Checker (default)"


def test_recompile_keeps_the_artists_values_through_the_model(panel: ParametersPanel) -> None:
    """The panel shows what the ParameterModel holds; the model carries values over (one rule)."""
    model = ParameterModel()
    model.specs_changed.connect(lambda specs: panel.set_parameters(specs, model.values))
    model.value_changed.connect(lambda change: panel.set_value(change.name, change.value))
    panel.parameterChanged.connect(model.set_value)
    model.set_specs(SPECS)
    panel.editor("roughness").spin.setValue(1.5)
    panel.editor("offset").spins[0].setValue(7.0)
    assert model.values["roughness"] == 1.5 and model.values["offset"] == (7.0, 1.0, 2.0)
    editor = panel.editor("roughness")
    wider = ParameterSpec("roughness", ParameterKind.FLOAT, FLOAT, 0.5, 0.0, 4.0, label="Rough")
    model.set_specs([wider, OFFSET, TINT, ALBEDO, RECORD])
    assert panel.editor("roughness") is editor  # same shape: editors kept, ranges updated
    assert editor.spin.maximum() == 4.0 and editor.spin.value() == 1.5
    assert panel.values()["offset"] == (7.0, 1.0, 2.0)
    # A new parameter list rebuilds, still keeping what survived with the same type.
    model.set_specs([OFFSET, ParameterSpec("roughness", ParameterKind.VECTOR, vec(2), (0.0, 0.0))])
    assert panel.values() == {"offset": (7.0, 1.0, 2.0), "roughness": (0.0, 0.0)}


def test_the_panel_keeps_no_values_of_its_own(panel: ParametersPanel) -> None:
    panel.editor("roughness").spin.setValue(1.5)
    panel.set_parameters(SPECS)  # no values given: the defaults show
    assert panel.values()["roughness"] == 0.5


def test_explicit_values_win(panel: ParametersPanel) -> None:
    panel.set_parameters(SPECS, {"roughness": 0.25, "albedo": "/x/wood.jpg"})
    assert panel.editor("roughness").spin.value() == 0.25
    assert panel.editor("albedo").button.text() == "wood.jpg"


def test_empty_material(qtbot) -> None:
    panel = ParametersPanel()
    qtbot.addWidget(panel)
    panel.set_parameters([])
    assert panel.values() == {}
