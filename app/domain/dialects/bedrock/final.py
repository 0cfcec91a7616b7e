"""The ConverseStream result folded from a stream's timeline (docs/dialects.md, "AWS Bedrock
ConverseStream"). boto3 has no stream accumulator; this is the fold the expected results of
the test captures use (tests/captures/dialects/expected/README.md).

``role`` from messageStart; ``content`` one entry per block in index order: ``index``,
``text``, ``reasoning`` (reasoning text joined), ``signature`` (the reasoning signature, the
last one sent), ``tool`` (``{id, name, arguments}``, the input fragments joined as sent, or
null) and, only when sent, ``redactedContent`` (joined as sent); ``stopReason`` from
messageStop (with any other fields it carries, e.g. ``additionalModelResponseFields``);
``usage``, ``metrics`` and ``trace`` from metadata.
"""

from __future__ import annotations

from typing import Any

from ...events import (
    BlockDelta,
    BlockStart,
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
    result: dict[str, Any] = {"role": None, "content": [], "stopReason": None}
    result.update(usage=None, metrics=None, trace=None)
    blocks: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[str, Any]] = {}  # call number -> its block's tool
    appends = Appends()
    append = appends.add
    for event in events:
        if isinstance(event, TextDelta) and event.block in blocks:
            append(blocks[event.block], "text", event.text)
        elif isinstance(event, ToolCallArgs) and event.call in calls:
            append(calls[event.call], "arguments", event.text)
        elif isinstance(event, ReasoningDelta) and event.block in blocks:
            append(blocks[event.block], "reasoning", event.text)
        elif isinstance(event, BlockStart):
            blocks[event.block] = _block(event.block)
        elif isinstance(event, ToolCallStart) and event.index in blocks:
            tool = {"id": event.id, "name": event.name, "arguments": ""}
            calls[event.call] = blocks[event.index]["tool"] = tool
        elif isinstance(event, Signature) and event.block in blocks:
            blocks[event.block]["signature"] = event.signature
        elif isinstance(event, BlockDelta) and event.block in blocks:
            append(blocks[event.block], event.field, event.text)
        elif isinstance(event, Meta):
            result.update(event.fields)
        elif isinstance(event, Finish):
            result["stopReason"] = event.reason
        elif isinstance(event, Usage):
            result["usage"] = event.usage
        elif isinstance(event, Extra) and event.scope == "chunk":
            result.update(event.fields)
    appends.close()
    result["content"] = [blocks[i] for i in sorted(blocks)]
    return result


def _block(index: int) -> dict[str, Any]:
    return {"index": index, "text": "", "reasoning": "", "signature": None, "tool": None}
