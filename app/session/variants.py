"""Parameter variants (material instances): the rules for their names and the rename operation (no Qt).

A variant's name is how the artist picks it in the Values box, how it is
saved in the graph block and how an engine export names it
(`app.session.engine_export`), so it must be non-empty (after trimming
surrounding spaces, which are dropped) and unique in the document; a file
breaking either rule is refused by `app.material.graph` when read. The
editor checks a name here before it changes anything, and says why it
refuses (`VariantNameError`'s message is written for the status bar).

The operations return new lists and leave their arguments alone: the
document model's variant commands (`app.session.value_edits`) keep the
before and after states and swap them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.material.graph import ParameterVariant


class VariantNameError(ValueError):
    """A name a variant cannot take; the message says why, for the artist."""


def checked_variant_name(name: str | None, taken: Iterable[str], current: str | None = None) -> str:
    """`name` without surrounding spaces, if a variant may take it; raises `VariantNameError` otherwise.

    `taken`: the names of the document's variants; `current`: the name of
    the variant being renamed (keeping it is allowed).
    """
    cleaned = (name or "").strip()
    if not cleaned:
        raise VariantNameError("A variant needs a name")
    if cleaned != current and cleaned in set(taken):
        raise VariantNameError(f'There is already a variant called "{cleaned}"')
    return cleaned


def renamed_variants(variants: Sequence[ParameterVariant], active: str | None, old: str,
                     new: str) -> tuple[list[ParameterVariant], str | None]:
    """The variants and active name after renaming variant `old` to `new` (its values and place kept).

    Raises `VariantNameError` when there is no variant `old` or `new` may not
    be taken (see `checked_variant_name`); `new` is used trimmed.
    """
    names = [variant.name for variant in variants]
    if old not in names:
        raise VariantNameError(f'There is no variant called "{old}"')
    new = checked_variant_name(new, names, current=old)
    result = [variant.copy() for variant in variants]
    for variant in result:
        if variant.name == old:
            variant.name = new
    return result, (new if active == old else active)
