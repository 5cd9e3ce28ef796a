"""`import_mtlx` reads only regular files within the MaterialX budget (the XML reader would block on a FIFO)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bounded import python_child
from mtlx_documents import document


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


INCLUDING = document('  <xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="{href}" />')


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="needs FIFOs and /dev/zero")
def test_an_xinclude_of_a_fifo_or_a_device_is_refused_and_a_regular_one_is_read(tmp_path: Path) -> None:
    # MaterialX's own XInclude reader opened whatever the document named: a FIFO hung the import.
    os.mkfifo(tmp_path / "pipe.mtlx")
    (tmp_path / "with_pipe.mtlx").write_text(INCLUDING.format(href="pipe.mtlx"))
    (tmp_path / "with_zero.mtlx").write_text(INCLUDING.format(href="/dev/zero"))
    (tmp_path / "shader.mtlx").write_text('<?xml version="1.0"?>\n<materialx version="1.39"><gltf_pbr name="SR" '
                                          'type="surfaceshader"><input name="roughness" type="float" value="0.25" /></gltf_pbr></materialx>\n')
    (tmp_path / "with_shader.mtlx").write_text(INCLUDING.format(href="shader.mtlx"))
    child = python_child(f"""
from app.export.surface import ExportError
from app.export.mtlx import import_mtlx
for name in ("with_pipe.mtlx", "with_zero.mtlx"):
    try:
        import_mtlx({str(tmp_path)!r} + "/" + name)
    except ExportError as error:
        print(error)
imported = import_mtlx({str(tmp_path)!r} + "/with_shader.mtlx")
print([node.properties.get("roughness") for node in imported.graph.nodes.values() if "roughness" in node.properties])
""")
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.splitlines() == [
        f"{tmp_path}/with_pipe.mtlx: the included document 'pipe.mtlx' cannot be read (a pipe (FIFO), not a regular file)",
        f"{tmp_path}/with_zero.mtlx: the included document '/dev/zero' cannot be read (a device, not a regular file)",
        "[0.25]"]


def test_a_document_or_an_included_one_that_is_not_utf8_is_refused_with_where(tmp_path: Path) -> None:
    from app.export.mtlx_import import import_mtlx
    from app.export.surface import ExportError

    (tmp_path / "latin1.mtlx").write_bytes('<?xml version="1.0"?>\n<materialx version="1.39"><!-- é -->'.encode("latin-1"))
    (tmp_path / "with_latin1.mtlx").write_text(INCLUDING.format(href="latin1.mtlx"))
    with pytest.raises(ExportError) as direct:
        import_mtlx(tmp_path / "latin1.mtlx")
    assert str(direct.value) == f"{tmp_path}/latin1.mtlx: not UTF-8 text (invalid continuation byte at byte 53)"
    with pytest.raises(ExportError) as included:
        import_mtlx(tmp_path / "with_latin1.mtlx")
    assert str(included.value) == (f"{tmp_path}/with_latin1.mtlx: the included document 'latin1.mtlx' is not UTF-8 text "
                                   "(invalid continuation byte at byte 53)")
