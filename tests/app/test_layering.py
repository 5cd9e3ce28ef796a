"""The layer rules of docs/architecture.md ("Layers and import rules"), enforced.

Every module of `vpl_core` and `app` belongs to one layer (`LAYERS`: the
longest matching prefix of its dotted name), and each layer lists the
first-party layers it may import. Third-party roots are banned per layer
(`FORBIDDEN_ROOTS`: no Qt, OpenGL or NodeGraphQt in `vpl_core`, the
material model or the session). Neither `vpl_core` nor `app` has an import
cycle (run-time imports, inside functions too; `if TYPE_CHECKING:` imports
are annotations and do not count).

Imports are found statically, by scanning every `import` statement in the
sources (so a rarely executed function cannot hide one), and the third-party
bans are checked dynamically as well, by importing every module of a
package in a fresh interpreter and looking at `sys.modules` (so an indirect
import through a permitted module is caught too). A new package needs a
row in `LAYERS` and in the architecture document: the test fails for a
module no rule covers. There is no per-import exception: where a lower
layer needs something of a higher one (`vpl` subcommands, the preview scene
of `vpl run --mesh`), the higher one registers it in an entry-point group.
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = ("vpl_core", "app")

QT_ROOTS = ("PySide6", "PySide2", "PyQt5", "PyQt6", "Qt", "NodeGraphQt", "shiboken6")
GL_ROOTS = ("OpenGL",)

_VPL_BASE = ("vpl_core.diagnostics", "vpl_core.version", "vpl_core.atomic_write", "vpl_core.numbers",
             "vpl_core.external_files", "vpl_core.collector", "vpl_core.records")

#: layer -> the first-party layers it may import (besides itself). The table of docs/architecture.md.
LAYERS: dict[str, tuple[str, ...]] = {
    # `Diagnostic` is a `record` class (no `dataclasses` on the start-up path); `records` imports nothing.
    "vpl_core.diagnostics": ("vpl_core.records",),
    "vpl_core.version": (),
    "vpl_core.atomic_write": (),
    "vpl_core.numbers": (),
    "vpl_core.external_files": (),
    "vpl_core.collector": (),
    "vpl_core.records": (),
    "vpl_core.ir": _VPL_BASE,
    "vpl_core.verify": (*_VPL_BASE, "vpl_core.ir"),
    "vpl_core.text": (*_VPL_BASE, "vpl_core.ir", "vpl_core.verify"),
    "vpl_core.publish": (*_VPL_BASE, "vpl_core.ir", "vpl_core.verify", "vpl_core.text"),
    "vpl_core.programs": (*_VPL_BASE, "vpl_core.ir", "vpl_core.text", "vpl_core.publish"),
    "vpl_core.backends": (*_VPL_BASE, "vpl_core.ir", "vpl_core.text", "vpl_core.publish"),
    # The interpreter binds interfaces at the locations the GLSL backend resolves (spec 12.2), so
    # CPU and GPU frames of one module read the same inputs.
    "vpl_core.interp": (*_VPL_BASE, "vpl_core.ir", "vpl_core.verify", "vpl_core.text", "vpl_core.publish", "vpl_core.backends"),
    "vpl_core.cli": ("vpl_core",),
    "vpl_core": (),  # the package itself (`vpl_core/__init__.py`)
    "app.material": ("vpl_core",),
    # Background work (Qt-free) and its GUI-thread side: every worker of the preview and the window uses them.
    "app.workers": (),
    "app.gui_post": ("vpl_core", "app.workers"),
    "app.session": ("vpl_core", "app.material"),
    "app.graph": ("vpl_core", "app.material"),
    # Preview widgets render the session's models (napari-style): decoded textures, parameter values.
    "app.preview": ("vpl_core", "app.material", "app.session", "app.workers", "app.gui_post"),
    # Baking and interchange (docs/interchange.md): the material model, the session's file helpers and
    # the preview's renderer and meshes (the baker draws with them); never the window.
    "app.export": ("vpl_core", "app.material", "app.session", "app.preview", "app.workers", "app.gui_post"),
    "app.ui": ("vpl_core", "app.material", "app.session", "app.graph", "app.preview", "app.export", "app.workers",
               "app.gui_post"),
    "app.main": ("vpl_core", "app"),
    "app.__main__": ("app.main",),
    "app": (),
}

#: layer -> first-party layers it may not import although a broader rule allows them.
EXCEPTIONS: dict[str, tuple[str, ...]] = {
    # The window reaches the GLSL backend only through the session (programs per target).
    "app.ui": ("vpl_core.backends",),
}

#: layer prefix -> third-party roots it must never import.
FORBIDDEN_ROOTS: dict[str, tuple[str, ...]] = {
    "vpl_core": QT_ROOTS + GL_ROOTS,
    "app.material": QT_ROOTS + GL_ROOTS,
    "app.session": QT_ROOTS + GL_ROOTS,
    "app.workers": QT_ROOTS + GL_ROOTS,
    "app.graph": GL_ROOTS,
    "app.preview": ("NodeGraphQt",),
    "app.export": ("NodeGraphQt",),
}


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    imported: str  # dotted module name (the module, or the package a name was taken from)
    line: int
    runtime: bool  # False inside `if TYPE_CHECKING:` (annotations only)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package.replace(".", "/")).rglob("*.py"))


ALL_MODULES = {module_name(path): path for root in FIRST_PARTY for path in sources(root)}


def _is_type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _imported_names(node: ast.AST) -> list[str]:
    """Dotted names one statement or call imports: `from a.b import c` is `a.b.c` when that is a module."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        names = []
        for alias in node.names:
            candidate = f"{node.module}.{alias.name}"
            names.append(candidate if candidate in ALL_MODULES else node.module)
        return names
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, (ast.Name, ast.Attribute))
        and getattr(node.func, "id", getattr(node.func, "attr", None)) in {"import_module", "__import__"}
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    return []


def imports_of(source: str, importer: str, filename: str = "<source>") -> Iterator[Import]:
    """Every absolute import in a module, however deeply nested, with whether it runs at run time."""
    return _imports_in(ast.parse(source, filename=filename), importer)


def _imports_in(tree: ast.AST, importer: str) -> Iterator[Import]:
    stack: list[tuple[ast.AST, bool]] = [(tree, True)]
    while stack:
        node, runtime = stack.pop()
        for name in _imported_names(node):
            yield Import(importer, name, getattr(node, "lineno", 0), runtime)
        for child in ast.iter_child_nodes(node):
            stack.append((child, runtime and not _is_type_checking_block(node)))


def layer_of(module: str) -> str | None:
    """The longest `LAYERS` key that is `module` or a package prefix of it."""
    candidates = [layer for layer in LAYERS if module == layer or module.startswith(layer + ".")]
    return max(candidates, key=len) if candidates else None


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@functools.cache
def syntax_tree(name: str) -> ast.Module:
    """The parsed source of the first-party module `name`: parsed when a test first asks, not at collection
    (every worker collects this module; one of them runs its tests), and once for all the tests here (none
    changes a tree)."""
    path = ALL_MODULES[name]
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


@functools.cache
def all_imports(name: str) -> tuple[Import, ...]:
    """Every absolute import of the first-party module `name`."""
    return tuple(_imports_in(syntax_tree(name), name))


@functools.cache
def first_party_imports() -> list[Import]:
    """Every first-party import of `vpl_core` and `app`."""
    return [item for name in ALL_MODULES for item in all_imports(name) if item.imported.split(".")[0] in FIRST_PARTY]


def test_every_module_belongs_to_a_layer() -> None:
    unruled = sorted(name for name in ALL_MODULES if layer_of(name) is None)
    assert not unruled, f"add these to LAYERS and to docs/architecture.md: {unruled}"


@pytest.mark.parametrize("layer", sorted(layer for layer in LAYERS if any(layer_of(m) == layer for m in ALL_MODULES)))
def test_layers_import_only_what_they_may(layer: str) -> None:
    allowed = LAYERS[layer]
    offences = []
    for item in first_party_imports():
        if layer_of(item.importer) != layer or _within(item.imported, layer):
            continue
        target_layer = layer_of(item.imported) or item.imported
        permitted = any(_within(target_layer, allowed_layer) for allowed_layer in allowed)
        excepted = any(_within(item.imported, banned) for banned in EXCEPTIONS.get(layer, ()))
        if not permitted or excepted:
            offences.append(f"{ALL_MODULES[item.importer].relative_to(ROOT)}:{item.line} imports {item.imported}")
    assert not offences, "\n".join(offences)


def runtime_cycles(nodes: list[str], imports: list[Import]) -> list[list[str]]:
    """Strongly connected components (more than one module) of the run-time import graph among `nodes`."""
    edges: dict[str, set[str]] = {name: set() for name in nodes}
    for item in imports:
        if item.runtime and item.importer in edges and item.imported in edges and item.imported != item.importer:
            edges[item.importer].add(item.imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for start in nodes:
        if start in index:
            continue
        # Iterative Tarjan: (node, iterator over its successors).
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


@pytest.mark.parametrize("package", FIRST_PARTY)
def test_no_import_cycle(package: str) -> None:
    """No module of the package imports, at run time, something that imports it back.

    Every run-time import counts, at the top of a module or inside a function (so an import moved into a
    function to dodge a cycle is still one); annotation-only imports (`if TYPE_CHECKING:`) do not: the IR's
    instructions and functions, or a node type's `lower` and the lowering context, name each other in
    annotations only.
    """
    members = [name for name in ALL_MODULES if _within(name, package)]
    cycles = runtime_cycles(members, first_party_imports())
    described = []
    for cycle in cycles:
        edges = sorted(
            f"  {ALL_MODULES[item.importer].relative_to(ROOT)}:{item.line} imports {item.imported}"
            for item in first_party_imports()
            if item.runtime and item.importer in cycle and item.imported in cycle and item.importer != item.imported
        )
        described.append(" <-> ".join(cycle) + "\n" + "\n".join(edges))
    assert not cycles, "import cycles (see docs/architecture.md, 'No import cycles'):\n" + "\n".join(described)


def test_imports_are_absolute() -> None:
    """The scanner reads absolute imports only; a relative one would hide an edge from every rule here."""
    relative = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for name, path in ALL_MODULES.items()
        for node in ast.walk(syntax_tree(name))
        if isinstance(node, ast.ImportFrom) and node.level > 0
    ]
    assert not relative, "use absolute imports: " + ", ".join(relative)


@pytest.mark.parametrize("prefix", sorted(FORBIDDEN_ROOTS))
def test_sources_do_not_import_forbidden_modules(prefix: str) -> None:
    offences = []
    for name, path in ALL_MODULES.items():
        if not _within(name, prefix):
            continue
        for item in all_imports(name):
            if item.imported.split(".")[0] in FORBIDDEN_ROOTS[prefix]:
                offences.append(f"{path.relative_to(ROOT)}:{item.line} imports {item.imported}")
    assert not offences, "\n".join(offences)


@pytest.mark.parametrize("prefix", sorted(FORBIDDEN_ROOTS))
def test_importing_the_package_loads_no_forbidden_module(prefix: str) -> None:
    """Import every module of the package in a clean interpreter; none may pull in a banned root."""
    modules = sorted(name for name in ALL_MODULES if _within(name, prefix))
    assert modules, f"no modules under {prefix}"
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
    forbidden = sorted(name for name in loaded if name.split(".")[0] in FORBIDDEN_ROOTS[prefix])
    assert not forbidden, f"importing {prefix} loaded {forbidden}"


def test_the_scanner_sees_imports_hidden_in_functions_and_knows_annotation_only_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from vpl_core.verify import Verifier\n"
        "def later():\n"
        "    if True:\n"
        "        from PySide6 import QtCore\n"
        "    import importlib\n"
        "    importlib.import_module('OpenGL.GL')\n"
    )
    found = {(item.imported, item.runtime) for item in imports_of(source, "probe")}
    assert {("vpl_core.verify", False), ("PySide6", True), ("OpenGL.GL", True)} <= found


def test_a_layer_violation_and_a_cycle_would_be_reported() -> None:
    """The checks can fail: an `ir` module importing the verifier is outside its layer, and a function-level
    import back is a cycle (an annotation-only one is not)."""
    item = next(imports_of("from vpl_core.verify import Verifier\n", "vpl_core.ir.probe"))
    assert layer_of(item.importer) == "vpl_core.ir" and layer_of(item.imported) == "vpl_core.verify"
    assert not any(_within(layer_of(item.imported) or "", allowed) for allowed in LAYERS["vpl_core.ir"])
    forward = Import("a", "b", 1, True)
    assert runtime_cycles(["a", "b", "c"], [forward, Import("b", "a", 9, True)]) == [["a", "b"]]
    assert runtime_cycles(["a", "b"], [forward, Import("b", "a", 9, False)]) == []
