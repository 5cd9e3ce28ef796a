"""The verifier (spec 9): runs the layers in order; each may assume the earlier ones held.

1. `structure`: references and ownership, names, types, stages and
   interfaces, linkage, storage permissions, instruction and terminator
   typing (spec 3-8 without data flow).
2. `dataflow`: recursion, constant division, definite assignment, local
   aggregate availability, output definedness and helper summaries (spec 4.1,
   5.2, 6.2, 6.3).

A run keeps all of its scratch state in locals of the layer functions, so a
`Verifier` is reusable after a failed run and a run leaves nothing behind.
"""

from __future__ import annotations

from vpl_core.ir.module import Module
from vpl_core.verify import dataflow, structure


class Verifier:
    """Checks a module graph as it is now; raises `VerificationError` on the first problem."""

    def run(self, module: Module) -> None:
        structure.check_module(module)
        dataflow.check_module(module)


def verify(module: Module) -> None:
    Verifier().run(module)
