"""docs/vpl-language.md stays true: its modules are valid, its rule catalogue and section numbers current.

Every ```vpl code block that holds a complete module is read, verified and
compiled for every GLSL target; the generated rule catalogue equals what
tools/gen_diagnostic_docs.py makes from the rule kinds; every "(spec N)"
the page cites is a section of VPL 1.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from vpl_core.backends.glsl import compile_source
from vpl_core.diagnostics import SPEC_SECTIONS
from vpl_core.text import read, write

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "docs" / "vpl-language.md"
TEXT = DOCUMENT.read_text(encoding="utf-8")
MODULES = [block for block in re.findall(r"```vpl\n(.*?)```", TEXT, re.S) if block.lstrip().startswith(("(module", "//"))]


def test_the_page_has_complete_modules() -> None:
    assert len(MODULES) >= 2


@pytest.mark.parametrize("source", MODULES, ids=[f"module-{number}" for number in range(len(MODULES))])
@pytest.mark.parametrize("target", ["glsl420", "es300", "es320"])
def test_every_module_on_the_page_reads_verifies_and_compiles(source: str, target: str) -> None:
    module = read(source, label="vpl-language.md")
    assert write(read(write(module))) == write(module)
    artifact = compile_source(source, label="vpl-language.md", target=target)
    assert artifact.vertex_code and artifact.fragment_code


def test_cited_sections_exist() -> None:
    cited = set()
    for group in re.findall(r"\(spec ([0-9., ]+)\)", TEXT):
        cited.update(part.strip() for part in group.split(",") if part.strip())
    assert cited, "the page cites no sections"
    assert cited <= SPEC_SECTIONS, sorted(cited - SPEC_SECTIONS)


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_diagnostic_docs", ROOT / "tools" / "gen_diagnostic_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_diagnostic_docs"] = module
    spec.loader.exec_module(module)
    return module


def test_the_rule_catalogue_is_current() -> None:
    generator = _generator()
    assert generator.current_section(TEXT) == generator.generate(), (
        "docs/vpl-language.md is out of date: run `python tools/gen_diagnostic_docs.py`"
    )
