#!/usr/bin/env bash
# Installs the VPL material editor for the current user (no root needed):
#   - a virtual environment in $PREFIX/share/vpl-editor/venv with the package
#     built from this checkout (or from a wheel given with --wheel),
#   - launchers $PREFIX/bin/vpl and $PREFIX/bin/vpl-editor,
#   - a desktop entry and icon so the editor shows up in application menus.
# PREFIX defaults to ~/.local. Uninstall with --uninstall.
# System libraries for Qt's xcb platform and OpenGL are the desktop's own; on a
# bare server run scripts/bootstrap.sh once (it installs them with apt-get).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
prefix="${HOME}/.local"
python="${PYTHON:-python3}"
wheel=""
uninstall=0
while (($#)); do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --wheel) wheel="$2"; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

share="$prefix/share/vpl-editor"
bin="$prefix/bin"
applications="$prefix/share/applications"
icons="$prefix/share/icons/hicolor/scalable/apps"

if ((uninstall)); then
  rm -rf "$share"
  rm -f "$bin/vpl" "$bin/vpl-editor" "$applications/vpl-editor.desktop" "$icons/vpl-editor.svg" \
    "$prefix/share/mime/packages/vpl-editor-mime.xml"
  echo "removed the VPL material editor from $prefix"
  exit 0
fi

mkdir -p "$share" "$bin" "$applications" "$icons"
"$python" -m venv "$share/venv"
"$share/venv/bin/python" -m pip install -q --upgrade pip
"$share/venv/bin/python" -m pip install -q "${wheel:-$here}"

for command in vpl vpl-editor; do
  cat > "$bin/$command" <<LAUNCHER
#!/usr/bin/env bash
exec "$share/venv/bin/$command" "\$@"
LAUNCHER
  chmod +x "$bin/$command"
done
install -m 0644 "$here/resources/icons/vpl-editor.svg" "$icons/vpl-editor.svg"
sed -e "s|@EXEC@|\"$bin/vpl-editor\"|" -e "s|@ICON@|$icons/vpl-editor.svg|" \
  "$here/installers/linux/vpl-editor.desktop.in" > "$applications/vpl-editor.desktop"
mkdir -p "$prefix/share/mime/packages"
install -m 0644 "$here/installers/linux/vpl-editor-mime.xml" "$prefix/share/mime/packages/vpl-editor-mime.xml"
if command -v update-mime-database >/dev/null; then update-mime-database "$prefix/share/mime" >/dev/null 2>&1 || true; fi
echo "installed: $bin/vpl-editor, $bin/vpl (environment in $share/venv)"
