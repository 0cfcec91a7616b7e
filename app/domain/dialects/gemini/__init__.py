"""Gemini ``streamGenerateContent``: its interpreter and record (``interpreter.py``), one
candidate's parts (``candidate.py``), function calls and their arguments (``calls.py``,
``args.py``), the aggregated response (``assemble.py``) and the fast path (``fast.py``). One
package per dialect (docs/dialects.md, "Adding a dialect")."""

from .interpreter import GEMINI

__all__ = ["GEMINI"]
