"""`import_mtlx` reads only regular files within the MaterialX budget (the XML reader would block on a FIFO)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bounded import python_child


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="needs FIFOs and /dev/zero")
def test_a_fifo_or_a_device_is_refused_with_its_name(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.mtlx")
    (tmp_path / "zero.mtlx").symlink_to("/dev/zero")
    # In a child process: MaterialX opening a FIFO blocks while holding the interpreter.
    child = python_child(f"""
from app.export.surface import ExportError
from app.export.mtlx import import_mtlx
for name in ("pipe.mtlx", "zero.mtlx"):
    try:
        import_mtlx({str(tmp_path)!r} + "/" + name)
    except ExportError as error:
        print(error)
""")
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.splitlines() == [f"{tmp_path}/pipe.mtlx: cannot be read (a pipe (FIFO), not a regular file)",
                                         f"{tmp_path}/zero.mtlx: cannot be read (a device, not a regular file)"]
