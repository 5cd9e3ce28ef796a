"""Layer 1-2 of the verifier: structure, names, types, storage and instruction typing.

Placeholder until the structural verifier lands: checks nothing yet.
"""

from __future__ import annotations

from vpl_core.ir.module import Module


def check_module(module: Module) -> None:
    return None
