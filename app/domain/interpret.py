"""From payloads to timeline events: what every dialect's interpreter shares.

A ``PayloadInterpreter`` is fed raw events with their payload (JSON text) and appends typed
events to a ``Stream``. This base decodes each payload (the fast path is ``orjson.loads``; a
payload orjson refuses goes through the lenient decoder, every oddity a ``Diagnostic`` with its
position), recognises ``[DONE]``, keeps comments, and reads errors reported inside the stream;
each dialect (``app/domain/dialects``) says what a decoded payload means in ``value()``. It
never raises on bad input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import orjson

from .events import Comment, Diagnostic, Done, Event, Payload, RawEvent, StreamError, ToolCallEnd
from .fastpath import FastPath, Item, read_items, read_one
from .jsontext import MAX_DEPTH, check_arguments, decode_lenient, deep_problem, too_deep
from .payloads import classify
from .stream import Stream

# Who reads a payload, by the registry's detection: (name, title), or None.
Claimant = Callable[[str | None, dict[str, Any]], tuple[str, str] | None]


class PayloadInterpreter:
    """One stream's payloads into events. Call ``finish()`` once at the end."""

    dialect: ClassVar[str | None] = None  # the registered name (docs/dialects.md)
    fast: ClassVar[FastPath | None] = None
    # Given by the registry when it starts one (dialects/__init__.py ``start``), so that this
    # module needs nothing of it: its dialect's title, and who else claims a payload
    # (the registry's detection: the name and title of the dialect that reads it).
    title_text: str = "an unknown dialect"
    claimant: Claimant | None = None

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.done = False
        # What said the stream was done: [DONE], or the dialect's own last event (a file
        # holding several streams is split after it: timeline.py).
        self.done_by = "[DONE]"
        # In a file that may hold several streams (``may_split``, given by the builder), a
        # payload can start a stream of its own before this one said it was done (a new
        # Responses response, a second Anthropic message_start): ``hand_back``.
        self.may_split = False
        self.split_here = False
        self.opening: tuple[str, str, str] | None = None  # the next stream's first note
        self.errored = False
        self.finished = False
        self.text: bytes | str | None = None  # the payload being read, while it is exact JSON

    # ------------------------------------------------------------------ entry points
    def payload(self, raw: RawEvent, data: bytes | str, data_offset: int = 0) -> None:
        """Read one event's data: ``[DONE]``, a JSON value, or something unreadable (said)."""
        if (
            isinstance(data, bytes)
            and not self.done
            and raw.event != "error"
            and read_one(self, raw, data)
        ):
            return
        self.full(raw, data, data_offset)

    def run(self, items: Sequence[Item], start: int, stop: int, kept: list[RawEvent]) -> int:
        """Place and read the items ``items[start:stop]`` in order, as ``payload`` reads each,
        in one loop (this is where a whole capture's payloads are read; fastpath.py). Returns
        the index of the first item not read: a comment or a payload holding a newline (the
        builder reads those), or the one after a payload that ended the stream or named its
        dialect (the builder decides what follows)."""
        return read_items(self, items, start, stop, kept)

    def full(self, raw: RawEvent, data: bytes | str, data_offset: int = 0) -> None:
        """``payload`` without a fast path: orjson, else the lenient decoder."""
        if self.done and not self.errored and not self._closing_done(data):
            self.note(
                raw,
                "data_after_done",
                "warning",
                "data after [DONE]: the server kept sending after saying it was done",
            )
        self.text = data
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            if data.strip() in (b"[DONE]", "[DONE]"):
                self.done = True
                self.add(Done(), raw)
                return
            value, self.text = self._decode_slow(raw, data, data_offset), None
            if value is _UNREADABLE:
                return
        else:
            # too_deep's own first test, inlined: this runs once per payload.
            brackets = (
                data.count("[") + data.count("{")
                if isinstance(data, str)
                else (data.count(b"[") + data.count(b"{"))
            )
            if brackets > MAX_DEPTH and too_deep(data):
                self.note(raw, "json_too_deep", "error", deep_problem().message)
                return
        self.value(raw, value)

    def hand_back(self, why: str, opening: tuple[str, str, str] | None = None) -> None:
        """The payload just given begins a stream of its own: this dialect reads nothing of
        it, this stream is done (``why``: what ended it), and the builder takes the payload
        out of it and reads it again as the next stream's first (timeline.py), after
        ``opening`` (code, severity, message) when given, else ``new_stream_after_done``."""
        self.done, self.done_by, self.split_here, self.opening = True, why, True, opening

    def _closing_done(self, data: bytes | str) -> bool:
        """``[DONE]`` after the dialect's own last event (some servers add it): not more data."""
        return self.done_by != "[DONE]" and data.strip() in (b"[DONE]", "[DONE]")

    def value(self, raw: RawEvent, value: Any) -> None:
        """What one decoded payload means: the dialect's own reading."""
        raise NotImplementedError

    def comment(self, raw: RawEvent, text: str) -> None:
        self.add(Comment(text=text), raw)

    def finish(self) -> None:
        """End of stream: the dialect closes what is open, then repeated diagnostics are
        counted."""
        if self.finished:
            return
        self.finished = True
        self.close()
        self.stream.note_suppressed()

    def close(self) -> None:
        """The dialect's end of stream (close open tool calls, say what was missing)."""

    # ------------------------------------------------------------------ helpers
    def add(self, event: Event, raw: RawEvent | None) -> None:
        if raw is not None:
            event.raw = raw.index
            event.t = raw.t
        if isinstance(event, Diagnostic):  # counted per code (Stream.add)
            self.stream.add(event)
            return
        events = self.stream.events
        event.seq = len(events)
        events.append(event)

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

    def sight(self, raw: RawEvent | None, fact: str, value: Any = None) -> None:
        """Note a wire fact the timeline does not keep, for the rules (sightings.py)."""
        self.stream.sightings.note(fact, raw.index if raw is not None else None, value)

    def other(self, raw: RawEvent, value: Any) -> None:
        """A payload this dialect does not read: classified and kept, never dropped. When
        another dialect would read it, the stream mixes dialects: said once per payload."""
        if isinstance(value, dict):
            category, summary = classify(value, self.not_ours())
            other = self.claimant(raw.event, value) if self.claimant is not None else None
            if other is not None and other[0] != self.dialect:
                self.note(
                    raw,
                    "mixed_dialects",
                    "warning",
                    f"this payload is {other[1]}, but the stream was read as "
                    f"{self.title()}: a stream that mixes dialects; kept as a payload",
                )
        else:
            category, summary = "not_an_object", f"a JSON {type(value).__name__}, not a chunk"
        self.add(Payload(category=category, summary=summary, value=self.kept(value)), raw)

    def kept(self, value: Any) -> Any:
        """What a ``Payload`` keeps of the payload being read: its JSON text (an
        ``orjson.Fragment``, written back as it was) when that text is exact JSON, else the
        value. Parsed, a payload of small objects costs up to 30 times its text; kept for the
        life of the capture, that would let a 50 MB upload hold 1.5 GB (docs/security.md,
        "What one client can cost")."""
        return orjson.Fragment(self.text) if self.text is not None else value

    def title(self) -> str:
        return self.title_text

    def not_ours(self) -> str:
        """What a payload this interpreter does not read is not, in a payload's summary: it
        names the dialect being read (the one the user named, or the one detected)."""
        return f"not a payload of {self.title()}"

    def error(self, raw: RawEvent, error: Any, code: Any = None) -> None:
        """An error reported inside the stream (the error object as sent, and its code when
        the dialect names one elsewhere); everything before it is kept."""
        self.errored = True
        if isinstance(error, dict):
            text = str(error.get("message") or error.get("type") or orjson.dumps(error).decode())
            code = error.get("code") if code is None else code
        else:
            text = str(error)
        self.add(StreamError(message=text, code=code, error=error, event=raw.event), raw)

    def end_call(
        self,
        raw: RawEvent | None,
        *,
        choice: int,
        call: int,
        call_id: str | None,
        name: str | None,
        arguments: str,
    ) -> None:
        """A tool call is complete: its arguments are checked as JSON only now."""
        check = check_arguments(arguments)
        end = ToolCallEnd(
            choice=choice,
            call=call,
            id=call_id,
            name=name,
            arguments=arguments,
            status=check.status,
            error=check.error,
            error_pos=check.pos,
            incomplete=check.incomplete,
        )
        self.add(end, raw)
        if raw is None:
            end.t = self.last_t()

    def last_t(self) -> float | None:
        return self.stream.raw[-1].t if self.stream.raw else None

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


def _lines_before(data: bytes | str, pos: int | None) -> int:
    if not pos:
        return 0
    if isinstance(data, bytes):
        return data.count(b"\n", 0, pos)
    return data.count("\n", 0, pos)


class _Unreadable:
    pass


_UNREADABLE = _Unreadable()
