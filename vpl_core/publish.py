"""Verified publication (spec 11): an immutable canonical-text snapshot of a verified module.

`VerifiedModule.create(module)` verifies the module and keeps only its
canonical text (the writer verifies, writes and reads the text back), so no
mutable graph is reachable from the publication and later mutations of the
builder cannot alter it. `materialize()` returns a fresh, separately
verified module each time.
"""

from __future__ import annotations

from vpl_core.ir.module import Module


class VerifiedModule:
    __slots__ = ("_label", "_text")

    def __init__(self, *_: object, **__: object) -> None:
        raise TypeError("use VerifiedModule.create(module) or VerifiedModule.from_text(text)")

    @classmethod
    def _from_canonical(cls, text: str, label: str | None) -> VerifiedModule:
        instance = object.__new__(cls)
        object.__setattr__(instance, "_text", text)
        object.__setattr__(instance, "_label", label)
        return instance

    @classmethod
    def create(cls, module: Module, label: str | None = None) -> VerifiedModule:
        """Verify `module` and publish its canonical text."""
        from vpl_core.text import write

        return cls._from_canonical(write(module), label)

    @classmethod
    def from_text(cls, source: str | bytes, label: str | None = None) -> VerifiedModule:
        """Read (and so verify) `source`, then publish its canonical text."""
        from vpl_core.text import read, write

        return cls._from_canonical(write(read(source, label=label)), label)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("VerifiedModule is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("VerifiedModule is immutable")

    @property
    def text(self) -> str:
        """The canonical text (spec 11 writer output)."""
        return self._text

    @property
    def label(self) -> str | None:
        return self._label

    def materialize(self) -> Module:
        """A fresh module read from the snapshot; separately verified."""
        from vpl_core.text import read

        return read(self._text, label=self._label)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VerifiedModule) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)

    def __repr__(self) -> str:
        return f"VerifiedModule({len(self._text)} chars, label={self._label!r})"
