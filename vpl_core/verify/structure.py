"""Layer 1 of the verifier: structure and typing (spec 3, 3.1, 4, 5, 5.1, 6, 6.1, 7, 8 without data flow).

`check_module` raises `VerificationError(kind, message, subject, context)` for the
first invalid object, in this deterministic order:

1. the module's uniforms (names, kinds, types);
2. the vertex stage, then the fragment stage; within a stage: its kind, its
   interface (`interfaces.py`; linkage with the vertex stage when checking
   the fragment stage), every function header in list order (object, name,
   return type, parameters, block list and block ownership), the entry
   selection, then every function body in list order, blocks in order,
   instructions in order, then the block's terminator (`instructions.py`).

Headers come before bodies so that a call can be checked against a callee
that appears later in the list. Types are checked where they are first met
(`well_formed_types.py`), so every type reachable from a declaration, register,
constant, reference or construction is validated, used or not.

Guarantees for the data-flow layer, which runs next: everything in the
module docstring of `instructions.py`, plus: both stages have their kinds
and a valid entry (same-stage, parameterless, void), function and block
objects belong to exactly one function/stage, every function has at least
one block, all names are nonempty strings unique in their collections, and
the interfaces satisfy spec 3.1 and 6.

The check never mutates the module and keeps no state between runs: all of
it lives in a `_ModuleChecker` made for one call. It raises nothing but
`VerificationError` for any object graph; an unexpected exception inside
the checker (a bug) is converted into a VerificationError whose message
starts with "internal verifier error", which tests treat as a failure.
"""

from __future__ import annotations

from vpl_core.ir.module import Block, Function, Module, Stage, StageKind, Uniform, UniformKind
from vpl_core.ir.type_rules import describe_type
from vpl_core.ir.types import ArrayType, MatrixType, RecordType, SamplerType, ScalarType, VectorType, VoidType
from vpl_core.ir.values import ConstantValue, ReferenceValue, RegisterValue, StorageKind
from vpl_core.verify.errors import (
    FunctionRule,
    InternalRule,
    ObjectRule,
    StageRule,
    UniformRule,
    VerificationError,
    short_repr,
)
from vpl_core.verify.instructions import (
    FunctionChecker,
    FunctionSignature,
    ModuleScope,
    StageScope,
    as_sequence,
)
from vpl_core.verify.interfaces import check_interface, check_linkage
from vpl_core.verify.well_formed_types import TypeChecker

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INTERNAL_ERROR_PREFIX = "internal verifier error"

_SCALAR_UNIFORM_TYPES = (ScalarType, VectorType, MatrixType, SamplerType)


def check_module(module: Module) -> None:
    """Checks spec 3-8 except data flow; raises VerificationError on the first invalid object."""
    try:
        _ModuleChecker(module).run()
    except VerificationError:
        raise
    except Exception as error:  # a checker bug must still surface as a semantic error
        raise VerificationError(
            InternalRule.CHECKER_FAILED, f"{INTERNAL_ERROR_PREFIX}: {type(error).__name__}: {short_repr(str(error), 200)}", module, ()
        ) from error


class _ModuleChecker:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.types = TypeChecker()
        self.function_owner: dict[int, Stage] = {}
        self.block_owner: dict[int, Function] = {}

    def run(self) -> None:
        module = self.module
        if not isinstance(module, Module):
            raise VerificationError(ObjectRule.NOT_A_MODULE, f"expected a module, got {type(module).__name__}", module, ())
        scope = ModuleScope(self._check_uniforms(module), self.types)
        vertex = self._check_stage(scope, module.vertex, StageKind.VERTEX, None)
        self._check_stage(scope, module.fragment, StageKind.FRAGMENT, vertex)

    # Uniforms (spec 3, 6) ---------------------------------------------------------------------

    def _check_uniforms(self, module: Module) -> tuple[Uniform, ...]:
        uniforms = as_sequence(module.uniforms, "module uniform list", module, ())
        names: set[str] = set()
        for uniform in uniforms:
            if not isinstance(uniform, Uniform):
                raise VerificationError(
                    ObjectRule.WRONG_CLASS, f"module uniform list holds a non-uniform object {type(uniform).__name__}", module, ()
                )
            name = uniform.name
            if not isinstance(name, str) or not name:
                raise VerificationError(UniformRule.NAME, "uniform names must be nonempty strings", uniform, ())
            if name in names:
                raise VerificationError(UniformRule.DUPLICATE_NAME, f"two uniforms are named {name!r}", uniform, ())
            names.add(name)
            if not isinstance(uniform.kind, UniformKind):
                raise VerificationError(ObjectRule.INVALID_ENUM, f"uniform {name!r} has no valid uniform kind", uniform, ())
            value_type = self.types.check_value_type(uniform.type, uniform, (), f"uniform {name!r}")
            kind = uniform.kind
            if kind is UniformKind.SCALAR and not isinstance(value_type, _SCALAR_UNIFORM_TYPES):
                raise VerificationError(
                    UniformRule.KIND_TYPE,
                    f"scalar uniform {name!r} needs a scalar, vector, matrix or sampler type, "
                    f"got {describe_type(value_type)}",
                    uniform,
                    (),
                )
            if kind is UniformKind.RECORD and not isinstance(value_type, RecordType):
                raise VerificationError(
                    UniformRule.KIND_TYPE, f"record uniform {name!r} needs a record type, got {describe_type(value_type)}", uniform, ()
                )
            if kind is UniformKind.ARRAY and not isinstance(value_type, ArrayType):
                raise VerificationError(
                    UniformRule.KIND_TYPE, f"array uniform {name!r} needs an array type, got {describe_type(value_type)}", uniform, ()
                )
        return uniforms

    # Stages (spec 3) --------------------------------------------------------------------------

    def _check_stage(
        self, scope: ModuleScope, stage: object, kind: StageKind, vertex: StageScope | None
    ) -> StageScope:
        if not isinstance(stage, Stage):
            raise VerificationError(StageRule.MISSING, f"module has no {kind.value} stage object", self.module, ())
        if stage.kind is not kind:
            got = getattr(stage.kind, "value", short_repr(stage.kind))
            raise VerificationError(StageRule.KIND, f"the module's {kind.value} stage has kind {got}", stage, ())
        variables = as_sequence(stage.interface, f"{kind.value} interface", stage, ())
        interface = check_interface(stage, kind, variables, self.types)
        if vertex is not None:
            check_linkage(vertex.stage, vertex.interface, stage, interface)

        functions = as_sequence(stage.functions, f"{kind.value} function list", stage, ())
        signatures: dict[int, FunctionSignature] = {}
        names: set[str] = set()
        for function in functions:
            signatures[id(function)] = self._check_header(stage, kind, function, signatures, names)
        stage_scope = StageScope(stage, kind, interface, signatures)
        self._check_entry(stage, kind, signatures)
        for function in functions:
            FunctionChecker(scope, stage_scope, function).check()
        return stage_scope

    def _check_header(
        self,
        stage: Stage,
        kind: StageKind,
        function: object,
        signatures: dict[int, FunctionSignature],
        names: set[str],
    ) -> FunctionSignature:
        context = (stage,)
        if not isinstance(function, Function):
            raise VerificationError(
                ObjectRule.WRONG_CLASS, f"{kind.value} function list holds a non-function object {type(function).__name__}", stage, ()
            )
        if id(function) in signatures:
            raise VerificationError(
                FunctionRule.LISTED_TWICE,
                f"function {short_repr(function.name)} appears twice in the {kind.value} stage", function, context
            )
        if id(function) in self.function_owner:
            raise VerificationError(
                FunctionRule.SHARED_BETWEEN_STAGES,
                f"function {short_repr(function.name)} is shared between the vertex and fragment stages",
                function,
                context,
            )
        self.function_owner[id(function)] = stage
        name = function.name
        if not isinstance(name, str) or not name:
            raise VerificationError(FunctionRule.NAME, "function names must be nonempty strings", function, context)
        if name in names:
            raise VerificationError(
                FunctionRule.DUPLICATE_NAME, f"the {kind.value} stage has two functions named {name!r}", function, context
            )
        names.add(name)
        return_type = self.types.check_type(function.return_type, function, context, f"return type of {name!r}")
        function_context = (stage, function)
        parameters = as_sequence(function.parameters, f"parameter list of {name!r}", function, context)
        for slot, parameter in enumerate(parameters):
            self._check_parameter(function, slot, parameter, function_context)
        blocks = as_sequence(function.blocks, f"block list of {name!r}", function, context)
        if not blocks:
            raise VerificationError(FunctionRule.NO_BLOCKS, f"function {name!r} has no blocks", function, context)
        for block in blocks:
            if not isinstance(block, Block):
                raise VerificationError(
                    ObjectRule.WRONG_CLASS, f"function {name!r} holds a non-block object {type(block).__name__}", function, context
                )
            owner = self.block_owner.get(id(block))
            if owner is function:
                raise VerificationError(
                    FunctionRule.BLOCK_LISTED_TWICE, f"block appears twice in function {name!r}", block, function_context
                )
            if owner is not None:
                raise VerificationError(
                    FunctionRule.BLOCK_SHARED,
                    f"block of function {name!r} also belongs to function {short_repr(owner.name)}",
                    block,
                    function_context,
                )
            self.block_owner[id(block)] = function
        return FunctionSignature(parameters, return_type, blocks)

    def _check_parameter(self, function: Function, slot: int, parameter: object, context: tuple[Any, ...]) -> None:
        label = f"parameter {slot} of {function.name!r}"
        if type(parameter) is not ReferenceValue:
            subject = parameter if isinstance(parameter, (ReferenceValue, RegisterValue, ConstantValue)) else function
            outer = context if subject is parameter else context[:-1]
            raise VerificationError(FunctionRule.PARAMETER_NOT_ROOT, f"{label} must be a root parameter reference", subject, outer)
        if parameter.storage_kind is not StorageKind.PARAMETER:
            got = getattr(parameter.storage_kind, "value", short_repr(parameter.storage_kind))
            raise VerificationError(
                FunctionRule.PARAMETER_STORAGE_KIND, f"{label} must have storage kind parameter, got {got}", parameter, context
            )
        if type(parameter.slot) is not int or parameter.slot != slot:
            raise VerificationError(
                FunctionRule.PARAMETER_SLOT, f"{label} must use slot {slot}, got {short_repr(parameter.slot)}", parameter, context
            )
        self.types.check_value_type(parameter.type, parameter, context, label)

    def _check_entry(self, stage: Stage, kind: StageKind, signatures: dict[int, FunctionSignature]) -> None:
        entry = stage.entry
        if entry is None:
            raise VerificationError(StageRule.NO_ENTRY, f"the {kind.value} stage has no entry function", stage, ())
        signature = signatures.get(id(entry)) if isinstance(entry, Function) else None
        if signature is None:
            raise VerificationError(
                StageRule.ENTRY_NOT_IN_STAGE, f"the {kind.value} entry function is not a function of the {kind.value} stage", stage, ()
            )
        if signature.parameters:
            raise VerificationError(
                StageRule.ENTRY_HAS_PARAMETERS, f"entry function {entry.name!r} must not have parameters", entry, (stage,)
            )
        if not isinstance(signature.return_type, VoidType):
            raise VerificationError(
                StageRule.ENTRY_NOT_VOID,
                f"entry function {entry.name!r} must return void, not {describe_type(signature.return_type)}",
                entry,
                (stage,),
            )
