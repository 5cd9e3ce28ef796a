"""`ValueEdits`: the parameter variants and the parameters' values, as commands of the document model (no Qt).

A variant is a named set of parameter values overriding the parameter
nodes' own; one is active or none. A value set while a variant is active
goes into it, else onto the parameter's node. Names follow
`app.session.variants` (non-empty, unique; a refusal raises
`VariantNameError` and changes nothing). Value edits of one gesture (a
slider drag) merge into one undo step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.material.graph import ParameterVariant
from app.material.parameters import node_value_property, parameter_nodes
from app.session.document_commands import ABSENT, SetProperty, SetVariants
from app.session.variants import VariantNameError, checked_variant_name, renamed_variants

if TYPE_CHECKING:
    from app.session.document_model import DocumentModel


class ValueEdits:
    """See the module docstring."""

    def __init__(self, model: DocumentModel) -> None:
        self.model = model

    def _change(self, text: str, variants: list[ParameterVariant], active: str | None,
                key: tuple[str, str] | None = None, continuing: bool = False) -> None:
        before = (self.model.variants, self.model.active_variant)
        self.model.push(SetVariants(text, before, (variants, active), key, continuing))

    def add_variant(self, name: str) -> str:
        """A new variant holding no values (everything as the nodes say), made active; returns the name used."""
        name = checked_variant_name(name, [variant.name for variant in self.model.document.variants])
        self._change(f'Add variant "{name}"', [*self.model.variants, ParameterVariant(name)], name)
        return name

    def remove_variant(self, name: str) -> None:
        if self.model.document.variant(name) is None:
            raise VariantNameError(f'There is no variant called "{name}"')
        active = None if self.model.active_variant == name else self.model.active_variant
        self._change(f'Delete variant "{name}"', [v for v in self.model.variants if v.name != name], active)

    def rename_variant(self, old: str, new: str) -> str:
        """Rename (values and place kept; the active choice follows); returns the name used. Raises VariantNameError."""
        variants, active = renamed_variants(self.model.document.variants, self.model.active_variant, old, new)
        name = variants[[variant.name for variant in self.model.document.variants].index(old)].name
        if name != old:
            self._change(f'Rename variant "{old}" to "{name}"', variants, active)
        return name

    def activate_variant(self, name: str | None) -> None:
        """Use variant `name` (None: the parameter nodes' own values)."""
        if name == self.model.active_variant:
            return
        if name is not None and self.model.document.variant(name) is None:
            raise VariantNameError(f'There is no variant called "{name}"')
        self._change(f'Use variant "{name}"' if name else "Use the base values", self.model.variants, name)

    def set_parameter_value(self, name: str, value: Any, continuing: bool = False) -> bool:
        """Set a parameter's value: in the active variant, else on its node. False: no such parameter."""
        stored = "" if value is None else value
        active = self.model.active_variant
        if active is not None:
            variants = self.model.variants
            for variant in variants:
                if variant.name == active:
                    variant.values[name] = stored
            self._change(f'Change "{name}" in variant "{active}"', variants, active, (active, name),
                                  continuing)
            return True
        node = parameter_nodes(self.model.document).get(name)
        prop = node_value_property(node) if node is not None else None
        if node is None or prop is None:
            return False
        before = node.properties.get(prop, ABSENT)
        if before == stored and not continuing:
            return True
        self.model.push(SetProperty(f'Change parameter "{name}"', None, node.id, prop, before, stored, continuing))
        return True

    def reset_variant_value(self, name: str) -> None:
        """The active variant stops overriding parameter `name`."""
        active = self.model.active_variant
        if active is None:
            return
        variants = self.model.variants
        for variant in variants:
            if variant.name == active:
                variant.values.pop(name, None)
        self._change(f'Reset "{name}" in variant "{active}"', variants, active)

