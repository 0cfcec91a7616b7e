"""The Cohere v2 chat response folded from a stream's timeline (docs/dialects.md, "Cohere v2
chat"): what the non-streaming endpoint returns for the same answer.

``id`` and ``message.role`` from message-start; ``message.content`` the content parts in index
order as content-start opened them (``{"type": "text", "text": ...}``, ``{"type": "thinking",
"thinking": ...}``) with their deltas appended; ``message.tool_plan`` the tool-plan deltas
joined; ``message.tool_calls`` each call as tool-call-start opened it with its argument
fragments joined (as text, as the API sends them); ``message.citations`` as sent, in order;
``finish_reason`` and ``usage`` from message-end.
"""

from __future__ import annotations

import copy
from typing import Any

from ...events import (
    BlockStart,
    Citation,
    Event,
    Finish,
    Meta,
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
    Usage,
)
from ..appends import Appends


def assemble(events: list[Event]) -> dict[str, Any]:
    response: dict[str, Any] = {"id": None, "finish_reason": None}
    message: dict[str, Any] = {"role": "assistant"}
    parts: dict[int, dict[str, Any]] = {}
    plan: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    arguments: dict[int, list[str]] = {}
    citations: list[Any] = []
    usage: dict[str, Any] | None = None
    appends = Appends()
    append = appends.add
    for event in events:
        if isinstance(event, TextDelta):
            append(_part(parts, event.block, "text"), "text", event.text)
        elif isinstance(event, ReasoningDelta):
            if event.block is None:
                plan.append(event.text)
            else:
                append(_part(parts, event.block, "thinking"), "thinking", event.text)
        elif isinstance(event, ToolCallArgs) and event.call in arguments:
            arguments[event.call].append(event.text)
        elif isinstance(event, BlockStart):
            parts[event.block] = _opened(event.value)
        elif isinstance(event, ToolCallStart):
            calls[event.call] = _call(event)
            arguments[event.call] = []
        elif isinstance(event, Citation):
            citations.append(event.value)
        elif isinstance(event, Meta):
            response["id"] = event.fields.get("id", response["id"])
            message.update({k: v for k, v in event.fields.items() if k != "id"})
        elif isinstance(event, Finish):
            response["finish_reason"] = event.reason
        elif isinstance(event, Usage):
            usage = event.usage
    appends.close()
    for number, call in calls.items():
        call["function"]["arguments"] = "".join(arguments[number])
    message["content"] = [parts[i] for i in sorted(parts)]
    message["tool_plan"] = "".join(plan)
    message["tool_calls"] = [calls[i] for i in sorted(calls)]
    message["citations"] = citations
    response["message"] = message
    response["usage"] = usage
    return response


def _opened(value: Any) -> dict[str, Any]:
    """The part as content-start opened it, its text emptied: the deltas fill it (text the
    start carried came as a delta of its own)."""
    part = copy.deepcopy(value) if isinstance(value, dict) else {}
    for key in ("text", "thinking"):
        if key in part:
            part[key] = ""
    part.setdefault("thinking" if part.get("type") == "thinking" else "text", "")
    return part


def _part(parts: dict[int, dict[str, Any]], block: int | None, kind: str) -> dict[str, Any]:
    """The part a delta fills; one that came without content-start is opened by it (said as
    ``block_unknown``), so no text is lost."""
    index = block if block is not None else 0
    found = parts.get(index)
    if found is None:
        found = parts[index] = {"type": kind, kind: ""}
    return found


def _call(event: ToolCallStart) -> dict[str, Any]:
    return {
        "id": event.id,
        "type": event.type or "function",
        "function": {"name": event.name, "arguments": ""},
    }
