"""File > Bake Textures..., Export glTF..., Export MaterialX... in the real window (Xvfb, real OpenGL).

The prompts answer the export dialog; the export then runs under its
progress dialog. Checked: the files written (and read back by their own
libraries), the notes shown, Cancel pressed while the bake runs (nothing
written), and a bad answer reported without losing anything.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from app.export import mtlx
from app.ui.export_dialog import ExportDialog, ExportKind, ExportRequest

MATERIALX_EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "materialx" / "Materials" / "Examples"

pytestmark = pytest.mark.gl


def test_the_file_menu_has_the_export_actions(window) -> None:
    file_menu = window.menuBar().actions()[0].menu()
    texts = [action.text() for action in file_menu.actions()]
    for action in (window.bake_action, window.export_gltf_action, window.export_mtlx_action, window.import_mtlx_action):
        assert action.text() in texts and action.isEnabled()


def test_bake_textures_writes_the_maps(window, prompts, qtbot, tmp_path: Path) -> None:
    prompts.export_request = ExportRequest(tmp_path / "maps", size=256)
    window.bake_action.trigger()
    kind, suggested = prompts.named("choose_export_target")[0]
    assert kind is ExportKind.BAKE and suggested.endswith("material_textures")
    manifest = json.loads((tmp_path / "maps" / "bake.json").read_text())
    assert manifest["size"] == 256
    assert (tmp_path / "maps" / "base_color.png").exists()
    assert prompts.named("show_error") == []
    assert "Baked textures" in window.statusBar().currentMessage()
    # The preview still draws in its own context afterwards.
    image = window.preview.grabFramebuffer()
    assert not image.isNull() and not window.preview.error_text


def test_export_gltf_and_materialx_of_a_procedural_material(window, prompts, tmp_path: Path) -> None:
    import pygltflib

    window.load_example("brushed_metal")
    prompts.export_request = ExportRequest(tmp_path / "brushed.glb", size=256)
    assert window.exports.export_gltf_dialog()
    document = pygltflib.GLTF2().load(str(tmp_path / "brushed.glb"))
    assert len(document.materials) == 1 and document.materials[0].normalTexture is not None
    prompts.export_request = ExportRequest(tmp_path / "brushed.mtlx", size=256)
    assert window.exports.export_mtlx_dialog()
    text = (tmp_path / "brushed.mtlx").read_text()
    assert mtlx.validate(text)[0]
    title, _message, notes = prompts.named("show_notes")[-1]
    assert title == "Export MaterialX" and any("Value Noise" in note and ".exr" in note for note in notes)
    assert all((tmp_path / name).exists() for name in ("material_n2_out.exr", "material_n4_normal_out.exr"))


def test_import_materialx_opens_the_mapped_graph_and_lists_the_rest(window, prompts, tmp_path: Path) -> None:
    window.load_example("polished_gold")
    prompts.export_request = ExportRequest(tmp_path / "gold.mtlx", size=256)
    assert window.exports.export_mtlx_dialog()
    text = (tmp_path / "gold.mtlx").read_text()
    # An extra shader input the Surface Output does not have, and a node the editor has no counterpart for.
    text = text.replace('<input name="alpha_mode"', '<input name="specular_color" type="color3" value="0.5, 0.5, 0.5" />\n    <input name="alpha_mode"')
    (tmp_path / "gold.mtlx").write_text(text)
    prompts.mtlx_path = str(tmp_path / "gold.mtlx")
    window.import_mtlx_action.trigger()
    assert window.session.name == "gold (MaterialX)" and window.session.path is None
    assert {node.type_name for node in window.session.graph.nodes.values()} >= {"surface_output", "color_parameter"}
    title, _message, notes = prompts.named("show_notes")[-1]
    assert title == "Import MaterialX" and any("specular_color" in note for note in notes)
    broken = tmp_path / "broken.mtlx"
    broken.write_text("<materialx")
    prompts.mtlx_path = str(broken)
    assert not window.exports.import_mtlx_dialog()
    assert prompts.named("show_error")[-1][0] == "Cannot import MaterialX"
    assert window.session.name == "gold (MaterialX)"  # nothing lost


def test_import_of_a_document_of_several_materials_asks_which(window, prompts) -> None:
    chess = MATERIALX_EXAMPLES / "StandardSurface" / "standard_surface_chess_set.mtlx"
    prompts.mtlx_path = str(chess)
    window.load_example("polished_gold")
    assert not window.exports.import_mtlx_dialog()  # cancelled: nothing opened, nothing lost
    document, names = prompts.named("choose_mtlx_material")[-1]
    assert document == chess.name and len(names) == 15 and "M_Queen_W" in names
    assert window.session.graph.nodes and window.session.name != "standard_surface_chess_set (MaterialX)"
    prompts.mtlx_path = str(chess)
    prompts.mtlx_material = "M_Queen_W"
    assert window.exports.import_mtlx_dialog()
    assert window.session.name == "standard_surface_chess_set: M_Queen_W (MaterialX)"
    title, _message, notes = prompts.named("show_notes")[-1]
    assert title == "Import MaterialX" and any("M_Bishop_B" in note for note in notes)
    assert not any("M_Queen_W" in note for note in notes)


def test_cancel_stops_the_bake_and_writes_nothing(window, prompts, tmp_path: Path) -> None:
    prompts.export_request = ExportRequest(tmp_path / "maps", size=1024)
    pressed = []

    def press_cancel() -> None:  # runs inside the bake, when the progress dialog processes events
        dialog = window.exports.progress_dialog
        if dialog is None:
            QTimer.singleShot(0, press_cancel)
            return
        pressed.append(dialog.labelText())
        dialog.cancel()

    QTimer.singleShot(0, press_cancel)
    assert not window.exports.bake_dialog()
    assert pressed and not (tmp_path / "maps").exists()
    assert "cancelled" in window.statusBar().currentMessage()
    assert window.exports.progress_dialog is None and prompts.named("show_error") == []


def test_a_bad_request_is_reported(window, prompts, tmp_path: Path) -> None:
    prompts.export_request = ExportRequest(tmp_path / "maps", size=100)
    assert not window.exports.bake_dialog()
    title, message, _details = prompts.named("show_error")[0]
    assert title == "Cannot bake textures" and "between 256 and 4096" in message
    prompts.export_request = ExportRequest(tmp_path / "x.glb", size=256, mesh=str(tmp_path / "missing.obj"))
    assert not window.exports.export_gltf_dialog()
    assert len(prompts.named("show_error")) == 2 and not (tmp_path / "x.glb").exists()
    prompts.export_request = None  # the dialog cancelled
    assert not window.exports.export_mtlx_dialog()


def test_the_dialog_gives_a_request(qtbot, tmp_path: Path) -> None:
    dialog = ExportDialog(None, ExportKind.GLTF, str(tmp_path / "out"))
    qtbot.addWidget(dialog)
    dialog.size_box.setCurrentIndex(dialog.size_box.findData(2048))
    dialog.supersampling_box.setCurrentIndex(dialog.supersampling_box.findData(2))
    dialog.mesh_box.setCurrentText("torus")
    assert dialog.request() == ExportRequest(tmp_path / "out.glb", 2048, 2, "torus")
    dialog.path_edit.setText("")
    assert dialog.request() is None


def test_the_material_question_lists_the_document_s_materials_and_returns_the_choice(qtbot) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QComboBox, QDialogButtonBox, QInputDialog, QLabel

    from app.ui.dialogs import choose_mtlx_material

    names = ["M_Bishop_B", "M_Queen_W", "M_Chessboard"]
    seen: list[tuple[str, list[str]]] = []

    def answer(choice: int | None) -> None:
        """Runs in the dialog's own event loop: picks with the keyboard, then presses OK or Cancel."""
        qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QInputDialog))
        dialog = QApplication.activeModalWidget()
        try:
            box = dialog.findChild(QComboBox)
            seen.append((dialog.findChild(QLabel).text(), [box.itemText(index) for index in range(box.count())]))
            for _ in range(choice or 0):
                qtbot.keyClick(box, Qt.Key.Key_Down)
            buttons = dialog.findChild(QDialogButtonBox)
            button = QDialogButtonBox.StandardButton.Cancel if choice is None else QDialogButtonBox.StandardButton.Ok
            qtbot.mouseClick(buttons.button(button), Qt.MouseButton.LeftButton)
        finally:
            if dialog.isVisible():  # a failed check above must not leave the test waiting on the dialog
                dialog.reject()

    def ask(choice: int | None) -> str | None:
        timer = QTimer()  # stopped afterwards: an unanswered timer never fires in a later test
        timer.setSingleShot(True)
        timer.timeout.connect(lambda: answer(choice))
        timer.start(0)
        try:
            return choose_mtlx_material(None, "chess.mtlx", names)
        finally:
            timer.stop()

    assert ask(1) == "M_Queen_W"
    assert ask(None) is None
    assert seen == [("chess.mtlx has 3 materials. Import:", names)] * 2
