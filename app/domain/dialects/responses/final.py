"""The final ``response`` of an OpenAI Responses stream (docs/dialects.md, "OpenAI Responses").

When the stream ends with ``response.completed`` / ``incomplete`` / ``failed``, the final object
is that snapshot as sent, which is what the SDK's ``get_final_response()`` returns for a
completed one; a snapshot without ``output`` gets the items as they were done, as the SDK fills
it. When no final snapshot came (a truncated stream, or a resumed one cut short), the response
is rebuilt from the timeline: the last snapshot (or a bare response), each item as
``output_item.done`` closed it or, still open, as it was added plus its deltas, and the last
usage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    Citation,
    Event,
    Finish,
    Logprobs,
    ReasoningDelta,
    RefusalDelta,
    Snapshot,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
    Usage,
)
from ..appends import Appends
from .types import ITEM_TEXT, TOOL_ITEMS

PARAGRAPH = "\n\n"  # between the reasoning parts of a stream (a ReasoningDelta, part "break")
# Where each kind of text goes in an item: the list of parts, the part's type and text field.
_REASONING_PARTS = {
    "summary_text": ("summary", "summary_text"),
    "reasoning_text": ("content", "reasoning_text"),
}
_IMPLIED: dict[str, dict[str, Any]] = {
    "message": {"type": "message", "role": "assistant", "status": "in_progress", "content": []},
    "reasoning": {"type": "reasoning", "summary": []},
}


class _Output:
    """The output items as the timeline builds them, by output index."""

    def __init__(self) -> None:
        self.items: dict[int, dict[str, Any]] = {}
        self.done: dict[int, Any] = {}
        self.calls: dict[int, int] = {}  # call number -> output index
        self.text_block: int | None = None  # the message the last text went to
        self.fresh: set[tuple[int, str]] = set()  # a new reasoning part starts here
        self.appends = Appends()  # text fields, joined at the end (appends.py)

    def item(self, block: int, kind: str) -> dict[str, Any]:
        found = self.items.get(block)
        if found is None:
            found = self.items[block] = orjson.loads(
                orjson.dumps(_IMPLIED.get(kind, {"type": kind}))
            )
        return found

    def part(self, block: int, kind: str, key: str, part_type: str, text_key: str) -> dict:
        item = self.item(block, kind)
        parts = item.get(key)
        if not isinstance(parts, list):
            parts = item[key] = []
        last = parts[-1] if parts else None
        if (
            isinstance(last, dict)
            and last.get("type") == part_type
            and (block, key) not in self.fresh
        ):
            return last
        self.fresh.discard((block, key))
        new: dict[str, Any] = {"type": part_type, text_key: ""}
        if part_type == "output_text":
            new["annotations"] = []
        parts.append(new)
        return new

    def text_part(self) -> dict[str, Any]:
        block = self.text_block if self.text_block is not None else max(self.items, default=0)
        return self.part(block, "message", "content", "output_text", "text")

    def list(self) -> list[Any]:
        return [self.done.get(i, self.items.get(i)) for i in sorted(self.items.keys() | self.done)]


def _block_start(out: _Output, event: BlockStart) -> None:
    item = orjson.loads(orjson.dumps(event.value)) if isinstance(event.value, dict) else {}
    # The interpreter re-sends text and arguments an item opens with as deltas.
    if event.type == "message":
        item["content"] = []
    if isinstance(item.get("arguments"), str):
        item["arguments"] = ""
    out.items[event.block] = item


def _listed(target: dict[str, Any], key: str) -> list[Any]:
    found = target.get(key)
    if not isinstance(found, list):
        found = target[key] = []
    return found


def _text(out: _Output, event: TextDelta) -> None:
    out.text_block = event.block
    out.appends.add(out.text_part(), "text", event.text)


def _refusal(out: _Output, event: RefusalDelta) -> None:
    block = out.text_block if out.text_block is not None else max(out.items, default=0)
    out.text_block = block
    out.appends.add(
        out.part(block, "message", "content", "refusal", "refusal"), "refusal", event.text
    )


def _reasoning(out: _Output, event: ReasoningDelta) -> None:
    key, part_type = _REASONING_PARTS.get(event.field, _REASONING_PARTS["reasoning_text"])
    block = event.block or 0
    if event.part == "break":
        out.fresh.add((block, key))
        return
    out.appends.add(out.part(block, "reasoning", key, part_type, "text"), "text", event.text)


def _logprobs(out: _Output, event: Logprobs) -> None:
    _listed(out.text_part(), "logprobs").extend(event.entry_list())


def _citation(out: _Output, event: Citation) -> None:
    out.text_block = event.block
    _listed(out.text_part(), "annotations").append(event.value)


def _tool_start(out: _Output, event: ToolCallStart) -> None:
    block = event.index if event.index is not None else max(out.items, default=0)
    out.calls[event.call] = block
    item = out.item(block, event.type or "function_call")
    item.setdefault("arguments", "")
    for key, value in (
        (TOOL_ITEMS.get(event.type or "", "call_id"), event.id),
        ("name", event.name),
    ):
        if value is not None:
            item[key] = value


def _tool_args(out: _Output, event: ToolCallArgs) -> None:
    item = out.item(out.calls.get(event.call, 0), "function_call")
    out.appends.add(item, "arguments", event.text)


def _block_delta(out: _Output, event: BlockDelta) -> None:
    if event.field not in ITEM_TEXT:  # shown on its card; its done item holds it
        return
    item = out.item(event.block, "message")
    out.appends.add(item, event.field, event.text)


def _block_stop(out: _Output, event: BlockStop) -> None:
    if isinstance(event.value, dict):
        out.done[event.block] = event.value


_FOLD: dict[type, Callable[[_Output, Any], None]] = {
    BlockStart: _block_start,
    TextDelta: _text,
    RefusalDelta: _refusal,
    ReasoningDelta: _reasoning,
    Logprobs: _logprobs,
    Citation: _citation,
    ToolCallStart: _tool_start,
    ToolCallArgs: _tool_args,
    BlockDelta: _block_delta,
    BlockStop: _block_stop,
}


def assemble(events: list[Event]) -> dict[str, Any]:
    out = _Output()
    last: Snapshot | None = None
    final: Snapshot | None = None
    usage: dict[str, Any] | None = None
    for event in events:
        fold = _FOLD.get(type(event))
        if fold is not None:
            fold(out, event)
        elif isinstance(event, Snapshot):
            last, final = event, None
        elif isinstance(event, Finish):
            final = last
        elif isinstance(event, Usage):
            usage = event.usage
    out.appends.close()
    if final is not None and isinstance(final.value, dict):
        response = dict(final.value)
        if response.get("output") is None:
            response["output"] = out.list()
        return response
    response = dict(last.value) if last is not None and isinstance(last.value, dict) else {}
    response.setdefault("id", None)
    response.setdefault("object", "response")
    response.setdefault("status", None)
    response["output"] = out.list()
    if usage is not None or "usage" not in response:
        response["usage"] = usage
    return response
