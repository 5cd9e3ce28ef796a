#!/usr/bin/env bash
# Puts this unpacked VPL Material Editor bundle into the current user's desktop
# (no root needed; nothing is copied, the bundle stays where it is):
#   - launchers PREFIX/bin/vpl-editor and PREFIX/bin/vpl that run this folder's executables,
#   - a menu entry (PREFIX/share/applications/vpl-editor.desktop) and the icon,
#   - the .vpl file type, opened by the editor.
# PREFIX defaults to ~/.local. `./install.sh --uninstall` removes all of that again
# (then delete this folder to remove the editor itself).
# Move the folder first if you want it elsewhere: the launchers point at it.
set -euo pipefail
bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
prefix="${HOME}/.local"
uninstall=0
while (($#)); do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bin="$prefix/bin"
data="$prefix/share"
applications="$data/applications"
icons="$data/icons/hicolor"
mime="$data/mime"

refresh() {
  # Caches of the desktop; absent tools just mean the desktop rescans by itself.
  if command -v update-mime-database >/dev/null; then update-mime-database "$mime" >/dev/null 2>&1 || true; fi
  if command -v update-desktop-database >/dev/null; then update-desktop-database "$applications" >/dev/null 2>&1 || true; fi
  if command -v gtk-update-icon-cache >/dev/null; then gtk-update-icon-cache -q -t "$icons" >/dev/null 2>&1 || true; fi
}

if ((uninstall)); then
  rm -f "$bin/vpl-editor" "$bin/vpl" "$applications/vpl-editor.desktop" \
    "$icons/256x256/apps/vpl-editor.png" "$icons/scalable/apps/vpl-editor.svg" \
    "$mime/packages/vpl-editor-mime.xml"
  refresh
  echo "removed the VPL Material Editor's launchers, menu entry and file type from $prefix"
  exit 0
fi

mkdir -p "$bin" "$applications" "$icons/256x256/apps" "$icons/scalable/apps" "$mime/packages"
for command in vpl-editor vpl; do
  cat > "$bin/$command" <<LAUNCHER
#!/bin/sh
exec "$bundle/$command" "\$@"
LAUNCHER
  chmod 0755 "$bin/$command"
done
install -m 0644 "$bundle/vpl-editor.png" "$icons/256x256/apps/vpl-editor.png"
install -m 0644 "$bundle/vpl-editor.svg" "$icons/scalable/apps/vpl-editor.svg"
install -m 0644 "$bundle/vpl-editor-mime.xml" "$mime/packages/vpl-editor-mime.xml"
# The shipped entry with the absolute path of this folder's executable.
sed -e "s|^Exec=.*|Exec=\"$bundle/vpl-editor\" %f|" "$bundle/vpl-editor.desktop" > "$applications/vpl-editor.desktop"
chmod 0644 "$applications/vpl-editor.desktop"
refresh
echo "installed: $bin/vpl-editor and $bin/vpl (running $bundle), menu entry, icon and the .vpl file type"
case ":$PATH:" in
  *":$bin:"*) ;;
  *) echo "note: $bin is not on your PATH; add it to run vpl-editor and vpl from a terminal" ;;
esac
