"""Cohere v2 chat streams (docs/dialects.md, "Cohere v2 chat").

SSE events whose ``type`` repeats the event name: ``message-start`` (the message's id and
role), ``content-start`` / ``content-delta`` / ``content-end`` by content ``index`` (text in
``delta.message.content.text``, thinking in ``.thinking``), ``tool-plan-delta`` (the plan the
model writes before calling tools), ``tool-call-start`` / ``-delta`` / ``-end`` by tool-call
``index`` (arguments as text fragments), ``citation-start`` / ``citation-end``, and
``message-end`` with the finish reason and usage (billed units and actual tokens), often
followed by ``data: [DONE]``.

The Cohere SDK has no stream accumulator: the final object is the v2 chat response the
non-streaming endpoint returns (``id``, ``finish_reason``, ``message`` with its content parts,
tool plan, tool calls and citations, ``usage``), folded from the timeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...events import (
    BlockStart,
    BlockStop,
    Citation,
    Extra,
    Finish,
    Meta,
    RawEvent,
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
    Usage,
)
from ...interpret import PayloadInterpreter
from ...stream import Stream
from ..base import NAMED, Dialect, Sniffed, UsageFields, nested
from . import labels
from .fast import FAST
from .final import assemble

NAME = "cohere"
_MESSAGE_PARTS = ("content", "tool_plan", "tool_calls", "citations")


@dataclass
class _Call:
    call: int
    call_id: str | None
    name: str | None
    parts: list[str] = field(default_factory=list)
    ended: bool = False


class CohereInterpreter(PayloadInterpreter):
    dialect = NAME
    fast = FAST  # app/domain/dialects/cohere/fast.py (reads open_blocks)

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._calls: dict[int, _Call] = {}
        self.open_blocks: set[int] = set()  # content blocks started and not ended
        self._started = self._ended = False

    def value(self, raw: RawEvent, value: Any) -> None:
        if not isinstance(value, dict):
            self.other(raw, value)
            return
        kind = value.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, raw, value)
        elif raw.event == "error" or "error" in value:
            self.error(raw, value.get("error", value))
        else:
            self.other(raw, value)

    def close(self) -> None:
        for call in self._calls.values():
            if not call.ended:
                self._end_call(None, call)
                self.sight(None, "block_not_stopped", f"tool call {call.call} never ended")
        for index in sorted(self.open_blocks):
            self.sight(None, "block_not_stopped", f"content {index} never ended")
        if self._started and not self._ended and not self.errored:
            self.sight(None, "final_missing", "message-end")

    # ------------------------------------------------------------------ events
    def _message_start(self, raw: RawEvent, value: dict[str, Any]) -> None:
        self._started = True
        message = nested(value, "delta", "message")
        fields = {"id": value["id"]} if "id" in value else {}
        if isinstance(message, dict):
            fields.update({k: v for k, v in message.items() if k not in _MESSAGE_PARTS})
        self.add(Meta(fields=fields), raw)

    def _content_start(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index, content = _index(value.get("index")), nested(value, "delta", "message", "content")
        if index is None or not isinstance(content, dict):
            self.note(raw, "block_shape", "error", "content-start without index and content")
            return
        self.open_blocks.add(index)
        self.add(
            BlockStart(choice=0, block=index, type=str(content.get("type")), value=content), raw
        )
        self._content(raw, index, content)

    def _content_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index, content = _index(value.get("index")), nested(value, "delta", "message", "content")
        if index is None or not isinstance(content, dict):
            self.note(raw, "block_shape", "error", "content-delta without index and content")
            return
        if index not in self.open_blocks:
            self.note(raw, "block_unknown", "error", f"a delta for content {index}, never started")
        self._content(raw, index, content)
        if "logprobs" in value:
            self.add(Extra(scope="delta", choice=0, fields={"logprobs": value["logprobs"]}), raw)

    def _content(self, raw: RawEvent, index: int, content: dict[str, Any]) -> None:
        text, thinking = content.get("text"), content.get("thinking")
        if isinstance(thinking, str) and thinking:
            raw.choices = raw.reasoning = True
            self.add(ReasoningDelta(choice=0, text=thinking, field="thinking", block=index), raw)
        if isinstance(text, str) and text:
            raw.choices = raw.output = True
            self.add(TextDelta(choice=0, text=text, block=index), raw)

    def _content_end(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index = value.get("index")
        if index is None or index not in self.open_blocks:
            self.note(raw, "block_unknown", "error", f"content {index!r} ends but never started")
            return
        self.open_blocks.discard(index)
        self.add(BlockStop(choice=0, block=index), raw)

    def _tool_plan(self, raw: RawEvent, value: dict[str, Any]) -> None:
        plan = nested(value, "delta", "message", "tool_plan")
        if isinstance(plan, str) and plan:
            raw.choices = raw.reasoning = True
            self.add(ReasoningDelta(choice=0, text=plan, field="tool_plan"), raw)

    def _tool_start(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index, call = _index(value.get("index")), nested(value, "delta", "message", "tool_calls")
        if index is None or not isinstance(call, dict):
            self.note(raw, "tool_call_not_object", "error", "tool-call-start without its call")
            return
        name = nested(call, "function", "name")
        state = self._calls[index] = _Call(len(self._calls), call.get("id"), name)
        start = ToolCallStart(
            choice=0,
            call=state.call,
            index=index,
            id=state.call_id,
            name=name,
            type=call.get("type"),
        )
        self.add(start, raw)
        self._arguments(raw, state, nested(call, "function", "arguments"))

    def _tool_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        state = self._call(value)
        if state is None:
            self.note(raw, "block_unknown", "error", "tool-call-delta for a call never started")
            return
        if state.ended:
            self.note(
                raw, "tool_args_after_end", "warning", f"arguments after call {state.call} ended"
            )
        args = nested(value, "delta", "message", "tool_calls", "function", "arguments")
        self._arguments(raw, state, args)

    def _arguments(self, raw: RawEvent, state: _Call, fragment: Any) -> None:
        if isinstance(fragment, str) and fragment:
            raw.choices = raw.output = True
            state.parts.append(fragment)
            self.add(ToolCallArgs(choice=0, call=state.call, text=fragment), raw)

    def _tool_end(self, raw: RawEvent, value: dict[str, Any]) -> None:
        state = self._call(value)
        if state is None or state.ended:
            self.note(raw, "block_unknown", "error", "tool-call-end for a call never started")
            return
        self._end_call(raw, state)

    def _call(self, value: dict[str, Any]) -> _Call | None:
        index = _index(value.get("index"))
        return self._calls.get(index) if index is not None else None

    def _end_call(self, raw: RawEvent | None, state: _Call) -> None:
        state.ended = True
        args = "".join(state.parts)
        self.end_call(
            raw, choice=0, call=state.call, call_id=state.call_id, name=state.name, arguments=args
        )

    def _citation_start(self, raw: RawEvent, value: dict[str, Any]) -> None:
        citation = nested(value, "delta", "message", "citations")
        block = citation.get("content_index") if isinstance(citation, dict) else None
        self.add(Citation(choice=0, block=_index(block), value=citation), raw)

    def _citation_end(self, raw: RawEvent, value: dict[str, Any]) -> None:
        """Nothing to add: the citation came whole with citation-start."""

    def _message_end(self, raw: RawEvent, value: dict[str, Any]) -> None:
        self._ended = True
        delta: dict[str, Any] = value["delta"] if isinstance(value.get("delta"), dict) else {}
        if delta.get("error"):
            self.error(raw, delta["error"], code=delta.get("finish_reason"))
        if delta.get("finish_reason") is not None:
            self.add(Finish(choice=0, reason=str(delta["finish_reason"])), raw)
        if isinstance(delta.get("usage"), dict):
            self.add(Usage(usage=delta["usage"], source="message-end"), raw)


_HANDLERS = {
    "message-start": CohereInterpreter._message_start,
    "content-start": CohereInterpreter._content_start,
    "content-delta": CohereInterpreter._content_delta,
    "content-end": CohereInterpreter._content_end,
    "tool-plan-delta": CohereInterpreter._tool_plan,
    "tool-call-start": CohereInterpreter._tool_start,
    "tool-call-delta": CohereInterpreter._tool_delta,
    "tool-call-end": CohereInterpreter._tool_end,
    "citation-start": CohereInterpreter._citation_start,
    "citation-end": CohereInterpreter._citation_end,
    "message-end": CohereInterpreter._message_end,
}


def _index(value: Any) -> int | None:
    """A block or call index as sent, when it is a non-negative integer."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


# ---------------------------------------------------------------------- registration
def sniff(event: str | None, value: dict[str, Any]) -> Sniffed | None:
    """Cohere's event types, with Cohere's shape (a ``delta`` object or an ``index``): other
    APIs use some of the same names (``tool-call-start``) for other objects."""
    kind = value.get("type")
    if (
        isinstance(kind, str)
        and kind in _HANDLERS
        and (isinstance(value.get("delta"), dict) or _index(value.get("index")) is not None)
    ):
        return NAMED, f"type {kind}"
    return None


COHERE = Dialect(
    name=NAME,
    title="Cohere v2 chat",
    interpreter=CohereInterpreter,
    sniff=sniff,
    assemble=assemble,
    usage=UsageFields(
        "usage", "tokens.input_tokens", "tokens.output_tokens", cached="cached_tokens"
    ),
    usage_help={
        "billed_units": "what is billed: input and output tokens (and search units, classifications)",
        "tokens": "the tokens the model actually read and wrote (prompt template included)",
        "cached_tokens": "prompt tokens read from the cache",
    },
    labels=labels.LABELS,
    view=labels.view,
)
