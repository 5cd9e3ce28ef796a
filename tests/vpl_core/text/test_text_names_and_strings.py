"""Names and quoted strings in text (spec 3, 10.1, 10.2, 11): where strings may stand, how names compare.

Strings are never form heads; record display names and field names are
nonempty and field names unique, in unused declarations too; names compare
by their exact decoded contents (no case folding, no Unicode normalization);
a lone surrogate in a builder's name cannot be written. Negative cases
assert the rule kind and the one-based line and column.
"""

from __future__ import annotations

import re

import pytest

from vpl_core.diagnostics import DiagnosticKind, SemanticError, SyntacticError, VplError
from vpl_core.text import read, write
from vpl_core.text.errors import SyntaxRule, WriterRule
from vpl_core.verify.errors import InterfaceRule, TypeRule, UniformRule

TYPES = (
    '(type Void void) (type Int int) (type Bool bool) (type Float float) (type Color vector float 4)'
    ' (type Rec record "Rec" (field "a" Int) (field "b" Color)) (type Arr array Int 3)'
)


def module_text(body: str = "(return)", registers: str = "", types: str = "", uniforms: str = "") -> str:
    """A valid module (with `body` ending the fragment entry) laid out on fixed lines.

    Line 2 holds the type declarations, line 3 the uniforms, line 9 the
    fragment entry's registers and line 10 its entry block, which begins at
    column 3 with `(block entry ` followed by the store of the fragment color.
    """
    return (
        "(module 1\n"
        f" (types {TYPES} {types})\n"
        f" (uniforms {uniforms})\n"
        ' (vertex vmain (interface (out pos "pos" Color -1 position)) (functions\n'
        '  (function vmain "vmain" Void (parameters) (registers (register r0 Color))\n'
        "   (block entry (construct r0 (float 1.0)) (store (stage pos) r0) (return)))))\n"
        ' (fragment fmain (interface (out color "color" Color 0 fragment_color)) (functions\n'
        '  (function fmain "fmain" Void (parameters)\n'
        f"   (registers (register r9 Color) {registers})\n"
        f"   (block entry (construct r9 (float 1.0)) (store (stage color) r9) {body})))))\n"
    )


def at(text: str, needle: str) -> tuple[int, int]:
    """One-based line and column of the first occurrence of `needle` (all test texts are ASCII, LF only)."""
    index = text.index(needle)
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def expect(kind: DiagnosticKind, text: str, line: int, column: int) -> None:
    with pytest.raises(VplError) as caught:
        read(text)
    diagnostic = caught.value.diagnostic
    assert diagnostic.kind is kind, diagnostic.format()
    assert (diagnostic.line, diagnostic.column) == (line, column), diagnostic.format()


def test_template_is_valid_and_round_trips() -> None:
    module = read(module_text())
    assert read(write(module)) is not None


# Spec 10.2: form heads are literal words ('module', 'types', ...); a quoted
# string with the same contents is a token of the wrong category, a
# syntactic failure (spec 11).


@pytest.mark.parametrize(
    "head, shape",
    [
        ("module", "(module version"),
        ("types", "(types {type})"),
        ("uniforms", "(uniforms {uniform})"),
        ("vertex", "(vertex entryFunctionId"),
        ("fragment", "(fragment entryFunctionId"),
        ("interface", "(interface {io})"),
        ("functions", "(functions {function})"),
        ("function", "(function id"),
        ("parameters", "(parameters {parameter})"),
        ("registers", "(registers {register})"),
        ("block", "(block id"),
        ("type", "(type id shape ...)"),
        ("register", "(register reg typeId)"),
    ],
)
def test_a_string_is_not_a_form_head(head: str, shape: str) -> None:
    text = re.sub(rf"\({head}(?=[ )\n])", f'("{head}"', module_text(), count=1)
    expect(SyntaxRule.EXPECTED_FORM, text, *at(text, f'"{head}"'))
    with pytest.raises(SyntacticError) as caught:
        read(text)
    # The message shows the expected shape and what stood there instead.
    assert f"expected {shape}" in caught.value.message and f"found string '{head}'" in caught.value.message


def test_a_string_is_not_a_field_head() -> None:
    text = module_text(types='(type X record "X" ("field" "a" Int))')
    expect(SyntaxRule.EXPECTED_FORM, text, *at(text, '"field"'))


def test_a_string_is_not_the_extensions_head() -> None:
    # The optional extensions form is recognized by its word head only; a
    # string head is no extensions form, so the types form is expected there.
    read(module_text().replace("(types", '(extensions "math")\n (types', 1))
    text = module_text().replace("(types", '("extensions" "math") (types', 1)
    expect(SyntaxRule.EXPECTED_FORM, text, 2, 3)


# Spec 3: record display names and field names shall be nonempty, field
# names unique within their record. The reader rejects invalid dimensions of
# unused type declarations (spec 11), so it holds unused record declarations
# to these rules too; used declarations were already rejected by the verifier.


@pytest.mark.parametrize("used", [False, True])
def test_record_field_names_are_unique(used: bool) -> None:
    text = module_text(
        registers="(register r1 X)" if used else "",
        types='(type X record "X" (field "a" Int) (field "a" Int))',
    )
    expect(TypeRule.DUPLICATE_FIELD, text, *at(text, '"a" Int))'))


@pytest.mark.parametrize("used", [False, True])
def test_record_field_names_are_nonempty(used: bool) -> None:
    text = module_text(registers="(register r1 X)" if used else "", types='(type X record "X" (field "" Int))')
    expect(TypeRule.FIELD_NAME, text, *at(text, '"" Int'))


@pytest.mark.parametrize("used", [False, True])
def test_record_display_names_are_nonempty(used: bool) -> None:
    text = module_text(registers="(register r1 X)" if used else "", types='(type X record "" (field "a" Int))')
    expect(TypeRule.RECORD_NAME, text, *at(text, '"" (field'))


def test_unused_records_with_repeated_display_names_and_distinct_fields_are_valid() -> None:
    read(module_text(types='(type X record "Rec" (field "a" Int) (field "A" Int)) (type E record "E")'))


# Spec 10.1/11: text is UTF-8 and strings hold Unicode scalar values; a lone
# surrogate in a builder's Python str cannot be written. `write` raises
# SemanticError for what the format cannot express (not the LexicalError of
# reading its own output back).


def _builder_module(fragment_entry_name: str):
    from vpl_core.ir import VOID, Module, Semantic, StageBuilder, vec

    module = Module()
    vertex = StageBuilder(module.vertex)
    position = vertex.output("pos", vec(4), semantic=Semantic.POSITION)
    vertex_main = vertex.function("vmain", VOID, entry=True)
    vertex_main.store(position, vertex_main.construct(vec(4), vertex_main.f(1.0)))
    vertex_main.ret()
    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    fragment_main = fragment.function(fragment_entry_name, VOID, entry=True)
    fragment_main.store(color, fragment_main.construct(vec(4), fragment_main.f(1.0)))
    fragment_main.ret()
    return module


@pytest.mark.parametrize("name", ["\ud800", "a\udfffb", "\udfff\ud800"])
def test_writing_a_lone_surrogate_is_a_semantic_error(name: str) -> None:
    from vpl_core.publish import VerifiedModule

    module = _builder_module(name)
    for publish in (write, VerifiedModule.create):
        with pytest.raises(SemanticError) as caught:
            publish(module)
        assert caught.value.kind is WriterRule.LONE_SURROGATE


@pytest.mark.parametrize("name", ["\U0010ffff", "\ufeff", "a\x00\x7f\x85\u2028b", "\U0001f3a8"])
def test_non_bmp_and_control_names_round_trip(name: str) -> None:
    text = write(_builder_module(name))
    assert read(text).fragment.functions[0].name == name


# Spec 3: names are compared by their exact decoded contents, without case
# folding or Unicode normalization (coverage: no other test checked this).


def _linked_text(fragment_input_name: str, vertex_output_name: str) -> str:
    text = module_text()
    text = text.replace(
        '(out pos "pos" Color -1 position)',
        f'(out pos "pos" Color -1 position) (out v "{vertex_output_name}" Color -1 none)',
    ).replace("(store (stage pos) r0)", "(store (stage pos) r0) (store (stage v) r0)")
    return text.replace(
        '(out color "color" Color 0 fragment_color)',
        f'(out color "color" Color 0 fragment_color) (in f "{fragment_input_name}" Color -1 none)',
    )


def test_linkage_by_name_matches_the_exact_decoded_contents() -> None:
    read(_linked_text("caf\\u00e9", "café"))  # an escape and the UTF-8 character decode alike


@pytest.mark.parametrize(
    "fragment_name, vertex_name",
    [("café", "cafe\u0301"), ("Tint", "tint"), ("ß", "ss")],
)
def test_linkage_by_name_neither_normalizes_nor_folds_case(fragment_name: str, vertex_name: str) -> None:
    text = _linked_text(fragment_name, vertex_name)
    expect(InterfaceRule.UNLINKED_INPUT, text, *at(text, "(in f "))


def test_names_differing_only_by_case_or_normalization_are_distinct() -> None:
    text = module_text(uniforms='(scalar a "u" Int) (scalar b "U" Int) (scalar c "\u00e9" Int) (scalar d "e\u0301" Int)')
    assert [uniform.name for uniform in read(text).uniforms] == ["u", "U", "\u00e9", "e\u0301"]
    duplicate = module_text(uniforms='(scalar a "\u00e9" Int) (scalar b "\\u00e9" Int)')
    expect(UniformRule.DUPLICATE_NAME, duplicate, *at(duplicate, '(scalar b'))
