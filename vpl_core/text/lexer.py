"""The VPL lexer (spec 10.1): UTF-8 bytes to a list of tokens.

Input is UTF-8 without a byte-order mark, at most `MAX_SOURCE_BYTES` (32
MiB, an implementation limit). Invalid bytes, overlong encodings, encoded
surrogates and code points beyond U+10FFFF are lexical errors located at the
offending byte; an input over the limit is a lexical error at its start.

Outside strings, spaces, tabs, line endings (CR, LF, CR LF), `//` line
comments, non-nesting `/* */` comments and a reverse solidus immediately
followed by a line ending (line continuation) are trivia; they separate
words but are not tokens. The words are:

* `(` and `)`;
* names: ASCII, zero or more underscores, a letter, then letters, digits
  and underscores (the common name rule); `true`, `false` and `void` are
  reserved and become KEYWORD tokens; register ids (`r0`, `r00`) are names
  that the parser refines;
* numbers: a maximal run of `[A-Za-z0-9_.+-]` that starts like a number
  must match the common decimal spelling entirely (`1.2.3`, `1e`, `1x`
  are malformed); the parser interprets the text by context (size, signed
  integer, float);
* strings in either quote style with exactly the escapes `\\\\ \\" \\' \\b
  \\f \\n \\r \\t \\uHHHH`; surrogate escapes, raw C0 controls and line
  endings inside strings are errors. A STRING token's value is decoded.

Parentheses, quotes, trivia and end of input terminate a word, so
`id"display"Type` is three tokens. Any other character outside a string is
a lexical error.

A token is the tuple ``(kind, value, start)``; `start` is the code-point
index of its first character in the decoded text (see `source.py`).
"""

from __future__ import annotations

import re

from vpl_core.text.errors import LexicalRule
from vpl_core.text.source import SourceText

OPEN = "("
CLOSE = ")"
NAME = "name"
KEYWORD = "keyword"
NUMBER = "number"
STRING = "string"

Token = tuple[str, str, int]

RESERVED_WORDS = frozenset({"true", "false", "void"})

_BYTE_ORDER_MARK = b"\xef\xbb\xbf"

MAX_SOURCE_BYTES = 32 * 2**20
"""Largest input this implementation reads (UTF-8 bytes): an implementation limit (spec 10.1).

About 600,000 instructions of canonical text, which take the reader and
verifier about 20 s and several GiB of objects here; larger inputs are
refused up front with a lexical error instead of exhausting time and memory
(see docs/performance-history.md, "Implementation limit")."""

# One scanner for everything. Each match is the trivia before a token and
# the token; the group number is the token's kind. Names and numbers must
# be whole words (the lookaheads), otherwise the malformed-word group takes
# the maximal word. The error group catches any character no token can start
# with, so `finditer` never skips input silently; the empty alternative
# matches only at the end of the input.
_WORD_CHARACTER = r"[A-Za-z0-9_.+\-]"
WORD_CHARACTER = _WORD_CHARACTER  # for `parser.parse_unpositioned`, which must end words exactly as the scanner does
_SCANNER = re.compile(
    r"""
    (?:[ \t\r\n]+|//[^\r\n]*|/\*.*?\*/|\\(?:\r\n?|\n))*             # trivia
    (?:
     (\()                                                           # 1 open
    |(\))                                                           # 2 close
    |(_*[A-Za-z][A-Za-z0-9_]*)(?!WORD)                              # 3 name
    |([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)(?!WORD)  # 4 number
    |(WORD+)                                                        # 5 malformed word
    |"((?:[^"\\\x00-\x1f]|\\[^\x00-\x1f])*)"                        # 6 double-quoted string body
    |'((?:[^'\\\x00-\x1f]|\\[^\x00-\x1f])*)'                        # 7 single-quoted string body
    |(.)                                                            # 8 anything else: an error
    |\Z                                                             # end of input
    )
    """.replace("WORD", _WORD_CHARACTER),
    re.S | re.X,
)
_GROUP_NAME, _GROUP_MALFORMED, _GROUP_DOUBLE, _GROUP_SINGLE = 3, 5, 6, 7
# For `parser.parse_source`, which scans and builds forms in one pass.
SCANNER = _SCANNER
GROUP_OPEN, GROUP_CLOSE, GROUP_NAME, GROUP_NUMBER, GROUP_DOUBLE, GROUP_SINGLE = 1, 2, 3, 4, 6, 7
_KIND_OF_GROUP = ("", OPEN, CLOSE, NAME, NUMBER)  # by group number; group 0 is no token

_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|.)", re.S)
_SIMPLE_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def decode(source: bytes | bytearray | memoryview | str, label: str | None) -> SourceText:
    """Validate and decode the UTF-8 input; str input is encoded as UTF-8 first."""
    if isinstance(source, str) and source.isascii() and len(source) <= MAX_SOURCE_BYTES:
        # ASCII text is its own UTF-8 (one byte per character, no byte-order
        # mark): nothing to check, no copy (the read-back of canonical text).
        return SourceText(source, label)
    if isinstance(source, str):
        # Lone surrogates in a str cannot be UTF-8; pass them through so that
        # the decoder reports them as encoded surrogates with a position.
        data = source.encode("utf-8", "surrogatepass")
    else:
        data = bytes(source)
    if len(data) > MAX_SOURCE_BYTES:
        SourceText("", label).fail(
            LexicalRule.INPUT_SIZE,
            f"input too large: {len(data)} bytes; this implementation reads at most {MAX_SOURCE_BYTES} bytes (32 MiB)",
            0,
        )
    if data.startswith(_BYTE_ORDER_MARK):
        SourceText("", label).fail(LexicalRule.BYTE_ORDER_MARK, "byte-order mark: VPL text is UTF-8 without a BOM", 0)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        prefix = SourceText(data[: error.start].decode("utf-8"), label)
        prefix.fail(LexicalRule.INVALID_UTF8, _describe_utf8_error(data, error.start), len(prefix.text))
    return SourceText(text, label)


def _describe_utf8_error(data: bytes, start: int) -> str:
    lead = data[start]
    following = data[start + 1] if start + 1 < len(data) else None
    if 0x80 <= lead <= 0xBF:
        return f"invalid UTF-8: unexpected continuation byte 0x{lead:02x}"
    if lead in (0xC0, 0xC1) or (lead == 0xE0 and following is not None and 0x80 <= following <= 0x9F) or (
        lead == 0xF0 and following is not None and 0x80 <= following <= 0x8F
    ):
        return "invalid UTF-8: overlong encoding"
    if lead == 0xED and following is not None and 0xA0 <= following <= 0xBF:
        return "invalid UTF-8: encoded surrogate code point"
    if lead >= 0xF8:
        return f"invalid UTF-8: byte 0x{lead:02x} never occurs in UTF-8"
    if lead >= 0xF5 or (lead == 0xF4 and following is not None and following >= 0x90):
        return "invalid UTF-8: code point beyond U+10FFFF"
    return f"invalid UTF-8: truncated or malformed sequence starting with byte 0x{lead:02x}"


def tokenize(source: SourceText) -> list[Token]:
    """All tokens of the text, in order; raises LexicalError at the first bad character or word."""
    text = source.text
    tokens: list[Token] = []
    append = tokens.append
    kind_of_group = _KIND_OF_GROUP
    reserved = RESERVED_WORDS
    # One string per distinct value: a long text repeats a few hundred words, and a token's own copy of its
    # word was about 50 of the 130 bytes it kept.
    shared: dict[str, str] = {}
    share = shared.setdefault
    for match in _SCANNER.finditer(text):
        group = match.lastindex
        if group is None:
            break  # end of input
        if group <= 4:
            value = match.group(group)
            if group == _GROUP_NAME and value in reserved:
                append((KEYWORD, value, match.start(group)))
            else:
                append((kind_of_group[group], share(value, value), match.start(group)))
        elif group in (_GROUP_DOUBLE, _GROUP_SINGLE):
            body = match.group(group)
            start = match.start(group) - 1  # the opening quote
            if "\\" in body:
                body = _decode_escapes(source, body, start + 1)
            append((STRING, share(body, body), start))
        elif group == _GROUP_MALFORMED:
            word = match.group(group)
            start = match.start(group)
            kind = "number" if word[0] in "0123456789+-." else "name"
            shown = word if len(word) <= 40 else word[:37] + "..."
            source.fail(LexicalRule.MALFORMED_WORD, f"malformed {kind} '{shown}'", start)
        else:
            _fail_at_character(source, match.start(group))
    return tokens


def decode_escapes(source: SourceText, body: str, body_start: int) -> str:
    """The value of a string body that contains escapes; raises LexicalError at a bad escape."""
    return _decode_escapes(source, body, body_start)


def _decode_escapes(source: SourceText, body: str, body_start: int) -> str:
    def replace(escape: re.Match[str]) -> str:
        sequence = escape.group(1)
        simple = _SIMPLE_ESCAPES.get(sequence)
        if simple is not None:
            return simple
        if len(sequence) == 5:
            code_point = int(sequence[1:], 16)
            if 0xD800 <= code_point <= 0xDFFF:
                source.fail(
                    LexicalRule.SURROGATE_ESCAPE,
                    f"surrogate escape \\{sequence} is not a Unicode scalar value",
                    body_start + escape.start(),
                )
            return chr(code_point)
        if sequence == "u":
            source.fail(LexicalRule.UNICODE_ESCAPE, "\\u escape needs exactly four hexadecimal digits", body_start + escape.start())
        source.fail(LexicalRule.UNKNOWN_ESCAPE, f"unknown escape sequence '\\{sequence}'", body_start + escape.start())

    return _ESCAPE.sub(replace, body)


def _fail_at_character(source: SourceText, index: int) -> None:
    """Explain why no token starts at `index`; always raises."""
    text = source.text
    character = text[index]
    if character == "/" and text.startswith("/*", index):
        source.fail(LexicalRule.UNTERMINATED_COMMENT, "unterminated comment: '/*' without '*/'", index)
    if character in "\"'":
        _fail_in_string(source, index)
    if character == "\\":
        source.fail(
            LexicalRule.STRAY_LINE_CONTINUATION, "a reverse solidus outside a string must be followed by a line ending", index
        )
    if " " < character < "\x7f":
        source.fail(LexicalRule.UNEXPECTED_CHARACTER, f"unexpected character '{character}'", index)
    source.fail(LexicalRule.UNEXPECTED_CHARACTER, f"unexpected character U+{ord(character):04X}", index)


def _fail_in_string(source: SourceText, quote_index: int) -> None:
    """The string opened at `quote_index` did not scan: find the first offending character."""
    text = source.text
    quote = text[quote_index]
    index = quote_index + 1
    length = len(text)
    while index < length:
        character = text[index]
        if character == quote:
            break  # closed: the problem is not here (cannot happen when scanning failed)
        if character in "\r\n":
            source.fail(LexicalRule.LINE_ENDING_IN_STRING, "line ending inside a string (unterminated string?)", index)
        if character < " ":
            source.fail(
                LexicalRule.CONTROL_IN_STRING, f"raw control character U+{ord(character):04X} inside a string", index
            )
        if character == "\\":
            index += 1
            if index >= length:
                break
            if text[index] in "\r\n":
                source.fail(LexicalRule.LINE_ENDING_IN_STRING, "line ending inside a string (unterminated string?)", index)
            if text[index] < " ":
                source.fail(
                    LexicalRule.CONTROL_IN_STRING, f"raw control character U+{ord(text[index]):04X} inside a string", index
                )
        index += 1
    source.fail(LexicalRule.UNTERMINATED_STRING, "unterminated string", quote_index)
