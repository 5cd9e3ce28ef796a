"""Diagnostics and rule kinds (`vpl_core.diagnostics`): the catalogue is well formed and errors carry their kind.

Every rule family is an enum of `DiagnosticKind`; each member names a section
of the VPL 1 specification (or the math extension, an ES profile rule or an
implementation bound), states the rule, and fixes the category of the error
that reports it. Errors keep their diagnostic through positioning, copying
and pickling.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from vpl_core.backends.glsl import errors as backend_errors
from vpl_core.diagnostics import (
    ERROR_CLASSES,
    PROJECT_SECTIONS,
    SPEC_SECTIONS,
    Category,
    Diagnostic,
    DiagnosticKind,
    LexicalError,
    SemanticError,
    SyntacticError,
    TargetError,
    VplError,
    error_for,
)
from vpl_core.text import errors as text_errors
from vpl_core.text import read
from vpl_core.text.errors import BindingRule, LexicalRule, SyntaxRule, WriterRule
from vpl_core.verify import errors as verify_errors
from vpl_core.verify.errors import DataFlowRule, InterfaceRule, TypeRule, VerificationError, VerifierRule


def _families() -> list[type[DiagnosticKind]]:
    families = []
    for module in (verify_errors, text_errors, backend_errors):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, DiagnosticKind) and len(value) > 0:
                families.append(value)
    return families


FAMILIES = _families()
KINDS = [kind for family in FAMILIES for kind in family]


def test_the_catalogue_has_a_family_per_area() -> None:
    names = {family.__name__ for family in FAMILIES}
    assert {
        "ObjectRule", "UniformRule", "StageRule", "FunctionRule", "TypeRule", "InterfaceRule", "ValueRule",
        "ReferenceRule", "InstructionRule", "TerminatorRule", "DataFlowRule", "InternalRule",
        "LexicalRule", "SyntaxRule", "BindingRule", "WriterRule",
        "ProfileRule", "TargetTypeRule", "TargetInterfaceRule", "SamplerRule", "LocationRule", "LimitRule", "ControlFlowRule",
    } == names


@pytest.mark.parametrize("kind", KINDS, ids=[kind.code for kind in KINDS])
def test_every_kind_names_its_section_rule_and_category(kind: DiagnosticKind) -> None:
    sections = kind.section.split(", ")
    assert all(section in SPEC_SECTIONS | PROJECT_SECTIONS for section in sections), kind.section
    assert kind.summary and kind.summary == kind.value and not kind.summary.endswith(".")
    assert isinstance(kind.category, Category)
    assert kind.code == f"{type(kind).__name__}.{kind.name}"
    assert kind.section in repr(kind)


def test_a_kind_must_cite_a_section_that_exists() -> None:
    with pytest.raises(ValueError, match="no section"):

        class _Misfiled(VerifierRule):
            RULE = "14.2", "a rule of a section VPL 1 does not have"


def test_codes_are_unique_and_families_fix_their_category() -> None:
    assert len({kind.code for kind in KINDS}) == len(KINDS)
    for family in FAMILIES:
        assert len({kind.category for kind in family}) == 1, family
    assert all(kind.category is Category.SEMANTIC for kind in KINDS if isinstance(kind, VerifierRule))
    assert {kind.category for kind in LexicalRule} == {Category.LEXICAL}
    assert {kind.category for kind in SyntaxRule} == {Category.SYNTACTIC}
    assert {kind.category for kind in BindingRule} | {kind.category for kind in WriterRule} == {Category.SEMANTIC}
    assert {kind.category for kind in backend_errors.LocationRule} == {Category.TARGET}


def test_an_error_is_made_from_a_kind_a_message_and_the_object() -> None:
    subject, outer = object(), (object(), object())
    error = SemanticError(TypeRule.RECURSIVE, "record 'R' contains itself", subject, outer)
    assert error.kind is TypeRule.RECURSIVE and error.subject is subject and error.context == outer
    assert error.diagnostic == Diagnostic(
        Category.SEMANTIC, "record 'R' contains itself", subject=subject, kind=TypeRule.RECURSIVE, context=outer
    )
    assert str(error) == "<module>: semantic error: record 'R' contains itself"
    assert error.subject_path is None


def test_the_kind_must_match_the_error_class() -> None:
    with pytest.raises(ValueError, match="lexical rule"):
        SemanticError(LexicalRule.UNTERMINATED_STRING, "unterminated string")
    with pytest.raises(ValueError, match="target"):
        SyntacticError(Diagnostic(Category.SYNTACTIC, "x", kind=backend_errors.ProfileRule.UNKNOWN_TARGET))


def test_an_error_without_a_kind_or_a_diagnostic_is_a_programming_error() -> None:
    with pytest.raises(TypeError):
        TargetError("unsupported construct")  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        TargetError(backend_errors.ProfileRule.UNKNOWN_TARGET)  # type: ignore[call-overload]


def test_diagnostics_from_outside_vpl_core_may_have_no_kind() -> None:
    diagnostic = Diagnostic(Category.SEMANTIC, "internal error while opening", label="m.vpl")
    error = error_for(diagnostic)
    assert type(error) is SemanticError and error.kind is None
    assert str(error) == "m.vpl: semantic error: internal error while opening"


@pytest.mark.parametrize(
    "error",
    [
        VerificationError(DataFlowRule.RECURSION, "recursive call", "subject", ("stage", "function")),
        LexicalError(LexicalRule.UNTERMINATED_COMMENT, "unterminated comment"),
        TargetError(
            Diagnostic(Category.TARGET, "m", "f.vpl", 3, 1, 4, None, backend_errors.LocationRule.OVERLAP, (), (1, "x"))
        ),
    ],
    ids=["verification", "lexical", "target-with-path"],
)
def test_errors_survive_copying_and_pickling(error: VplError) -> None:
    for clone in (copy.copy(error), copy.deepcopy(error), pickle.loads(pickle.dumps(error))):
        assert type(clone) is type(error)
        assert clone.diagnostic == error.diagnostic and str(clone) == str(error)


def test_reading_keeps_the_verifier_kind_and_context_and_adds_the_position() -> None:
    text = """(module 1 (types (type V void) (type C vector float 4))
 (uniforms)
 (vertex main (interface (out p "p" C -1 position) (out p2 "p" C -1 none))
  (functions (function main "main" V (parameters) (registers (register r0 C))
   (block b (construct r0 (float 1.0)) (store (stage p) r0) (return)))))
 (fragment main (interface (out c "c" C 0 fragment_color))
  (functions (function main "main" V (parameters) (registers (register r0 C))
   (block b (construct r0 (float 1.0)) (store (stage c) r0) (return))))))"""
    with pytest.raises(SemanticError) as raised:
        read(text, label="m.vpl")
    diagnostic = raised.value.diagnostic
    assert diagnostic.kind is InterfaceRule.DUPLICATE_NAME
    assert (diagnostic.label, diagnostic.line, diagnostic.column) == ("m.vpl", 3, 52)
    assert isinstance(raised.value.__cause__, VerificationError)
    assert diagnostic.context == raised.value.__cause__.context and len(diagnostic.context) == 1


def test_every_category_has_its_error_class() -> None:
    assert set(ERROR_CLASSES) == set(Category)
    assert all(ERROR_CLASSES[category].category is category for category in Category)
