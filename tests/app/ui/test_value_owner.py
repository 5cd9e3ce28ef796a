"""One owner for parameter values: after an edit in the real window, exactly one mapping holds the new value.

The session's `ParameterModel` owns the values; the panel shows them in its
editors and each preview draws with the model's immutable snapshot, shared,
never copied. The scan walks every object reachable from the window (Python
attributes, containers, closures, bound methods, the preview's renderer and
render thread) and counts the mappings in which the edited parameter's name
maps to its new value. A preview, panel or renderer that kept a copy of the
values (a dict of its own, a copy posted to a thread) would be counted.

`test_the_scan_finds_a_copy_kept_by_a_preview` shows the scan sees such a copy.
"""

from __future__ import annotations

import gc
import types
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from PySide6.QtCore import QObject

import app.preview.context as context_module
from app.preview.context import ENVIRONMENT_VARIABLE, clear_probes
from app.preview.cpu_preview import CpuPreview
from app.session.parameters import ParameterValues

PARAMETER = "shininess"   # the float parameter of the window's example (tests/app/ui/conftest.py)
EDITED = 77.125           # a value nothing else in the example holds (exact in the panel's 3 decimals)
SKIPPED = (type, types.ModuleType, types.CodeType, types.FrameType, str, bytes, int, float, bool, type(None))


def _referents(item: Any) -> Iterator[Any]:
    """What `item` refers to, without escaping into modules and classes (a function's globals, a type's dict)."""
    if isinstance(item, types.FunctionType):
        yield from (cell.cell_contents for cell in item.__closure__ or () if _filled(cell))
        yield from item.__defaults__ or ()
        return
    if isinstance(item, types.MethodType):
        yield item.__self__
        yield item.__func__
        return
    yield from gc.get_referents(item)
    if hasattr(item, "__dict__") and not isinstance(item, SKIPPED):
        yield vars(item)
    if isinstance(item, QObject):
        yield from item.children()  # Qt's children (the preview's clock and stage, a panel's editors)


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def value_stores(root: object, name: str, value: float) -> list[Mapping[str, Any]]:
    """Every mapping reachable from `root` in which `name` maps to `value` (a `ParameterValues` counts through
    its layers, which are plain dicts, so a layer shared by several snapshots counts once)."""
    seen: set[int] = set()
    found: list[Mapping[str, Any]] = []
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, SKIPPED):
            continue
        seen.add(id(item))
        if isinstance(item, Mapping) and not isinstance(item, (ParameterValues, types.MappingProxyType)):
            held = item.get(name) if isinstance(item, dict) or name in item else None
            if isinstance(held, (int, float)) and not isinstance(held, bool) and held == value:
                found.append(item)
        stack.extend(_referents(item))
    return found


@pytest.fixture
def cpu_window(monkeypatch: pytest.MonkeyPatch, qtbot, prompts, settings, recovery_dir):
    """The main window on a machine without OpenGL (its preview is the `CpuPreview`): the fast tier's window."""
    from app.session.recovery import RecoveryStore
    from app.ui.dialogs import SaveChoice
    from app.ui.main_window import MainWindow

    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setattr(context_module, "create_context", lambda profile: None)
    clear_probes()
    window = MainWindow(prompts=prompts.as_prompts(), settings=settings, recovery=RecoveryStore(recovery_dir))
    qtbot.addWidget(window)
    window.load_example("lit_blinn_phong")
    window.flush()
    window.show()
    qtbot.waitExposed(window)
    yield window
    prompts.save_choice = SaveChoice.DISCARD
    window.close()
    clear_probes()


def _edit_in_the_panel(window: Any) -> None:
    """The artist types the new value into the parameter's spin box (the panel's own path to the model)."""
    window.parameters_panel.editor(PARAMETER).spin.setValue(EDITED)
    window.flush()
    assert window.session.parameters.value(PARAMETER) == EDITED


def test_one_mapping_holds_an_edited_value_with_the_cpu_preview(cpu_window, qtbot) -> None:
    preview = cpu_window.preview
    assert isinstance(preview, CpuPreview)
    _edit_in_the_panel(cpu_window)
    preview.render_now()
    model = cpu_window.session.parameters.values
    assert preview.parameter_values[PARAMETER] == EDITED  # the preview draws with the new value...
    stores = value_stores(cpu_window, PARAMETER, EDITED)
    # ...and the one mapping holding it is the model's (the preview's snapshot shares it).
    assert len(stores) == 1, f"{len(stores)} mappings hold the value: {[type(s).__name__ for s in stores]}"
    assert stores == value_stores(model, PARAMETER, EDITED)
    assert value_stores(preview.renderer, PARAMETER, EDITED)[0] is stores[0]  # shared by the renderer


def test_the_scan_finds_a_copy_kept_by_a_preview(cpu_window) -> None:
    """What the test above guards against: a preview keeping a dict of its own is a second store, and is counted."""
    _edit_in_the_panel(cpu_window)
    cpu_window.preview.kept_values = dict(cpu_window.session.parameters.values)
    assert len(value_stores(cpu_window, PARAMETER, EDITED)) == 2
    posted = dict(cpu_window.session.preview_values())
    cpu_window.preview._state.held = {"kept": lambda: posted}
    assert len(value_stores(cpu_window, PARAMETER, EDITED)) == 3  # also inside a closure (a posted command)


def test_one_mapping_holds_an_edited_value_with_the_opengl_preview(make_window, qtbot) -> None:
    """The same with the OpenGL preview: its posted state and the render thread's renderer share the snapshot."""
    window = make_window()
    _edit_in_the_panel(window)
    window.preview.finish_rendering()  # the render thread has applied everything posted
    assert window.preview.renderer.parameters[PARAMETER] == EDITED
    stores = value_stores(window, PARAMETER, EDITED)
    assert len(stores) == 1, f"{len(stores)} mappings hold the value: {[type(s).__name__ for s in stores]}"
    assert value_stores(window.session.parameters.values, PARAMETER, EDITED)[0] is stores[0]
    assert value_stores(window.preview.renderer, PARAMETER, EDITED)[0] is stores[0]  # the render thread's too
