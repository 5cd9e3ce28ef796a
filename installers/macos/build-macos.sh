#!/usr/bin/env bash
# =====================================================================================
# NOT BUILT OR TESTED: written on Linux; no one has run this on Windows/macOS yet.
# Treat the first build on that platform as a bring-up and record what changed.
# =====================================================================================
# Builds the macOS application of the editor:
#   dist/vpl-editor-<version>-macos-<arch>.dmg      (<arch>: `uname -m`, arm64 or x86_64)
# holding "VPL Material Editor.app" (PyInstaller build of installers/macos/vpl-editor.spec:
# the editor, and the `vpl` command in Contents/MacOS next to it), ad-hoc signed.
#
# Usage: installers/macos/build-macos.sh      (PYTHON=/path/to/python3 to pick the Python;
#                                              see installers/macos/BUILD.md)
#
# The build environment build/macos-bundle/venv is reused while
# installers/requirements-build.txt is unchanged; the project is installed into it as
# a wheel would be (`pip install .`, never editable) and the version read from it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${PYTHON:-python3}"
if [[ "$(uname -s)" != Darwin ]]; then
  echo "build-macos.sh: builds the macOS application and must run on macOS" >&2
  exit 2
fi
arch="$(uname -m)"  # the bundle is built for the architecture the build Python runs as
started=$SECONDS
work="$here/build/macos-bundle"
mkdir -p "$work" "$here/dist"
# Run from the work folder: in the checkout, Python would import the source tree
# (and a stale egg-info's version) instead of the installed package.
cd "$work"

# 1. The Python: 3.10 to 3.12 (as the Windows build; the Linux build uses the same pins).
if ! "$python" -c 'import sys; sys.exit(not (3, 10) <= sys.version_info[:2] <= (3, 12))'; then
  echo "build-macos.sh: needs Python 3.10 to 3.12 ($python is $("$python" -V 2>&1 || echo missing)); set PYTHON=" >&2
  exit 2
fi

# 2. The build environment (shared with the Linux build).
source "$here/installers/bundle/build-environment.sh"
venv="$work/venv"
version="$(bundle_build_environment "$here" "$work" "$python")"

# 3. PyInstaller.
echo "== PyInstaller (vpl-editor $version, $arch)" >&2
rm -rf "$work/dist"
"$venv/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$work/dist" --workpath "$work/work" \
  "$here/installers/macos/vpl-editor.spec"
app="$work/dist/VPL Material Editor.app"

# 4. Ad-hoc signature (runs on this Mac; Gatekeeper rejects it on other Macs when downloaded).
# To distribute, sign with a Developer ID instead, notarize and staple:
#   codesign --force --deep --options runtime --timestamp \
#     --sign "Developer ID Application: NAME (TEAMID)" "$app"
#   (then build the .dmg below and sign it too: codesign --timestamp --sign "Developer ID Application: ..." "$dmg")
#   xcrun notarytool submit "$dmg" --keychain-profile PROFILE --wait
#   xcrun stapler staple "$dmg"
# The hardened runtime (--options runtime) may need entitlements for the embedded Python
# (e.g. com.apple.security.cs.disable-library-validation); see BUILD.md.
echo "== codesign (ad-hoc)" >&2
codesign --force --deep --sign - "$app"
codesign --verify --deep --strict "$app"

# 5. Smoke test of the signed application: the command line reads a shipped example,
# both executables start.
echo "== smoke test" >&2
example="$(find "$app/Contents" -path '*/app/material/examples/*.vpl' | sort | head -n 1)"
if [[ -z "$example" ]]; then
  echo "build-macos.sh: no example .vpl inside $app (package data missing)" >&2
  exit 1
fi
"$app/Contents/MacOS/vpl" check "$example"
"$app/Contents/MacOS/vpl" --version
editor_version="$("$app/Contents/MacOS/vpl-editor" --version)"
echo "$editor_version"
if [[ "$editor_version" != *"$version"* ]]; then
  echo "build-macos.sh: vpl-editor --version printed '$editor_version', expected $version" >&2
  exit 1
fi

# 6. The disk image: the application and a link to /Applications to drag it onto.
stage="$work/dmg"
rm -rf "$stage"
mkdir -p "$stage"
ditto "$app" "$stage/VPL Material Editor.app"  # keeps symlinks, attributes and signatures
ln -s /Applications "$stage/Applications"
dmg="$here/dist/vpl-editor-$version-macos-$arch.dmg"
hdiutil create -volname "VPL Material Editor $version" -srcfolder "$stage" -ov -format UDZO "$dmg"

unpacked="$(du -sm "$app" | cut -f1)"
packed="$(du -m "$dmg" | cut -f1)"
echo "built $dmg" >&2
echo "  version $version, $arch, $packed MB packed, $unpacked MB unpacked, $((SECONDS - started)) s" >&2
echo "$dmg"
