"""OpenAI chat completions: its interpreter and record (``interpreter.py``), choices and their
deltas (``chunks.py``), tool calls from their fragments (``toolcalls.py``), the assembly rules
(``assemble.py``), the one-step fast path (``fast.py``) and runs of chunks read in one loop
(``run.py``). One package per dialect (docs/dialects.md, "Adding a dialect")."""

from .interpreter import CHAT

__all__ = ["CHAT"]
