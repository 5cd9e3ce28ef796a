#!/usr/bin/env bash
# Idempotent set-up shared by ./run-editor and ./run-tests:
#  1. system packages for headless OpenGL (Xvfb, Mesa llvmpipe, Qt's xcb
#     dependencies), weston (a headless Wayland compositor for the Wayland
#     tests), glslangValidator, Chromium (the WebGL 2 test of the es300
#     target runs it headless), and what the bundle test needs
#     (desktop-file-validate, objdump, Python's shared library), Node.js and
#     npm (the Khronos glTF Validator the glTF export tests run), installed
#     with apt-get when missing;
#  2. a virtual environment in .venv with the project and its test extras;
#  3. the npm packages gltf-validator and @khronosgroup/gltf-viewer (the Sample
#     Viewer's renderer, test-only), both pinned, in .venv/node.
# It prints what it does and is silent when everything is already there.
#
# A stamp (.venv/.bootstrap-stamp) records what the last complete set-up was made
# from: the hashes of pyproject.toml and of this script, and the Python used. When
# they still match, nothing is checked or run (a few milliseconds, so ./run-editor
# starts as fast as .venv/bin/vpl-editor); a changed requirement or script, another
# Python, or a missing .venv runs the set-up again. `--check` only answers: exit 0
# when the stamp matches, 1 when a set-up would run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

python=${PYTHON:-python3}
stamp=.venv/.bootstrap-stamp
hash_files() {
  if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}
wanted="python ${python}
$(hash_files pyproject.toml scripts/bootstrap.sh)"
stamped=""
if [[ -f $stamp ]]; then
  IFS= read -r -d '' stamped <"$stamp" || true
fi
if [[ -x .venv/bin/python && "$stamped" == "$wanted" ]]; then
  exit 0
fi
if [[ "${1:-}" == "--check" ]]; then
  exit 1
fi

system_packages=(
  xvfb xauth libgl1-mesa-dri libgl1 libegl1 libegl-mesa0 libgles2 glslang-tools
  libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0
  libxcb-render-util0 libxcb-image0 libxcb-randr0 libxcb-xinerama0 libxcb-xfixes0
  libfontconfig1 libdbus-1-3 libxkbcommon0 fonts-dejavu-core
  desktop-file-utils binutils weston libwayland-cursor0 libwayland-egl1
  chromium
)

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for package in "${system_packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
  done
  # Debian's own python3 ships venv/ensurepip separately.
  if ! "$python" -c "import ensurepip, venv" >/dev/null 2>&1; then
    missing+=(python3-venv)
  fi
  # The Linux bundle (installers/build-linux.sh, PyInstaller) needs Python's shared
  # library; Debian's python3 ships it in libpython3.X.
  shared_library=$("$python" -c 'import os, sysconfig; v = sysconfig.get_config_var; print(os.path.join(v("LIBDIR") or "", v("INSTSONAME") or ""))')
  if [[ ! -e "$shared_library" && "$shared_library" == /usr/* ]]; then
    missing+=("libpython$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')")
  fi
  # Node.js and npm by command, not by package: a NodeSource nodejs carries its own npm
  # (and conflicts with Debian's npm package).
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    missing+=(nodejs npm)
  fi
fi
if ((${#missing[@]})); then
  echo "bootstrap: installing system packages: ${missing[*]}" >&2
  if [[ $(id -u) -eq 0 ]]; then sudo_cmd=(); else sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq >&2
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [[ ! -x .venv/bin/python ]]; then
  echo "bootstrap: creating .venv" >&2
  "$python" -m venv .venv
fi
# The packages are installed again when pyproject.toml changed since the stamp (or there is none).
pyproject_hash=$(hash_files pyproject.toml)
if [[ "$stamped" != *"$pyproject_hash"* ]]; then
  echo "bootstrap: installing Python packages" >&2
  .venv/bin/python -m pip install -q --upgrade pip >&2
  .venv/bin/python -m pip install -q -e '.[dev]' >&2
fi
# MP4 turntables (app/preview/turntable.py) run the ffmpeg that imageio-ffmpeg's wheel carries; where pip
# found no wheel with one for this platform, it falls back to the system's ffmpeg.
if ! .venv/bin/python -c "import imageio_ffmpeg; imageio_ffmpeg.get_ffmpeg_exe()" >/dev/null 2>&1 \
    && ! command -v ffmpeg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: installing ffmpeg (no ffmpeg came with imageio-ffmpeg)" >&2
  if [[ $(id -u) -eq 0 ]]; then sudo_cmd=(); else sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends ffmpeg >&2
fi

# The Khronos glTF Validator (tests/export/test_gltf_validator.py runs tools/validate_gltf.cjs).
gltf_validator_version=2.0.0-dev.3.10
gltf_validator=.venv/node/node_modules/gltf-validator/package.json
if [[ ! -f $gltf_validator ]] || ! grep -q "\"version\": \"$gltf_validator_version\"" "$gltf_validator"; then
  echo "bootstrap: installing gltf-validator $gltf_validator_version (npm)" >&2
  mkdir -p .venv/node
  npm install --prefix .venv/node --no-audit --no-fund --no-save --loglevel=error "gltf-validator@$gltf_validator_version" >&2
fi

# The Khronos glTF Sample Viewer's renderer (test-only: tests/sample_viewer.py draws exported .glb files with it in
# headless Chromium; the editor never loads it). --no-save keeps the validator beside it.
gltf_viewer_version=1.1.0
gltf_viewer=.venv/node/node_modules/@khronosgroup/gltf-viewer/package.json
if [[ ! -f $gltf_viewer ]] || ! grep -q "\"version\": \"$gltf_viewer_version\"" "$gltf_viewer"; then
  echo "bootstrap: installing @khronosgroup/gltf-viewer $gltf_viewer_version (npm)" >&2
  mkdir -p .venv/node
  npm install --prefix .venv/node --no-audit --no-fund --no-save --loglevel=error \
    "gltf-validator@$gltf_validator_version" "@khronosgroup/gltf-viewer@$gltf_viewer_version" >&2
fi

# Everything above succeeded: record what it was made from (the fast path at the top compares with this).
printf '%s' "$wanted" >"$stamp"
