"""Anthropic Messages: its interpreter and record (``interpreter.py``), the one-step fast path
(``fast.py``) and the final ``message`` as the SDK assembles it (``final.py``). One package per
dialect (docs/dialects.md, "Adding a dialect")."""

from .interpreter import ANTHROPIC

__all__ = ["ANTHROPIC"]
