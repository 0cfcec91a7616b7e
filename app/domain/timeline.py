"""Building timelines: raw items in, one or more ``Stream`` s out.

``TimelineBuilder`` takes raw events with their payloads (from any reader) and splits streams
at ``[DONE]`` when the capture may hold several (the documentation page holds two), or after
the dialect's own last event (Anthropic's ``message_stop``, Responses' ``response.completed``:
clients that loop save one response after another), or before a payload the dialect hands
back as the start of a stream of its own (a new ``response.created`` before the last ended). A single
network response (a timed capture, a live run) is never split: data after ``[DONE]`` is kept
in the same stream with a diagnostic.

``SSEFeeder`` adds the SSE decoder in front, for anything that arrives as event-stream bytes:
it is what live mode and every byte-level reader use, so replay runs the same code as live.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import orjson

from .dialects import interpreter_for
from .events import Diagnostic, RawEvent
from .fastpath import Item
from .interpret import PayloadInterpreter
from .sse import DEFAULT_MAX_LINE, SSEDecoder, SSEItem
from .stream import Source, Stream

FEED_BLOCK = 64 * 1024
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)?")
DEFAULT_MAX_EVENTS = 2_000_000


class TimelineBuilder:
    def __init__(
        self,
        source: Source,
        *,
        origin: str = "capture",
        split_on_done: bool = True,
        timed: bool = False,
        max_events: int = DEFAULT_MAX_EVENTS,
        dialect: str | None = None,
        container: str = "sse",
    ) -> None:
        self.source = source
        self.dialect = dialect
        self.container = container
        self.origin = origin
        self.split_on_done = split_on_done
        self.timed = timed
        self.max_events = max_events
        self.streams: list[Stream] = []
        self._events = 0
        self._over_limit = False
        self._start_stream()

    @property
    def stream(self) -> Stream:
        return self.streams[-1]

    def contain(self, container: str) -> None:
        """The payloads come in this container from now on (a response body whose content
        type says so)."""
        self.container = self.stream.container = container

    def _start_stream(self) -> None:
        stream = Stream(
            index=len(self.streams), source=self.source, timed=self.timed, container=self.container
        )
        stream.origin = (
            self.origin if not self.streams else f"{self.origin}, stream {stream.index + 1}"
        )
        self.streams.append(stream)
        self.interpreter = interpreter_for(stream, self.dialect, self._adopt)
        self.interpreter.may_split = self.split_on_done

    def _adopt(self, interpreter: PayloadInterpreter) -> None:
        """The stream's dialect is known: its interpreter reads from here on."""
        self.interpreter = interpreter
        interpreter.may_split = self.split_on_done

    def _handed_back(self) -> bool:
        """Whether the interpreter handed back the payload it was just given (it starts a
        stream of its own: a new response before the last one ended): it is taken out of
        this stream, to be read again in the next."""
        interpreter = self.interpreter
        if not interpreter.split_here:
            return False
        interpreter.split_here = False
        self.stream.raw.pop().index = -1  # read again, as the next stream's
        self._events -= 1
        return True

    def _place(self, raw: RawEvent) -> bool:
        self._events += 1
        if self._events > self.max_events:
            if not self._over_limit:
                self._over_limit = True
                self.interpreter.note(
                    raw,
                    "too_many_events",
                    "error",
                    f"more than {self.max_events:,} events; the rest were not read",
                )
            return False
        raw.index = len(self.stream.raw)
        self.stream.raw.append(raw)
        return True

    def data(
        self, raw: RawEvent, payload: bytes | str, data_offset: int = 0, *, split_lines: bool = True
    ) -> None:
        """One event's payload. ``split_lines`` is false for payloads that cannot hold SSE lines
        (a binary frame's), which are never split at newlines."""
        if (
            self.split_on_done
            and self.interpreter.done
            and payload.strip() not in (b"[DONE]", "[DONE]")
        ):
            done_by, opening = self.interpreter.done_by, self.interpreter.opening
            self.interpreter.finish()
            previous = self.stream
            self._start_stream()
            if opening is not None:  # what the dialect said of the stream it handed back
                self.interpreter.note(raw, *opening)
            else:
                self.interpreter.note(
                    raw,
                    "new_stream_after_done",
                    "info",
                    f"data after {done_by} (line {raw.line}): read as stream {previous.index + 2}",
                )
        if split_lines and b"\n" in payload and raw.kind == "event":
            lines = _separate_lines(payload)
            if lines is not None:
                self._split_event(raw, lines)
                return
        if self._events < self.max_events:  # _place, inlined: this runs once per event
            self._events += 1
            kept = self.streams[-1].raw
            raw.index = len(kept)
            kept.append(raw)
            self.interpreter.payload(raw, payload, data_offset)
        elif self._place(raw):
            self.interpreter.payload(raw, payload, data_offset)
        else:
            return
        if self._handed_back():
            self.data(raw, payload, data_offset, split_lines=False)

    def items(self, items: Sequence[Item], *, split_lines: bool = True) -> None:
        """Decoded items in order (SSE items, NDJSON lines, JSON array elements, frames'
        payloads), each as ``data()`` or ``comment()`` reads it. Runs of common ones (under the
        event cap, one line each, no [DONE] before them) are read by the interpreter in one
        loop (``PayloadInterpreter.run``); the builder takes the rest."""
        i, count = 0, len(items)
        while i < count:
            interpreter = self.interpreter
            room = self.max_events - self._events
            if not interpreter.done and room > 0:
                stop = count if count - i <= room else i + room
                after = interpreter.run(items, i, stop, self.streams[-1].raw)
                self._events += after - i
                i = after - 1 if self._handed_back() else after
                if i >= count or self.interpreter is not interpreter or interpreter.done:
                    continue  # the builder looks again: a new interpreter, or after [DONE]
            item = items[i]
            i += 1
            if item.data is None:
                self.comment(item.raw, getattr(item, "comment", None) or "")
            else:
                self.data(item.raw, item.data, item.data_offset, split_lines=split_lines)

    def _split_event(self, raw: RawEvent, lines: list[bytes]) -> None:
        """Events separated by a single newline (not spec SSE) arrive as one event whose data
        lines are each a whole payload: read them one by one, each with its own line."""
        spans = [
            (i, m.start(), m.end())
            for i, m in enumerate(_LINE.finditer(self.source.slice(raw.byte, raw.end)))
            if m.group().lstrip().startswith(b"data")
        ]
        first = True
        for (offset, start, end), line in zip(spans, lines, strict=False):
            part = RawEvent(-1, raw.line + offset, raw.byte + start, raw.byte + end, raw.t)
            part.event, part.id = raw.event, raw.id
            if first:
                first = False
                if self._place(part):
                    self.interpreter.note(
                        part,
                        "single_newline_events",
                        "warning",
                        "events are separated by one newline, not a blank line; "
                        "each data line read as its own event",
                    )
                self.interpreter.payload(part, line, part.byte)
                if self._handed_back():
                    self.data(part, line, part.byte, split_lines=False)
            else:
                self.data(part, line, part.byte)

    def comment(self, raw: RawEvent, text: str) -> None:
        """A comment line, or (a raw event of kind "other") an event of fields without data."""
        if self._place(raw):
            if raw.kind == "other":
                self.interpreter.sight(raw, "meta_only_event", raw.line)
            else:
                self.interpreter.comment(raw, text)

    def note(self, raw: RawEvent, code: str, severity: str, message: str) -> None:
        """A raw item that is neither data nor comment (an elision line, prose) and why."""
        if self._place(raw):
            self.interpreter.note(raw, code, severity, message)

    def diagnostic(self, diag: Diagnostic, t: float | None = None) -> None:
        diag.t = t
        self.stream.add(diag)

    def close(self) -> list[Stream]:
        self.interpreter.finish()
        return self.streams


class SSEFeeder:
    """Event-stream bytes into a ``TimelineBuilder``, read by read."""

    def __init__(
        self,
        builder: TimelineBuilder,
        *,
        line: int = 1,
        byte: int = 0,
        max_line: int = DEFAULT_MAX_LINE,
        record: bool = False,
    ) -> None:
        self.builder = builder
        self.decoder = SSEDecoder(max_line=max_line, line=line, byte=byte)
        self.record = record  # append each read to the source (timed reads); files give it whole

    def feed(self, data: bytes, t: float | None = None) -> None:
        if self.record:
            self.builder.source.append(data)
        self._take(self.decoder.feed(data, t), t)

    def feed_all(self, data: bytes, t: float | None = None) -> None:
        """A whole body at once, in blocks, so no step copies it whole."""
        for start in range(0, len(data), FEED_BLOCK):
            self.feed(data[start : start + FEED_BLOCK], t)

    def close(self, t: float | None = None) -> list[Stream]:
        self._take(self.decoder.close(t), t)
        return self.builder.close()

    def _take(self, items: list[SSEItem], t: float | None) -> None:
        """The items of one read, each after the diagnostics noted before it (so their order
        does not depend on where the reads were cut)."""
        builder = self.builder
        notes = self.decoder.take_notes()
        if not notes:  # the common read: items only
            builder.items(items)
            return
        pending = 0
        first = self.decoder.emitted - len(items)
        for number, item in enumerate(items, first):
            while pending < len(notes) and notes[pending][0] <= number:
                builder.diagnostic(notes[pending][1], t)
                pending += 1
            if item.data is not None:
                builder.data(item.raw, item.data, item.data_offset)
            else:
                builder.comment(item.raw, item.comment or "")
        for _, diag in notes[pending:]:
            builder.diagnostic(diag, t)


def _separate_lines(payload: bytes | str) -> list[bytes] | None:
    """The data lines of an event, when the whole is not JSON but every line is."""
    data = payload.encode() if isinstance(payload, str) else payload
    try:
        orjson.loads(data)
        return None
    except orjson.JSONDecodeError:
        pass
    lines = data.split(b"\n")
    for line in lines:
        if line.strip() == b"[DONE]":
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(value, dict):
            return None
    return lines
