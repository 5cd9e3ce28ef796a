"""`ParameterModel`: the one owner of a material's parameter specs and values at run time.

Specs come from the lowering (a graph document) or from the module's
uniforms (a read-only module document); the model never derives them
itself. Values are keyed by parameter name.

- A graph document's values are part of the material (its parameter
  nodes, and the active variant's overrides: `material_values`); the
  session passes them with the specs and after every edit (`set_values`),
  so the model only mirrors the document, and a value survives recompiles
  and transient errors because the document holds it.
- A read-only module has nowhere to keep values: the panel's edits are
  preview values, and when new specs arrive every value is carried over
  by the one rule of `app.material.parameters.carry_over` (a value survives
  while its parameter keeps its name, kind, type and default).

Events (plain Python, see `app.session.events`):

- `specs_changed(list[ParameterSpec])`: a new list of specs, with values
  and variants for every one of them already in place;
- `value_changed(ParameterChange)`: one value changed;
- `variants_changed(VariantState)`: the variant names, the active one, or
  which parameters it overrides changed.

The values are an immutable `ParameterValues` snapshot, replaced (never
changed) at every edit: the Qt panel and the preview subscribe, and a
preview draws with the snapshot it is handed (shared, not copied), so no
second copy exists that could disagree (docs/architecture.md, "Who owns what").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app.material.parameters import ParameterSpec, ParameterValue, carry_over
from app.session.events import Event

_MISSING = object()


class ParameterValues(Mapping[str, Any]):
    """Values by name, immutable: a change makes a new snapshot (`replaced`) and the old one stays as it was.

    A snapshot may be a chain of layers (`chain`: the first layer that has a
    name gives its value). A layer that is a `ParameterValues` is shared, not
    copied, so a preview's snapshot (images and hidden uniforms over the
    model's values) refers to the model's own values instead of copying them.
    """

    __slots__ = ("_layers",)
    _layers: tuple[Mapping[str, Any], ...]

    def __init__(self, values: Mapping[str, Any] | Iterable[tuple[str, Any]] = (), /) -> None:
        object.__setattr__(self, "_layers", (dict(values),))

    @classmethod
    def chain(cls, *layers: Mapping[str, Any]) -> ParameterValues:
        """The first layer holding a name gives its value; `ParameterValues` layers are shared, others copied."""
        flat: list[Mapping[str, Any]] = []
        for layer in layers:
            if isinstance(layer, ParameterValues):
                flat.extend(layer._layers)
            elif layer:
                flat.append(dict(layer))
        snapshot = cls.__new__(cls)
        object.__setattr__(snapshot, "_layers", tuple(flat) or ({},))
        return snapshot

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ParameterValues is immutable: make a new snapshot (replaced, chain)")

    def __getitem__(self, name: str) -> Any:
        for layer in self._layers:
            value = layer.get(name, _MISSING)
            if value is not _MISSING:
                return value
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return any(name in layer for layer in self._layers)

    def __iter__(self) -> Iterator[str]:
        if len(self._layers) == 1:
            return iter(self._layers[0])
        seen: dict[str, None] = {}
        for layer in self._layers:
            seen.update(dict.fromkeys(layer))
        return iter(seen)

    def __len__(self) -> int:
        return len(self._layers[0]) if len(self._layers) == 1 else sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"ParameterValues({dict(self.items())!r})"

    def replaced(self, values: Mapping[str, Any]) -> ParameterValues:
        """A new one-layer snapshot: these values, with `values` (by name) changed or added."""
        merged = dict(self.items())
        merged.update(values)
        return ParameterValues(merged)

    def changed_names(self, old: Mapping[str, Any]) -> set[str]:
        """The names whose value is not the same object in `old` (added and removed ones included)."""
        if old is self:
            return set()
        if isinstance(old, ParameterValues) and len(old._layers) == len(self._layers):
            # Shared layers (the model's values under a preview's overlay) need no comparing.
            names: set[str] = set()
            for mine, theirs in zip(self._layers, old._layers, strict=True):
                if mine is not theirs:
                    names.update(mine.keys() | theirs.keys())
        else:
            names = set(self) | set(old)
        return {name for name in names if self.get(name, _MISSING) is not old.get(name, _MISSING)}


@dataclass(frozen=True)
class VariantState:
    """The document's variants as the panel shows them."""

    names: tuple[str, ...] = ()
    active: str | None = None
    #: Parameters whose value comes from the active variant.
    overridden: frozenset[str] = frozenset()


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
        self._values = ParameterValues()
        self._variants = VariantState()
        self.specs_changed: Event[list[ParameterSpec]] = Event("specs_changed")
        self.value_changed: Event[ParameterChange] = Event("value_changed")
        self.variants_changed: Event[VariantState] = Event("variants_changed")

    # ---- reading --------------------------------------------------------------------------

    @property
    def specs(self) -> list[ParameterSpec]:
        return list(self._specs)

    def spec(self, name: str) -> ParameterSpec | None:
        return self._by_name.get(name)

    @property
    def values(self) -> ParameterValues:
        """The value of every parameter, by name (None: a texture on the checker, or not editable).

        An immutable snapshot: the next change makes a new one, so a holder may keep it without copying.
        """
        return self._values

    def value(self, name: str) -> ParameterValue:
        return self._values.get(name)

    @property
    def variants(self) -> VariantState:
        return self._variants

    def __len__(self) -> int:
        return len(self._specs)

    # ---- changing -------------------------------------------------------------------------

    def set_specs(self, specs: Iterable[ParameterSpec], values: Mapping[str, ParameterValue] | None = None,
                  variants: VariantState | None = None) -> None:
        """New specs: carried-over values, then `values` (by name) on top; emits `specs_changed`."""
        specs = list(specs)
        new_values = carry_over(self._by_name, self._values, specs)
        for name, value in (values or {}).items():
            if name in new_values:
                new_values[name] = value
        self._specs = specs
        self._by_name = {spec.name: spec for spec in specs}
        self._values = ParameterValues(new_values)
        self._variants = variants if variants is not None else VariantState()
        self.specs_changed.emit(self.specs)

    def set_values(self, values: Mapping[str, ParameterValue], variants: VariantState | None = None) -> None:
        """Values (by name) for the current specs: `value_changed` for each that differs, then `variants_changed`."""
        for name, value in values.items():
            spec = self._by_name.get(name)
            if spec is not None and self._values.get(name) != value:
                self._values = self._values.replaced({name: value})
                self.value_changed.emit(ParameterChange(spec, value))
        if variants is not None and variants != self._variants:
            self._variants = variants
            self.variants_changed.emit(variants)

    def clear(self) -> None:
        """No parameters (a new document starts from its own defaults)."""
        self._specs, self._by_name, self._values, self._variants = [], {}, ParameterValues(), VariantState()
        self.specs_changed.emit([])

    def set_value(self, name: str, value: ParameterValue) -> bool:
        """Set one value and emit `value_changed`; False (nothing emitted) for an unknown or uneditable name."""
        spec = self._by_name.get(name)
        if spec is None or not spec.editable:
            return False
        self._values = self._values.replaced({name: value})
        self.value_changed.emit(ParameterChange(spec, value))
        return True
