"""Rule kinds of the text format (spec 10, 11): one enum per reading or writing area.

Spec 11 files reading failures under three categories, and each family
below has one: `LexicalRule` (the lexer, and numbers out of range for their
position), `SyntaxRule` (form shapes and token categories, spec 10.2) and
`BindingRule` (ids that name nothing or name twice, extensions, the reader's
type-depth bound). Where the reader rejects text for a rule the verifier
also checks on built modules (a vector of size 5, a void field, a member
reference into a non-record), it reports the verifier's kind
(`vpl_core.verify.errors`), so one rule has one kind whichever way the
module was made. `WriterRule` covers what the canonical writer cannot
express. The math extension's rules carry the section ``"math"``
(`docs/vpl-math-extension.md`).
"""

from __future__ import annotations

from vpl_core.diagnostics import Category, DiagnosticKind


class LexicalRule(DiagnosticKind):
    @property
    def category(self) -> Category:
        return Category.LEXICAL

    INPUT_SIZE = "impl", "the input is at most 32 MiB (this implementation's bound)"
    BYTE_ORDER_MARK = "10", "VPL text is UTF-8 without a byte-order mark"
    INVALID_UTF8 = "10.1", "the input is well-formed UTF-8 (no overlong encodings, surrogates or code points beyond U+10FFFF)"
    MALFORMED_WORD = "10.1", "a number or name word matches its grammar entirely"
    UNKNOWN_ESCAPE = "10.1", "strings use only the escapes \\\\ \\\" \\' \\b \\f \\n \\r \\t \\uHHHH"
    UNICODE_ESCAPE = "10.1", "a \\u escape has exactly four hexadecimal digits"
    SURROGATE_ESCAPE = "10.1", "a \\u escape is no surrogate"
    CONTROL_IN_STRING = "10.1", "strings hold no raw C0 control characters"
    LINE_ENDING_IN_STRING = "10.1", "strings hold no line endings"
    UNTERMINATED_STRING = "10.1", "every string is closed"
    UNTERMINATED_COMMENT = "10.1", "every /* comment is closed"
    STRAY_LINE_CONTINUATION = "10.1", "a reverse solidus outside strings is followed by a line ending"
    UNEXPECTED_CHARACTER = "10.1", "outside strings only words, parentheses and trivia occur"
    SIZE_RANGE = "10.1", "sizes and counts are at most 2**64-1 (this implementation's bound)"
    INT32_RANGE = "10.1", "signed integer operands and locations are within the signed 32-bit range"
    REGISTER_RANGE = "10.1", "register ids are at most r18446744073709551615 (this implementation's bound)"
    FLOAT_OVERFLOW = "10.1", "float literals do not overflow binary32"


class SyntaxRule(DiagnosticKind):
    @property
    def category(self) -> Category:
        return Category.SYNTACTIC

    EMPTY_INPUT = "10", "the input holds a module form"
    NOT_A_MODULE_FORM = "10", "the input starts with the module form"
    TRAILING_INPUT = "10", "nothing follows the module form"
    NESTING_DEPTH = "10.2", "forms and atoms nest at most 128 levels deep"
    UNCLOSED_FORM = "10.2", "every form is closed"
    EXPECTED_FORM = "10.2", "each position holds the form the grammar names there"
    EXPECTED_ATOM = "10.2", "each position holds the token category the grammar names there (id, string, size, integer, number, word)"
    INCOMPLETE_FORM = "10.2", "a form has all the items of its shape"
    EXTRA_ITEM = "10.2", "a form has no items beyond its shape"
    UNSUPPORTED_VERSION = "10.2", "the module's version is 1"
    UNKNOWN_TYPE_SHAPE = "10.2", "a type declaration has a known shape"
    UNKNOWN_UNIFORM_KIND = "10.2", "a uniform is (scalar ...), (record ...) or (array ...)"
    UNKNOWN_INSTRUCTION = "10.2", "block items are known instruction or terminator forms"
    TERMINATOR_NOT_LAST = "10.2", "the terminator is the last form of its block"
    NO_TERMINATOR = "10.2", "a block ends with a terminator"
    STRICT_V1_EXTENSION = "13", "strict version-1 reading accepts no extensions"
    UNDECLARED_EXTENSION = "math", "math operations are instructions only of modules that declare (extensions \"math\")"


class BindingRule(DiagnosticKind):
    @property
    def category(self) -> Category:
        return Category.SEMANTIC

    UNKNOWN_ID = "10.2", "every id used is declared in its scope"
    DUPLICATE_ID = "10.2", "ids are declared once in their scope"
    TYPE_DEPTH = "10.2", "named-type dependency paths are at most 128 edges long"
    UNKNOWN_EXTENSION = "math", "declared extensions are known"
    DUPLICATE_EXTENSION = "math", "an extension is declared once"


class WriterRule(DiagnosticKind):
    @property
    def category(self) -> Category:
        return Category.SEMANTIC

    LONE_SURROGATE = "10.1", "written strings hold Unicode scalar values only"
    TYPE_DEPTH = "10.2", "written types have dependency paths of at most 128 edges"
    REFERENCE_DEPTH = "10.2", "written reference paths have at most 120 selectors"
    SIZE_RANGE = "10.1", "written sizes and register numbers are within 2**64-1"
    NOT_EXPRESSIBLE = "11", "the text format can express the object (a verified module always is)"
