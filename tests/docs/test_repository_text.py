"""The product stands alone: no tracked file names a path of a developer's machine or of the shared
workspace outside the repository, and every relative link in the Markdown documents resolves.

Tracked files are what `git ls-files` lists; without git (an unpacked
source archive) the files of the checkout are walked instead.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THIS_FILE = Path(__file__).resolve()
_SKIPPED_DIRECTORIES = {".git", ".venv", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache",
                        ".ruff_cache", "out"}

#: Paths that exist only on one machine, or only next to the repository.
MACHINE_PATHS = re.compile(
    r"(?:\.\./shared\b|\bshared/(?:spec|design)/|/work/|/home/[A-Za-z_]|/Users/[A-Za-z_]|[A-Za-z]:\\Users\\)"
)
MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
#: "issue 20", "issues 20 and 23": a tracker's numbering means nothing to a reader of the repository.
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues?\s+#?\d+")
#: Where the product's code and documents live (the tests are not checked).
PRODUCT = ("app/", "vpl_core/", "benchmarks/", "docs/", "installers/", "scripts/", "tools/", "README.md")


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode("utf-8").split("\0")
        files = [ROOT / name for name in listed if name]
    except (OSError, subprocess.CalledProcessError):
        files = [
            path for path in ROOT.rglob("*")
            if path.is_file() and not _SKIPPED_DIRECTORIES & set(path.relative_to(ROOT).parts)
        ]
    return sorted(path for path in files if path.is_file() and not path.is_symlink())


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None  # binary (images, icons, fonts)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_tracked_file_names_a_machine_or_workspace_path() -> None:
    files = tracked_files()
    assert len(files) > 50, "the file list is implausibly short"
    offences = []
    for path in files:
        if path.resolve() == THIS_FILE:
            continue
        text = _text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if MACHINE_PATHS.search(line):
                offences.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not offences, "\n".join(offences)


def test_relative_links_in_markdown_resolve() -> None:
    broken = []
    for path in tracked_files():
        if path.suffix != ".md":
            continue
        for target in MARKDOWN_LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL or an anchor on the same page
            linked = (path.parent / target.split("#", 1)[0]).resolve()
            if not linked.exists():
                broken.append(f"{path.relative_to(ROOT)} -> {target}")
            elif not linked.is_relative_to(ROOT):
                broken.append(f"{path.relative_to(ROOT)} -> {target} (outside the repository)")
    assert not broken, "\n".join(broken)


def test_product_code_and_documents_name_no_issue_numbers() -> None:
    offences = []
    for path in tracked_files():
        name = path.relative_to(ROOT).as_posix()
        text = _text(path) if name.startswith(PRODUCT) else None
        for number, line in enumerate((text or "").splitlines(), 1):
            if ISSUE_NUMBER.search(line):
                offences.append(f"{name}:{number}: {line.strip()}")
    assert not offences, "say what the code does and why, not which issue asked for it:\n" + "\n".join(offences)


def test_the_checks_would_catch_an_offence() -> None:
    assert ISSUE_NUMBER.search("start-up (issue 20 item 4)") and ISSUE_NUMBER.search("(issues 20 and 23)")
    assert not ISSUE_NUMBER.search("trimesh#2364, a known issue")
    assert MACHINE_PATHS.search("see ../shared/spec/vpl-1.txt")
    assert MACHINE_PATHS.search("VPL version 1 (`/work/shared/spec/vpl-1.txt`)")
    assert MACHINE_PATHS.search("built in /home/alice/src")
    assert not MACHINE_PATHS.search("bind /tmp/.X11-unix and ~/.local/bin")
    assert MARKDOWN_LINK.findall("[VPL](../shared/spec/vpl-1.txt) and [x](https://a.b)") == [
        "../shared/spec/vpl-1.txt", "https://a.b",
    ]
