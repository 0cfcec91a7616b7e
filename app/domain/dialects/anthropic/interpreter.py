"""Anthropic Messages streams (docs/dialects.md, "Anthropic Messages").

SSE events whose ``type`` repeats the event name: ``message_start`` (the message, its
content usually empty, and its first usage), ``content_block_start`` / ``_delta`` / ``_stop`` by block
``index`` (text, thinking with its signature, redacted thinking, tool use, server tool use and
its result blocks, MCP tool use, compaction), ``message_delta`` (stop reason and CUMULATIVE
usage), ``message_stop``, ``ping`` anywhere, and ``error`` mid-stream (``overloaded_error``).
Tool input arrives as ``partial_json`` text fragments (an empty fragment is real); it is
checked as JSON when its block stops.

The final object (``app/domain/dialects/anthropic/final.py``) is the ``message`` the official SDK's accumulator
builds, with two corrections where that accumulator is wrong (docs/dialects.md): MCP tool
input and compaction summaries are accumulated, as the SDK's beta accumulator does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import orjson

from ...events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    Citation,
    Done,
    Extra,
    Finish,
    Meta,
    Payload,
    RawEvent,
    ReasoningDelta,
    RefusalDelta,
    Signature,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
    Usage,
)
from ...interpret import PayloadInterpreter
from ...shapes import as_object
from ...stream import Stream
from ..base import NAMED, Dialect, Sniffed, UsageFields
from . import labels
from .fast import FAST
from .final import assemble

NAME = "anthropic-messages"
TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
)
TOOL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
MESSAGE_DELTA_EXTRAS = ("stop_sequence", "stop_details", "container")
MESSAGE_DELTA_READ = frozenset({"type", "delta", "usage"})


@dataclass
class _Block:
    index: int
    type: str
    call: int | None = None
    call_id: str | None = None
    name: str | None = None
    parts: list[str] = field(default_factory=list)
    stopped: bool = False
    opened: str = ""  # a tool's input as the block opened it, JSON text (``""`` for none or {})
    start: RawEvent | None = None  # where it opened (for the block-not-stopped rule)


class AnthropicInterpreter(PayloadInterpreter):
    """``blocks`` (the content blocks by index) is read by the fast path too."""

    dialect = NAME
    fast = FAST  # app/domain/dialects/anthropic/fast.py

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self.blocks: dict[int, _Block] = {}
        self._calls = 0
        self._started = False
        self._id: Any = None  # the open message's id
        self._cut = False  # a new message began before this one stopped

    def value(self, raw: RawEvent, value: Any) -> None:
        if not isinstance(value, dict):
            self.other(raw, value)
            return
        kind = value.get("type")
        if kind == "error" or raw.event == "error":
            error = value.get("error", value)
            self.error(raw, error, code=error.get("type") if isinstance(error, dict) else None)
            return
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, raw, value)
        elif kind == "ping":
            self.add(
                Payload(category="ping", summary="keep-alive ping event", value=self.kept(value)),
                raw,
            )
        else:
            self.other(raw, value)

    def close(self) -> None:
        for index, block in sorted(self.blocks.items()):
            if not block.stopped:
                self._end_tool(None, block)
                self.sight(block.start, "block_not_stopped", f"block {index} never stopped")
        if (self._cut or not self.done) and not self.errored and self._started:
            self.sight(None, "final_missing", "message_stop")

    # ------------------------------------------------------------------ events
    def _message_start(self, raw: RawEvent, value: dict[str, Any]) -> None:
        message = value.get("message")
        if not isinstance(message, dict):
            self.note(raw, "message_not_object", "error", "message_start without a message")
            return
        if self._started and not self.done and self._spliced(raw, value, message.get("id")):
            return
        self._started, self._id = True, message.get("id")
        fields = {k: v for k, v in message.items() if k not in ("content", "usage")}
        self.add(Meta(fields=fields), raw)
        if isinstance(message.get("usage"), dict):
            self.add(Usage(usage=message["usage"], source="message_start"), raw)
        self._whole_blocks(raw, message.get("content"))
        if message.get("stop_reason") is not None:
            self.add(Finish(choice=0, reason=str(message["stop_reason"])), raw)

    def _spliced(self, raw: RawEvent, value: dict[str, Any], new_id: Any) -> bool:
        """A ``message_start`` inside an open message (two responses spliced): where streams
        may be split, the open message ends here and this one is read as the next stream's
        (True); in a single response it is read on in this one, its blocks ended first. It is
        sighted for the message-spliced rule (app/domain/rules/anthropic), in the stream of
        the message that never stopped (split: at its end, the next stream says where it
        began, ``new_stream_after_done``)."""
        message = (
            f"message {new_id!r} starts inside message {self._id!r}, which never stopped "
            f"(line {raw.line}): message {self._id!r} was spliced"
        )
        if self.may_split:
            # Seen at the cut message's last event: this one leaves the stream (hand_back).
            kept = self.stream.raw
            last = kept[-2] if len(kept) > 1 and kept[-1] is raw else None
            self.sight(last, "spliced_message", message + "; read as a new stream")
            self.hand_back(f"message {self._id!r}, spliced")
            self._cut = True
            return True
        self.sight(raw, "spliced_message", message + "; read on in this stream")
        for index, block in sorted(self.blocks.items()):
            if not block.stopped:
                self._block_stop(raw, {"index": index})
        self.blocks.clear()
        return False

    def _whole_blocks(self, raw: RawEvent, content: Any) -> None:
        """Blocks the message starts with (programmatic tool calling sends a ``tool_use``
        inside ``message_start``): each opened and stopped at once, at the indices from 0, as
        the SDK keeps them in its snapshot."""
        for index, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict):
                self.note(raw, "block_shape", "error", f"message_start block {index} not an object")
                continue
            self._open(raw, index, block)
            self._block_stop(raw, {"index": index})

    def _block_start(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index, block = value.get("index"), value.get("content_block")
        if not _is_index(index) or not isinstance(block, dict):
            self.note(raw, "block_shape", "error", "content_block_start without index and block")
            return
        self._open(raw, index, block)

    def _open(self, raw: RawEvent, index: int, block: dict[str, Any]) -> None:
        kind = str(block.get("type"))
        state = self.blocks[index] = _Block(index, kind, start=raw)
        self.add(BlockStart(choice=0, block=index, type=kind, value=block), raw)
        if kind in TOOL_BLOCKS:
            state.call, state.call_id, state.name = self._calls, block.get("id"), block.get("name")
            state.opened = _opened_input(block.get("input"))
            self._calls += 1
            start = ToolCallStart(
                choice=0, call=state.call, index=index, id=state.call_id, name=state.name, type=kind
            )
            self.add(start, raw)
        elif kind == "text" and block.get("text"):
            self._text(raw, index, str(block["text"]))
        elif kind == "thinking" and block.get("thinking"):
            self._thinking(raw, index, str(block["thinking"]))

    def _block_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        found, delta = value.get("index"), value.get("delta")
        state = self.blocks.get(found) if _is_index(found) else None
        if state is None or not isinstance(delta, dict):
            self.note(raw, "block_unknown", "error", f"a delta for block {found!r}, never started")
            return
        index = state.index
        if state.stopped:  # read on into the block, as the SDK's accumulator does
            self.sight(raw, "delta_after_stop", f"a delta for block {index} after it stopped")
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(delta.get("text"), str):
            self._text(raw, index, delta["text"])
        elif kind == "thinking_delta" and isinstance(delta.get("thinking"), str):
            self._thinking(raw, index, delta["thinking"])
        elif kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            self._input(raw, state, delta["partial_json"])
        elif kind == "signature_delta" and isinstance(delta.get("signature"), str):
            self.add(Signature(choice=0, block=index, signature=delta["signature"]), raw)
        elif kind == "citations_delta" and "citation" in delta:
            self.add(Citation(choice=0, block=index, value=delta["citation"]), raw)
        elif kind == "compaction_delta" and isinstance(delta.get("content"), str):
            self.add(BlockDelta(choice=0, block=index, field="content", text=delta["content"]), raw)
        else:
            self.note(raw, "unknown_delta", "info", f"a delta of type {kind!r}; kept as an extra")
            self.add(Extra(scope="delta", choice=0, fields={"delta": delta}), raw)

    def _block_stop(self, raw: RawEvent, value: dict[str, Any]) -> None:
        found = value.get("index")
        state = self.blocks.get(found) if _is_index(found) else None
        if state is None:
            self.note(raw, "block_unknown", "error", f"block {found!r} stops but never started")
            return
        state.stopped = True
        self._end_tool(raw, state)
        self.add(BlockStop(choice=0, block=state.index), raw)

    def _message_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        delta = as_object(value.get("delta"))
        extras = {k: delta[k] for k in MESSAGE_DELTA_EXTRAS if k in delta}
        # Its other top-level fields (context_management, input_transformations) replace the
        # message's when not null, as the SDK's beta accumulator sets them.
        extras.update(
            (k, v) for k, v in value.items() if k not in MESSAGE_DELTA_READ and v is not None
        )
        if extras:
            self.add(Extra(scope="chunk", choice=None, fields=extras), raw)
        if delta.get("stop_reason") == "refusal":
            self.add(RefusalDelta(choice=0, text=refusal_text(delta.get("stop_details"))), raw)
        if delta.get("stop_reason") is not None:
            self.add(Finish(choice=0, reason=str(delta["stop_reason"])), raw)
        if isinstance(value.get("usage"), dict):
            self.add(Usage(usage=value["usage"], source="message_delta"), raw)

    def _message_stop(self, raw: RawEvent, value: dict[str, Any]) -> None:
        self.done = True
        self.add(Done(), raw)

    # ------------------------------------------------------------------ helpers
    def _text(self, raw: RawEvent, index: int, text: str) -> None:
        raw.choices = raw.output = True
        self.add(TextDelta(choice=0, text=text, block=index), raw)

    def _thinking(self, raw: RawEvent, index: int, text: str) -> None:
        raw.choices = raw.reasoning = True
        self.add(ReasoningDelta(choice=0, text=text, field="thinking", block=index), raw)

    def _input(self, raw: RawEvent, state: _Block, fragment: str) -> None:
        if state.call is None:
            self.note(raw, "input_not_tool", "warning", f"tool input for a {state.type} block")
            return
        raw.choices = raw.output = True
        state.parts.append(fragment)
        self.add(ToolCallArgs(choice=0, call=state.call, text=fragment), raw)

    def _end_tool(self, raw: RawEvent | None, state: _Block) -> None:
        if state.call is None:
            return
        self.end_call(
            raw,
            choice=0,
            call=state.call,
            call_id=state.call_id,
            name=state.name,
            arguments="".join(state.parts) or state.opened,
        )
        state.call = None  # ended once


_HANDLERS = {
    "message_start": AnthropicInterpreter._message_start,
    "content_block_start": AnthropicInterpreter._block_start,
    "content_block_delta": AnthropicInterpreter._block_delta,
    "content_block_stop": AnthropicInterpreter._block_stop,
    "message_delta": AnthropicInterpreter._message_delta,
    "message_stop": AnthropicInterpreter._message_stop,
}


def refusal_text(details: Any) -> str:
    """What a refusal's ``stop_details`` say, in words: its ``explanation``, with its policy
    ``category`` when it names one; ``""`` when it says neither (the refusal is still one)."""
    details = as_object(details)
    explanation, category = details.get("explanation"), details.get("category")
    words = [explanation] if isinstance(explanation, str) and explanation else []
    if isinstance(category, str) and category:
        words.append(f"(category: {category})")
    return " ".join(words)


def _opened_input(value: Any) -> str:
    """A tool's input sent whole in its ``content_block_start`` (a server tool such as
    ``web_fetch``), as JSON text: its arguments when no ``input_json_delta`` adds any, as the
    SDK keeps the opened input when the deltas' text is empty. ``{}`` (the usual opening)
    gives ``""``."""
    if not value:
        return ""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:  # integers past 64 bits: the json module writes them
        return json.dumps(value)


def _is_index(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# ---------------------------------------------------------------------- registration
def sniff(event: str | None, value: dict[str, Any]) -> Sniffed | None:
    kind = value.get("type")
    if isinstance(kind, str) and kind in TYPES:  # a list or an object cannot be looked up
        return NAMED, f"type {kind}"
    return None


ANTHROPIC = Dialect(
    name=NAME,
    title="Anthropic Messages",
    interpreter=AnthropicInterpreter,
    sniff=sniff,
    assemble=assemble,
    usage=UsageFields("usage", "input_tokens", "output_tokens", cached="cache_read_input_tokens"),
    usage_help={
        "input_tokens": "prompt tokens not read from or written to the cache",
        "cache_creation_input_tokens": "prompt tokens written to the cache",
        "cache_read_input_tokens": "prompt tokens read from the cache",
        "output_tokens": "tokens generated (cumulative in message_delta)",
        "server_tool_use": "server tool calls made (web searches, ...)",
    },
    labels=labels.LABELS,
    view=labels.view,
)
