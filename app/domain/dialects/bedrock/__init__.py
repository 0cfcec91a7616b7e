"""AWS Bedrock ConverseStream: its interpreter and record (``interpreter.py``), how its event-
stream events are recognised (``shapes.py``), the fast path (``fast.py``) and the final output
(``final.py``). One package per dialect (docs/dialects.md, "Adding a dialect")."""

from .interpreter import BEDROCK

__all__ = ["BEDROCK"]
