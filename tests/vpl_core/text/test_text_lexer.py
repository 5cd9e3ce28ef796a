"""The lexer (spec 10.1) and diagnostic positions (spec 11): tokens, trivia, strings, UTF-8, lines and columns."""

from __future__ import annotations

import pytest

from vpl_core.diagnostics import LexicalError
from vpl_core.text.errors import LexicalRule
from vpl_core.text.lexer import KEYWORD, NAME, NUMBER, STRING, decode, tokenize


def tokens(text: str | bytes) -> list[tuple[str, str]]:
    return [(kind, value) for kind, value, _ in tokenize(decode(text, "t.vpl"))]


def lexical_error(source: str | bytes) -> LexicalError:
    with pytest.raises(LexicalError) as raised:
        tokenize(decode(source, "t.vpl"))
    return raised.value


def test_parentheses_and_quotes_terminate_words() -> None:
    assert tokens('id"display"Type') == [(NAME, "id"), (STRING, "display"), (NAME, "Type")]
    assert tokens("a(b)c'd'1") == [(NAME, "a"), ("(", "("), (NAME, "b"), (")", ")"), (NAME, "c"), (STRING, "d"), (NUMBER, "1")]


def test_comments_and_line_continuations_separate_words() -> None:
    assert tokens("a/*x*/b") == [(NAME, "a"), (NAME, "b")]
    assert tokens("a//comment\nb") == [(NAME, "a"), (NAME, "b")]
    assert tokens("ab\\\ncd") == [(NAME, "ab"), (NAME, "cd")]
    assert tokens("ab\\\r\ncd\\\rde") == [(NAME, "ab"), (NAME, "cd"), (NAME, "de")]
    assert tokens("/* // */ a // /* \n b") == [(NAME, "a"), (NAME, "b")]
    assert tokens("a /* multi\nline\r\ncomment */ b") == [(NAME, "a"), (NAME, "b")]


def test_whitespace_is_spaces_tabs_and_line_endings() -> None:
    assert tokens(" \t\r\n\r\na\t \n") == [(NAME, "a")]


def test_names_follow_the_common_rule() -> None:
    assert tokens("a _a __a1 a_1_ Z9 r0 r00 r12 fragment_color sampler2D") == [
        (NAME, word) for word in ["a", "_a", "__a1", "a_1_", "Z9", "r0", "r00", "r12", "fragment_color", "sampler2D"]
    ]
    for word in ["_", "__", "_1", "__9a"]:
        assert lexical_error(word).kind is LexicalRule.MALFORMED_WORD


def test_reserved_words_are_keywords_and_names_are_case_sensitive() -> None:
    assert tokens("true false void True VOID voids") == [
        (KEYWORD, "true"),
        (KEYWORD, "false"),
        (KEYWORD, "void"),
        (NAME, "True"),
        (NAME, "VOID"),
        (NAME, "voids"),
    ]


@pytest.mark.parametrize("word", ["0", "1", "-1", "+1", "1.", ".5", "1.5", "1e5", "1E-5", "-.5e+3", "007", "2147483648"])
def test_numbers_follow_the_common_decimal_spelling(word: str) -> None:
    assert tokens(word) == [(NUMBER, word)]


@pytest.mark.parametrize("word", ["1.2.3", "1e", "1e+", "1x", "--1", "+-1", "1-2", "1e5.0", ".", "-", "+", ".e5", "0x1F"])
def test_a_maximal_number_word_must_match_entirely(word: str) -> None:
    error = lexical_error(f"(a {word})")
    assert error.kind is LexicalRule.MALFORMED_WORD
    assert error.message == f"malformed number '{word}'"  # the message quotes the whole word
    assert (error.diagnostic.line, error.diagnostic.column) == (1, 4)


def test_strings_in_both_quote_styles_with_every_escape() -> None:
    assert tokens(r'"\\ \" \' \b \f \n \r \t \u0041 \u00e9 \uFFFF \u0000"') == [
        (STRING, "\\ \" ' \b \f \n \r \t A \u00e9 \uffff \u0000")
    ]
    assert tokens(r"'\\ \" \' \b'") == [(STRING, "\\ \" ' \b")]
    assert tokens("\"it's\" 'say \"hi\"'") == [(STRING, "it's"), (STRING, 'say "hi"')]
    assert tokens('""') == [(STRING, "")]


def test_strings_hold_any_non_control_character_directly() -> None:
    text = "\u00e9\u6f22\U0001f3a8\u007f\u0085\ufeff\u200b"
    assert tokens(f'"{text}"') == [(STRING, text)]


@pytest.mark.parametrize(
    ("source", "column", "kind"),
    [
        (r'"\x41"', 2, LexicalRule.UNKNOWN_ESCAPE),
        (r'"\U00000041"', 2, LexicalRule.UNKNOWN_ESCAPE),
        (r'"\a"', 2, LexicalRule.UNKNOWN_ESCAPE),
        (r'"\0"', 2, LexicalRule.UNKNOWN_ESCAPE),
        (r'"\/"', 2, LexicalRule.UNKNOWN_ESCAPE),
        (r'"\u004"', 2, LexicalRule.UNICODE_ESCAPE),
        (r'"\u"', 2, LexicalRule.UNICODE_ESCAPE),
        (r'"\ud83c\udfa8"', 2, LexicalRule.SURROGATE_ESCAPE),
        (r'"ok\uDC00"', 4, LexicalRule.SURROGATE_ESCAPE),
        ('"a\u0001"', 3, LexicalRule.CONTROL_IN_STRING),
        ('"a\u001f"', 3, LexicalRule.CONTROL_IN_STRING),
        ('"a\\\u0007"', 4, LexicalRule.CONTROL_IN_STRING),
        ('"abc', 1, LexicalRule.UNTERMINATED_STRING),
        ("'abc\"", 1, LexicalRule.UNTERMINATED_STRING),
        ('"abc\\', 1, LexicalRule.UNTERMINATED_STRING),
        ('"a\rb"', 3, LexicalRule.LINE_ENDING_IN_STRING),
    ],
)
def test_string_errors(source: str, column: int, kind: LexicalRule) -> None:
    error = lexical_error(source)
    assert error.kind is kind
    assert (error.diagnostic.line, error.diagnostic.column) == (1, column)


@pytest.mark.parametrize("character", list("{}[],.:;#$%&*=<>?@^`|~!/") + ["\u00a0", "\u2028", "\ufeff", "\x0b", "\x0c", "\x00", "\x7f"])
def test_other_characters_outside_strings_are_lexical_errors(character: str) -> None:
    error = lexical_error(f"(a {character} b)")
    assert error.kind in (LexicalRule.UNEXPECTED_CHARACTER, LexicalRule.MALFORMED_WORD)
    assert (error.diagnostic.line, error.diagnostic.column) == (1, 4)


@pytest.mark.parametrize(
    ("source", "line", "column"),
    [
        ("a\n#", 2, 1),
        ("a\r#", 2, 1),
        ("a\r\n#", 2, 1),
        ("a\n\r#", 3, 1),  # LF then CR: two line endings
        ("a\r\r\n\n  #", 4, 3),
        ("/* \n\r\n\r */ #", 4, 5),
        ("// x\r\n'\u00e9\U0001f3a8' #", 2, 6),  # columns count code points, not bytes or UTF-16 units
        ("a\\\r\n #", 2, 2),
    ],
)
def test_lines_and_columns(source: str, line: int, column: int) -> None:
    diagnostic = lexical_error(source).diagnostic
    assert (diagnostic.line, diagnostic.column) == (line, column)
    assert diagnostic.offset == source.index("#") + len(source[: source.index("#")].encode("utf-8")) - len(source[: source.index("#")])
    assert diagnostic.label == "t.vpl"


@pytest.mark.parametrize(
    ("data", "offset", "line", "column", "message"),
    [
        (b"\xef\xbb\xbf(module)", 0, 1, 1, "byte-order mark"),
        (b"(a \xc0\x80)", 3, 1, 4, "overlong encoding"),
        (b"(a \xc1\xbf)", 3, 1, 4, "overlong encoding"),
        (b"(a\n \xe0\x80\x80)", 4, 2, 2, "overlong encoding"),
        (b"(a\r\n \xf0\x80\x80\x80)", 5, 2, 2, "overlong encoding"),
        (b'"\xed\xa0\x80"', 1, 1, 2, "encoded surrogate"),
        (b'"\xed\xbf\xbf"', 1, 1, 2, "encoded surrogate"),
        (b'"\xc3\xa9\xf4\x90\x80\x80"', 3, 1, 3, "beyond U+10FFFF"),
        (b"(a \xf5\x80\x80\x80)", 3, 1, 4, "beyond U+10FFFF"),
        (b"(a \xff)", 3, 1, 4, "byte 0xff never occurs in UTF-8"),
        (b"(a \x80)", 3, 1, 4, "unexpected continuation byte 0x80"),
        (b'"\xe2\x82"', 1, 1, 2, "truncated or malformed"),
        (b"(a \xe2\x82", 3, 1, 4, "truncated or malformed"),
        (b"(a \xc3(", 3, 1, 4, "truncated or malformed"),
    ],
)
def test_invalid_utf8_is_a_lexical_error_at_the_offending_byte(
    data: bytes, offset: int, line: int, column: int, message: str
) -> None:
    diagnostic = lexical_error(data).diagnostic
    assert diagnostic.kind is (LexicalRule.BYTE_ORDER_MARK if data.startswith(b"\xef\xbb\xbf") else LexicalRule.INVALID_UTF8)
    assert message in diagnostic.message  # the message says what is wrong with the bytes
    assert (diagnostic.offset, diagnostic.line, diagnostic.column) == (offset, line, column)


def test_str_input_is_encoded_as_utf8_and_lone_surrogates_are_rejected() -> None:
    assert tokens('"\u00e9"') == tokens('"\u00e9"'.encode("utf-8"))
    diagnostic = lexical_error('(a "x\ud800")').diagnostic
    assert diagnostic.kind is LexicalRule.INVALID_UTF8
    assert (diagnostic.offset, diagnostic.column) == (5, 6)


def test_token_starts_are_code_point_indexes() -> None:
    source = decode('"\u00e9\U0001f3a8" x', None)
    assert [start for _, _, start in tokenize(source)] == [0, 5]


def test_errors_report_the_first_problem_in_the_text() -> None:
    assert lexical_error("(a # $)").diagnostic.column == 4


def test_inputs_over_the_size_limit_are_refused_up_front() -> None:
    """An implementation limit with a clear, positioned error instead of minutes of reading (issue 23)."""
    from vpl_core.text import read
    from vpl_core.text.lexer import MAX_SOURCE_BYTES

    at_limit = b" " * MAX_SOURCE_BYTES
    assert tokenize(decode(at_limit, "t.vpl")) == []  # the limit itself is readable
    for oversized in (b" " * (MAX_SOURCE_BYTES + 1), " " * (MAX_SOURCE_BYTES + 1)):
        with pytest.raises(LexicalError) as raised:
            read(oversized, label="huge.vpl")
        diagnostic = raised.value.diagnostic
        assert (diagnostic.label, diagnostic.line, diagnostic.column, diagnostic.offset) == ("huge.vpl", 1, 1, 0)
        assert diagnostic.kind is LexicalRule.INPUT_SIZE
        assert diagnostic.message == (
            f"input too large: {MAX_SOURCE_BYTES + 1} bytes; this implementation reads at most {MAX_SOURCE_BYTES}"
            " bytes (32 MiB)"
        )
