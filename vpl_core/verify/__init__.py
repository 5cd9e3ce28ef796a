"""The VPL verifier (spec 3.1, 4-9). It never changes the module it checks."""

from vpl_core.verify.errors import VerificationError
from vpl_core.verify.verifier import Verifier, verify

__all__ = ["VerificationError", "Verifier", "verify"]
