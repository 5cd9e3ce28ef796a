#!/usr/bin/env bash
# Builds the self-contained Linux bundle of the editor:
#   dist/vpl-editor-<version>-linux-x86_64.tar.gz
# which unpacks to vpl-editor-<version>/ holding the `vpl-editor` and `vpl`
# executables (PyInstaller one-folder build: Python, Qt with its platform and
# OpenGL plugins, NodeGraphQt, PyOpenGL, numpy, the examples and built-in
# programs), a .desktop file, the application icon, install.sh and README.
#
# Usage: installers/build-linux.sh [--dist DIR] [--work DIR] [--python PYTHON]
#   --dist    where the .tar.gz goes (default: dist/ in the checkout)
#   --work    build environment and PyInstaller's work files (default: build/linux-bundle)
#   --python  the Python to build with (default: python3; needs its shared library,
#             which Debian's python3 and pyenv's default builds have)
#
# The build environment is a virtual environment of its own (reused between
# builds): PyInstaller at the versions pinned in installers/requirements-build.txt
# and this checkout installed as a wheel would be (`pip install .`, not
# editable), so the bundle holds exactly the package data and metadata a
# user's install has. The version comes from that metadata.
set -euo pipefail
trap 'echo "build-linux.sh: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dist="$here/dist"
work="$here/build/linux-bundle"
python="${PYTHON:-python3}"
while (($#)); do
  case "$1" in
    --dist) dist="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "build-linux.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ "$(uname -s)" != Linux ]]; then
  echo "build-linux.sh: builds the Linux bundle and must run on Linux (see docs/installers.md)" >&2
  exit 2
fi
arch="$(uname -m)"
for tool in objdump tar gzip; do
  command -v "$tool" >/dev/null || { echo "build-linux.sh: needs $tool (Debian: apt-get install binutils tar gzip)" >&2; exit 2; }
done
if ! "$python" -c "import ensurepip, venv" >/dev/null 2>&1; then
  echo "build-linux.sh: $python cannot make virtual environments (Debian: apt-get install python3-venv)" >&2
  exit 2
fi
shared_library="$("$python" -c 'import os, sysconfig; v = sysconfig.get_config_var; print(os.path.join(v("LIBDIR") or "", v("INSTSONAME") or ""))')"
if [[ ! -e "$shared_library" ]]; then
  echo "build-linux.sh: $python has no shared library ($shared_library); PyInstaller needs one" \
    "(Debian: apt-get install libpython3.X; pyenv: PYTHON_CONFIGURE_OPTS=--enable-shared)" >&2
  exit 2
fi
started=$SECONDS
mkdir -p "$work" "$dist"
dist="$(cd "$dist" && pwd)"
work="$(cd "$work" && pwd)"

# Run from the work folder: from the checkout, `python -m PyInstaller` would
# import the source tree (and its egg-info) instead of the installed package.
cd "$work"

# 1. The build environment.
source "$here/installers/bundle/build-environment.sh"
venv="$work/venv"
version="$(bundle_build_environment "$here" "$work" "$python")"
name="vpl-editor-$version"

# 2. PyInstaller.
echo "== PyInstaller ($name)" >&2
pyi_dist="$work/pyinstaller-dist"
rm -rf "$pyi_dist"
"$venv/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$pyi_dist" --workpath "$work/pyinstaller-work" \
  "$here/installers/linux/vpl-editor.spec"

# 3. The folder users unpack: executables, desktop file, icon, installer, README.
stage="$work/stage"
rm -rf "$stage"
mkdir -p "$stage"
mv "$pyi_dist/vpl-editor" "$stage/$name"
root="$stage/$name"
install -m 0644 "$here/resources/icons/vpl-editor-256.png" "$root/vpl-editor.png"
install -m 0644 "$here/resources/icons/vpl-editor.svg" "$root/vpl-editor.svg"
install -m 0644 "$here/installers/linux/vpl-editor-mime.xml" "$root/vpl-editor-mime.xml"
# As shipped, the entry runs `vpl-editor` from PATH with the themed icon; install.sh
# writes the installed copy with the absolute path of this folder's executable.
sed -e "s|@EXEC@|vpl-editor|" -e "s|@ICON@|vpl-editor|" \
  "$here/installers/linux/vpl-editor.desktop.in" > "$root/vpl-editor.desktop"
install -m 0755 "$here/installers/linux/bundle-install.sh" "$root/install.sh"
# The newest glibc symbol version any bundled binary needs: the oldest system it runs on.
glibc="$({ find "$root/_internal" "$root/vpl" "$root/vpl-editor" -type f \( -name '*.so*' -o -perm -u+x \) \
  -exec objdump -T {} + 2>/dev/null || true; } | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V -u | tail -n 1)"
[[ -n "$glibc" ]] || { echo "build-linux.sh: could not read the glibc versions the bundle needs" >&2; exit 1; }
sed -e "s|@VERSION@|$version|g" -e "s|@GLIBC@|$glibc|g" \
  "$here/installers/linux/BUNDLE-README.txt" > "$root/README.txt"

# 4. Smoke test before packing: the bundled CLI reads a shipped example.
example="$(find "$root/_internal/app/material/examples" -name '*.vpl' | sort | head -n 1)"
env -i PATH=/usr/bin:/bin HOME="$work" "$root/vpl" check "$example"
env -i PATH=/usr/bin:/bin HOME="$work" "$root/vpl" --version >/dev/null

# 5. The archive: entries sorted, owned by root and dated by the last commit, gzip without
# a timestamp, so the archive adds nothing of who built it when (PyInstaller's own output
# is not bit-for-bit reproducible).
archive="$dist/$name-linux-$arch.tar.gz"
mtime="$(git -C "$here" log -1 --format=%cI 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="$mtime" \
  -cf - "$name" | gzip -n -6 > "$archive.partial"
mv "$archive.partial" "$archive"

unpacked="$(du -sb "$root" | awk '{printf "%.1f", $1 / 1048576}')"
packed="$(stat -c %s "$archive" | awk '{printf "%.1f", $1 / 1048576}')"
echo "built $archive" >&2
echo "  version $version, $packed MiB packed, $unpacked MiB unpacked, needs glibc $glibc or newer, $((SECONDS - started)) s" >&2
echo "$archive"
