"""OpenAI Responses streams (docs/dialects.md, "OpenAI Responses").

SSE events whose ``type`` says what they are, most with a ``sequence_number``: snapshots of the
whole response (``response.created`` / ``queued`` / ``in_progress``, and the final
``response.completed`` / ``incomplete`` / ``failed`` with usage), output items by
``output_index`` (``output_item.added`` / ``done``: messages, reasoning, function calls, web
search, file search, code interpreter, MCP calls, ...), and the deltas inside them (output text
with its logprobs, refusal, function and MCP call arguments, reasoning summary and reasoning
text, code, annotations). ``error`` can come mid-stream, before ``response.failed``.

A background response resumed with ``starting_after`` starts mid-stream, without
``response.created``: its items are read from whatever event first names them. Gaps in
``sequence_number`` are said. The final object (``app/domain/dialects/responses/final.py``) is the last snapshot
as the SDK's ``get_final_response()`` gives it, or the response rebuilt from the timeline when
no final snapshot came. The output items and the deltas inside them are read by
``app/domain/dialects/responses/items.py``; this module reads the rest and dispatches.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...events import Extra, Finish, Meta, Payload, RawEvent, Snapshot, Usage
from ...fastpath import FastPath
from ...stream import Stream
from ..base import NAMED, Dialect, Sniffed, UsageFields
from . import labels
from .fast import TextDeltaEvent, decode
from .final import assemble
from .items import ItemReader
from .output import OutputReader, index_of
from .types import (
    BLOCK_TEXT,
    COMMAND_ADDED,
    DONE_TEXT,
    META_KEYS,
    PROGRESS,
    SHELL_OUTPUT,
    SNAPSHOTS,
    TERMINAL,
    TYPES,
)

NAME = "openai-responses"


class ResponsesInterpreter(ItemReader):
    dialect = NAME
    fast: ClassVar[FastPath | None] = None  # set below the class (read_fast)

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._seq: int | None = None
        self._meta: dict[str, Any] = {}
        self._usage: Any = None
        self._started = False
        self._ended = False

    def value(self, raw: RawEvent, value: Any) -> None:
        if not isinstance(value, dict):
            self.other(raw, value)
            return
        if self._started and self.may_split and value.get("type") == "response.created":
            # A new response before this one ended (a looping client's retry): its own stream.
            self.hand_back("a response that never ended (a new response.created)")
            return
        seq = value.get("sequence_number")
        if type(seq) is int:
            if self._seq is not None and seq != self._seq + 1:
                self._gap(raw, self._seq, seq)
            self._seq = seq
        kind = value.get("type")
        item_id = value.get("item_id")
        if item_id is not None:
            self.same_item(raw, value, item_id)
        if not isinstance(kind, str):
            if raw.event == "error" or "error" in value:
                self._error(raw, value)
            else:
                self.other(raw, value)
            return
        if not self._started and kind in TYPES:
            self._started = True
            if kind != "response.created":
                self.note(
                    raw,
                    "stream_resumed",
                    "info",
                    f"the stream starts at {kind} without response.created: a background "
                    "response resumed mid-stream (starting_after); read from here",
                )
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, raw, value)
        elif kind == "error" or raw.event == "error":
            self._error(raw, value)
        elif kind in PROGRESS:
            self._progress(raw, value)
        elif kind in ("keepalive", "ping"):
            self.add(
                Payload(
                    category="ping", summary=f"keep-alive {kind} event", value=self.kept(value)
                ),
                raw,
            )
        elif kind.startswith("response."):
            self.note(raw, "unknown_event", "info", f"an event of type {kind!r} not known here")
            self.add(
                Payload(
                    category="unknown", summary=f"Responses event {kind}", value=self.kept(value)
                ),
                raw,
            )
        else:
            self.other(raw, value)

    def close(self) -> None:
        for index, item in sorted(self._items.items()):
            self._end(None, item)
            if not item.done and not self._ended:
                self.note(
                    None, "item_not_done", "warning", f"output {index} ({item.type}) never done"
                )
        if self._started and not self._ended and not self.errored:
            self.note(
                None,
                "missing_terminal",
                "info",
                "the stream ended without response.completed, response.incomplete or "
                "response.failed: the response is rebuilt from its events",
            )
            self.sight(None, "final_missing", "response.completed")

    def _error(self, raw: RawEvent, value: dict[str, Any]) -> None:
        """The nested ``error`` object OpenAI sends, or the flat shape the API documents."""
        error = value.get("error")
        self.error(raw, error if isinstance(error, dict) else value)

    # ------------------------------------------------------------------ the whole response
    def _snapshot(self, raw: RawEvent, value: dict[str, Any]) -> dict[str, Any] | None:
        response = value.get("response")
        if not isinstance(response, dict):
            self.note(raw, "response_not_object", "error", f"{value['type']} without a response")
            return None
        status = response.get("status")
        self.add(Snapshot(status=status if isinstance(status, str) else None, value=response), raw)
        changed = {
            k: response[k]
            for k in META_KEYS
            if response.get(k) is not None and response[k] != self._meta.get(k)
        }
        if changed:
            self._meta.update(changed)
            self.add(Meta(fields=changed), raw)
        usage = response.get("usage")
        if isinstance(usage, dict) and usage != self._usage:
            self._usage = usage
            self.add(Usage(usage=usage, source=value["type"]), raw)
        return response

    def _lifecycle(self, raw: RawEvent, value: dict[str, Any]) -> None:
        self._snapshot(raw, value)

    def _terminal(self, raw: RawEvent, value: dict[str, Any]) -> None:
        response = self._snapshot(raw, value)
        if response is None:
            return
        extras = {k: response[k] for k in ("incomplete_details", "error") if response.get(k)}
        if extras:
            self.add(Extra(scope="chunk", choice=None, fields=extras), raw)
        if isinstance(response.get("error"), dict) and not self.errored:
            self.error(raw, response["error"])
        for item in self._items.values():
            self._end(raw, item)
        status = response.get("status")
        reason = status if isinstance(status, str) and status else TERMINAL[value["type"]]
        self.add(Finish(choice=0, reason=reason), raw)
        self._ended = True
        # The response is whole: in a file, what follows (a looping client's next response)
        # is a stream of its own (timeline.py).
        self.done, self.done_by = True, value["type"]

    def read_fast(self, raw: RawEvent, value: TextDeltaEvent) -> bool:
        """An output_text.delta as ``value`` and ``_text_delta`` read it, when it needs none
        of their notes (app/domain/dialects/responses/fast.py); False, with nothing recorded, otherwise."""
        seq, index = value.sequence_number, value.output_index
        if seq is not None and self._seq is not None and seq != self._seq + 1:
            return False
        item = self._items.get(index) if self._started else None
        if item is None or (value.item_id is not None and value.item_id != item.id):
            return False
        if seq is not None:
            self._seq = seq
        self._text(raw, index, index_of(value.content_index) or 0, value.delta)
        return True

    def _gap(self, raw: RawEvent, last: int, seq: int) -> None:
        if seq > last + 1:
            missing = seq - last - 1
            message = f"sequence_number jumps from {last} to {seq}: {missing} event(s) missing"
        else:
            message = f"sequence_number {seq} after {last}: repeated or out of order"
        self.sight(raw, "sequence_gap", message)


ResponsesInterpreter.fast = FastPath(decode, ResponsesInterpreter.read_fast)

_HANDLERS = {
    **dict.fromkeys(SNAPSHOTS, ResponsesInterpreter._lifecycle),
    **dict.fromkeys(TERMINAL, ResponsesInterpreter._terminal),
    **dict.fromkeys(BLOCK_TEXT, ResponsesInterpreter._block_text),
    **dict.fromkeys(DONE_TEXT, OutputReader.text_done),
    "response.output_item.added": ResponsesInterpreter._item_added,
    "response.output_item.done": ResponsesInterpreter._item_done,
    "response.content_part.added": ResponsesInterpreter._part_added,
    "response.reasoning_summary_part.added": ResponsesInterpreter._summary_part_added,
    "response.output_text.delta": ResponsesInterpreter._text_delta,
    "response.refusal.delta": ResponsesInterpreter._refusal_delta,
    "response.reasoning_summary_text.delta": ResponsesInterpreter._summary_delta,
    "response.reasoning_text.delta": ResponsesInterpreter._reasoning_delta,
    "response.function_call_arguments.delta": ResponsesInterpreter._args_delta,
    "response.function_call_arguments.done": ResponsesInterpreter._args_done,
    "response.mcp_call_arguments.delta": ResponsesInterpreter._args_delta,
    "response.mcp_call_arguments.done": ResponsesInterpreter._args_done,
    "response.output_text.annotation.added": ResponsesInterpreter._annotation,
    COMMAND_ADDED: ResponsesInterpreter._command_added,
    **dict.fromkeys(SHELL_OUTPUT, ResponsesInterpreter._shell_output),
    # Part ends carry nothing the deltas and the item's done did not.
    "response.content_part.done": lambda self, raw, value: None,
    "response.reasoning_summary_part.done": lambda self, raw, value: None,
}


# ---------------------------------------------------------------------- registration
def sniff(event: str | None, value: dict[str, Any]) -> Sniffed | None:
    kind = value.get("type")
    return (NAMED, f"type {kind}") if isinstance(kind, str) and kind in TYPES else None


RESPONSES = Dialect(
    name=NAME,
    title="OpenAI Responses",
    interpreter=ResponsesInterpreter,
    sniff=sniff,
    assemble=assemble,
    usage=UsageFields(
        "usage",
        "input_tokens",
        "output_tokens",
        "output_tokens_details.reasoning_tokens",
        "input_tokens_details.cached_tokens",
    ),
    usage_help={
        "input_tokens": "tokens in the input (instructions, conversation, tool definitions)",
        "input_tokens_details": "cached_tokens: input tokens read from the prompt cache",
        "output_tokens": "tokens generated (reasoning included)",
        "output_tokens_details": "reasoning_tokens: tokens spent reasoning, not shown",
        "total_tokens": "input plus output",
    },
    labels=labels.LABELS,
    view=labels.view,
)
