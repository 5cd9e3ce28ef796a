"""Reading outside files: regular files only, within a budget, platform refusals as one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from bounded import finishes, python_child

from vpl_core.external_files import BUDGETS, ExternalFileError, check_file, read_external

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
needs_dev_zero = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this platform")


def vpl() -> list[str]:
    script = Path(sys.executable).parent / "vpl"
    return [str(script)] if script.exists() else [sys.executable, "-m", "vpl_core.cli"]


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.vpl"
    path.write_bytes(b"x" * 100_000)
    assert read_external(path, "document") == b"x" * 100_000
    assert check_file(path, "document") == 100_000


def test_links_are_resolved_first(tmp_path: Path) -> None:
    (tmp_path / "real.vpl").write_bytes(b"abc")
    (tmp_path / "link.vpl").symlink_to(tmp_path / "real.vpl")
    assert read_external(tmp_path / "link.vpl", "document") == b"abc"


@needs_dev_zero
def test_a_link_to_a_device_is_refused_without_reading(tmp_path: Path) -> None:
    (tmp_path / "zero.vpl").symlink_to("/dev/zero")
    with pytest.raises(ExternalFileError, match=r"zero\.vpl: a device, not a regular file"):
        read_external(tmp_path / "zero.vpl", "document")


@needs_fifo
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.obj")
    with pytest.raises(ExternalFileError, match=r"pipe\.obj: a pipe \(FIFO\), not a regular file"):
        finishes(lambda: check_file(tmp_path / "pipe.obj", "obj"))


def test_a_folder_and_a_missing_file_are_named(tmp_path: Path) -> None:
    with pytest.raises(ExternalFileError, match="a folder"):
        read_external(tmp_path, "image")
    with pytest.raises(ExternalFileError, match=r"missing\.png: no such file"):
        read_external(tmp_path / "missing.png", "image")


def test_the_budget_is_checked_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.vplf"
    with open(path, "wb") as stream:
        stream.truncate(BUDGETS["vplf"] + 1)  # sparse: nothing is written, and nothing must be read
    with pytest.raises(ExternalFileError, match=r"big\.vplf: the function file is 64\.0 MiB; at most 64 MiB is read"):
        read_external(path, "vplf")
    (tmp_path / "small").write_bytes(b"12345678901")
    with pytest.raises(ExternalFileError, match="11 bytes; at most 10 bytes"):
        read_external(tmp_path / "small", "vplf", budget=10)


def test_a_path_too_long_for_the_platform_is_an_error_naming_it(tmp_path: Path) -> None:
    long_name = tmp_path / ("n" * 300 + ".png")
    with pytest.raises(ExternalFileError, match="longer than this system allows") as raised:
        check_file(long_name, "image")
    assert isinstance(raised.value, OSError) and str(raised.value).startswith(str(long_name))


@needs_dev_zero
def test_the_editor_opens_a_document_linking_to_dev_zero_with_a_message(tmp_path: Path) -> None:
    (tmp_path / "zero.vpl").symlink_to("/dev/zero")
    # In a child process with a memory bound: a reader that reads /dev/zero fails there, not here.
    child = python_child(f"from app.material.document import load_file; print(load_file({str(tmp_path / 'zero.vpl')!r}).message)")
    assert child.returncode == 0, child.stderr[-2000:]
    assert "a device, not a regular file" in child.stdout


@needs_fifo
def test_vpl_check_of_a_fifo_exits_with_a_message_instead_of_hanging(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.vpl")
    checked = subprocess.run([*vpl(), "check", str(tmp_path / "pipe.vpl")], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 1
    assert "pipe.vpl" in checked.stderr and "a pipe (FIFO)" in checked.stderr


@needs_fifo
def test_vpl_run_set_file_naming_a_fifo_is_a_message(tmp_path: Path) -> None:
    from vpl_core.interp.png import read_png

    os.mkfifo(tmp_path / "pipe.png")
    with pytest.raises(ExternalFileError, match=r"pipe\.png: a pipe \(FIFO\), not a regular file"):
        finishes(lambda: read_png(tmp_path / "pipe.png"))


SAMPLER_MODULE = """(module 1
  (types (type Void void) (type Vec4 vector float 4) (type Sampler sampler2D))
  (uniforms (scalar image "image" Sampler))
  (vertex main (interface (out clip "clip" Vec4 -1 position))
    (functions (function main "vertex_main" Void (parameters) (registers (register r0 Vec4))
      (block entry (construct r0 (float 1.0)) (store (stage clip) r0) (return)))))
  (fragment main (interface (out color "color" Vec4 0 fragment_color))
    (functions (function main "fragment_main" Void (parameters) (registers (register r0 Vec4))
      (block entry (construct r0 (float 1.0)) (store (stage color) r0) (return))))))
"""


@needs_dev_zero
@needs_fifo
def test_vpl_run_set_file_linking_to_dev_zero_or_naming_a_fifo_is_exit_2_with_the_reason(tmp_path: Path) -> None:
    # A link to /dev/zero ended in MemoryError and a FIFO hung `vpl run --set image=@FILE`.
    (tmp_path / "m.vpl").write_text(SAMPLER_MODULE)
    (tmp_path / "zero.png").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "pipe.png")
    for name, reason in (("zero.png", "a device, not a regular file"), ("pipe.png", "a pipe (FIFO), not a regular file")):
        ran = subprocess.run([*vpl(), "run", str(tmp_path / "m.vpl"), "--size", "4x4", "--set", f"image=@{tmp_path / name}",
                              "--out", str(tmp_path / "out.png")], capture_output=True, text=True, timeout=60)
        assert ran.returncode == 2, ran.stderr
        assert f"--set image=@{tmp_path / name}: cannot read the image: {reason}" in ran.stderr, ran.stderr
        assert "Traceback" not in ran.stderr and not (tmp_path / "out.png").exists()
