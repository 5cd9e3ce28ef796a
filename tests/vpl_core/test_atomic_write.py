"""write_atomically: the umask's mode for new files, the old mode kept, symbolic links followed, orphans removed."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from vpl_core import atomic_write
from vpl_core.atomic_write import ORPHAN_AGE_SECONDS, current_umask, write_atomically


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_current_umask_reads_without_changing(umask: None) -> None:
    os.umask(0o027)
    assert current_umask() == 0o027
    assert current_umask() == 0o027


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_a_new_file_gets_the_umask_mode(tmp_path: Path, umask: None, mask: int, expected: int) -> None:
    os.umask(mask)
    target = tmp_path / "new.vpl"
    write_atomically(target, b"data\n")
    assert target.read_bytes() == b"data\n" and _mode(target) == expected


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_an_existing_file_keeps_its_mode(tmp_path: Path, umask: None, mode: int) -> None:
    target = tmp_path / "old.vpl"
    target.write_bytes(b"old")
    os.chmod(target, mode)
    write_atomically(target, b"new")
    assert target.read_bytes() == b"new" and _mode(target) == mode


def test_writing_through_a_symbolic_link_updates_the_file_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real" / "material.vpl"
    real.parent.mkdir()
    real.write_bytes(b"old")
    link = tmp_path / "link.vpl"
    link.symlink_to(real)
    chain = tmp_path / "chain.vpl"
    chain.symlink_to(link)
    assert write_atomically(chain, b"new") == real
    assert link.is_symlink() and chain.is_symlink()
    assert real.read_bytes() == b"new" and chain.read_bytes() == b"new"
    assert sorted(path.name for path in real.parent.iterdir()) == ["material.vpl"]  # the temporary file went too


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "material.vpl"
    target.write_bytes(b"old")

    def refuse(*_arguments: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space"):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old"
    assert [path.name for path in tmp_path.iterdir()] == ["material.vpl"]


def test_orphans_of_a_killed_writer_are_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "material.vpl"
    old_orphan = tmp_path / ".material.vpl.abc123.tmp"
    fresh = tmp_path / ".material.vpl.def456.tmp"  # possibly a writer at work right now
    unrelated = tmp_path / ".other.vpl.abc123.tmp"
    for path in (old_orphan, fresh, unrelated):
        path.write_bytes(b"partial")
    stale = time.time() - ORPHAN_AGE_SECONDS - 60
    os.utime(old_orphan, (stale, stale))
    os.utime(unrelated, (stale, stale))
    write_atomically(target, b"new")
    assert not old_orphan.exists()
    assert fresh.exists() and unrelated.exists()


def test_a_missing_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomically(tmp_path / "missing" / "material.vpl", b"x")


def test_vpl_compile_exports_get_normal_permissions(tmp_path: Path, umask: None) -> None:
    from vpl_core.backends.glsl import compile_file

    source = Path(__file__).resolve().parents[1] / "data" / "spec" / "canonical-example.vpl"
    for path in compile_file(source, "glsl420", tmp_path):
        assert _mode(path) == 0o644, path


@pytest.mark.skipif(os.name != "posix", reason="a writer's liveness is probed with os.kill(pid, 0) on POSIX only")
def test_the_temporary_file_of_a_writer_killed_mid_save_is_removed_at_the_next_save(tmp_path: Path) -> None:
    target = tmp_path / "material.vpl"
    target.write_bytes(b"old")
    # A writer killed between writing its temporary file and renaming it (os.replace never returns).
    killed = subprocess.Popen([sys.executable, "-c", f"""
import os
from vpl_core import atomic_write
os.replace = lambda *_: os._exit(9)
atomic_write.write_atomically({str(target)!r}, b"x" * 2_700_000)
"""])
    assert killed.wait(timeout=120) == 9
    (leftover,) = [path for path in tmp_path.iterdir() if path.name.endswith(".tmp")]
    assert re.fullmatch(rf"\.material\.vpl\.{re.escape(atomic_write._host())}-{killed.pid}-[0-9a-f]+\.tmp", leftover.name)
    live = tmp_path / f".material.vpl.{atomic_write._host()}-{os.getpid()}-abc.tmp"  # this process: running
    live.write_bytes(b"in progress")
    write_atomically(target, b"new")  # seconds later, not ten minutes: the writer is known to be gone
    assert target.read_bytes() == b"new"
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(["material.vpl", live.name])
