"""Verified publication (spec 11): an immutable canonical-text snapshot of a verified module.

`VerifiedModule.create(module)` verifies the module, writes its canonical
text and reads that text back (the writer's proof that the text is valid).
The publication keeps the text as its public snapshot and, privately, the
module that read-back produced: an immutable parse of exactly that text,
never handed out and never mutated. No mutable graph is reachable from the
publication, and later mutations of the builder cannot alter it.

`materialize()` returns a fresh module each time: a structural copy of the
private parse (`vpl_core.ir.clone`), verified again before it is returned,
so each materialization is separately verified as spec 11 requires, while
the text is parsed once per publication instead of once per consumer.

`from_text(source)` reads the source once; when the source already is the
canonical text (files the editor or `vpl fmt` wrote), or is canonical text
laid out otherwise (the same tokens, `parser.same_tokens`: lines broken or
joined), that read is the read-back and the text is not parsed a second
time. `from_unverified_read`
(what `compile_source` uses) also leaves out the verification of the
source's own parse: the read-back verifies the canonical text, which spells
the same module, and only an invalid module is verified itself, for its
diagnostic in the source. `from_unpositioned_read` is its variant for a
module read without source positions: it reports any failure as it comes,
for a caller that then goes the exact way for the diagnostic.
"""

from __future__ import annotations

from vpl_core.ir.module import Module

# typing.TYPE_CHECKING without importing typing at run time (about 3 ms of every `vpl compile`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from vpl_core.text.reader import SourceLocator


class VerifiedModule:
    __slots__ = ("_label", "_snapshot", "_text")
    _label: str | None
    _snapshot: Module
    _text: str

    def __init__(self, *_: object, **__: object) -> None:
        raise TypeError("use VerifiedModule.create(module) or VerifiedModule.from_text(text)")

    @classmethod
    def _from_canonical(cls, text: str, snapshot: Module, label: str | None) -> VerifiedModule:
        instance = object.__new__(cls)
        object.__setattr__(instance, "_text", text)
        object.__setattr__(instance, "_snapshot", snapshot)
        object.__setattr__(instance, "_label", label)
        return instance

    @classmethod
    def create(cls, module: Module, label: str | None = None) -> VerifiedModule:
        """Verify `module` and publish its canonical text."""
        from vpl_core.text.writer import write_read

        text, snapshot = write_read(module)
        return cls._from_canonical(text, snapshot, label)

    @classmethod
    def from_text(cls, source: str | bytes, label: str | None = None) -> VerifiedModule:
        """Read (and so verify) `source`, then publish its canonical text."""
        from vpl_core.text import read_located

        module, locator = read_located(source, label=label)
        return cls.from_read(module, locator, label)

    @classmethod
    def from_read(cls, module: Module, locator: SourceLocator, label: str | None = None) -> VerifiedModule:
        """Publish a module that `read_located` has just returned, with its locator.

        The module was verified by that read; the caller must not have
        changed it since, and must not change it afterwards (when the source
        was canonical it becomes the private snapshot). `compile_source` uses
        this to publish what it read without verifying it again.
        """
        from vpl_core.text.writer import write_read

        text, snapshot = write_read(module, verified=True, source_text=locator.source.text)
        return cls._from_canonical(text, snapshot, label)

    @classmethod
    def from_unverified_read(
        cls, module: Module, locator: SourceLocator, label: str | None = None
    ) -> VerifiedModule:
        """Publish a module `read_unverified_located` has just bound (not verified), verifying once.

        The module's canonical text is written and read back through the
        verifier: that read-back verifies the text, which spells exactly this
        module (ids aside), so verifying the module first would repeat it.
        When the source already was canonical (or its tokens were the
        canonical text's, `parser.same_tokens`), the module itself is
        verified and kept. If writing or the read-back fails, the module is verified
        through `locator` so that an invalid module gets its diagnostic at
        its place in the source, as `read` would give it; if the module is
        valid, the failure was the writer's and is raised as it came.
        """
        from vpl_core.diagnostics import VplError
        from vpl_core.text.parser import same_tokens
        from vpl_core.text.reader import collector_paused, read
        from vpl_core.text.writer import emit

        with collector_paused():
            try:
                text = emit(module)
                if text == locator.source.text or same_tokens(text, locator.source.text):
                    locator.verify(module)  # the first read is the read-back
                    snapshot = module
                else:
                    snapshot = read(text, label="<canonical text>")
            except VplError:
                locator.verify(module)  # raises the source-positioned diagnostic of an invalid module
                raise
        return cls._from_canonical(text, snapshot, label)

    @classmethod
    def from_unpositioned_read(
        cls, module: Module, source_text: str, label: str | None = None, *, source_is_plain: bool = False
    ) -> VerifiedModule:
        """`from_unverified_read` for a module `read_unverified_unpositioned` has just bound from `source_text`.

        The same work and the same contract: the canonical text is read back
        and verified (the module itself is verified when the source already
        was canonical, or had the canonical text's tokens). The read-back keeps no source positions either, and
        any failure (an invalid module, a writer error) is raised as it came,
        without a usable position: `compile_source` then publishes again
        through `from_unverified_read`, which gives the exact diagnostic.
        """
        from vpl_core.text.parser import same_tokens
        from vpl_core.text.reader import collector_paused, read_unverified_unpositioned
        from vpl_core.text.writer import emit
        from vpl_core.verify import Verifier

        with collector_paused():
            text = emit(module)
            if text == source_text or same_tokens(text, source_text, other_is_plain=source_is_plain):
                snapshot = module  # the first read is the read-back
            else:
                snapshot, _ = read_unverified_unpositioned(text, label="<canonical text>", share_registers=True)
            Verifier().run(snapshot)
        return cls._from_canonical(text, snapshot, label)

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
        """A fresh module equal to the snapshot; separately verified (raises if verification fails)."""
        from vpl_core.ir.clone import clone_module
        from vpl_core.text.reader import collector_paused
        from vpl_core.verify import Verifier

        with collector_paused():
            module = clone_module(self._snapshot)
            Verifier().run(module)
        return module

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VerifiedModule) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)

    def __repr__(self) -> str:
        return f"VerifiedModule({len(self._text)} chars, label={self._label!r})"


def own_snapshot(verified: VerifiedModule) -> Module:
    """The publication's private parse itself, not a copy (`materialize` copies and verifies it again).

    Only for the code that has just made `verified` from its own read and hands the module to nothing but a
    reader of it (`glsl.compile_source` generates from it): the module is verified and is not changed, so
    the publication's later materializations stay what they were.
    """
    return verified._snapshot
