"""`ParameterModel`: the one owner of a material's parameter specs and values.

Specs come from the lowering (a graph document) or from the module's
uniforms (a read-only module document); the model never derives them
itself. Values are keyed by parameter name. When new specs arrive
(`set_specs`), every value is carried over by the one rule of
`app.material.parameters.carry_over`: a value survives while its parameter
keeps its name, kind, type and default; otherwise the new default shows.

Events (plain Python, see `app.session.events`):

- `specs_changed(list[ParameterSpec])`: a new list of specs, with values
  for every one of them already in place;
- `value_changed(ParameterChange)`: one value changed (`set_value`).

The Qt panel and the preview subscribe; neither keeps values of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.material.parameters import ParameterSpec, ParameterValue, carry_over
from app.session.events import Event


@dataclass(frozen=True)
class ParameterChange:
    """One parameter's new value (the payload of `value_changed`)."""

    spec: ParameterSpec
    value: ParameterValue

    @property
    def name(self) -> str:
        return self.spec.name


class ParameterModel:
    """See the module docstring."""

    def __init__(self) -> None:
        self._specs: list[ParameterSpec] = []
        self._by_name: dict[str, ParameterSpec] = {}
        self._values: dict[str, ParameterValue] = {}
        self.specs_changed: Event[list[ParameterSpec]] = Event("specs_changed")
        self.value_changed: Event[ParameterChange] = Event("value_changed")

    # ---- reading --------------------------------------------------------------------------

    @property
    def specs(self) -> list[ParameterSpec]:
        return list(self._specs)

    def spec(self, name: str) -> ParameterSpec | None:
        return self._by_name.get(name)

    @property
    def values(self) -> dict[str, ParameterValue]:
        """The value of every parameter, by name (None: a texture on the checker, or not editable)."""
        return dict(self._values)

    def value(self, name: str) -> ParameterValue:
        return self._values.get(name)

    def __len__(self) -> int:
        return len(self._specs)

    # ---- changing -------------------------------------------------------------------------

    def set_specs(self, specs: Iterable[ParameterSpec], values: Mapping[str, ParameterValue] | None = None) -> None:
        """New specs: carried-over values, then `values` (by name) on top; emits `specs_changed`."""
        specs = list(specs)
        new_values = carry_over(self._by_name, self._values, specs)
        for name, value in (values or {}).items():
            if name in new_values:
                new_values[name] = value
        self._specs = specs
        self._by_name = {spec.name: spec for spec in specs}
        self._values = new_values
        self.specs_changed.emit(self.specs)

    def clear(self) -> None:
        """No parameters (a new document starts from its own defaults)."""
        self._specs, self._by_name, self._values = [], {}, {}
        self.specs_changed.emit([])

    def set_value(self, name: str, value: ParameterValue) -> bool:
        """Set one value and emit `value_changed`; False (nothing emitted) for an unknown or uneditable name."""
        spec = self._by_name.get(name)
        if spec is None or not spec.editable:
            return False
        self._values[name] = value
        self.value_changed.emit(ParameterChange(spec, value))
        return True
