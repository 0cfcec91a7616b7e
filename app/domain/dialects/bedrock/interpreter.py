"""AWS Bedrock ConverseStream (docs/dialects.md, "AWS Bedrock ConverseStream").

Events named by their frame's ``:event-type`` (app/domain/eventstream.py): ``messageStart``
(the role), ``contentBlockStart`` (a tool use with ``toolUseId`` and ``name``; text and
reasoning blocks open with their first delta, without a start), ``contentBlockDelta`` by
``contentBlockIndex`` (``text``, ``toolUse.input`` string fragments, ``reasoningContent`` with
``text``, ``signature`` or ``redactedContent``, ``citation``), ``contentBlockStop``,
``messageStop`` (``stopReason``, e.g. ``end_turn``, ``tool_use``, ``guardrail_intervened``)
and ``metadata`` (``usage``, ``metrics.latencyMs``, the guardrail ``trace``). Exception frames
are named by their ``:exception-type`` (``throttlingException``, ...) and are errors. The
``p`` field AWS pads every payload with (its length hides the content's) is left out.

The same events logged the way boto3 yields them, ``{"contentBlockDelta": {...}}`` (JSON Lines
or SSE without event names), read the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    Citation,
    Extra,
    Finish,
    Meta,
    RawEvent,
    ReasoningDelta,
    Signature,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
    Usage,
)
from ...interpret import PayloadInterpreter
from ...stream import Stream
from ..base import Dialect, UsageFields
from . import labels
from .fast import FAST
from .final import assemble
from .shapes import PADDING, block_index, is_exception, kind_of, sniff, unwrap

NAME = "bedrock-converse"


@dataclass
class _Block:
    type: str
    call: int | None = None
    call_id: str | None = None
    name: str | None = None
    parts: list[str] = field(default_factory=list)
    stopped: bool = False


class BedrockInterpreter(PayloadInterpreter):
    dialect = NAME
    fast = FAST  # app/domain/dialects/bedrock/fast.py (reads blocks)

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self.blocks: dict[int, _Block] = {}
        self._calls = 0
        self._started = self._stopped = False

    def value(self, raw: RawEvent, value: Any) -> None:
        if not isinstance(value, dict):
            self.other(raw, value)
            return
        name, body = unwrap(raw.event, value)
        handler = _HANDLERS.get(name) if name is not None else None
        if handler is not None:
            handler(self, raw, body)
        elif is_exception(name):
            self.error(raw, body, code=name)
        elif name == "error" or "error" in body:
            self.error(raw, body.get("error", body))
        else:
            self.other(raw, value)

    def close(self) -> None:
        for index, block in sorted(self.blocks.items()):
            if not block.stopped and block.call is not None:
                self._end_tool(None, block)
                self.sight(None, "block_not_stopped", f"block {index} never stopped")
        if self._started and not self._stopped and not self.errored:
            self.sight(None, "final_missing", "messageStop")

    # ------------------------------------------------------------------ events
    def _message_start(self, raw: RawEvent, value: dict[str, Any]) -> None:
        self._started = True
        self.add(Meta(fields={k: v for k, v in value.items() if k != PADDING}), raw)

    def _block_start(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index, start = block_index(value.get("contentBlockIndex")), value.get("start")
        if index is None or not isinstance(start, dict):
            self.note(raw, "block_shape", "error", "contentBlockStart without index and start")
            return
        kind = kind_of(start)
        state = self._open(raw, index, kind, start)
        tool = start.get("toolUse")
        if isinstance(tool, dict):
            state.call, state.call_id, state.name = (
                self._calls,
                tool.get("toolUseId"),
                tool.get("name"),
            )
            self._calls += 1
            start_event = ToolCallStart(
                choice=0, call=state.call, index=index, id=state.call_id, name=state.name, type=kind
            )
            self.add(start_event, raw)

    def _block_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index, delta = block_index(value.get("contentBlockIndex")), value.get("delta")
        if index is None or not isinstance(delta, dict):
            self.note(raw, "block_shape", "error", "contentBlockDelta without index and delta")
            return
        state = self.blocks.get(index)
        if state is None:  # text and reasoning blocks open with their first delta
            state = self._open(raw, index, kind_of(delta), None)
        for key, part in delta.items():
            reader = _DELTAS.get(key)
            if reader is not None:
                reader(self, raw, index, state, part)
            elif key != PADDING:
                self.note(
                    raw, "unknown_delta", "info", f"a delta of type {key!r}; kept as an extra"
                )
                self.add(Extra(scope="delta", choice=0, fields={key: part}), raw)

    def _block_stop(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index = block_index(value.get("contentBlockIndex"))
        state = self.blocks.get(index) if index is not None else None
        if index is None or state is None:
            self.note(raw, "block_unknown", "warning", f"block {index!r} stops but never started")
            return
        state.stopped = True
        self._end_tool(raw, state)
        self.add(BlockStop(choice=0, block=index), raw)

    def _message_stop(self, raw: RawEvent, value: dict[str, Any]) -> None:
        self._stopped = True
        if value.get("stopReason") is not None:
            self.add(Finish(choice=0, reason=str(value["stopReason"])), raw)
        self._extras(raw, value, ("stopReason",))

    def _metadata(self, raw: RawEvent, value: dict[str, Any]) -> None:
        if isinstance(value.get("usage"), dict):
            self.add(Usage(usage=value["usage"], source="metadata"), raw)
        self._extras(raw, value, ("usage",))

    def _extras(self, raw: RawEvent, value: dict[str, Any], known: tuple[str, ...]) -> None:
        """The rest of the object (metrics, the guardrail trace, additional model fields)."""
        extras = {k: v for k, v in value.items() if k not in known and k != PADDING}
        if extras:
            self.add(Extra(scope="chunk", choice=None, fields=extras), raw)

    # ------------------------------------------------------------------ deltas
    def _text(self, raw: RawEvent, index: int, state: _Block, text: Any) -> None:
        if isinstance(text, str):
            raw.choices = raw.output = True
            self.add(TextDelta(choice=0, text=text, block=index), raw)

    def _tool_input(self, raw: RawEvent, index: int, state: _Block, tool: Any) -> None:
        fragment = tool.get("input") if isinstance(tool, dict) else None
        if not isinstance(fragment, str):
            self.note(
                raw, "tool_args_not_string", "warning", f"block {index}: toolUse.input is not text"
            )
        elif state.call is None:
            self.note(raw, "input_not_tool", "warning", f"tool input for a {state.type} block")
        else:
            raw.choices = raw.output = True
            state.parts.append(fragment)
            self.add(ToolCallArgs(choice=0, call=state.call, text=fragment), raw)

    def _reasoning(self, raw: RawEvent, index: int, state: _Block, part: Any) -> None:
        if not isinstance(part, dict):
            self.note(
                raw,
                "delta_not_object",
                "error",
                f"block {index}: reasoningContent is not an object",
            )
            return
        if isinstance(part.get("text"), str):
            raw.choices = raw.reasoning = True
            self.add(
                ReasoningDelta(choice=0, text=part["text"], field="reasoningContent", block=index),
                raw,
            )
        if isinstance(part.get("signature"), str):
            self.add(Signature(choice=0, block=index, signature=part["signature"]), raw)
        if isinstance(part.get("redactedContent"), str):
            raw.choices = True
            redacted = BlockDelta(
                choice=0, block=index, field="redactedContent", text=part["redactedContent"]
            )
            self.add(redacted, raw)

    def _citation(self, raw: RawEvent, index: int, state: _Block, citation: Any) -> None:
        self.add(Citation(choice=0, block=index, value=citation), raw)

    # ------------------------------------------------------------------ helpers
    def _open(self, raw: RawEvent, index: int, kind: str, value: Any) -> _Block:
        state = self.blocks[index] = _Block(kind)
        self.add(BlockStart(choice=0, block=index, type=kind, value=value), raw)
        return state

    def _end_tool(self, raw: RawEvent | None, state: _Block) -> None:
        if state.call is None:
            return
        args = "".join(state.parts)
        self.end_call(
            raw, choice=0, call=state.call, call_id=state.call_id, name=state.name, arguments=args
        )
        state.call = None  # ended once


Handler = Callable[[BedrockInterpreter, RawEvent, dict[str, Any]], None]
_HANDLERS: dict[str, Handler] = {
    "messageStart": BedrockInterpreter._message_start,
    "contentBlockStart": BedrockInterpreter._block_start,
    "contentBlockDelta": BedrockInterpreter._block_delta,
    "contentBlockStop": BedrockInterpreter._block_stop,
    "messageStop": BedrockInterpreter._message_stop,
    "metadata": BedrockInterpreter._metadata,
}
_DELTAS = {
    "text": BedrockInterpreter._text,
    "toolUse": BedrockInterpreter._tool_input,
    "reasoningContent": BedrockInterpreter._reasoning,
    "citation": BedrockInterpreter._citation,
}
BEDROCK = Dialect(
    name=NAME,
    title="AWS Bedrock ConverseStream",
    interpreter=BedrockInterpreter,
    sniff=sniff,
    assemble=assemble,
    usage=UsageFields("usage", "inputTokens", "outputTokens", cached="cacheReadInputTokens"),
    usage_help={
        "inputTokens": "prompt tokens (not read from or written to the cache)",
        "outputTokens": "tokens generated",
        "totalTokens": "input plus output, as the server counts them",
        "cacheReadInputTokens": "prompt tokens read from the cache",
        "cacheWriteInputTokens": "prompt tokens written to the cache",
        "serverToolUsage": "server tool calls made",
    },
    labels=labels.LABELS,
    view=labels.view,
)
