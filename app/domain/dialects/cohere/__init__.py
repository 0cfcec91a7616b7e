"""Cohere v2 chat: its interpreter and record (``interpreter.py``), the fast path (``fast.py``) and
the final message (``final.py``). One package per dialect (docs/dialects.md, "Adding a
dialect")."""

from .interpreter import COHERE

__all__ = ["COHERE"]
