"""The window's menu bar: File, Edit, View and Help, filled with the actions of the window's command objects."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from app.material.examples import example_description, example_names
from app.ui.recent_files import RecentFiles

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


def _fill(menu: QMenu, items: Sequence[QAction | QMenu | None]) -> None:
    """Add `items` to `menu` (None: a separator)."""
    for item in items:
        if item is None:
            menu.addSeparator()
        elif isinstance(item, QMenu):
            menu.addMenu(item)
        else:
            menu.addAction(item)


def build_menu_bar(window: MainWindow) -> tuple[QMenu, QMenu, RecentFiles]:
    """Fill the window's menu bar; the Open Recent and Open Example menus, and the recent files list."""
    bar, edit, groups, inspection = window.menuBar(), window.edit, window.groups, window.inspection
    recent_menu = QMenu("Open &Recent", window)
    examples_menu = QMenu("Open E&xample", window)
    examples_menu.setToolTipsVisible(True)
    for name in example_names():
        action = examples_menu.addAction(name)
        action.setToolTip(example_description(name))
        action.setStatusTip(example_description(name))
        action.triggered.connect(lambda _checked=False, example=name: window.files.open_example_interactive(example))
    _fill(bar.addMenu("&File"), [
        window.new_action, window.open_action, recent_menu, examples_menu, None,
        window.save_action, window.save_as_action, window.export_action, window.copy_textures_action,
        window.stage_commands.save_stage_action, None, window.bake_action, window.export_gltf_action,
        window.export_mtlx_action, window.import_mtlx_action, window.turntable_commands.action, None,
        window.quit_action])
    recent = RecentFiles(window.settings, recent_menu, window.open_file)
    _fill(bar.addMenu("&Edit"), [
        edit.undo_action, edit.redo_action, None, edit.cut_action, edit.copy_action, edit.paste_action,
        edit.duplicate_action, edit.delete_action, None, edit.select_all_action, None, groups.group_action,
        groups.ungroup_action, groups.enter_group_action, groups.exit_group_action, groups.group_interface_action,
        groups.save_group_action, groups.save_group_project_action])
    docks = (window.palette_dock, window.preview_dock, window.properties_dock, window.parameters_dock,
             window.diagnostics_dock, window.code_dock)
    _fill(bar.addMenu("&View"), [
        edit.frame_action, edit.search_action, inspection.overview_action, None, inspection.thumbnails_action,
        inspection.cost_action, window.node_pin.unpin_action, None, window.reset_camera_action, window.play_action,
        None, *(dock.toggleViewAction() for dock in docks), window.texture_view.action])
    _fill(bar.addMenu("&Help"), [window.about_action])
    return recent_menu, examples_menu, recent
