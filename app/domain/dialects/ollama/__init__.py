"""Ollama's native NDJSON (``/api/chat``, ``/api/generate``): its interpreter and record
(``interpreter.py``), the final message and counts (``assemble.py``) and the fast path
(``fast.py``). One package per dialect (docs/dialects.md, "Adding a dialect")."""

from .interpreter import OLLAMA

__all__ = ["OLLAMA"]
