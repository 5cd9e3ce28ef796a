"""The built-in programs (spec 12.5): four canonical VPL sources shipped inside the package.

The editable sources of truth are `resources/programs/*.vpl` in the source
tree. The package ships the same bytes as package data: `vpl_core/builtin_programs`
is a link to that directory, and `pyproject.toml` lists
`builtin_programs/*.vpl` as package data, so a wheel carries copies and an
editable install reads the sources themselves. `source` reads the shipped
bytes through `importlib.resources`, so nothing depends on the working
directory or on a source checkout; `load` reads and verifies them with the
file name as the diagnostic label and publishes a `VerifiedModule`.

The variants, each modulated by the `ambient_color` uniform and transforming
the `position` attribute (vec3, location 0) by the `model_view_projection`
matrix uniform:

- `mesh-ambient-color`: one colour for the whole mesh (`mesh_color` uniform);
- `vertex-ambient-color`: a per-vertex colour (`vertex_color`, location 3);
- `texture-ambient-color`: a sampled texture (`texture` uniform, `texcoord`
  at location 2);
- `texture-vertex-ambient-color`: the texture times the vertex colour.
"""

from __future__ import annotations

from importlib import resources

from vpl_core.publish import VerifiedModule

_PACKAGE = "vpl_core"
_DIRECTORY = "builtin_programs"

_NAMES: tuple[str, ...] = (
    "mesh-ambient-color",
    "vertex-ambient-color",
    "texture-ambient-color",
    "texture-vertex-ambient-color",
)


def names() -> tuple[str, ...]:
    """The built-in program names, in the spec's order."""
    return _NAMES


def file_name(name: str) -> str:
    """`<name>.vpl`, the source file name (and diagnostic label) of a built-in program."""
    _check(name)
    return f"{name}.vpl"


def source(name: str) -> bytes:
    """The exact shipped bytes of a built-in program's canonical source."""
    _check(name)
    return resources.files(_PACKAGE).joinpath(_DIRECTORY).joinpath(file_name(name)).read_bytes()


def load(name: str) -> VerifiedModule:
    """Read, verify and publish a built-in program; diagnostics are labelled with its file name."""
    return VerifiedModule.from_text(source(name), label=file_name(name))


def _check(name: str) -> None:
    if name not in _NAMES:
        raise KeyError(f"unknown built-in program {name!r}; built-in programs: {', '.join(_NAMES)}")
