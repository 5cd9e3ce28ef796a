"""Rules about how the product's code (app/, vpl_core/) is built, checked on the code itself.

- No class overrides a private method (one leading underscore, not a dunder) of a base class from
  another package: such a method is not part of that package's promise, so an override breaks
  silently when the package changes (docs/decisions.md, "NodeGraphQt through its public API").
- Nothing outside tests/ assigns, deletes or mutates entries of `sys.modules`.
- No class in app/ has more than `MAX_METHODS` methods.

Each rule's detector is also run on a small sample that breaks the rule, so a detector that finds
nothing cannot pass unnoticed.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
OURS = ("app", "vpl_core")
#: Trees scanned for `sys.modules` changes: everything that ships or runs outside the test suite.
SCANNED_TREES = ("app", "vpl_core", "benchmarks", "tools", "installers", "scripts")

MAX_METHODS = 40
#: Classes allowed over `MAX_METHODS` for now; each entry goes when its class is split (the test fails
#: while an entry is no longer needed, so the list only shrinks).
METHOD_COUNT_EXCEPTIONS: set[str] = set()


# --- private overrides ---

def _our_modules() -> Iterator[ModuleType]:
    for package_name in OURS:
        package = importlib.import_module(package_name)
        yield package
        for info in pkgutil.walk_packages(package.__path__, package_name + "."):
            if info.name.rsplit(".", 1)[-1] == "__main__":  # running it starts the program
                continue
            yield importlib.import_module(info.name)


def _is_private(name: str) -> bool:
    # Single-underscore names; dunders are Python's protocol, sunders (`_missing_`, `_generate_next_value_`)
    # are enum's documented hooks.
    return name.startswith("_") and not name.startswith("__") and not name.endswith("_")


def _is_method(value: object) -> bool:
    return inspect.isfunction(value) or isinstance(value, (staticmethod, classmethod, property))


def _is_ours(cls: type) -> bool:
    return (getattr(cls, "__module__", "") or "").split(".")[0] in OURS


def private_overrides(cls: type) -> list[str]:
    """"name (base)" for each private method `cls` defines that a base class from another package has."""
    found = []
    for name, value in vars(cls).items():
        if not _is_private(name) or not _is_method(value):
            continue
        for base in cls.__mro__[1:]:
            if not _is_ours(base) and name in vars(base):
                found.append(f"{name} ({base.__module__}.{base.__qualname__})")
                break
    return found


def test_no_class_overrides_a_private_method_of_another_package() -> None:
    offenders = []
    for module in _our_modules():
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__:
                offenders += [f"{module.__name__}.{cls.__qualname__}.{override}" for override in private_overrides(cls)]
    assert offenders == []


def test_the_override_detector_finds_one() -> None:
    import argparse

    class Parser(argparse.ArgumentParser):
        def _print_message(self, message: str, file: object = None) -> None:
            del message, file

        def _own_helper(self) -> None:
            """Private, but argparse has no such method: allowed."""

    class OwnBase:
        def _hook(self) -> None:
            """A private method of our own code: overriding it is fine."""

    OwnBase.__module__ = "app.example"

    class Derived(OwnBase):
        def _hook(self) -> None:
            """Overrides our own base."""

    assert private_overrides(Parser) == ["_print_message (argparse.ArgumentParser)"]
    assert private_overrides(Derived) == []


# --- sys.modules ---

_MUTATING_METHODS = {"pop", "popitem", "setdefault", "update", "clear", "__setitem__", "__delitem__"}


def _is_sys_modules(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "modules"
            and isinstance(node.value, ast.Name) and node.value.id == "sys")


def _changes_sys_modules(node: ast.AST) -> bool:
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return _is_sys_modules(node.value)  # sys.modules[name] = ..., del sys.modules[name]
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return _is_sys_modules(node)  # sys.modules = ...
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATING_METHODS:
        return _is_sys_modules(node.func.value)  # sys.modules.pop(name), .setdefault(...), ...
    # `from sys import modules`: a bare `modules` could then be changed unseen.
    return isinstance(node, ast.ImportFrom) and node.module == "sys" and any(alias.name == "modules" for alias in node.names)


def sys_modules_changes(source: str) -> list[int]:
    """Line numbers where `source` assigns, deletes or mutates `sys.modules` (or rebinds it)."""
    return sorted(node.lineno for node in ast.walk(ast.parse(source))
                  if isinstance(node, (ast.expr, ast.stmt)) and _changes_sys_modules(node))


def test_nothing_outside_tests_changes_sys_modules() -> None:
    offenders = []
    for tree in SCANNED_TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            for line in sys_modules_changes(path.read_text(encoding="utf-8")):
                offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert offenders == []


def test_the_sys_modules_detector_finds_each_kind_of_change() -> None:
    source = (
        "import sys\n"
        "sys.modules['a'] = object()\n"
        "del sys.modules['a']\n"
        "sys.modules.pop('b', None)\n"
        "sys.modules.setdefault('c', None)\n"
        "sys.modules = {}\n"
        "from sys import modules\n"
        "present = 'd' in sys.modules and sys.modules.get('d')\n"
        "module = sys.modules['e']\n"
    )
    assert sys_modules_changes(source) == [2, 3, 4, 5, 6, 7]


# --- method counts ---

def method_counts(source: str) -> dict[str, int]:
    """Methods per class of a module: the names `def`ined in the class body (a property's getter and setter are one)."""
    counts = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            counts[node.name] = len({item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))})
    return counts


def test_no_class_in_app_has_more_than_forty_methods() -> None:
    large = {}
    for path in sorted((ROOT / "app").rglob("*.py")):
        for name, count in method_counts(path.read_text(encoding="utf-8")).items():
            if count > MAX_METHODS:
                large[f"{path.relative_to(ROOT).as_posix()}::{name}"] = count
    assert set(large) - METHOD_COUNT_EXCEPTIONS == set(), large
    # An exception that no longer needs its entry is reported too, so the allow-list only shrinks.
    assert METHOD_COUNT_EXCEPTIONS - set(large) == set(), large


def test_the_method_counter_counts_defs_in_the_class_body() -> None:
    body = "".join(f"    def m{index}(self): pass\n" for index in range(41))
    accessors = "    @property\n    def p(self): pass\n    @p.setter\n    def p(self, value): pass\n"
    counts = method_counts(f"class Big:\n{body}{accessors}\n    class Inner:\n        def f(self): pass\n")
    assert counts == {"Big": 42, "Inner": 1}


if __name__ == "__main__":
    sys.exit("run with pytest")
