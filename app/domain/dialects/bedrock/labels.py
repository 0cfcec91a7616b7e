"""What the page shows of Bedrock ConverseStream (labels.py): its content blocks' roles,
redacted reasoning's size, and citations."""

from __future__ import annotations

from ...events import BlockDelta, BlockStart, Citation, Event
from ..labels import Labels, View
from ..viewparts import plain_citation

ROLES = {"text": "text", "reasoningContent": "reasoning", "toolUse": "tool_call"}

LABELS = Labels()


def view(event: Event) -> View | None:
    if isinstance(event, BlockStart):
        role = ROLES.get(event.type)
        return {"role": role} if role else None
    if isinstance(event, BlockDelta) and event.field == "redactedContent":
        return {"as": "note", "note": "redacted", "words": "redacted reasoning"}
    if isinstance(event, Citation):
        return plain_citation(event.value)
    return None
