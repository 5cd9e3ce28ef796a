"""The canonical VPL object model (spec 3-8): plain data, no behaviour beyond local invariants.

The builder's names (`FunctionBuilder`, `StageBuilder`, ...) are exported
lazily (PEP 562): the reader, verifier and `vpl` command import this package
but never build, and importing the builder cost a fifth of `vpl check`'s
start-up.
"""

from __future__ import annotations

from vpl_core.ir.instructions import *  # noqa: F403
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
    StageKind,
    Uniform,
    UniformKind,
)
from vpl_core.ir.types import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
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
    bvec,
    ivec,
    mat,
    vec,
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
    local_ref,
)

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_BUILDER_EXPORTS = frozenset({"FunctionBuilder", "StageBuilder", "add_uniform", "element", "member", "record"})


def __getattr__(name: str) -> Any:
    if name in _BUILDER_EXPORTS:
        from vpl_core.ir import builder

        return getattr(builder, name)
    raise AttributeError(f"module 'vpl_core.ir' has no attribute {name!r}")
