"""From payloads to timeline events: the meaning of each chunk, one stream at a time.

``Interpreter`` is fed raw events with their payload (JSON text) and appends typed events to a
``Stream``. It classifies what is not a chunk, routes tool-call fragments, keeps provider extras,
and reports every oddity as a ``Diagnostic`` with its position; it never raises on bad input.
"""

from __future__ import annotations

from typing import Any

import orjson

from .chunks import ChoiceReader
from .events import (
    Comment,
    Diagnostic,
    Done,
    Event,
    Extra,
    Meta,
    Payload,
    RawEvent,
    StreamError,
    ToolCallEnd,
    Usage,
)
from .jsontext import check_arguments, decode_lenient, deep_problem, too_deep
from .payloads import classify
from .stream import Stream
from .toolcalls import ChoiceToolCalls

KNOWN_CHUNK_KEYS = frozenset(
    {"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "service_tier"}
)
META_KEYS = ("id", "object", "created", "model", "system_fingerprint", "service_tier")


class Interpreter:
    """Turns one stream's payloads into events. Call ``finish()`` once at the end."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self._choices: dict[int, ChoiceReader] = {}
        self._meta: dict[str, Any] = {}
        self._extras: dict[str, Any] = {}
        self._usage: Any = None
        self._ids_seen = 0
        self._first_id: str | None = None
        self._id_changes = 0
        self.done = False
        self.errored = False
        self.finished = False

    # ------------------------------------------------------------------ entry points
    def payload(self, raw: RawEvent, data: bytes | str, data_offset: int = 0) -> None:
        """Read one event's data: ``[DONE]``, a chunk, or something else (classified)."""
        if self.done and not self.errored:
            self.note(
                raw,
                "data_after_done",
                "warning",
                "data after [DONE]: the server kept sending after saying it was done",
            )
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            if data.strip() in (b"[DONE]", "[DONE]"):
                self.done = True
                self.add(Done(), raw)
                return
            value = self._decode_slow(raw, data, data_offset)
            if value is _UNREADABLE:
                return
        else:
            if too_deep(data):
                self.note(raw, "json_too_deep", "error", deep_problem().message)
                return
        if raw.event == "error" or (isinstance(value, dict) and "error" in value):
            self._error(raw, value)
            if not (isinstance(value, dict) and "choices" in value):
                return
        if isinstance(value, dict):
            self._object(raw, value)
        else:
            kind = type(value).__name__
            self.add(
                Payload(
                    category="not_an_object", summary=f"a JSON {kind}, not a chunk", value=value
                ),
                raw,
            )

    def comment(self, raw: RawEvent, text: str) -> None:
        self.add(Comment(text=text), raw)

    def finish(self) -> None:
        """End of stream: close open tool calls and say what was missing."""
        if self.finished:
            return
        self.finished = True
        for _, reader in sorted(self._choices.items()):
            reader.end(None)
        if not self.done and not self.errored and self._choices:
            self.note(None, "missing_done", "info", "the stream ended without data: [DONE]")
        if not self._choices and not self._meta and any(r.kind == "event" for r in self.stream.raw):
            self.note(
                None,
                "no_chunks",
                "warning",
                "no chat completion chunk in this stream: nothing to assemble (see its payloads)",
            )
        if self._id_changes:
            self.note(
                None,
                "id_changed",
                "info",
                f"the chunk id changed {self._id_changes} times (first {self._first_id!r}): "
                "several responses in one stream, or a server that numbers chunks",
            )
        self.stream.note_suppressed()

    # ------------------------------------------------------------------ helpers
    def add(self, event: Event, raw: RawEvent | None) -> None:
        if raw is not None:
            event.raw = raw.index
            event.t = raw.t
        self.stream.add(event)

    def note(self, raw: RawEvent | None, code: str, severity: str, message: str) -> None:
        self.add(
            Diagnostic(
                code=code,
                severity=severity,  # type: ignore[arg-type]
                message=message,
                line=raw.line if raw else None,
                byte=raw.byte if raw else None,
            ),
            raw,
        )

    def _decode_slow(self, raw: RawEvent, data: bytes | str, data_offset: int) -> Any:
        decoded = decode_lenient(data)
        for problem in decoded.problems:
            diag = Diagnostic(
                code=problem.code,
                severity=problem.severity,  # type: ignore[arg-type]
                message=problem.message,
                line=raw.line + _lines_before(data, problem.pos),
                byte=data_offset + problem.pos if problem.pos is not None else raw.byte,
            )
            self.add(diag, raw)
        return decoded.value if decoded.ok else _UNREADABLE

    def _error(self, raw: RawEvent, value: Any) -> None:
        self.errored = True
        error = value.get("error", value) if isinstance(value, dict) else value
        if isinstance(error, dict):
            message = str(error.get("message") or error.get("type") or orjson.dumps(error).decode())
            code = error.get("code")
        else:
            message, code = str(error), None
        self.add(StreamError(message=message, code=code, error=error, event=raw.event), raw)

    def _object(self, raw: RawEvent, value: dict[str, Any]) -> None:
        kind = value.get("object")
        is_chunk = "choices" in value or kind == "chat.completion.chunk"
        special = (
            not is_chunk
            or kind not in ("chat.completion.chunk", None)
            or ("moderation" in value or "prompt_filter_results" in value)
        )
        if special:
            category, summary = classify(value)
            self.add(Payload(category=category, summary=summary, value=value), raw)
        if is_chunk:
            self._chunk(raw, value, extras=not special)

    def _chunk(self, raw: RawEvent, chunk: dict[str, Any], extras: bool) -> None:
        self._check_meta(raw, chunk)
        if extras and not KNOWN_CHUNK_KEYS.issuperset(chunk):
            self._chunk_extras(raw, chunk)
        usage = chunk.get("usage")
        if usage is not None and usage != self._usage:
            if isinstance(usage, dict):
                self._usage = usage
                self.add(Usage(usage=usage), raw)
            else:
                self.note(raw, "usage_not_object", "warning", "usage is not a JSON object; ignored")
        choices = chunk.get("choices")
        if not choices:
            if choices is not None and not isinstance(choices, list):
                self.note(raw, "choices_not_list", "error", "choices is not a list; ignored")
            return
        if not isinstance(choices, list):
            self.note(raw, "choices_not_list", "error", "choices is not a list; ignored")
            return
        raw.choices = True
        for choice in choices:
            self._choice(raw, choice)

    def _choice(self, raw: RawEvent, choice: Any) -> None:
        if not isinstance(choice, dict):
            self.note(raw, "choice_not_object", "error", "a choice is not a JSON object; ignored")
            return
        index = choice.get("index", 0)
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            self.note(raw, "choice_index_invalid", "error", f"choice index {index!r} is not valid")
            return
        reader = self._choices.get(index)
        if reader is None:
            reader = self._choices[index] = ChoiceReader(index, self)
        reader.read(raw, choice)

    def end_calls(self, choice: int, tools: ChoiceToolCalls, raw: RawEvent | None) -> None:
        for state in tools.open_calls():
            state.ended = True
            arguments = state.arguments
            check = check_arguments(arguments)
            end = ToolCallEnd(
                choice=choice,
                call=state.call,
                id=state.id,
                name=state.name,
                arguments=arguments,
                status=check.status,
                error=check.error,
                error_pos=check.pos,
                incomplete=check.incomplete,
            )
            self.add(end, raw)
            if raw is None:
                end.t = self._last_t()

    def _last_t(self) -> float | None:
        return self.stream.raw[-1].t if self.stream.raw else None

    def _check_meta(self, raw: RawEvent, chunk: dict[str, Any]) -> None:
        chunk_id = chunk.get("id")
        if chunk_id:
            if self._first_id is None:
                self._first_id = chunk_id
            elif chunk_id != self._meta.get("id"):
                self._id_changes += 1
        meta = self._meta
        if not meta:
            fields = {k: chunk[k] for k in META_KEYS if chunk.get(k) not in (None, "")}
            if fields.get("id") or fields.get("model"):
                meta.update(fields)
                self.add(Meta(fields=fields), raw)
            return
        if chunk_id:
            meta["id"] = chunk_id
        changed = {
            k: chunk[k]
            for k in ("model", "system_fingerprint")
            if chunk.get(k) not in (None, "") and chunk.get(k) != meta.get(k)
        }
        if changed:
            meta.update(changed)
            self.add(Meta(fields=changed), raw)

    def _chunk_extras(self, raw: RawEvent, chunk: dict[str, Any]) -> None:
        changed = {
            k: v
            for k, v in chunk.items()
            if k not in KNOWN_CHUNK_KEYS and self._extras.get(k, _UNSET) != v
        }
        if changed:
            self._extras.update(changed)
            self.add(Extra(scope="chunk", choice=None, fields=changed), raw)
            groq = changed.get("x_groq")
            if isinstance(groq, dict) and isinstance(groq.get("usage"), dict):
                self.add(Usage(usage=groq["usage"], source="x_groq.usage"), raw)


def _lines_before(data: bytes | str, pos: int | None) -> int:
    if not pos:
        return 0
    newline = b"\n" if isinstance(data, bytes) else "\n"
    return data.count(newline, 0, pos)  # type: ignore[arg-type]


class _Unreadable:
    pass


_UNREADABLE = _Unreadable()
_UNSET = object()
