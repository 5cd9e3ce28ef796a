"""The session is Qt-free, and the window reaches the GLSL backend only through it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _imports(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def test_the_ui_does_not_import_the_glsl_backend() -> None:
    offences = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted((ROOT / "app" / "ui").rglob("*.py"))
        for module in sorted(_imports(path))
        if module == "vpl_core.backends" or module.startswith("vpl_core.backends.")
    ]
    assert not offences, "\n".join(offences)


def test_the_scanner_sees_a_backend_import(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text("def later():\n    from vpl_core.backends.glsl import compile\n", encoding="utf-8")
    assert "vpl_core.backends.glsl" in _imports(source)


def test_the_session_runs_without_qt() -> None:
    """Open, lower and save a material in a fresh interpreter; no Qt or OpenGL module may load."""
    script = (
        "import sys, tempfile, pathlib\n"
        "from app.session import EditorSession\n"
        "from app.session.recovery import RecoveryStore\n"
        "from app.material.examples import load_example\n"
        "directory = pathlib.Path(tempfile.mkdtemp())\n"
        "session = EditorSession(RecoveryStore(directory / 'recovery'))\n"
        "session.open_graph(load_example('textured').graph)\n"
        "assert session.lower().ok and session.program('es320').artifact is not None\n"
        "session.save(directory / 'out.vpl')\n"
        "loaded = sorted(name for name in sys.modules if name.split('.')[0] in "
        "('PySide6', 'shiboken6', 'NodeGraphQt', 'OpenGL'))\n"
        "print(loaded)\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip().splitlines()[-1] == "[]"
