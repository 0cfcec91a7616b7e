"""The final Anthropic message (anthropic.py): what the official SDK's accumulator builds from
the events of a stream, with the two corrections docs/dialects.md gives (MCP tool input and
compaction summaries accumulated, as the SDK's beta accumulator does)."""

from __future__ import annotations

import contextlib
from typing import Any

import orjson

from ...events import (
    BlockDelta,
    BlockStart,
    Citation,
    Event,
    Extra,
    Finish,
    Meta,
    ReasoningDelta,
    Signature,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
    Usage,
)
from ..appends import Appends


def assemble(events: list[Event]) -> dict[str, Any]:
    """The ``message`` as the SDK accumulates it: message_start's message, blocks in index
    order with their text, thinking, signature, citations and parsed tool input, the last
    stop reason, and usage overwritten by message_delta's cumulative counts."""
    message: dict[str, Any] = {"type": "message", "role": "assistant", "content": []}
    blocks: dict[int, dict[str, Any]] = {}
    inputs: dict[int, list[str]] = {}
    calls: dict[int, int] = {}  # call number -> block
    usage: dict[str, Any] = {}
    appends = Appends()
    append = appends.add
    for event in events:
        if isinstance(event, TextDelta):  # the commonest first (each branch is one kind)
            if event.block in blocks:
                append(blocks[event.block], "text", event.text)
        elif isinstance(event, Meta):
            message.update(event.fields)
        elif isinstance(event, BlockStart):
            blocks[event.block] = dict(event.value) if isinstance(event.value, dict) else {}
            _fallback(message, blocks[event.block])
        elif isinstance(event, ToolCallStart) and event.index is not None:
            calls[event.call] = event.index
        elif isinstance(event, ReasoningDelta) and event.block in blocks:
            append(blocks[event.block], "thinking", event.text)
        elif isinstance(event, BlockDelta) and event.block in blocks:
            append(blocks[event.block], event.field, event.text)
        elif isinstance(event, ToolCallArgs) and event.call in calls:
            inputs.setdefault(calls[event.call], []).append(event.text)
        elif isinstance(event, Signature) and event.block in blocks:
            blocks[event.block]["signature"] = event.signature
        elif isinstance(event, Citation) and event.block in blocks:
            target = blocks[event.block]
            target["citations"] = [*(target.get("citations") or []), event.value]
        elif isinstance(event, Finish):
            message["stop_reason"] = event.reason
        elif isinstance(event, Extra) and event.scope == "chunk":
            message.update(event.fields)
        elif isinstance(event, Usage):
            usage = _merge_usage(usage, event)
    appends.close()
    for index, parts in inputs.items():
        text = "".join(parts)
        # Input that is not JSON stays as the block opened it; its tool_end says where it breaks.
        with contextlib.suppress(orjson.JSONDecodeError):
            if text:
                blocks[index]["input"] = orjson.loads(text)
    message["content"] = [blocks[i] for i in sorted(blocks)]
    message.setdefault("stop_reason", None)
    message.setdefault("stop_sequence", None)
    message["usage"] = usage or None
    return message


def _fallback(message: dict[str, Any], block: dict[str, Any]) -> None:
    """A ``fallback`` block names the model that serves what follows (``to.model``): the
    message's ``model`` becomes it, as the SDK's beta accumulator relabels it (the standard
    one keeps the requested model; docs/dialects.md)."""
    if block.get("type") == "fallback":
        to = block.get("to")
        if isinstance(to, dict) and isinstance(to.get("model"), str):
            message["model"] = to["model"]


def _merge_usage(usage: dict[str, Any], event: Usage) -> dict[str, Any]:
    """message_start's usage, then message_delta's cumulative counts overwrite it; a count a
    delta leaves out (or sends as null) keeps its earlier value."""
    if event.source == "message_start" or not usage:
        return dict(event.usage)
    merged = dict(usage)
    merged.update({k: v for k, v in event.usage.items() if v is not None})
    return merged
