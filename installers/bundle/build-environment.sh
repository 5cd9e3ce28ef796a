# Sourced by installers/build-linux.sh and installers/macos/build-macos.sh (bash).
#
# bundle_build_environment CHECKOUT WORK PYTHON
#   Makes WORK/venv the build environment and prints the project's version:
#   - PyInstaller and its hooks at the versions pinned in
#     CHECKOUT/installers/requirements-build.txt (the venv is made again
#     from PYTHON whenever that file changes, else reused);
#   - the project from CHECKOUT installed as a wheel installs it (never
#     editable), dependencies as pyproject.toml pins them, the project
#     itself always reinstalled so the bundle is of this checkout.
#   The version is read from the installed metadata, in WORK: from the
#   checkout, Python would find the source tree and a stale egg-info first.
bundle_build_environment() {
  set -euo pipefail  # called as $(...), which does not inherit errexit: a failed pip must stop here
  local checkout="$1" work="$2" python="$3"
  local venv="$work/venv"
  local requirements="$checkout/installers/requirements-build.txt"
  local stamp="$venv/.requirements-build"
  if [[ ! -x "$venv/bin/python" ]] || ! cmp -s "$requirements" "$stamp"; then
    echo "== build environment in $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv" >&2
    "$venv/bin/python" -m pip install -q --upgrade pip >&2
    "$venv/bin/python" -m pip install -q -r "$requirements" >&2
    cp "$requirements" "$stamp"
  fi
  echo "== installing the project from $checkout" >&2
  "$venv/bin/python" -m pip install -q "$checkout" >&2
  "$venv/bin/python" -m pip install -q --no-deps --force-reinstall "$checkout" >&2
  (cd "$work" && "$venv/bin/python" -c 'from importlib.metadata import version; print(version("vpl-material-editor"))')
}
