"""Import rules of ARCHITECTURE.md ("Layers and import rules"), enforced.

`vpl_core` never imports Qt, OpenGL or NodeGraphQt; `app/material` never
imports Qt or NodeGraphQt. Both are checked twice: statically, by scanning
every `import` statement in the sources (so a rarely executed function
cannot hide a forbidden import), and dynamically, by importing every module
of the package in a fresh interpreter and looking at `sys.modules` (so an
indirect import through a permitted module is caught too).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

QT_ROOTS = ("PySide6", "PySide2", "PyQt5", "PyQt6", "Qt", "NodeGraphQt", "shiboken6")
GL_ROOTS = ("OpenGL",)

#: package directory -> module roots it must never import.
RULES: dict[str, tuple[str, ...]] = {
    "vpl_core": QT_ROOTS + GL_ROOTS,
    "app/material": QT_ROOTS,
    "app/session": QT_ROOTS + GL_ROOTS,
}


def _imported_roots(source: str, filename: str) -> set[str]:
    """Top-level module names of every absolute import in one source file."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and getattr(node.func, "id", getattr(node.func, "attr", None)) in {"import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            roots.add(node.args[0].value.split(".")[0])
    return roots


def _sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _module_names(package: str) -> list[str]:
    names = []
    for path in _sources(package):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


@pytest.mark.parametrize("package", sorted(RULES))
def test_sources_do_not_import_forbidden_modules(package: str) -> None:
    sources = _sources(package)
    assert sources, f"no sources found under {package}"
    offences = []
    for path in sources:
        roots = _imported_roots(path.read_text(encoding="utf-8"), str(path))
        for root in sorted(roots & set(RULES[package])):
            offences.append(f"{path.relative_to(ROOT)} imports {root}")
    assert not offences, "\n".join(offences)


@pytest.mark.parametrize("package", sorted(RULES))
def test_importing_the_package_loads_no_forbidden_module(package: str) -> None:
    """Import every module of the package in a clean interpreter; none may pull in Qt/GL."""
    modules = _module_names(package)
    script = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr
    loaded = json.loads(completed.stdout.strip().splitlines()[-1])
    forbidden = sorted(
        name for name in loaded if name.split(".")[0] in RULES[package]
    )
    assert not forbidden, f"importing {package} loaded {forbidden}"


def test_scanner_sees_imports_hidden_in_functions() -> None:
    """The static check must find an import however deeply it is nested."""
    source = "def later():\n    if True:\n        from PySide6 import QtCore\n    import importlib\n    importlib.import_module('OpenGL.GL')\n"
    assert {"PySide6", "OpenGL"} <= _imported_roots(source, "<test>")
