"""The verifier's error and its rule kinds: one enum per verifier area.

`VerificationError(kind, message, subject, context)` is a semantic error
naming the first invalid object. `kind` is the rule it violates, a member of
one of the families below (each member carries its spec section);
`subject` is the offending IR object itself (an instruction, terminator,
block, function, stage, uniform, interface variable, record type, field, or
an operand/reference object taken from the IR). `context` lists the
enclosing objects from outermost to innermost (stage, function, block,
instruction) so that a reader can place the diagnostic at the nearest
object it has a source position for. Callers and tests compare `kind`,
`subject` and `context`; the message is for people.

Families follow the verifier's areas: `ObjectRule` for object graphs that
no producer should make (wrong classes, missing fields: spec 9 lets
constructors leave invariants to the verifier), then the language rules of
spec 3 (`StageRule`, `FunctionRule`, `UniformRule`), 4 (`TypeRule`), 3.1
and 6 (`InterfaceRule`), 5 and 5.1 (`ValueRule`), 6 and 6.1
(`ReferenceRule`), 7 (`InstructionRule`), 8 (`TerminatorRule`), the data
flow of 4.1, 5.2, 6.2 and 6.3 (`DataFlowRule`), and `InternalRule` for a
bug in the verifier itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from vpl_core.diagnostics import Category, Diagnostic, DiagnosticKind, SemanticError


class VerifierRule(DiagnosticKind):
    """Base of the verifier's rule families (all semantic, spec 9)."""

    @property
    def category(self) -> Category:
        return Category.SEMANTIC


class ObjectRule(VerifierRule):
    """Object graphs outside the model: what typed constructors would have prevented."""

    NOT_A_MODULE = "9", "the verifier checks a module object"
    NOT_A_LIST = "9", "list fields hold lists"
    WRONG_CLASS = "9", "every field holds an object of its declared class"
    UNKNOWN_CLASS = "9", "instructions, terminators, references and types are of the model's own classes"
    INVALID_ENUM = "9", "kind, direction, semantic, operator and selector fields hold members of their enums"
    MISSING = "9", "required fields are set"


class UniformRule(VerifierRule):
    NAME = "3", "uniform names are nonempty strings"
    DUPLICATE_NAME = "3", "uniform names are unique in the module"
    KIND_TYPE = "6", "scalar uniforms hold scalar, vector, matrix or sampler types; record and array uniforms records and arrays"


class StageRule(VerifierRule):
    MISSING = "3", "a module has a vertex and a fragment stage"
    KIND = "3", "each stage object has its designated stage kind"
    NO_ENTRY = "3", "each stage selects an entry function"
    ENTRY_NOT_IN_STAGE = "3", "the entry is a function of its own stage"
    ENTRY_HAS_PARAMETERS = "3", "the entry function has no parameters"
    ENTRY_NOT_VOID = "3", "the entry function returns void"


class FunctionRule(VerifierRule):
    LISTED_TWICE = "3", "a function appears once in its stage's list"
    SHARED_BETWEEN_STAGES = "3", "function objects are not shared between stages"
    NAME = "3", "function names are nonempty strings"
    DUPLICATE_NAME = "3", "function names are unique within a stage"
    NO_BLOCKS = "3", "a function has at least one block"
    BLOCK_LISTED_TWICE = "3", "a block appears once in its function's list"
    BLOCK_SHARED = "3", "a block belongs to exactly one function"
    PARAMETER_NOT_ROOT = "6.1", "parameters are root parameter references"
    PARAMETER_STORAGE_KIND = "6", "parameters use the parameter namespace"
    PARAMETER_SLOT = "6", "parameter slots are their list positions"


class TypeRule(VerifierRule):
    NOT_A_TYPE = "4", "type fields hold types of the model's classes"
    VOID_VALUE = "4", "void is no register, parameter, uniform, interface, field or element type"
    RECURSIVE = "4", "value types do not contain themselves"
    ELEMENT_KIND = "4", "scalars and vectors have a bool, int or float element kind"
    VECTOR_SIZE = "4", "vectors have 2, 3 or 4 components"
    MATRIX_SHAPE = "4", "matrices have 2 to 4 rows and 2 to 4 columns"
    SAMPLER_KIND = "4", "the only sampler kind is sampler2D"
    ARRAY_COUNT = "4", "array counts are positive"
    RECORD_NAME = "3", "record display names are nonempty strings"
    RECORD_FIELDS = "4", "a record holds a list of fields"
    FIELD_NAME = "3", "field names are nonempty strings"
    DUPLICATE_FIELD = "3", "field names are unique within their record"


class InterfaceRule(VerifierRule):
    NAME = "3", "interface names are nonempty strings"
    DUPLICATE_NAME = "3", "interface names are unique across both directions of a stage"
    LOCATION = "6", "a location is -1 (unspecified) or nonnegative"
    DUPLICATE_LOCATION = "6", "explicit locations do not repeat within one direction"
    DUPLICATE_SEMANTIC = "6", "semantics other than none do not repeat within one direction"
    POSITION_PLACEMENT = "3.1", "position is a vertex output or a fragment input"
    POSITION_TYPE = "3.1", "position is a float vec4"
    POSITION_LOCATION = "3.1", "position has location -1"
    FRAGMENT_COLOR_PLACEMENT = "3.1", "fragment_color is a fragment output"
    FRAGMENT_COLOR_TYPE = "3.1", "fragment_color is a float vec4"
    NO_POSITION = "6.3", "the vertex stage declares its position output"
    NO_FRAGMENT_COLOR = "6.3", "the fragment stage declares its fragment_color output"
    UNLINKED_INPUT = "3.1", "every ordinary fragment input links to a vertex output"
    AMBIGUOUS_LINK = "3.1", "a fragment input links to exactly one vertex output"
    LINK_TYPE = "3.1", "linked variables have equal types"
    LINK_TAG = "3.1", "color and texcoord tags agree across linkage"


class ValueRule(VerifierRule):
    DECLARATION_NOT_IN_PREFIX = "5.1", "register declarations form a prefix of the entry block"
    NOT_A_REGISTER = "5", "destinations and declarations name registers"
    REGISTER_INDEX = "5", "register indices are nonnegative integers"
    UNDECLARED_REGISTER = "5.1", "every register used is declared"
    DECLARED_TWICE = "5.1", "a register is declared once"
    REGISTER_TYPE = "5.1", "every use of a register has its declared type"
    CONSTANT_TYPE = "5", "constants are scalars"
    CONSTANT_VALUE = "4", "constants hold a bool, a signed 32-bit integer or a finite binary32 value of their type"
    REFERENCE_OPERAND = "5", "a storage reference is no computation operand (it is loaded first)"
    NOT_AN_OPERAND = "5", "computation operands are registers or scalar constants"
    INDEX_TYPE = "6.1, 7.4", "indices are int scalars"
    CONSTANT_INDEX_BOUNDS = "6.1, 7.4", "constant indices are within the array's count"


class ReferenceRule(VerifierRule):
    NOT_A_REFERENCE = "6", "loads and stores go through storage references"
    CYCLIC_PATH = "6.1", "reference paths are acyclic"
    NO_BASE = "6.1", "a derived reference has a base reference"
    ROOT_STORAGE_KIND = "6", "a root reference has a root namespace (local, parameter, uniform, stage)"
    SLOT = "6", "a root slot is a nonnegative integer"
    UNDECLARED_LOCAL = "6", "a local reference names a declared register"
    SLOT_OUT_OF_RANGE = "6", "a parameter, uniform or stage slot exists"
    ROOT_TYPE = "6", "a reference has the type of its slot"
    DERIVED_STORAGE_KIND = "6.1", "member and index references have kinds member and index"
    DERIVED_SLOT = "6.1", "derived references have slot 0"
    MEMBER_FIELD_NAME = "6.1", "a member reference names a field"
    MEMBER_OF_NON_RECORD = "6.1", "a member reference selects from record storage"
    UNKNOWN_FIELD = "6.1", "a member reference names an existing field"
    INDEX_OF_NON_ARRAY = "6.1", "an index reference selects from array storage"
    DERIVED_TYPE = "6.1", "a derived reference has the type it selects"
    READ_ONLY = "6.1", "uniforms and stage inputs are read-only, with every path into them"


class InstructionRule(VerifierRule):
    NO_RESULT = "7", "result-producing operations have a destination register"
    RESULT_TYPE = "7", "the destination register has exactly the operation's result type"
    STORE_TYPE = "7", "a store writes exactly the stored type"
    BINARY_OPERANDS = "7.1", "binary operand types are a row of the operand table"
    CONSTRUCT_OPERANDS = "7.2", "construction operands fit the constructed type"
    BUILTIN_WITH_CALLEE = "7.3", "a built-in call names no callee function"
    BUILTIN_STAGE = "7.3.1", "a built-in is used in a stage it is available in"
    BUILTIN_ARITY = "7.3", "a built-in call has the built-in's operand count"
    BUILTIN_ARGUMENTS = "7.3", "built-in argument types match one of its signatures"
    NO_CALLEE = "7.3", "a function call names its callee"
    CALLEE_OTHER_STAGE = "7.3", "calls name functions of the calling stage"
    CALL_ARITY = "7.3", "a call passes one argument per parameter"
    CALL_ARGUMENT_TYPE = "7.3", "arguments have exactly their parameters' types"
    VOID_CALL_RESULT = "7.3", "a void call has no destination register"
    SWIZZLE = "7.4", "swizzles select 1 to 4 of x, y, z, w valid for a vector source"
    MEMBER_OF_NON_RECORD = "7.4", "a member operation extracts from a record value"
    MEMBER_FIELD_NAME = "7.4", "a member operation names a field"
    UNKNOWN_FIELD = "7.4", "a member operation names an existing field"
    INDEX_OF_NON_ARRAY = "7.4", "an index operation extracts from an array value"


class TerminatorRule(VerifierRule):
    MISSING = "3", "every block has a terminator"
    TARGET_NOT_BLOCK = "8", "branch targets are blocks"
    TARGET_OTHER_FUNCTION = "8", "branches target blocks of the same function"
    CONDITION_TYPE = "8", "a conditional branch tests a bool scalar"
    VOID_RETURN_VALUE = "8", "a void function returns no value"
    MISSING_RETURN_VALUE = "8", "a non-void function returns a value"
    RETURN_TYPE = "8", "a return value has exactly the function's return type"
    DISCARD_OUTSIDE_FRAGMENT = "8", "discard is fragment-only"


class DataFlowRule(VerifierRule):
    CONSTANT_DIVISION_BY_ZERO = "4.1", "no integer division by the constant 0"
    CONSTANT_DIVISION_OVERFLOW = "4.1", "no division of the constant minimum integer by the constant -1"
    UNASSIGNED_REGISTER = "5.2", "a register read is preceded by assignment on every path"
    UNASSIGNED_LOCAL_LOAD = "5.2", "a whole-local load is preceded by assignment on every path"
    PARTIAL_LOCAL_LOAD = "6.2", "a local aggregate is wholly assigned before a derived load"
    PARTIAL_LOCAL_STORE = "6.2", "a local aggregate is wholly assigned before a partial store"
    UNASSIGNED_OUTPUT_READ = "6.3", "an output read is preceded by its assignment on every path"
    CALL_READS_UNASSIGNED_OUTPUT = "6.3", "a call's output prerequisites are assigned before it"
    OUTPUT_UNASSIGNED_AT_RETURN = "6.3", "every output is fully assigned at each normal entry return"
    RECURSION = "6.3", "no direct or indirect recursion"
    OUTPUT_LEAF_LIMIT = "impl", "a stage's output access paths distinguish at most the verifier's bound of leaf classes"


class InternalRule(VerifierRule):
    CHECKER_FAILED = "9", "the verifier itself failed (a bug, reported instead of crashing)"


class VerificationError(SemanticError):
    """A verifier diagnostic without a source position (the reader adds one)."""

    def __init__(self, kind: VerifierRule, message: str, subject: object = None, context: Sequence[object] = ()) -> None:
        super().__init__(Diagnostic(Category.SEMANTIC, message, subject=subject, kind=kind, context=tuple(context)))


def short_repr(value: object, limit: int = 40) -> str:
    """repr() for messages, bounded (a forged value may be huge or may fail to print)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - repr of a forged object may raise anything
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
