"""OpenAI Responses: its interpreter and record (``interpreter.py``), its event types
(``types.py``), output items and their deltas (``output.py``, ``items.py``), the final
``response`` (``final.py``) and the fast path (``fast.py``). One package per dialect
(docs/dialects.md, "Adding a dialect")."""

from .interpreter import RESPONSES

__all__ = ["RESPONSES"]
