"""Saving keeps what the user set up (issue 23, item 5): modes, symbolic links, damaged autosaves, scratch folders."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from app.material.examples import load_example


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_save_keeps_the_mode_and_writes_through_a_symbolic_link(window, tmp_path: Path) -> None:
    real = tmp_path / "project" / "material.vpl"
    real.parent.mkdir()
    assert window.save_to(real)
    os.chmod(real, 0o640)
    link = tmp_path / "shortcut.vpl"
    link.symlink_to(real)
    assert window.open_file(link)
    window.graph.node_by_stable_id("n2").set_pos(-123.0, 45.0)
    assert window.is_modified and window.save_to(link)
    assert link.is_symlink() and _mode(real) == 0o640
    assert b"-123.0" in real.read_bytes()
    assert sorted(path.name for path in real.parent.iterdir()) == ["material.vpl"]


def test_a_new_document_gets_normal_permissions(window, tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        assert window.save_to(tmp_path / "fresh.vpl")
        assert window.export_to(tmp_path / "export")
    finally:
        os.umask(previous)
    assert _mode(tmp_path / "fresh.vpl") == 0o644
    assert {_mode(path) for path in (tmp_path / "export").iterdir()} == {0o644}


def test_a_damaged_autosave_is_kept_not_deleted(make_window, prompts, recovery_dir: Path, window_example: str) -> None:
    first = make_window()
    first.graph.node_by_stable_id("n2").set_pos(1.0, 2.0)
    document = first.autosave_now()
    assert document is not None
    files = {path.name: path.read_bytes() for path in recovery_dir.glob("autosave-*")}
    first.close()
    for name, data in files.items():
        (recovery_dir / name).write_bytes(data)
    damaged = recovery_dir / document.name
    damaged.write_bytes(b"\x00garbage that is no document")
    second = make_window()
    assert not second.check_recovery()
    title, message, _details = prompts.named("show_error")[-1]
    assert title == "Cannot recover" and "kept as" in message
    kept = recovery_dir / f"damaged-{document.name}"
    assert kept.read_bytes() == b"\x00garbage that is no document" and str(kept) in message
    assert not second.recovery.orphans()  # set aside: not offered again at every start
    assert second.material == load_example(window_example).graph


def test_a_window_screenshot_leaves_no_settings_folder_behind(qapp, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from app.main import main

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv("VPL_EDITOR_RECOVERY_DIR", str(tmp_path / "recovery"))
    assert main(["--screenshot", str(tmp_path / "editor.png")]) == 0
    assert (tmp_path / "editor.png").is_file()
    assert [path.name for path in scratch.iterdir() if path.name.startswith("vpl-editor-settings-")] == []
