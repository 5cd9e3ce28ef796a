"""The PyInstaller specs and build scripts of the three platforms stay consistent with the tree.

Only the Linux bundle is built and run here (tests/installers/test_bundle.py); the
Windows and macOS files are written on Linux and not built. These tests keep
them from rotting silently: every spec compiles and reads only names that
installers/bundle/common.py defines; the Windows and macOS specs are
*executed* with recording stand-ins for PyInstaller's build targets
(Analysis, PYZ, EXE, COLLECT, BUNDLE) and for `PyInstaller.utils.hooks`, so
a renamed icon, entry script or app name, a lost console flag or a broken
Info.plist fails here;
the scripts are syntax-checked where a checker exists (bash) and checked for
the paths, names and steps they must keep.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import plistlib
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALLERS = ROOT / "installers"
SPECS = {
    "linux": INSTALLERS / "linux" / "vpl-editor.spec",
    "windows": INSTALLERS / "windows" / "vpl-editor.spec",
    "macos": INSTALLERS / "macos" / "vpl-editor.spec",
}
#: Executed here with stand-ins: the specs no build on this machine runs.
NOT_BUILT_SPECS = ["macos", "windows"]
WINDOWS_SCRIPT = INSTALLERS / "windows" / "build-windows.ps1"
MACOS_SCRIPT = INSTALLERS / "macos" / "build-macos.sh"
NOT_BUILT = [
    SPECS["windows"], WINDOWS_SCRIPT, INSTALLERS / "windows" / "BUILD.md",
    SPECS["macos"], MACOS_SCRIPT, INSTALLERS / "macos" / "BUILD.md",
]
BANNER = ("NOT BUILT OR TESTED: written on Linux; no one has run this on Windows/macOS yet. "
          "Treat the first build on that platform as a bring-up and record what changed.")
APP = "VPL Material Editor.app"
VERSIONINFO_CLASSES = {"VSVersionInfo", "FixedFileInfo", "StringFileInfo", "StringTable",
                       "StringStruct", "VarFileInfo", "VarStruct"}


# --- running a spec with recording stand-ins -----------------------------------------------------


class Target:
    """One call of a PyInstaller build target, with the attributes later targets read."""

    def __init__(self, kind: str, args: tuple, kwargs: dict) -> None:
        self.kind, self.args, self.kwargs = kind, args, kwargs
        for attribute in ("pure", "scripts", "binaries", "datas"):
            setattr(self, attribute, (kind, attribute, id(self)))


def stub_pyinstaller(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stand-ins for the PyInstaller modules installers/bundle/common.py imports."""
    hooks = ModuleType("PyInstaller.utils.hooks")
    hooks.collect_data_files = lambda package, **_: [(f"<data of {package}>", package)]
    hooks.copy_metadata = lambda distribution, **_: [(f"<metadata of {distribution}>", ".")]
    monkeypatch.setitem(sys.modules, "PyInstaller", ModuleType("PyInstaller"))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils", ModuleType("PyInstaller.utils"))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)


def load_common(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """installers/bundle/common.py, loaded with stand-ins for PyInstaller."""
    stub_pyinstaller(monkeypatch)
    spec = importlib.util.spec_from_file_location("common", INSTALLERS / "bundle" / "common.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_spec(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Target], dict]:
    """Execute a spec as PyInstaller would, with recorders for its targets; (calls, namespace)."""
    stub_pyinstaller(monkeypatch)
    # The spec imports installers/bundle/common.py as `common`: import it afresh, and drop it
    # afterwards (setitem records "absent", delitem clears the slot for the spec's import).
    monkeypatch.setitem(sys.modules, "common", ModuleType("common"))
    monkeypatch.delitem(sys.modules, "common")
    monkeypatch.setattr(sys, "path", list(sys.path))
    calls: list[Target] = []

    def recorder(kind: str):
        def record(*args, **kwargs) -> Target:
            calls.append(Target(kind, args, kwargs))
            return calls[-1]
        return record

    namespace = {"__name__": "__main__", "__file__": str(path), "SPECPATH": str(path.parent)}
    namespace.update({kind: recorder(kind) for kind in ("Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE")})
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return calls, namespace


def of_kind(calls: list[Target], kind: str) -> list[Target]:
    return [call for call in calls if call.kind == kind]


def executables(calls: list[Target]) -> dict[str, Target]:
    return {call.kwargs["name"]: call for call in of_kind(calls, "EXE")}


# --- every spec ------------------------------------------------------------------------------------


@pytest.mark.parametrize("platform", sorted(SPECS))
def test_spec_compiles(platform: str) -> None:
    path = SPECS[platform]
    compile(path.read_text(encoding="utf-8"), str(path), "exec")


@pytest.mark.parametrize("platform", sorted(SPECS))
def test_spec_uses_only_what_common_defines(platform: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `common.NAME` a spec reads exists (the Linux spec is built by test_bundle.py;
    this is the check that reaches it without PyInstaller)."""
    common = load_common(monkeypatch)
    tree = ast.parse(SPECS[platform].read_text(encoding="utf-8"))
    used = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "common"}
    assert {"ENTRY_EDITOR", "ENTRY_CLI", "BUNDLE_NAME", "editor_datas", "cli_datas"} <= used
    assert not {name for name in used if not hasattr(common, name)}
    assert Path(common.ENTRY_EDITOR).is_file() and Path(common.ENTRY_CLI).is_file()
    for extension in re.findall(r"common\.icon\(\"(\w+)\"\)", SPECS[platform].read_text(encoding="utf-8")):
        assert Path(common.icon(extension)).is_file(), extension


@pytest.mark.parametrize("platform", NOT_BUILT_SPECS)
def test_spec_builds_the_two_programs_from_existing_entry_scripts(platform: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls, namespace = run_spec(SPECS[platform], monkeypatch)
    common = namespace["common"]
    analyses = of_kind(calls, "Analysis")
    assert [Path(call.args[0][0]).name for call in analyses] == ["entry_vpl_editor.py", "entry_vpl.py"]
    for call in analyses:
        assert Path(call.args[0][0]).is_file(), call.args[0][0]
    assert "from app.main import main" in Path(common.ENTRY_EDITOR).read_text(encoding="utf-8")
    assert "from vpl_core.cli import main" in Path(common.ENTRY_CLI).read_text(encoding="utf-8")
    assert (ROOT / "app" / "main.py").is_file() and (ROOT / "vpl_core" / "cli.py").is_file()
    editor, cli = analyses
    assert ("<data of app>", "app") in editor.kwargs["datas"]
    assert editor.kwargs["hiddenimports"] == common.HIDDEN_IMPORTS
    assert "PySide6" in cli.kwargs["excludes"], "the vpl command stays free of Qt"

    programs = executables(calls)
    assert sorted(programs) == ["vpl", "vpl-editor"]
    assert programs["vpl-editor"].kwargs["console"] is False
    assert programs["vpl"].kwargs["console"] is True
    assert all(program.kwargs["exclude_binaries"] is True for program in programs.values()), "one-folder build"
    assert programs["vpl-editor"].args[1] is editor.scripts and programs["vpl"].args[1] is cli.scripts
    (collect,) = of_kind(calls, "COLLECT")
    assert collect.kwargs["name"] == common.BUNDLE_NAME == "vpl-editor"
    for part in (programs["vpl-editor"], programs["vpl"], editor.binaries, editor.datas, cli.binaries, cli.datas):
        assert any(argument is part for argument in collect.args)


@pytest.mark.parametrize("platform", NOT_BUILT_SPECS)
def test_icons_given_to_pyinstaller_exist(platform: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls, _ = run_spec(SPECS[platform], monkeypatch)
    icons = [call.kwargs["icon"] for call in calls if "icon" in call.kwargs]
    assert icons
    for icon in icons:
        assert Path(icon).is_file(), icon
    assert {Path(icon).suffix for icon in icons} == {"windows": {".ico"}, "macos": {".icns"}}[platform]


# --- Windows -----------------------------------------------------------------------------------------


def test_windows_exes_carry_icon_and_version_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    calls, namespace = run_spec(SPECS["windows"], monkeypatch)
    programs = executables(calls)
    for program in programs.values():
        assert Path(program.kwargs["icon"]).name == "vpl-editor.ico"
        assert "version" in program.kwargs
        # Built only on Windows (PyInstaller's versioninfo module needs pefile there).
        assert program.kwargs["version"] is None
    numbers = namespace["version_numbers"]
    assert numbers("0.1.0") == (0, 1, 0, 0)
    assert numbers("1.2.3.dev4+gabc123") == (1, 2, 3, 0)
    assert numbers("1!2.3.4.5.6") == (2, 3, 4, 5)
    assert numbers("70000.1") == (0xFFFF, 1, 0, 0)
    assert numbers(namespace["common"].version())[:2] == tuple(int(part) for part in namespace["VERSION"].split(".")[:2])


def test_windows_version_resource_uses_pyinstallers_classes() -> None:
    tree = ast.parse(SPECS["windows"].read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module == "PyInstaller.utils.win32.versioninfo"
                for alias in node.names}
    assert imported == VERSIONINFO_CLASSES
    called = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert called >= VERSIONINFO_CLASSES


def test_windows_script_steps() -> None:
    script = WINDOWS_SCRIPT.read_text(encoding="utf-8")
    assert script.isascii(), "Windows PowerShell 5.1 reads a BOM-less script as ANSI: keep it ASCII"
    assert "installers\\requirements-build.txt" in script
    assert "installers\\windows\\vpl-editor.spec" in script
    assert '--distpath "$Work\\dist" --workpath "$Work\\work"' in script
    # PyInstaller and the version query run outside the checkout, which would shadow the installed package.
    assert script.index("Set-Location -LiteralPath $Work") < script.index("-m PyInstaller")
    assert '$Venv = "$Work\\venv"' in script and '$Work = Join-Path $Root "build\\windows-bundle"' in script
    assert "pip install -q $Root" in script and "-e " not in script, "non-editable install"
    assert re.search(r"\$Version = & \$VenvPython -c \"from importlib\.metadata import version; "
                     r"print\(version\('vpl-material-editor'\)\)\"", script)
    assert '$Zip = "$Dist\\vpl-editor-$Version-windows-x86_64.zip"' in script
    assert "Compress-Archive" in script and "-DestinationPath $Zip" in script
    assert re.search(r'& "\$Bundle\\vpl\.exe" check', script)
    assert '"$Bundle\\vpl-editor.exe"' in script and '-ArgumentList "--version"' in script
    assert "-lt 10" in script and "-gt 12" in script and "sys.maxsize > 2**32" in script


def test_windows_script_checks_every_package_data_symlink() -> None:
    """The symlink check of build-windows.ps1 names exactly the symlinks of the source tree."""
    script = WINDOWS_SCRIPT.read_text(encoding="utf-8")
    checked = dict(re.findall(r'@\{ Path = "([^"]+)"; Target = "([^"]+)"', script))
    links = {}
    for package in ("app", "vpl_core"):
        for folder, directories, _ in os.walk(ROOT / package):
            for name in directories:
                path = Path(folder) / name
                if path.is_symlink():
                    target = (path.parent / os.readlink(path)).resolve().relative_to(ROOT)
                    links[str(path.relative_to(ROOT)).replace("/", "\\")] = str(target).replace("/", "\\")
    assert links, "the source tree ships package data through symlinks"
    assert checked == links


# --- macOS -----------------------------------------------------------------------------------------


def test_macos_app_bundle_and_info_plist(monkeypatch: pytest.MonkeyPatch) -> None:
    calls, namespace = run_spec(SPECS["macos"], monkeypatch)
    (collect,) = of_kind(calls, "COLLECT")
    (bundle,) = of_kind(calls, "BUNDLE")
    assert bundle.args == (collect,)
    assert bundle.kwargs["name"] == APP
    assert Path(bundle.kwargs["icon"]).name == "vpl-editor.icns" and Path(bundle.kwargs["icon"]).is_file()
    assert bundle.kwargs["bundle_identifier"] == "org.vpl.material-editor"
    version = namespace["common"].version()
    assert re.fullmatch(r"\d+(\.\d+){0,2}", bundle.kwargs["version"])
    assert version.startswith(bundle.kwargs["version"])
    programs = executables(calls)
    assert programs["vpl-editor"].kwargs.get("argv_emulation") is True

    plist = bundle.kwargs["info_plist"]
    plistlib.loads(plistlib.dumps(plist))  # serialisable as PyInstaller writes it
    assert plist["CFBundleExecutable"] == "vpl-editor" in programs, "Finder must launch the editor, not `vpl`"
    assert plist["LSBackgroundOnly"] is False
    assert plist["CFBundleShortVersionString"] == plist["CFBundleVersion"] == bundle.kwargs["version"]
    assert plist["NSHighResolutionCapable"] is True
    assert plist["LSMinimumSystemVersion"] == "13.0"
    assert plist["NSRequiresAquaSystemAppearance"] is False
    (document,) = plist["CFBundleDocumentTypes"]
    assert (document["CFBundleTypeRole"], document["LSHandlerRank"]) == ("Editor", "Owner")
    (declared,) = plist["UTExportedTypeDeclarations"]
    assert document["LSItemContentTypes"] == [declared["UTTypeIdentifier"]] == ["org.vpl.material"]
    assert declared["UTTypeConformsTo"] == ["public.plain-text"]
    assert declared["UTTypeTagSpecification"]["public.filename-extension"] == ["vpl"]


def test_the_shared_build_environment_installs_pinned_tools_and_the_project_non_editable() -> None:
    shared = (ROOT / "installers" / "bundle" / "build-environment.sh").read_text(encoding="utf-8")
    assert '"$checkout/installers/requirements-build.txt"' in shared
    assert 'pip install -q "$checkout"' in shared and " -e " not in shared
    assert '(cd "$work" && "$venv/bin/python" -c' in shared  # the version from the installed metadata
    for script in (MACOS_SCRIPT, ROOT / "installers" / "build-linux.sh"):
        assert 'source "$here/installers/bundle/build-environment.sh"' in script.read_text(encoding="utf-8")


def test_macos_script_passes_bash_syntax_check() -> None:
    bash = shutil.which("bash")
    assert bash is not None
    result = subprocess.run([bash, "-n", str(MACOS_SCRIPT)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert os.access(MACOS_SCRIPT, os.X_OK)


def test_macos_script_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    script = MACOS_SCRIPT.read_text(encoding="utf-8")
    assert "set -euo pipefail" in script
    assert 'version="$(bundle_build_environment "$here" "$work" "$python")"' in script
    assert '"$here/installers/macos/vpl-editor.spec"' in script
    assert 'venv="$work/venv"' in script and 'work="$here/build/macos-bundle"' in script
    # PyInstaller and the version query run outside the checkout, which would shadow the installed package.
    assert script.index('cd "$work"') < script.index("-m PyInstaller")
    assert " -e " not in script, "non-editable install"
    # The app the script signs, tests and packs is the one the spec names.
    calls, _ = run_spec(SPECS["macos"], monkeypatch)
    (bundle,) = of_kind(calls, "BUNDLE")
    assert f'app="$work/dist/{bundle.kwargs["name"]}"' in script
    assert '"$app/Contents/MacOS/vpl" check "$example"' in script
    assert '"$app/Contents/MacOS/vpl-editor" --version' in script
    assert 'codesign --force --deep --sign - "$app"' in script
    assert 'arch="$(uname -m)"' in script
    assert 'dmg="$here/dist/vpl-editor-$version-macos-$arch.dmg"' in script
    assert re.search(r'hdiutil create -volname .* -srcfolder "\$stage" -ov -format UDZO "\$dmg"', script)
    for step in ("--options runtime --timestamp", "xcrun notarytool submit", "--wait", "xcrun stapler staple"):
        assert step in script, step


# --- the not-built files -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", NOT_BUILT, ids=lambda path: str(path.relative_to(INSTALLERS)))
def test_not_built_banner_at_the_top(path: Path) -> None:
    head = path.read_text(encoding="utf-8").splitlines()[:8]
    text = " ".join(line.strip().lstrip("#>").strip().strip("*").strip() for line in head)
    assert BANNER in " ".join(text.split())


@pytest.mark.parametrize("path", [WINDOWS_SCRIPT, MACOS_SCRIPT, INSTALLERS / "windows" / "BUILD.md",
                                  INSTALLERS / "macos" / "BUILD.md"],
                         ids=lambda path: str(path.relative_to(INSTALLERS)))
def test_installer_paths_named_in_scripts_and_docs_exist(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    named = set(re.findall(r"installers[\\/][\w\\/.-]*\w", text))
    assert named, "names the spec and the requirements file"
    for name in named:
        assert (ROOT / name.replace("\\", "/")).exists(), name
