"""What the payloads of a stream no known dialect reads look like (docs/dialects.md,
"Detection"): said first and plainly (``unknown_dialect``), with the dialects there are and how
to read the stream as one of them. A few streaming protocols that are not LLM completion
streams are named when their payloads show them; any other is described by its ``type``
values, or its keys."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Keys only Gemini Live (the Live API's BidiGenerateContent server messages) sends.
GEMINI_LIVE = frozenset(
    {
        "setupComplete",
        "serverContent",
        "toolCall",
        "toolCallCancellation",
        "goAway",
        "sessionResumptionUpdate",
    }
)
# ``type`` values of the Vercel AI SDK's UI message stream.
VERCEL_UI = frozenset(
    {
        "start",
        "start-step",
        "text-start",
        "text-delta",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-output-available",
        "finish-step",
        "finish",
    }
)
MAX_LISTED = 6


@dataclass
class Looks:
    """What a stream's unread payloads look like, gathered one payload at a time."""

    protocol: str | None = None
    types: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)

    def see(self, value: dict[str, Any]) -> None:
        if self.protocol is None:
            self.protocol = _protocol(value)
        kind = value.get("type")
        if isinstance(kind, str) and kind not in self.types and len(self.types) < MAX_LISTED:
            self.types.append(kind)
        for key in value:
            if key not in self.keys and len(self.keys) < MAX_LISTED:
                self.keys.append(key)

    def words(self) -> str:
        """What the payloads look like, in words ("its payloads look like ...")."""
        if self.protocol is not None:
            return f"its payloads look like {self.protocol}"
        if self.types:
            return f"its payloads are of type {', '.join(self.types)}"
        if self.keys:
            return f"its payloads are objects with {', '.join(self.keys)}"
        return "its payloads are not JSON objects"


def _protocol(value: dict[str, Any]) -> str | None:
    if GEMINI_LIVE.intersection(value):
        return "Gemini Live API messages (setupComplete, serverContent), not streamGenerateContent"
    if value.get("jsonrpc") == "2.0":
        return "JSON-RPC 2.0 messages (an MCP stream), not an LLM completion stream"
    kind = value.get("type")
    if isinstance(kind, str) and kind in VERCEL_UI:
        return "a Vercel AI SDK UI message stream (text-start, text-delta, ...)"
    return None


def unread_message(looks: Looks, names: tuple[str, ...]) -> str:
    """The ``unknown_dialect`` message: what it is not, what it looks like, what can be read,
    and how."""
    return (
        f"Not read: no known dialect sends these payloads; {looks.words()}. "
        f"The dialects read here: {', '.join(names)}. To read it as one, name it "
        "(inspect --dialect NAME, or the upload form's dialect)"
    )
