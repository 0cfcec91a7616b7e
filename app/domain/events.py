"""The event timeline: what one stream means, event by event.

Parsing a capture yields, per stream, two tables:

* ``RawEvent``: one per SSE event, comment or chunk line as it was in the source, with its
  position (1-based line, byte offsets) and its time offset from the request start (``t``, in
  milliseconds, ``None`` when the capture has no timing). The raw text itself stays in the
  source bytes and is sliced out on demand (``Stream.raw_text``), so it is held only once.
* ``Event``: the typed meaning of those raw events, in order. Every event carries ``seq`` (its
  position in the timeline), ``raw`` (the index of the raw event it came from, -1 for none) and
  ``t`` (copied from that raw event). One raw chunk can give several events (text + logprobs +
  finish); they share ``raw`` and ``t``.

The set of kinds is closed: ``EVENT_TYPES`` below. ``docs/timeline.md`` documents each with an
example, and the websocket protocol carries them as they are (``to_json``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec
import orjson

Severity = Literal["error", "warning", "info"]


class RawEvent(msgspec.Struct, gc=False):
    """One SSE event (or comment, or JSON line) as it sat in the source.

    ``byte``/``end`` are offsets into the stream's source bytes; ``line`` is the 1-based line of
    its first byte. ``t`` is the time offset (ms from request start) of the network read that
    completed it. ``kind`` is "event" (has data), "comment" or "other" (fields without data).
    """

    index: int
    line: int
    byte: int
    end: int
    t: float | None
    kind: str = "event"
    event: str | None = None
    id: str | None = None
    # Filled in by the interpreter: did this chunk carry choices / visible output / reasoning?
    choices: bool = False
    output: bool = False
    reasoning: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "line": self.line,
            "byte": self.byte,
            "end": self.end,
            "t": self.t,
            "kind": self.kind,
            "event": self.event,
            "id": self.id,
        }


# Fields only some dialects fill (a content block's number): left out of an event's JSON while
# unset, so chat-completion timelines keep their shape and size.
SPARSE = frozenset({"block", "label"})


class Event(msgspec.Struct, kw_only=True, gc=False):
    """Base of every timeline event."""

    kind: ClassVar[str] = "event"
    seq: int = 0
    raw: int = -1
    t: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if value is None and name in SPARSE:
                continue
            out[name] = value
        return out


class TextDelta(Event, kw_only=True):
    """Assistant content for one choice. ``part`` is "text" when it came as a typed content part."""

    kind: ClassVar[str] = "text"
    choice: int
    text: str
    part: str | None = None
    block: int | None = None

    def to_json(self) -> dict[str, Any]:
        # Event.to_json's result, written out: most events of a timeline are text.
        out: dict[str, Any] = {
            "kind": "text",
            "seq": self.seq,
            "raw": self.raw,
            "t": self.t,
            "choice": self.choice,
            "text": self.text,
            "part": self.part,
        }
        if self.block is not None:
            out["block"] = self.block
        return out


class ReasoningDelta(Event, kw_only=True):
    """Reasoning text; ``field`` says where it came from: reasoning_content, reasoning, thinking."""

    kind: ClassVar[str] = "reasoning"
    choice: int
    text: str
    field: str
    part: str | None = None
    block: int | None = None

    def to_json(self) -> dict[str, Any]:
        # Event.to_json's result, written out, as for TextDelta.
        out: dict[str, Any] = {
            "kind": "reasoning",
            "seq": self.seq,
            "raw": self.raw,
            "t": self.t,
            "choice": self.choice,
            "text": self.text,
            "field": self.field,
            "part": self.part,
        }
        if self.block is not None:
            out["block"] = self.block
        return out


class RefusalDelta(Event, kw_only=True):
    kind: ClassVar[str] = "refusal"
    choice: int
    text: str


class ToolCallStart(Event, kw_only=True):
    """A tool call begins. ``call`` numbers the calls of a choice from 0 in arrival order;
    ``index`` is the index the server sent (None when it sent none)."""

    kind: ClassVar[str] = "tool_start"
    choice: int
    call: int
    index: int | None
    id: str | None
    name: str | None
    type: str | None


class ToolCallArgs(Event, kw_only=True):
    """One fragment of a tool call's arguments, as sent."""

    kind: ClassVar[str] = "tool_args"
    choice: int
    call: int
    text: str


class ToolCallEnd(Event, kw_only=True):
    """A tool call is complete (its choice finished, or the stream ended).

    ``status`` is "valid" (arguments parse as JSON), "empty" (no arguments were sent) or
    "invalid" with ``error`` in plain words, ``error_pos`` (character offset) and
    ``incomplete`` (the text stops before the JSON value is complete).
    """

    kind: ClassVar[str] = "tool_end"
    choice: int
    call: int
    id: str | None
    name: str | None
    arguments: str
    status: str
    error: str | None = None
    error_pos: int | None = None
    incomplete: bool = False


class Logprobs(Event, kw_only=True):
    """Token logprobs that arrived in one chunk for one choice.

    ``field`` is "content" or "refusal"; ``entries`` is the list of
    ``{token, logprob, bytes, top_logprobs}`` exactly as sent. It is large and only ever
    passed on, so it is held as the JSON text the server wrote (sent.py; a list sent over
    several lines is put on one): the list's items without the brackets (an exact-size bytes
    object), which ``to_json`` embeds as an ``orjson.Fragment`` without parsing it.
    """

    kind: ClassVar[str] = "logprobs"
    choice: int
    field: str
    count: int
    entries: bytes

    def entry_list(self) -> list[dict[str, Any]]:
        return orjson.loads(b"[" + self.entries + b"]")

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "seq": self.seq,
            "raw": self.raw,
            "t": self.t,
            "choice": self.choice,
            "field": self.field,
            "count": self.count,
            "entries": orjson.Fragment(b"[" + self.entries + b"]"),
        }


class Usage(Event, kw_only=True):
    kind: ClassVar[str] = "usage"
    usage: dict[str, Any]
    source: str = "usage"


class Finish(Event, kw_only=True):
    """Why an output stopped, as the dialect spells it (Gemini may send an integer).
    ``label`` is what to show when the reason as sent does not say it (an integer: its
    enum's name and the number, "STOP (1)"); left out while unset."""

    kind: ClassVar[str] = "finish"
    choice: int
    reason: str | int
    label: str | None = None


class Meta(Event, kw_only=True):
    """Identity of the response: with the first chunk, again when model or fingerprint change."""

    kind: ClassVar[str] = "meta"
    fields: dict[str, Any]


class Extra(Event, kw_only=True):
    """Provider extras (fields outside the chunk schema), sent when their value changes.

    ``scope`` is "chunk", "choice" or "delta"; ``choice`` is None for chunk scope.
    """

    kind: ClassVar[str] = "extra"
    scope: str
    choice: int | None
    fields: dict[str, Any]


class StreamError(Event, kw_only=True):
    """An error reported inside the stream (``data: {"error": ...}``, with or without
    ``event: error``). Everything before it is kept."""

    kind: ClassVar[str] = "error"
    message: str
    code: Any = None
    error: Any = None
    event: str | None = None


class BlockStart(Event, kw_only=True):
    """A content block opens (an Anthropic content block, a Responses output item, a Gemini
    run of parts of one kind, a Bedrock or Cohere content block). ``block`` is its number in
    the output (the index the server sent, where it sends one); ``type`` what it holds
    (``text``, ``thinking``, ``redacted_thinking``, ``tool_use``, ``server_tool_use``,
    ``web_search_tool_result``, ``message``, ``reasoning``, ``function_call``, ...); ``value``
    the block as the server opened it."""

    kind: ClassVar[str] = "block_start"
    choice: int
    block: int
    type: str
    value: Any = None


class BlockStop(Event, kw_only=True):
    """A content block is complete; ``value`` is the block as the server closed it, when it
    sent one (a Responses ``output_item.done`` item)."""

    kind: ClassVar[str] = "block_stop"
    choice: int
    block: int
    value: Any = None


class BlockDelta(Event, kw_only=True):
    """Text that accumulates into a field of a block and is neither answer text nor reasoning
    (an Anthropic compaction summary: ``field`` "content")."""

    kind: ClassVar[str] = "block_delta"
    choice: int
    block: int
    field: str
    text: str


class Citation(Event, kw_only=True):
    """A citation or annotation attached to the text of a block (Anthropic ``citations_delta``,
    a Responses annotation, a Cohere citation), as sent."""

    kind: ClassVar[str] = "citation"
    choice: int
    block: int | None
    value: Any


class Signature(Event, kw_only=True):
    """An opaque signature sealing a reasoning block or a tool call (Anthropic
    ``signature_delta``, Gemini ``thoughtSignature``, Bedrock reasoning signatures): shown as
    present, never decoded."""

    kind: ClassVar[str] = "signature"
    choice: int
    block: int | None
    signature: str


class Snapshot(Event, kw_only=True):
    """The server's own copy of the whole response at this point (OpenAI Responses
    ``response.created`` / ``in_progress`` / ``completed`` / ``failed`` / ``incomplete``), as
    sent. ``status`` is the response's status; the last one is the dialect's final object."""

    kind: ClassVar[str] = "snapshot"
    status: str | None
    value: Any


class Comment(Event, kw_only=True):
    """An SSE comment line, usually a keep-alive (``: OPENROUTER PROCESSING``)."""

    kind: ClassVar[str] = "comment"
    text: str


class Payload(Event, kw_only=True):
    """A payload that is not a plain chunk, classified: ping, prompt_filter_results,
    completion_done, completion, moderation, not_an_object, foreign_event, unknown."""

    kind: ClassVar[str] = "payload"
    category: str
    summary: str
    value: Any = None


class Done(Event, kw_only=True):
    """``data: [DONE]``: the server says the stream is over."""

    kind: ClassVar[str] = "done"


class Diagnostic(Event, kw_only=True):
    """Something wrong or unusual in the input, said in plain words, with where it is."""

    kind: ClassVar[str] = "diagnostic"
    code: str
    severity: Severity
    message: str
    line: int | None = None
    byte: int | None = None


EVENT_TYPES: tuple[type[Event], ...] = (
    TextDelta,
    ReasoningDelta,
    RefusalDelta,
    ToolCallStart,
    ToolCallArgs,
    ToolCallEnd,
    Logprobs,
    Usage,
    Finish,
    Meta,
    Extra,
    StreamError,
    BlockStart,
    BlockStop,
    BlockDelta,
    Citation,
    Signature,
    Snapshot,
    Comment,
    Payload,
    Done,
    Diagnostic,
)
EVENT_KINDS: tuple[str, ...] = tuple(cls.kind for cls in EVENT_TYPES)
