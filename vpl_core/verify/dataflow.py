"""Layer 3 of the verifier: data flow (spec 4.1 constant division, 5.2, 6.2, 6.3, recursion).

Placeholder until the data-flow verifier lands: checks nothing yet.
"""

from __future__ import annotations

from vpl_core.ir.module import Module


def check_module(module: Module) -> None:
    return None
