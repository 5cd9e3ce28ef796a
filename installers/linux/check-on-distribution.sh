#!/usr/bin/env bash
# Release check: runs a built Linux bundle on another Debian release, with that
# release's own Mesa, glibc and libstdc++ (a debootstrap root, entered with chroot).
# The bundle must start, report the system's OpenGL renderer, render the preview
# and verify an example there. It is what catches a bundled library that shadows
# one the system's GL driver needs (docs/installers.md, "What comes from the system").
#
# Usage (as root, with an X display, e.g. under `xvfb-run -a`):
#   installers/linux/check-on-distribution.sh ARCHIVE [--suite trixie] [--root DIR]
#     ARCHIVE   dist/vpl-editor-<version>-linux-x86_64.tar.gz
#     --suite   the Debian release to try (default: trixie, Debian 13)
#     --root    where its root file system is made and kept for the next run
#               (default: build/distributions/<suite>; about 500 MB)
# Needs debootstrap and network access to deb.debian.org. Not part of the test
# suite (network, root, half a gigabyte); run it before a release.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
archive=""
suite="trixie"
root=""
while (($#)); do
  case "$1" in
    --suite) suite="$2"; shift 2 ;;
    --root) root="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "check-on-distribution.sh: unknown option $1" >&2; exit 2 ;;
    *) archive="$1"; shift ;;
  esac
done
[[ -f "$archive" ]] || { echo "check-on-distribution.sh: give the bundle's .tar.gz (see --help)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "check-on-distribution.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
[[ -n "${DISPLAY:-}" ]] || { echo "check-on-distribution.sh: needs an X display (run under xvfb-run -a)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "check-on-distribution.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
root="${root:-$here/build/distributions/$suite}"

if [[ ! -x "$root/usr/bin/env" ]]; then
  echo "== debootstrap $suite into $root" >&2
  mkdir -p "$root"
  # What a desktop has for the bundle: the GL stack, fonts, fontconfig, xkbcommon, D-Bus.
  debootstrap --variant=minbase \
    --include=libgl1,libegl1,libgl1-mesa-dri,libegl-mesa0,libfontconfig1,fonts-dejavu-core,libxkbcommon-x11-0,libxkbcommon0,libdbus-1-3 \
    "$suite" "$root" http://deb.debian.org/debian >&2
fi

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() {  # bind SOURCE TARGET-IN-ROOT
  mkdir -p "$root$2"
  mount --bind "$1" "$root$2"
  mounted+=("$root$2")
}
mkdir -p "$root/proc"
mount -t proc proc "$root/proc"
mounted+=("$root/proc")
bind /dev /dev
bind /tmp/.X11-unix /tmp/.X11-unix

rm -rf "$root/opt/vpl-bundle"
mkdir -p "$root/opt/vpl-bundle"
tar -C "$root/opt/vpl-bundle" -xzf "$archive"
bundle="$(cd "$root/opt/vpl-bundle" && echo vpl-editor-*)"
cp "$here/resources/examples/lit_blinn_phong.vpl" "$root/tmp/check-example.vpl"
inside=(chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 DISPLAY="$DISPLAY")
[[ -n "${XAUTHORITY:-}" ]] && cp "$XAUTHORITY" "$root/tmp/check-xauthority" && inside+=(XAUTHORITY=/tmp/check-xauthority)
app="/opt/vpl-bundle/$bundle"

echo "== $bundle on Debian $suite ($(chroot "$root" /usr/bin/ldd --version | head -n 1))" >&2
"${inside[@]}" "$app/vpl" check /tmp/check-example.vpl
"${inside[@]}" "$app/vpl-editor" --about
"${inside[@]}" "$app/vpl-editor" /tmp/check-example.vpl --preview-screenshot /tmp/check-preview.png --size 256x256
"${inside[@]}" "$app/vpl-editor" /tmp/check-example.vpl --screenshot /tmp/check-window.png
cp "$root/tmp/check-preview.png" "$root/tmp/check-window.png" "$(dirname "$archive")/"
echo "ok: the bundle runs on Debian $suite; screenshots: $(dirname "$archive")/check-preview.png, check-window.png" >&2
