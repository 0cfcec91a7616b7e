"""Ollama's native API streams (docs/dialects.md, "Ollama").

NDJSON, one object a line (the ``jsonl`` capture reader gives each line as a payload).
``/api/chat`` lines carry ``message`` (``content``, ``thinking``, ``tool_calls`` whole, with
``function.arguments`` an object); ``/api/generate`` lines carry ``response`` and ``thinking``.
Every line has ``model``, ``created_at`` and ``done``; the last says ``done: true`` with
``done_reason`` and the server's own counts and durations (``total_duration``,
``load_duration``, ``prompt_eval_count``, ``prompt_eval_duration``, ``eval_count``,
``eval_duration``, in nanoseconds): one ``usage`` event, which the metrics read
(``server_timing``). ``{"error": "..."}`` can be a line.

The final object is what the ollama client holds at the end: the done line, with the whole
message (``app/domain/dialects/ollama/assemble.py``).
"""

from __future__ import annotations

from typing import Any

import orjson

from ...events import (
    Done,
    Extra,
    Finish,
    Logprobs,
    Meta,
    RawEvent,
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
    Usage,
)
from ...interpret import PayloadInterpreter
from ...sent import sent_items
from ...stream import Stream
from ..base import SHAPED, Dialect, ServerTiming, Sniffed, UsageFields, int_or_none
from . import labels
from .assemble import COUNTS, assemble
from .fast import FAST

NAME = "ollama"
META_KEYS = ("model", "created_at")
READ_KEYS = frozenset(
    {*META_KEYS, "message", "response", "thinking", "done", "done_reason", "logprobs", *COUNTS}
)
NS_PER_MS = 1_000_000


class OllamaInterpreter(PayloadInterpreter):
    dialect = NAME
    fast = FAST  # app/domain/dialects/ollama/fast.py (reads first: the first line's identity)

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self.first: dict[str, Any] | None = None
        self._extras: dict[str, Any] = {}
        self._calls = 0

    def value(self, raw: RawEvent, value: Any) -> None:
        if not isinstance(value, dict):
            self.other(raw, value)
            return
        if "error" in value:
            self.error(raw, value["error"])
            return
        if not _is_line(value):
            self.other(raw, value)
            return
        self._meta(raw, value)
        message = value.get("message")
        if isinstance(message, dict):
            self._content(raw, message)
            self._tool_calls(raw, message.get("tool_calls"))
        elif message is not None:
            self.note(raw, "message_shape", "error", "message is not an object; not read")
        else:
            self._content(raw, value, text_key="response")
        if "logprobs" in value:
            self._logprobs(raw, value["logprobs"])
        if not READ_KEYS.issuperset(value):
            self._line_extras(raw, value)
        if value.get("done") is True:
            self._done(raw, value)

    def close(self) -> None:
        if self.first is not None and not self.done and not self.errored:
            self.sight(None, "final_missing", "the done: true line")

    # ------------------------------------------------------------------ lines
    def _meta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        if self.first is None:
            fields = {k: value[k] for k in META_KEYS if k in value}
            if isinstance(value.get("message"), dict):
                fields["message"] = {"role": value["message"].get("role", "assistant")}
            self.first = fields
            self.add(Meta(fields=fields), raw)
        elif "model" in value and value["model"] != self.first.get("model"):
            self.first["model"] = value["model"]
            self.add(Meta(fields={"model": value["model"]}), raw)

    def _content(self, raw: RawEvent, holder: dict[str, Any], text_key: str = "content") -> None:
        text, thinking = holder.get(text_key), holder.get("thinking")
        if isinstance(thinking, str) and thinking:
            raw.choices = raw.reasoning = True
            self.add(ReasoningDelta(choice=0, text=thinking, field="thinking"), raw)
        if isinstance(text, str) and text:
            raw.choices = raw.output = True
            self.add(TextDelta(choice=0, text=text), raw)

    def _tool_calls(self, raw: RawEvent, calls: Any) -> None:
        if calls is None:
            return
        if not isinstance(calls, list):
            self.note(raw, "tool_call_shape", "error", "message.tool_calls is not a list")
            return
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                self.note(raw, "tool_call_shape", "error", "a tool call without its function")
                continue
            raw.choices = raw.output = True
            number, self._calls = self._calls, self._calls + 1
            call_id, name = _text(call.get("id")), _text(function.get("name"))
            index = int_or_none(function.get("index"))
            kind = _text(call.get("type")) or "function"
            start = ToolCallStart(
                choice=0, call=number, index=index, id=call_id, name=name, type=kind
            )
            self.add(start, raw)
            arguments = function.get("arguments")
            text = "" if "arguments" not in function else _json_text(arguments)
            if text:
                self.add(ToolCallArgs(choice=0, call=number, text=text), raw)
            self.end_call(raw, choice=0, call=number, call_id=call_id, name=name, arguments=text)

    def _logprobs(self, raw: RawEvent, entries: Any) -> None:
        if isinstance(entries, list) and entries:
            data = sent_items(self.text, ("logprobs",), entries)
            self.add(Logprobs(choice=0, field="content", count=len(entries), entries=data), raw)

    def _line_extras(self, raw: RawEvent, value: dict[str, Any]) -> None:
        changed = {
            k: v for k, v in value.items() if k not in READ_KEYS and self._extras.get(k) != v
        }
        if changed:
            self._extras.update(changed)
            self.add(Extra(scope="chunk", choice=None, fields=changed), raw)

    def _done(self, raw: RawEvent, value: dict[str, Any]) -> None:
        first = self.first or {}
        if "created_at" in value and value["created_at"] != first.get("created_at"):
            self.add(Meta(fields={"created_at": value["created_at"]}), raw)
        if value.get("done_reason") is not None:
            self.add(Finish(choice=0, reason=str(value["done_reason"])), raw)
        usage = {k: value[k] for k in COUNTS if k in value}
        if usage:
            self.add(Usage(usage=usage, source="done"), raw)
        self.done = True
        self.add(Done(), raw)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _json_text(arguments: Any) -> str:
    """The arguments as JSON text: an object is serialised, a string is kept as sent."""
    return arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()


# ---------------------------------------------------------------------- registration
def _is_line(value: dict[str, Any]) -> bool:
    return isinstance(value.get("done"), bool) and ("message" in value or "response" in value)


def sniff(event: str | None, value: dict[str, Any]) -> Sniffed | None:
    if not _is_line(value):
        return None
    return SHAPED, "done and message" if "message" in value else "done and response"


def server_timing(usage: dict[str, Any]) -> ServerTiming | None:
    """The done line's durations (ns) in ms, with the counts they cover."""
    durations = [int_or_none(usage.get(f"{k}_duration")) for k in ("total", "load", "prompt_eval")]
    decode = int_or_none(usage.get("eval_duration"))
    if decode is None and all(d is None for d in durations):
        return None
    total, load, prompt = (d / NS_PER_MS if d is not None else None for d in durations)
    return ServerTiming(
        total_ms=total,
        load_ms=load,
        prompt_ms=prompt,
        prompt_tokens=int_or_none(usage.get("prompt_eval_count")),
        decode_ms=decode / NS_PER_MS if decode is not None else None,
        decode_tokens=int_or_none(usage.get("eval_count")),
    )


OLLAMA = Dialect(
    name=NAME,
    title="Ollama",
    interpreter=OllamaInterpreter,
    sniff=sniff,
    assemble=assemble,
    usage=UsageFields("", "prompt_eval_count", "eval_count"),
    pick_usage=lambda final: {k: final[k] for k in COUNTS if k in final} or None,
    usage_help={
        "prompt_eval_count": "prompt tokens evaluated (a prompt already in the cache counts less)",
        "eval_count": "tokens generated",
        "total_duration": "ns the server spent on the whole request",
        "load_duration": "ns spent loading the model",
        "prompt_eval_duration": "ns spent evaluating the prompt",
        "eval_duration": "ns spent generating",
    },
    server_timing=server_timing,
    labels=labels.LABELS,
)
