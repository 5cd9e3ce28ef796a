"""The VPL reader (spec 10, 11): text to a verified `Module`.

`read` lexes (`lexer.py`), builds generic forms (`parser.py`), binds the
forms to IR objects here, and then always runs the canonical verifier. It
raises only `LexicalError`, `SyntacticError` or `SemanticError`, each with
one positioned `Diagnostic`.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `vpl_core/text/reader.py`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from vpl_core import collector
from vpl_core.diagnostics import Diagnostic, DiagnosticKind, SemanticError, VplError
from vpl_core.ir.instructions import (
    BinaryInstruction,
    BinaryOperator,
    BranchTerminator,
    Builtin,
    CallInstruction,
    ConditionalBranchTerminator,
    ConstructInstruction,
    CopyInstruction,
    DeclareLocalInstruction,
    DiscardTerminator,
    IndexInstruction,
    Instruction,
    LoadInstruction,
    MemberInstruction,
    ReturnTerminator,
    StoreInstruction,
    SwizzleInstruction,
    Terminator,
)
from vpl_core.ir.module import (
    Block,
    Direction,
    Function,
    InterfaceVariable,
    Module,
    Semantic,
    Stage,
    Uniform,
    UniformKind,
)
from vpl_core.ir.types import (
    FLOAT,
    ArrayType,
    Field,
    MatrixType,
    RecordType,
    SamplerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
    VoidType,
)
from vpl_core.ir.values import (
    INT32_MAX,
    INT32_MIN,
    ConstantValue,
    IndexReferenceValue,
    MemberReferenceValue,
    Operand,
    ReferenceValue,
    RegisterValue,
    StorageKind,
    float32_from_bits,
)
from vpl_core.text.errors import BindingRule, LexicalRule, SyntaxRule
from vpl_core.text.floats import Float32OverflowError, parse_float32_bits
from vpl_core.text.lexer import KEYWORD, NAME, NUMBER, STRING, decode
from vpl_core.text.parser import Form, Item, parse_source, parse_unpositioned
from vpl_core.text.source import SourceText
from vpl_core.verify import VerificationError, Verifier
from vpl_core.verify.errors import ReferenceRule, TypeRule, UniformRule

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

SIZE_MAX = 2**64 - 1
"""Sizes, counts and register ids: Arcadia.Size of a 64-bit build (spec 10.1)."""

MAX_TYPE_DEPTH = 128
"""Longest path of named-type dependency edges (spec 10.2)."""

KNOWN_EXTENSIONS = frozenset({"math"})

STRICT_V1_EXTENSIONS_MESSAGE = "extensions are not part of VPL version 1 (strict mode)"

MATH_BUILTINS: dict[str, Builtin] = {
    builtin.value: builtin for builtin in Builtin if builtin.extension == "math"
}

_SCALAR_SHAPES: dict[str, Callable[[], Type]] = {
    "void": VoidType,
    "bool": lambda: ScalarType(ScalarKind.BOOL),
    "int": lambda: ScalarType(ScalarKind.INT),
    "float": lambda: ScalarType(ScalarKind.FLOAT),
    "sampler2D": SamplerType,
}
_ELEMENT_KINDS = {"bool": ScalarKind.BOOL, "int": ScalarKind.INT, "float": ScalarKind.FLOAT}
_DIRECTIONS = {direction.value: direction for direction in Direction}
_SEMANTICS = {semantic.value: semantic for semantic in Semantic}
_MODULE_SECTIONS = (
    ("types", "(types {type})"),
    ("uniforms", "(uniforms {uniform})"),
    ("vertex", "(vertex entryFunctionId interface functions)"),
    ("fragment", "(fragment entryFunctionId interface functions)"),
)
_TERMINATOR_HEADS = frozenset({"branch", "branch_if", "return", "discard"})
#: (KIND id) references: head -> storage kind, what the id names, the unknown-id message.
_NAMED_REFERENCES = {
    "parameter": (StorageKind.PARAMETER, "a parameter id", "unknown parameter"),
    "uniform": (StorageKind.UNIFORM, "a uniform id", "unknown uniform"),
    "stage": (StorageKind.STAGE, "an interface id", "unknown interface id"),
}
_MAX_INT32_DIGITS = 10
_MAX_SIZE_DIGITS = 20


def read(
    source: bytes | bytearray | memoryview | str, label: str | None = None, *, strict_v1: bool = False
) -> Module:
    """Read, bind and verify one module; raises LexicalError, SyntacticError or SemanticError.

    Keeps no source positions (see the module docstring): plain text is
    scanned without them, and any failure is reported by reading the
    text again exactly, so the diagnostic is `read_located`'s.
    """
    with collector_paused():
        try:
            module, _ = read_unverified_unpositioned(source, label, strict_v1=strict_v1)
            Verifier().run(module)
            return module
        except VplError:
            pass  # no positions were kept: the exact read below raises the positioned diagnostic
        return read_located(source, label, strict_v1=strict_v1)[0]


def read_located(
    source: bytes | bytearray | memoryview | str, label: str | None = None, *, strict_v1: bool = False
) -> tuple[Module, SourceLocator]:
    """`read`, also returning a locator that places diagnostics about the module's objects in the source."""
    with collector_paused():
        text = decode(source, label)
        top = parse_source(text)
        reader = _Reader(text, strict_v1)
        module = reader.read_module(top)
        locator = SourceLocator(text, reader.placed, reader.starts, top.start)
        locator.verify(module)
        return module, locator


def read_unverified_located(
    source: bytes | bytearray | memoryview | str, label: str | None = None, *, strict_v1: bool = False
) -> tuple[Module, SourceLocator]:
    """`read_located` without the verifier: lexed, parsed and bound, NOT verified.

    Internal to publication (`VerifiedModule.from_unverified_read`), which
    verifies the module's canonical text instead and, if that fails, this
    module through `locator.verify` for the diagnostic in the source. Raises
    the lexical, syntactic and binding errors `read` raises.
    """
    with collector_paused():
        text = decode(source, label)
        top = parse_source(text)
        reader = _Reader(text, strict_v1)
        module = reader.read_module(top)
        return module, SourceLocator(text, reader.placed, reader.starts, top.start)


def read_unverified_unpositioned(
    source: bytes | bytearray | memoryview | str,
    label: str | None = None,
    *,
    strict_v1: bool = False,
    share_registers: bool = False,
) -> tuple[Module, SourceText]:
    """Decode, scan and bind, NOT verified, keeping no source positions; the module and its decoded text.

    Plain text is scanned by `parse_unpositioned`, anything else exactly.
    The errors it raises carry no meaningful position: a caller that
    reports them reads the source again exactly (`read`, `compile_source`).
    `share_registers`: all uses of one register spelling in a function
    share one `RegisterValue` (as builder-made modules do) instead of one
    each; a third less binding, for `compile_source`, whose modules are
    never asked for the structural path of a register use.
    """
    with collector_paused():
        text = decode(source, label)
        top = parse_unpositioned(text.text)
        if top is None:
            top = parse_source(text)
        else:
            text.plain = True
        reader = _SharingReader(text, strict_v1) if share_registers else _Reader(text, strict_v1, keeps_positions=False)
        return reader.read_module(top), text


class SourceLocator:
    """Source positions of the objects one read created (kept alive by the module it read).

    Positions are keyed by object identity, so a locator only answers for
    objects of its own module instance; `vpl_core.ir.paths` translates
    objects of another instance of the same module.

    The reader hands over the objects it read and their starts as two lists
    in reading order; the table by identity (`spans`) is built when first
    asked for, which only a diagnostic or an editor's code link does. A
    located read of a large module places tens of thousands of objects:
    appending them costs a fraction of filling a table keyed by identity (a
    hashed entry and an integer object each), which grew faster than the
    module past the processor's caches. The lists keep the objects alive, so
    no identity in the table can be reused by another object.
    """

    __slots__ = ("_spans", "module_start", "placed", "source", "starts")

    def __init__(self, source: SourceText, placed: list[object], starts: list[int], module_start: int) -> None:
        self.source = source
        self.placed = placed
        self.starts = starts
        self.module_start = module_start
        self._spans: dict[int, int] | None = None

    @property
    def spans(self) -> dict[int, int]:
        """Object identity -> character index of its start (an object placed twice: the last place)."""
        spans = self._spans
        if spans is None:
            spans = self._spans = dict(zip(map(id, self.placed), self.starts))
        return spans

    def index_of(self, subject: object, context: Sequence[object] = ()) -> int:
        """The character index of `subject`, else of the innermost located `context`
        object, else of the module's opening parenthesis (spec 11)."""
        for candidate in (subject, *reversed(tuple(context))):
            if candidate is not None:
                index = self.spans.get(id(candidate))
                if index is not None:
                    return index
        return self.module_start

    def locate(self, diagnostic: Diagnostic, subject: object = None) -> Diagnostic:
        """`diagnostic` positioned at its subject (or at `subject`, an object of this locator's module
        standing for it), else at the innermost located object of its context, else at the module."""
        found = diagnostic.subject if subject is None else subject
        return self.source.position(diagnostic, self.index_of(found, diagnostic.context))

    def verify(self, module: Module) -> None:
        """Run the verifier; its error is re-raised as a positioned SemanticError."""
        try:
            Verifier().run(module)
        except VerificationError as error:
            raise SemanticError(self.locate(error.diagnostic)) from error


#: No cyclic collection while reading (`vpl_core.collector.paused`): reading allocates hundreds of thousands
#: of objects that all stay alive until the read ends, which the collector would traverse for nothing.
collector_paused = collector.paused


def read_file(path: str | os.PathLike[str], *, strict_v1: bool = False) -> Module:
    """Read a .vpl file; the diagnostic label is the path as given. OSError if it cannot be read."""
    from vpl_core.external_files import read_external

    return read(read_external(path, "document"), os.fspath(path), strict_v1=strict_v1)


def _start(item: Item) -> int:
    return item.start if isinstance(item, Form) else item[2]


def _describe(item: Item) -> str:
    if isinstance(item, Form):
        if item.items and not isinstance(item.items[0], Form):
            return f"form ({_shortened(item.items[0][1])} ...)"
        return "a form"
    kind, value, _ = item
    if kind == NAME:
        return f"name '{_shortened(value)}'"
    if kind == KEYWORD:
        return f"reserved word '{value}'"
    if kind == NUMBER:
        return f"number '{_shortened(value)}'"
    return f"string {_shortened(value)!r}"


def _shortened(text: str) -> str:
    """Long words stay readable in one-line diagnostics."""
    return text if len(text) <= 40 else text[:37] + "..."


def _without_article(what: str) -> str:
    for article in ("a ", "an "):
        if what.startswith(article):
            return what[len(article) :]
    return what


def _head_name(item: Item) -> str | None:
    """The head word of a form, None for atoms and forms without a word head."""
    if isinstance(item, Form) and item.items and not isinstance(item.items[0], Form) and item.items[0][0] == NAME:
        return item.items[0][1]
    return None


def _is_register_spelling(text: str) -> bool:
    return len(text) > 1 and text[0] == "r" and text[1:].isdigit()


class _TypeDeclaration:
    """One `(type ...)` form between syntax checking and construction."""

    __slots__ = ("built", "dependencies", "form", "length", "name", "shape", "start")

    def __init__(self, name: str, start: int, form: Form, shape: str) -> None:
        self.name = name
        self.start = start
        self.form = form
        self.shape = shape
        # (type id, position of the reference) for array elements and record fields
        self.dependencies: list[tuple[str, int]] = []
        self.length = 0  # array types only
        self.built: Type | None = None


class _FunctionScope:
    """The function-local ids of one function, built before its blocks are bound."""

    __slots__ = ("block_forms", "blocks", "form", "function", "parameters", "reference_values", "register_spellings",
                 "register_values", "registers")

    def __init__(self, function: Function, form: Form) -> None:
        self.function = function
        self.form = form
        self.parameters: dict[str, tuple[int, Type]] = {}
        self.registers: dict[int, Type] = {}
        # Spelling -> (number, declared type) of registers already seen: most
        # uses repeat a spelling, and this skips re-validating it.
        self.register_spellings: dict[str, tuple[int, Type]] = {}
        # Spelling -> the one RegisterValue all its uses share (`_SharingReader` only).
        self.register_values: dict[str, RegisterValue] = {}
        # Spelling (`_reference_key`) -> the one reference all its uses share (`_SharingReader` only).
        self.reference_values: dict[object, ReferenceValue] = {}
        self.blocks: dict[str, Block] = {}
        self.block_forms: list[Form] = []


class _Reader:
    def __init__(self, source: SourceText, strict_v1: bool, *, keeps_positions: bool = True) -> None:
        self.source = source
        self.strict_v1 = strict_v1
        #: Whether the source position of each object read is kept (`placed`, `starts`), for a `SourceLocator`.
        self.keeps_positions = keeps_positions
        # The objects read and the character index of each one's start, in reading order.
        self.placed: list[object] = []
        self.starts: list[int] = []
        self.types: dict[str, Type] = {}
        self.uniforms: dict[str, tuple[int, Type]] = {}
        self.extensions: set[str] = set()
        # Stage- and function-local scopes, replaced as the reader moves on.
        self.interface: dict[str, tuple[int, Type]] = {}
        self.functions: dict[str, Function] = {}
        self.scope: _FunctionScope | None = None
        # Float literal spelling -> its binary32 value: spellings repeat, and
        # rounding a decimal to binary32 exactly is the costly part.
        self.float_values: dict[str, float] = {}
        self.instruction_readers: dict[str, Callable[[Form], Instruction]] = {
            "copy": self._read_copy,
            "load": self._read_load,
            "store": self._read_store,
            "construct": self._read_construct,
            "call": self._read_call,
            "texture": self._read_texture,
            "swizzle": self._read_swizzle,
            "member": self._read_member,
            "index": self._read_index,
        }
        for operator in BinaryOperator:
            self.instruction_readers[operator.value] = self._binary_reader(operator)
        for name, builtin in MATH_BUILTINS.items():
            self.instruction_readers[name] = self._math_reader(builtin)

    # Diagnostics -----------------------------------------------------------------------

    def _fail(self, kind: DiagnosticKind, message: str, index: int) -> NoReturn:
        self.source.fail(kind, message, index)

    def _mark(self, value: object, index: int) -> None:
        if self.keeps_positions:
            self.placed.append(value)
            self.starts.append(index)

    # Form shapes -----------------------------------------------------------------------

    def _form(self, item: Item, head: str, shape: str) -> Form:
        """`item` as a form whose head is the name `head`."""
        if not isinstance(item, Form):
            self._fail(SyntaxRule.EXPECTED_FORM, f"expected {shape}, found {_describe(item)}", _start(item))
        if not item.items or isinstance(item.items[0], Form) or item.items[0][0] != NAME or item.items[0][1] != head:
            found = _describe(item.items[0]) if item.items else "()"
            self._fail(SyntaxRule.EXPECTED_FORM, f"expected {shape}, found {found}", _start(item.items[0]) if item.items else item.start)
        return item

    def _head(self, form: Form, what: str) -> str:
        """The head name of a form whose head selects among alternatives."""
        if not form.items:
            self._fail(SyntaxRule.EXPECTED_FORM, f"expected {what}, found an empty form", form.start)
        head = form.items[0]
        if isinstance(head, Form) or head[0] != NAME:
            self._fail(SyntaxRule.EXPECTED_FORM, f"expected {what}, found {_describe(head)}", _start(head))
        return head[1]

    def _count(self, form: Form, minimum: int, maximum: int | None, shape: str) -> list[Item]:
        """The form's items, checking their number against the shape."""
        items = form.items
        if len(items) < minimum:
            self._fail(SyntaxRule.INCOMPLETE_FORM, f"incomplete form: expected {shape}, found ')'", form.end)
        if maximum is not None and len(items) > maximum:
            self._fail(SyntaxRule.EXTRA_ITEM, f"unexpected {_describe(items[maximum])}: expected {shape}", _start(items[maximum]))
        return items

    # Atoms -----------------------------------------------------------------------------

    def _id(self, item: Item, what: str) -> tuple[str, int]:
        if isinstance(item, Form) or item[0] != NAME:
            self._fail(SyntaxRule.EXPECTED_ATOM, f"expected {what}, found {_describe(item)}", _start(item))
        return item[1], item[2]

    def _word(self, item: Item, choices: object, what: str) -> str:
        """A name or reserved word from a fixed set (type shapes, directions, semantics...)."""
        if isinstance(item, Form) or item[0] not in (NAME, KEYWORD) or item[1] not in choices:  # type: ignore[operator]  # `choices` is any container of words (a tuple, a dict's keys)
            self._fail(SyntaxRule.EXPECTED_ATOM, f"expected {what}, found {_describe(item)}", _start(item))
        return item[1]

    def _string(self, item: Item, what: str) -> str:
        if isinstance(item, Form) or item[0] != STRING:
            self._fail(SyntaxRule.EXPECTED_ATOM, f"expected {what} (a quoted string), found {_describe(item)}", _start(item))
        return item[1]

    def _size(self, item: Item, what: str) -> int:
        if isinstance(item, Form) or item[0] != NUMBER or not item[1].isdigit():
            self._fail(SyntaxRule.EXPECTED_ATOM, f"expected {what} (unsigned decimal digits), found {_describe(item)}", _start(item))
        digits = item[1].lstrip("0") or "0"
        if len(digits) > _MAX_SIZE_DIGITS or int(digits) > SIZE_MAX:
            self._fail(LexicalRule.SIZE_RANGE, f"{_without_article(what)} {item[1]} is out of range (at most 2**64-1)", item[2])
        return int(digits)

    def _signed_integer(self, item: Item, what: str) -> int:
        if isinstance(item, Form) or item[0] != NUMBER:
            self._fail(SyntaxRule.EXPECTED_ATOM, f"expected {what} (a signed decimal integer), found {_describe(item)}", _start(item))
        text = item[1]
        unsigned = text[1:] if text[0] in "+-" else text
        if not unsigned.isdigit():
            self._fail(SyntaxRule.EXPECTED_ATOM, f"expected {what} (a signed decimal integer), found {_describe(item)}", item[2])
        digits = unsigned.lstrip("0") or "0"
        value = int(digits) if len(digits) <= _MAX_INT32_DIGITS else INT32_MAX * 10
        if text[0] == "-":
            value = -value
        if not INT32_MIN <= value <= INT32_MAX:
            self._fail(LexicalRule.INT32_RANGE, f"{_without_article(what)} {text} is outside the signed 32-bit range", item[2])
        return value

    def _register_index(self, item: Item) -> int:
        if isinstance(item, Form) or item[0] != NAME or not _is_register_spelling(item[1]):
            self._fail(SyntaxRule.EXPECTED_ATOM, f"expected a register (r followed by digits), found {_describe(item)}", _start(item))
        digits = item[1][1:].lstrip("0") or "0"
        if len(digits) > _MAX_SIZE_DIGITS or int(digits) > SIZE_MAX:
            self._fail(LexicalRule.REGISTER_RANGE, f"register id {item[1]} is out of range (at most r{SIZE_MAX})", item[2])
        return int(digits)

    def _type_reference(self, item: Item) -> Type:
        name, start = self._id(item, "a type id")
        found = self.types.get(name)
        if found is None:
            self._fail(BindingRule.UNKNOWN_ID, f"unknown type '{name}'", start)
        return found

    # Module ----------------------------------------------------------------------------

    def read_module(self, top: Form) -> Module:
        module_shape = "(module version [extensions] types uniforms vertex fragment)"
        form = self._form(top, "module", module_shape)
        items = self._count(form, 2, None, module_shape)
        version = self._size(items[1], "a version number")
        if version != 1:
            self._fail(SyntaxRule.UNSUPPORTED_VERSION, f"unsupported VPL version {version}: this reader reads version 1", _start(items[1]))
        position = 2
        if len(items) > 2 and _head_name(items[2]) == "extensions":
            self._read_extensions(items[2])  # type: ignore[arg-type]  # `_head_name` checked that items[2] is a form
            position = 3
        sections: list[Form] = []
        for offset, (head, shape) in enumerate(_MODULE_SECTIONS):
            if position + offset >= len(items):
                self._fail(SyntaxRule.INCOMPLETE_FORM, f"incomplete form: expected {module_shape}, found ')'", form.end)
            sections.append(self._form(items[position + offset], head, shape))
        self._count(form, position + 4, position + 4, module_shape)
        types_form, uniforms_form, vertex_form, fragment_form = sections
        self._read_types(types_form)
        module = Module()
        self._mark(module, form.start)
        self._read_uniforms(module, uniforms_form)
        self._read_stage(module.vertex, vertex_form)
        self._read_stage(module.fragment, fragment_form)
        return module

    def _read_extensions(self, form: Form) -> None:
        if self.strict_v1:
            self._fail(SyntaxRule.STRICT_V1_EXTENSION, STRICT_V1_EXTENSIONS_MESSAGE, form.start)
        for item in form.items[1:]:
            name = self._string(item, "an extension name")
            if name not in KNOWN_EXTENSIONS:
                known = ", ".join(f'"{known}"' for known in sorted(KNOWN_EXTENSIONS))
                self._fail(BindingRule.UNKNOWN_EXTENSION, f'unknown extension "{name}" (known: {known})', _start(item))
            if name in self.extensions:
                self._fail(BindingRule.DUPLICATE_EXTENSION, f'duplicate extension "{name}"', _start(item))
            self.extensions.add(name)

    # Types -----------------------------------------------------------------------------

    def _read_types(self, form: Form) -> None:
        declarations: dict[str, _TypeDeclaration] = {}
        for item in form.items[1:]:
            declaration = self._read_type_declaration(self._form(item, "type", "(type id shape ...)"))
            if declaration.name in declarations:
                self._fail(BindingRule.DUPLICATE_ID, f"duplicate type id '{declaration.name}'", declaration.start)
            declarations[declaration.name] = declaration
        for declaration in declarations.values():
            for name, start in declaration.dependencies:
                if name not in declarations:
                    self._fail(BindingRule.UNKNOWN_ID, f"unknown type '{name}'", start)
        for declaration in self._dependency_order(declarations):
            self._build_type(declaration)
            self.types[declaration.name] = declaration.built  # type: ignore[assignment]  # `_build_type` has just set `built`

    def _read_type_declaration(self, form: Form) -> _TypeDeclaration:
        shape_description = "(type id shape ...)"
        items = self._count(form, 3, None, shape_description)
        name, start = self._id(items[1], "a type id")
        shape_item = items[2]
        if isinstance(shape_item, Form) or shape_item[0] not in (NAME, KEYWORD):
            self._fail(SyntaxRule.EXPECTED_ATOM, f"expected a type shape, found {_describe(shape_item)}", _start(shape_item))
        shape = shape_item[1]
        declaration = _TypeDeclaration(name, start, form, shape)
        if shape in _SCALAR_SHAPES:
            self._count(form, 3, 3, f"(type id {shape})")
            declaration.built = _SCALAR_SHAPES[shape]()
        elif shape == "vector":
            items = self._count(form, 5, 5, "(type id vector elementKind size)")
            kind = _ELEMENT_KINDS[self._word(items[3], _ELEMENT_KINDS, "an element kind (bool, int or float)")]
            size = self._size(items[4], "a vector size")
            if not 2 <= size <= 4:
                self._fail(TypeRule.VECTOR_SIZE, f"invalid vector size {size} (must be 2, 3 or 4)", _start(items[4]))
            declaration.built = VectorType(kind, size)
        elif shape == "matrix":
            items = self._count(form, 5, 5, "(type id matrix rows columns)")
            rows = self._size(items[3], "a matrix row count")
            columns = self._size(items[4], "a matrix column count")
            for dimension, item in ((rows, items[3]), (columns, items[4])):
                if not 2 <= dimension <= 4:
                    self._fail(
                        TypeRule.MATRIX_SHAPE,
                        f"invalid matrix dimensions {rows}x{columns} (rows and columns must be 2, 3 or 4)",
                        _start(item),
                    )
            declaration.built = MatrixType(rows, columns)
        elif shape == "array":
            items = self._count(form, 5, 5, "(type id array elementType length)")
            element_name, element_start = self._id(items[3], "an element type id")
            length = self._size(items[4], "an array length")
            if length == 0:
                self._fail(TypeRule.ARRAY_COUNT, "invalid array length 0 (must be positive)", _start(items[4]))
            declaration.dependencies.append((element_name, element_start))
            declaration.length = length
        elif shape == "record":
            items = self._count(form, 4, None, '(type id record "name" {field})')
            record = RecordType(self._string(items[3], "a record name"))
            # Checked here too, so that unused declarations are held to the same rules (spec 3).
            if not record.name:
                self._fail(TypeRule.RECORD_NAME, "record display name must be a nonempty string", _start(items[3]))
            self._mark(record, form.start)
            field_names: set[str] = set()
            for field_item in items[4:]:
                field_form = self._form(field_item, "field", '(field "name" typeId)')
                field_items = self._count(field_form, 3, 3, '(field "name" typeId)')
                field_name = self._string(field_items[1], "a field name")
                if not field_name:
                    self._fail(
                        TypeRule.FIELD_NAME, f"field names of record {record.name!r} must be nonempty strings", _start(field_items[1])
                    )
                if field_name in field_names:
                    self._fail(
                        TypeRule.DUPLICATE_FIELD, f"record {record.name!r} has two fields named {field_name!r}", _start(field_items[1])
                    )
                field_names.add(field_name)
                field_type_name, field_type_start = self._id(field_items[2], "a field type id")
                declaration.dependencies.append((field_type_name, field_type_start))
                # The type is bound once every declaration is known (forward references).
                field = Field(field_name, None)  # type: ignore[arg-type]  # bound to its type below, once every declaration is known
                self._mark(field, field_form.start)
                record.fields.append(field)
            declaration.built = record
        else:
            self._fail(SyntaxRule.UNKNOWN_TYPE_SHAPE, f"unknown type shape {_describe(shape_item)}", shape_item[2])
        if declaration.built is not None:
            self._mark(declaration.built, form.start)
        return declaration

    def _dependency_order(self, declarations: dict[str, _TypeDeclaration]) -> list[_TypeDeclaration]:
        """Declarations with dependencies first; rejects cycles and paths longer than MAX_TYPE_DEPTH edges.

        Iterative depth-first search (no recursion on input structure); the
        depth of a declaration is the longest dependency path below it.
        """
        depth: dict[str, int] = {}
        on_path: set[str] = set()
        order: list[_TypeDeclaration] = []
        for root in declarations.values():
            if root.name in depth:
                continue
            # Stack entries: (declaration, index of the next dependency to visit).
            stack: list[list[Any]] = [[root, 0]]
            on_path.add(root.name)
            while stack:
                entry = stack[-1]
                declaration, next_dependency = entry
                if next_dependency < len(declaration.dependencies):
                    entry[1] += 1
                    name, start = declaration.dependencies[next_dependency]
                    if name in on_path:
                        self._fail(TypeRule.RECURSIVE, f"type cycle: '{declaration.name}' depends on '{name}', which depends on it", start)
                    if name not in depth:
                        on_path.add(name)
                        stack.append([declarations[name], 0])
                    continue
                stack.pop()
                on_path.discard(declaration.name)
                longest = 0
                for name, _ in declaration.dependencies:
                    longest = max(longest, depth[name] + 1)
                if longest > MAX_TYPE_DEPTH:
                    self._fail(
                        BindingRule.TYPE_DEPTH,
                        f"type '{declaration.name}' has a dependency path of {longest} edges"
                        f" (at most {MAX_TYPE_DEPTH})",
                        declaration.start,
                    )
                depth[declaration.name] = longest
                order.append(declaration)
        return order

    def _build_type(self, declaration: _TypeDeclaration) -> None:
        if declaration.shape == "array":
            element_name, element_start = declaration.dependencies[0]
            element = self.types[element_name]
            if isinstance(element, VoidType):
                self._fail(TypeRule.VOID_VALUE, "void is not a value type: it cannot be an array element type", element_start)
            array = ArrayType(element, declaration.length)
            self._mark(array, declaration.form.start)
            declaration.built = array
        elif declaration.shape == "record":
            record = declaration.built
            assert isinstance(record, RecordType)
            for field, (type_name, type_start) in zip(record.fields, declaration.dependencies):
                field_type = self.types[type_name]
                if isinstance(field_type, VoidType):
                    self._fail(TypeRule.VOID_VALUE, "void is not a value type: it cannot be a record field type", type_start)
                field.type = field_type

    # Uniforms --------------------------------------------------------------------------

    def _read_uniforms(self, module: Module, form: Form) -> None:
        for item in form.items[1:]:
            if not isinstance(item, Form):
                self._fail(SyntaxRule.EXPECTED_FORM, f"expected a uniform form, found {_describe(item)}", _start(item))
            kind = self._head(item, "a uniform form ((scalar ...), (record ...) or (array ...))")
            if kind == "scalar" or kind == "record":
                items = self._count(item, 4, 4, f'({kind} id "name" typeId)')
            elif kind == "array":
                items = self._count(item, 5, 5, '(array id "name" elementTypeId length)')
            else:
                self._fail(
                    SyntaxRule.UNKNOWN_UNIFORM_KIND,
                    f"unknown uniform kind '{kind}' (expected scalar, record or array)", _start(item.items[0])
                )
            uniform_id, uniform_start = self._id(items[1], "a uniform id")
            if uniform_id in self.uniforms:
                self._fail(BindingRule.DUPLICATE_ID, f"duplicate uniform id '{uniform_id}'", uniform_start)
            name = self._string(items[2], "a uniform name")
            uniform_type = self._type_reference(items[3])
            if kind == "scalar":
                if isinstance(uniform_type, (RecordType, ArrayType)):
                    self._fail(
                        UniformRule.KIND_TYPE,
                        f"invalid uniform kind: scalar uniform '{uniform_id}' has {_type_category(uniform_type)} type;"
                        f" use ({'record' if isinstance(uniform_type, RecordType) else 'array'} ...)",
                        _start(items[3]),
                    )
                uniform_kind = UniformKind.SCALAR
            elif kind == "record":
                if not isinstance(uniform_type, RecordType):
                    self._fail(
                        UniformRule.KIND_TYPE,
                        f"invalid uniform kind: record uniform '{uniform_id}' needs a record type,"
                        f" not {_type_category(uniform_type)}",
                        _start(items[3]),
                    )
                uniform_kind = UniformKind.RECORD
            else:
                length = self._size(items[4], "an array length")
                if length == 0:
                    self._fail(TypeRule.ARRAY_COUNT, "invalid array length 0 (must be positive)", _start(items[4]))
                if isinstance(uniform_type, VoidType):
                    self._fail(TypeRule.VOID_VALUE, "void is not a value type: it cannot be an array element type", _start(items[3]))
                uniform_type = ArrayType(uniform_type, length)
                self._mark(uniform_type, item.start)
                uniform_kind = UniformKind.ARRAY
            uniform = Uniform(uniform_kind, name, uniform_type)
            self._mark(uniform, item.start)
            self.uniforms[uniform_id] = (len(module.uniforms), uniform_type)
            module.uniforms.append(uniform)

    # Stages ----------------------------------------------------------------------------

    def _read_stage(self, stage: Stage, form: Form) -> None:
        kind = stage.kind.value
        items = self._count(form, 4, 4, f"({kind} entryFunctionId interface functions)")
        entry_id, entry_start = self._id(items[1], "an entry function id")
        self._mark(stage, form.start)
        self.interface = {}
        self.functions = {}
        self._read_interface(stage, self._form(items[2], "interface", "(interface {io})"))
        functions_form = self._form(items[3], "functions", "(functions {function})")
        scopes = [self._declare_function(stage, item) for item in functions_form.items[1:]]
        entry = self.functions.get(entry_id)
        if entry is None:
            self._fail(BindingRule.UNKNOWN_ID, f"unknown entry function '{entry_id}' in the {kind} stage", entry_start)
        stage.entry = entry
        for scope in scopes:
            self._read_function_body(scope)
        self.scope = None

    def _read_interface(self, stage: Stage, form: Form) -> None:
        for item in form.items[1:]:
            shape = '(in|out id "name" typeId location semantic)'
            if not isinstance(item, Form):
                self._fail(SyntaxRule.EXPECTED_FORM, f"expected {shape}, found {_describe(item)}", _start(item))
            direction = self._head(item, shape)
            if direction not in _DIRECTIONS:
                self._fail(SyntaxRule.EXPECTED_FORM, f"expected (in ...) or (out ...), found form ({direction} ...)", _start(item.items[0]))
            items = self._count(item, 6, 6, shape)
            slot_id, slot_start = self._id(items[1], "an interface id")
            if slot_id in self.interface:
                self._fail(BindingRule.DUPLICATE_ID, f"duplicate interface id '{slot_id}'", slot_start)
            name = self._string(items[2], "an interface name")
            slot_type = self._type_reference(items[3])
            location = self._signed_integer(items[4], "a location")
            semantic = _SEMANTICS[
                self._word(items[5], _SEMANTICS, "a semantic (none, position, color, texcoord or fragment_color)")
            ]
            variable = InterfaceVariable(_DIRECTIONS[direction], name, slot_type, location, semantic)
            self._mark(variable, item.start)
            self.interface[slot_id] = (len(stage.interface), slot_type)
            stage.interface.append(variable)

    def _declare_function(self, stage: Stage, item: Item) -> _FunctionScope:
        shape = '(function id "name" returnTypeId parameters registers block {block})'
        form = self._form(item, "function", shape)
        items = self._count(form, 7, None, shape)
        function_id, function_start = self._id(items[1], "a function id")
        if function_id in self.functions:
            self._fail(BindingRule.DUPLICATE_ID, f"duplicate function id '{function_id}' in the {stage.kind.value} stage", function_start)
        name = self._string(items[2], "a function name")
        return_type = self._type_reference(items[3])
        function = Function(name, return_type)
        self._mark(function, form.start)
        scope = _FunctionScope(function, form)
        for parameter_item in self._form(items[4], "parameters", "(parameters {parameter})").items[1:]:
            parameter_form = self._form(parameter_item, "parameter", "(parameter id typeId)")
            parameter_items = self._count(parameter_form, 3, 3, "(parameter id typeId)")
            parameter_id, parameter_start = self._id(parameter_items[1], "a parameter id")
            if parameter_id in scope.parameters:
                self._fail(BindingRule.DUPLICATE_ID, f"duplicate parameter id '{parameter_id}'", parameter_start)
            parameter_type = self._type_reference(parameter_items[2])
            slot = len(function.parameters)
            parameter = ReferenceValue(StorageKind.PARAMETER, slot, parameter_type)
            self._mark(parameter, parameter_form.start)
            scope.parameters[parameter_id] = (slot, parameter_type)
            function.parameters.append(parameter)
        entry_block = Block()
        types = self.types
        for register_item in self._form(items[5], "registers", "(registers {register})").items[1:]:
            # A lowered material declares a register per value: the common spelling, `(register rN typeId)`
            # with a known type and a new register, inline; anything else (and every error) the general way.
            if type(register_item) is Form:
                register_items = register_item.items
                if len(register_items) == 3:
                    head, spelling, type_item = register_items
                    if (type(head) is tuple and head[0] == NAME and head[1] == "register" and type(spelling) is tuple
                            and spelling[0] == NAME and type(type_item) is tuple and type_item[0] == NAME):
                        register_type = types.get(type_item[1])  # None: the general way
                        if register_type is not None:
                            index = self._register_index(spelling)
                            if index not in scope.registers:
                                register = RegisterValue(index, register_type)
                                self._mark(register, spelling[2])
                                declaration = DeclareLocalInstruction(register, register_type)
                                self._mark(declaration, register_item.start)
                                scope.registers[index] = register_type
                                self._declared(scope, spelling[1], register)
                                entry_block.instructions.append(declaration)
                                continue
            register_form = self._form(register_item, "register", "(register reg typeId)")
            register_items = self._count(register_form, 3, 3, "(register reg typeId)")
            index = self._register_index(register_items[1])
            if index in scope.registers:
                self._fail(
                    BindingRule.DUPLICATE_ID, f"duplicate register r{index} ('{register_items[1][1]}')", register_items[1][2]  # type: ignore[index]  # `_register_index` accepted items[1], so it is an atom (kind, text, offset)
                )
            register_type = self._type_reference(register_items[2])
            register = RegisterValue(index, register_type)
            self._mark(register, register_items[1][2])  # type: ignore[index]  # `_register_index` accepted items[1], so it is an atom (kind, text, offset)
            declaration = DeclareLocalInstruction(register, register_type)
            self._mark(declaration, register_form.start)
            scope.registers[index] = register_type
            self._declared(scope, register_items[1][1], register)  # type: ignore[index]  # an atom, as above
            entry_block.instructions.append(declaration)
        for position, block_item in enumerate(items[6:]):
            block_form = self._form(block_item, "block", "(block id {instruction} terminator)")
            block_items = self._count(block_form, 2, None, "(block id {instruction} terminator)")
            block_id, block_start = self._id(block_items[1], "a block id")
            if block_id in scope.blocks:
                self._fail(BindingRule.DUPLICATE_ID, f"duplicate block id '{block_id}'", block_start)
            block = entry_block if position == 0 else Block()
            self._mark(block, block_form.start)
            scope.blocks[block_id] = block
            scope.block_forms.append(block_form)
            function.blocks.append(block)
        self.functions[function_id] = function
        stage.functions.append(function)
        return scope

    def _declared(self, scope: _FunctionScope, spelling: str, register: RegisterValue) -> None:
        """Note a register declared as `spelling`: its uses spelled the same way are bound without checking
        the spelling again (it was checked here), as `_register_binding` notes a spelling at its first use."""
        scope.register_spellings[spelling] = (register.index, register.type)

    # Function bodies -------------------------------------------------------------------

    def _read_function_body(self, scope: _FunctionScope) -> None:
        self.scope = scope
        readers = self.instruction_readers
        keeps_positions = self.keeps_positions
        place, start_at = self.placed.append, self.starts.append
        for block, form in zip(scope.function.blocks, scope.block_forms):
            items = form.items
            last = len(items) - 1
            instructions = block.instructions
            for position in range(2, len(items)):
                item = items[position]
                if not isinstance(item, Form):
                    self._fail(SyntaxRule.EXPECTED_FORM, f"expected an instruction or terminator form, found {_describe(item)}", item[2])
                head_item = item.items[0] if item.items else None
                if type(head_item) is tuple and head_item[0] == NAME:
                    head = head_item[1]
                else:
                    head = self._head(item, "an instruction or terminator")  # reports the error
                reader = readers.get(head)
                if reader is not None:
                    instruction = reader(item)
                    if keeps_positions:
                        place(instruction)
                        start_at(item.start)
                    instructions.append(instruction)
                    continue
                if head in _TERMINATOR_HEADS:
                    if position != last:
                        self._fail(
                            SyntaxRule.TERMINATOR_NOT_LAST, f"the terminator ({head} ...) must be the last form of its block", item.start
                        )
                    terminator = self._read_terminator(head, item)
                    if keeps_positions:
                        place(terminator)
                        start_at(item.start)
                    block.terminator = terminator
                    break
                self._fail(SyntaxRule.UNKNOWN_INSTRUCTION, f"unknown instruction '{head}'", _start(item.items[0]))
            else:
                self._fail(
                    SyntaxRule.NO_TERMINATOR, "a block must end with a terminator (branch, branch_if, return or discard)", form.end
                )

    # Operands and references -----------------------------------------------------------

    def _register_binding(self, item: Item) -> tuple[int, Type]:
        """Number and declared type of the register spelled by `item`."""
        if type(item) is tuple and item[0] == NAME:  # a string spelled like a register is no register
            known = self.scope.register_spellings.get(item[1])  # type: ignore[union-attr]  # registers are read inside a function body, where `scope` is set
            if known is not None:
                return known
        index = self._register_index(item)
        register_type = self.scope.registers.get(index)  # type: ignore[union-attr]  # registers are read inside a function body, where `scope` is set
        if register_type is None:
            self._fail(BindingRule.UNKNOWN_ID, f"unknown register {item[1]}", item[2])  # type: ignore[index]  # `_register_index` accepted `item`, so it is an atom (kind, text, offset)
        known = (index, register_type)
        self.scope.register_spellings[item[1]] = known  # type: ignore[union-attr,index]  # inside a function body (`scope` set); `item` is an atom (`_register_index` accepted it)
        return known

    def _register(self, item: Item) -> RegisterValue:
        known = self.scope.register_spellings.get(item[1]) if type(item) is tuple and item[0] == NAME else None  # type: ignore[union-attr]  # registers are read inside a function body, where `scope` is set
        index, register_type = known if known is not None else self._register_binding(item)
        register = RegisterValue(index, register_type)
        if self.keeps_positions:
            self.placed.append(register)
            self.starts.append(item[2])  # type: ignore[index]  # `_register_binding` accepted `item`, so it is an atom (kind, text, offset)
        return register

    def _operand(self, item: Item) -> Operand:
        if not isinstance(item, Form):
            if item[0] == NAME:
                known = self.scope.register_spellings.get(item[1])  # type: ignore[union-attr]  # operands are read inside a function body, where `scope` is set
                if known is not None:  # a register seen before: the common case, inline
                    register = RegisterValue(known[0], known[1])
                    if self.keeps_positions:
                        self.placed.append(register)
                        self.starts.append(item[2])
                    return register
                if _is_register_spelling(item[1]):
                    return self._register(item)
            self._fail(
                SyntaxRule.EXPECTED_FORM,
                f"expected an operand (a register, (bool ...), (int ...) or (float ...)), found {_describe(item)}",
                item[2],
            )
        head = self._head(item, "an operand ((bool ...), (int ...) or (float ...))")
        if head == "int":
            items = self._count(item, 2, 2, "(int signedInteger)")
            constant = ConstantValue.of_int(self._signed_integer(items[1], "an int literal"))
        elif head == "float":
            items = self._count(item, 2, 2, "(float number)")
            literal = items[1]
            if isinstance(literal, Form) or literal[0] != NUMBER:
                self._fail(SyntaxRule.EXPECTED_ATOM, f"expected a decimal number, found {_describe(literal)}", _start(literal))
            value = self.float_values.get(literal[1])
            if value is None:
                try:
                    bits = parse_float32_bits(literal[1])
                except Float32OverflowError:
                    self._fail(LexicalRule.FLOAT_OVERFLOW, f"float literal {literal[1]} overflows binary32 (beyond 3.4028235e38)", literal[2])
                value = float32_from_bits(bits)
                self.float_values[literal[1]] = value
            constant = ConstantValue(FLOAT, value)
        elif head == "bool":
            items = self._count(item, 2, 2, "(bool true|false)")
            constant = ConstantValue.of_bool(self._word(items[1], ("true", "false"), "true or false") == "true")
        else:
            self._fail(
                SyntaxRule.EXPECTED_FORM,
                f"expected an operand (a register, (bool ...), (int ...) or (float ...)), found {_describe(item)}",
                item.start,
            )
        if self.keeps_positions:
            self.placed.append(constant)
            self.starts.append(item.start)
        return constant

    def _reference(self, item: Item) -> ReferenceValue:
        expected = "a reference ((local ...), (parameter ...), (uniform ...), (stage ...), (member_ref ...) or (index_ref ...))"
        if not isinstance(item, Form):
            self._fail(SyntaxRule.EXPECTED_FORM, f"expected {expected}, found {_describe(item)}", item[2])
        head = self._head(item, expected)
        scope = self.scope
        assert scope is not None
        reference: ReferenceValue
        if head == "local":
            items = self._count(item, 2, 2, "(local reg)")
            index, register_type = self._register_binding(items[1])
            reference = ReferenceValue(StorageKind.LOCAL, index, register_type)
        elif head in _NAMED_REFERENCES:
            kind, expected_id, unknown = _NAMED_REFERENCES[head]
            table = scope.parameters if head == "parameter" else self.uniforms if head == "uniform" else self.interface
            items = self._count(item, 2, 2, f"({head} id)")
            name, start = self._id(items[1], expected_id)
            found = table.get(name)
            if found is None:
                self._fail(BindingRule.UNKNOWN_ID, f"{unknown} '{name}'", start)
            reference = ReferenceValue(kind, found[0], found[1])
        elif head == "member_ref":
            items = self._count(item, 3, 3, '(member_ref reference "field")')
            base = self._reference(items[1])
            field_name = self._string(items[2], "a field name")
            record = base.type
            if not isinstance(record, RecordType):
                self._fail(
                    ReferenceRule.MEMBER_OF_NON_RECORD,
                    f"invalid member reference base type: {_type_category(record)} storage has no fields",
                    _start(items[1]),
                )
            selected = record.field_named(field_name)
            if selected is None:
                self._fail(ReferenceRule.UNKNOWN_FIELD, f"unknown field '{field_name}' in record '{record.name}'", _start(items[2]))
            reference = MemberReferenceValue.create(base, field_name, selected.type)
        elif head == "index_ref":
            items = self._count(item, 3, 3, "(index_ref reference operand)")
            base = self._reference(items[1])
            selector = self._operand(items[2])
            array = base.type
            if not isinstance(array, ArrayType):
                self._fail(
                    ReferenceRule.INDEX_OF_NON_ARRAY,
                    f"invalid index reference base type: {_type_category(array)} storage is not an array",
                    _start(items[1]),
                )
            reference = IndexReferenceValue.create(base, selector, array.element)
        else:
            self._fail(SyntaxRule.EXPECTED_FORM, f"expected {expected}, found {_describe(item)}", item.start)
        if self.keeps_positions:
            self.placed.append(reference)
            self.starts.append(item.start)
        return reference

    # Instructions ----------------------------------------------------------------------

    def _read_copy(self, form: Form) -> Instruction:
        items = self._count(form, 3, 3, "(copy reg operand)")
        return CopyInstruction(self._register(items[1]), self._operand(items[2]))

    def _read_load(self, form: Form) -> Instruction:
        items = self._count(form, 3, 3, "(load reg reference)")
        return LoadInstruction(self._register(items[1]), self._reference(items[2]))

    def _read_store(self, form: Form) -> Instruction:
        items = self._count(form, 3, 3, "(store reference operand)")
        return StoreInstruction(self._reference(items[1]), self._operand(items[2]))

    def _binary_reader(self, operator: BinaryOperator) -> Callable[[Form], Instruction]:
        shape = f"({operator.value} reg operand operand)"

        def read_binary(form: Form) -> Instruction:
            items = self._count(form, 4, 4, shape)
            return BinaryInstruction(
                self._register(items[1]), operator, self._operand(items[2]), self._operand(items[3])
            )

        return read_binary

    def _read_construct(self, form: Form) -> Instruction:
        items = self._count(form, 2, None, "(construct reg {operand})")
        result = self._register(items[1])
        return ConstructInstruction(result, result.type, [self._operand(item) for item in items[2:]])

    def _read_call(self, form: Form) -> Instruction:
        items = self._count(form, 3, None, "(call reg|void functionId {operand})")
        destination = items[1]
        result: RegisterValue | None
        if not isinstance(destination, Form) and destination[0] == KEYWORD and destination[1] == "void":
            result = None
        else:
            result = self._register(destination)
        callee_id, callee_start = self._id(items[2], "a function id")
        callee = self.functions.get(callee_id)
        if callee is None:
            self._fail(BindingRule.UNKNOWN_ID, f"unknown function '{callee_id}' (calls name functions of the same stage)", callee_start)
        return CallInstruction(result, callee, Builtin.NONE, [self._operand(item) for item in items[3:]])

    def _read_texture(self, form: Form) -> Instruction:
        items = self._count(form, 4, 4, "(texture reg sampler coordinates)")
        return CallInstruction(
            self._register(items[1]), None, Builtin.TEXTURE, [self._operand(items[2]), self._operand(items[3])]
        )

    def _math_reader(self, builtin: Builtin) -> Callable[[Form], Instruction]:
        arity = builtin.arity
        shape = f"({builtin.value} reg{' operand' * arity})"

        def read_math(form: Form) -> Instruction:
            if "math" not in self.extensions:
                head_start = _start(form.items[0])
                if self.strict_v1:
                    self._fail(
                        SyntaxRule.STRICT_V1_EXTENSION,
                        f"unknown instruction '{builtin.value}': math extension operations are not part of"
                        " VPL version 1 (strict mode)",
                        head_start,
                    )
                # Without the declaration the operation is no instruction of VPL 1 at
                # all (spec 10.2, 11): a syntactic error, with the hint that fixes it.
                self._fail(
                    SyntaxRule.UNDECLARED_EXTENSION,
                    f"unknown instruction '{builtin.value}': it is a math extension operation: the module"
                    ' must declare (extensions "math") after its version',
                    head_start,
                )
            items = self._count(form, 2 + arity, 2 + arity, shape)
            return CallInstruction(self._register(items[1]), None, builtin, [self._operand(item) for item in items[2:]])

        return read_math

    def _read_swizzle(self, form: Form) -> Instruction:
        items = self._count(form, 4, 4, '(swizzle reg operand "pattern")')
        return SwizzleInstruction(
            self._register(items[1]), self._operand(items[2]), self._string(items[3], "a swizzle pattern")
        )

    def _read_member(self, form: Form) -> Instruction:
        items = self._count(form, 4, 4, '(member reg operand "field")')
        return MemberInstruction(
            self._register(items[1]), self._operand(items[2]), self._string(items[3], "a field name")
        )

    def _read_index(self, form: Form) -> Instruction:
        items = self._count(form, 4, 4, "(index reg operand operand)")
        return IndexInstruction(self._register(items[1]), self._operand(items[2]), self._operand(items[3]))

    # Terminators -----------------------------------------------------------------------

    def _block(self, item: Item) -> Block:
        name, start = self._id(item, "a block id")
        block = self.scope.blocks.get(name)  # type: ignore[union-attr]  # blocks are read inside a function body, where `scope` is set
        if block is None:
            self._fail(BindingRule.UNKNOWN_ID, f"unknown block '{name}'", start)
        return block

    def _read_terminator(self, head: str, form: Form) -> Terminator:
        if head == "branch":
            items = self._count(form, 2, 2, "(branch blockId)")
            return BranchTerminator(self._block(items[1]))
        if head == "branch_if":
            items = self._count(form, 4, 4, "(branch_if operand trueBlockId falseBlockId)")
            condition = self._operand(items[1])
            return ConditionalBranchTerminator(condition, self._block(items[2]), self._block(items[3]))
        if head == "return":
            items = self._count(form, 1, 2, "(return [operand])")
            return ReturnTerminator(self._operand(items[1]) if len(items) == 2 else None)
        self._count(form, 1, 1, "(discard)")
        return DiscardTerminator()


def _type_category(value_type: Type) -> str:
    if isinstance(value_type, RecordType):
        return f"record '{value_type.name}'"
    if isinstance(value_type, ArrayType):
        return "an array"
    if isinstance(value_type, VoidType):
        return "void"
    if isinstance(value_type, ScalarType):
        return f"scalar {value_type.kind.value}"
    if isinstance(value_type, VectorType):
        return f"a {value_type.kind.value} vector"
    if isinstance(value_type, MatrixType):
        return "a matrix"
    if isinstance(value_type, SamplerType):
        return "a sampler"
    return str(value_type)


def _reference_key(item: Item) -> object:
    """What a reference form spells, as a dict key: its atoms, nested as its forms nest; None if not keyable.

    Keyable: a root `(head atom)`, and `(head reference selector)` whose
    selector is an atom (a field name, a register) or a form of atoms (an
    index constant). Atoms are compared whole (kind and text).
    """
    if type(item) is not Form:
        return None
    items = item.items
    if len(items) == 2:
        head, name = items
        return (head, name) if type(head) is tuple and type(name) is tuple else None
    if len(items) != 3:
        return None
    head, base, selector = items
    if type(head) is not tuple:
        return None
    base_key = _reference_key(base)
    if base_key is None:
        return None
    if not isinstance(selector, Form):
        return (head, base_key, selector)
    selector_items = selector.items
    if all(type(atom) is tuple for atom in selector_items):
        return (head, base_key, tuple(selector_items))
    return None


class _SharingReader(_Reader):
    """A reader whose uses of one register or reference spelling in a function share one value.

    Descriptors are frozen values, interchangeable by value (the builder
    hands out one per register, the structural copy shares them); one per
    use exists only so that each use can have its own source position,
    which a read without positions does not keep. The first use of a
    spelling is bound (and checked) exactly as `_Reader` binds it. Shared
    references let the verifier and the writers spell or check a path
    once per function however often it is used (a uniform record's field,
    a parameter). Nor does it keep positions: nothing locates its objects.
    """

    def __init__(self, source: SourceText, strict_v1: bool) -> None:
        super().__init__(source, strict_v1, keeps_positions=False)

    def _mark(self, value: object, index: int) -> None:
        pass

    def _reference(self, item: Item) -> ReferenceValue:
        key = _reference_key(item)
        if key is None:
            return _Reader._reference(self, item)
        shared_references = self.scope.reference_values  # type: ignore[union-attr]  # references are read inside a function body, where `scope` is set
        shared = shared_references.get(key)
        if shared is None:
            shared = shared_references[key] = _Reader._reference(self, item)
        return shared

    def _declared(self, scope: _FunctionScope, spelling: str, register: RegisterValue) -> None:
        # Uses spelled as the declaration share its RegisterValue, as in a builder-made module.
        scope.register_spellings[spelling] = (register.index, register.type)
        scope.register_values[spelling] = register

    def _register(self, item: Item) -> RegisterValue:
        if type(item) is tuple and item[0] == NAME:
            shared = self.scope.register_values.get(item[1])  # type: ignore[union-attr]  # registers are read inside a function body, where `scope` is set
            if shared is not None:
                return shared
        register = _Reader._register(self, item)
        self.scope.register_values[item[1]] = register  # type: ignore[union-attr,index]  # inside a function body; `_register` accepted `item`, an atom
        return register

    def _operand(self, item: Item) -> Operand:
        if type(item) is tuple and item[0] == NAME:
            shared = self.scope.register_values.get(item[1])  # type: ignore[union-attr]  # operands are read inside a function body, where `scope` is set
            if shared is not None:
                return shared
        operand = _Reader._operand(self, item)
        if type(operand) is RegisterValue:
            self.scope.register_values[item[1]] = operand  # type: ignore[union-attr,index]  # a register operand is an atom
        return operand
