"""One HTTP response body, read by read, as its content type says (or its first bytes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from .bodykind import Sniffer, kind_of
from .bytestart import DEFAULT_MAX_LINE
from .events import Diagnostic, RawEvent
from .eventstream import DEFAULT_MAX_FRAME, EventStreamDecoder, Frame
from .fastpath import Item
from .jsonarray import JSONArrayDecoder
from .ndjson import JSONItem, NDJSONDecoder
from .stream import Stream
from .timeline import FEED_BLOCK, SSEFeeder, TimelineBuilder

EVENTSTREAM_TYPE = "application/vnd.amazon.eventstream"
# A body's kind -> how its stream's raw events hold their payloads (Stream.container).
CONTAINER_OF = {"sse": "sse", "eventstream": "eventstream", "ndjson": "lines", "json": "json"}


class BodyFeeder:
    """One HTTP response body, read by read, chosen by its content type (``bodykind.py``).

    Every kind is read as it arrives, each read with its own time: an event stream through the
    SSE decoder, AWS event-stream frames through the frame decoder, NDJSON line by line, any
    JSON body element by element when it is a streamed array (a lone value, such as a
    non-streaming answer or an error, is one payload at the end). A missing or generic content
    type (``text/plain``), and a JSON one (NDJSON is often sent as ``application/json``), is
    decided by the first bytes, held until they decide. Anything
    else (an HTML error page) is kept and reported as not a stream. Every read is appended to
    the stream's source either way.
    """

    def __init__(
        self,
        builder: TimelineBuilder,
        content_type: str | None,
        *,
        max_line: int = DEFAULT_MAX_LINE,
    ) -> None:
        self.builder = builder
        self.content_type = content_type
        self.max_line = max_line
        self._start = builder.source.end
        self.stream: SSEFeeder | EventStreamFeeder | JSONFeeder | None = None
        kind = kind_of(content_type)
        media = (content_type or "").split(";", 1)[0].strip()
        self._sniffer: Sniffer | None = None
        self._held: list[tuple[bytes, float | None]] = []
        if kind is None or kind == "json":  # JSON: an array, NDJSON mislabelled, or one value
            self._sniffer = Sniffer(kind or ("sse" if not media else "other"))
            self.mode = "sniff"
        else:
            self._choose(kind)

    def _choose(self, kind: str) -> None:
        self.mode = kind
        self.builder.contain(CONTAINER_OF.get(kind, "json"))
        start, cap = self._start, self.max_line
        if kind == "sse":
            self.stream = SSEFeeder(self.builder, max_line=cap, byte=start)
        elif kind == "eventstream":
            self.stream = EventStreamFeeder(self.builder, max_frame=cap, byte=start)
        elif kind == "ndjson":
            self.stream = JSONFeeder(self.builder, NDJSONDecoder(max_line=cap, byte=start))
        elif kind == "json":
            self.stream = JSONFeeder(self.builder, JSONArrayDecoder(max_line=cap, byte=start))

    def feed(self, data: bytes, t: float | None = None) -> None:
        self.builder.source.append(data)
        if self._sniffer is not None:
            self._held.append((data, t))
            kind = self._sniffer.add(data)
            if kind is not None:
                self._decided(kind)
        elif self.stream is not None:
            self.stream.feed(data, t)

    def _decided(self, kind: str) -> None:
        """The first bytes decided: what was held is read, each read with its own time."""
        self._sniffer = None
        self._choose(kind)
        held, self._held = self._held, []
        if self.stream is not None:
            for data, t in held:
                self.stream.feed(data, t)

    def close(self, t: float | None = None) -> list[Stream]:
        if self._sniffer is not None:
            self._decided(self._sniffer.finish())
        if self.stream is not None:
            return self.stream.close(t)
        end = self.builder.source.end
        body = self.builder.source.slice(self._start, end)
        if body.strip():
            raw = RawEvent(-1, 1, self._start, end, t)
            preview = body[:200].decode(errors="replace").strip()
            self.builder.note(
                raw,
                "not_a_stream",
                "error",
                f"the body is {self.content_type}, not an event stream: {preview!r}",
            )
        return self.builder.close()


class JSONFeeder:
    """NDJSON lines or the elements of a streamed JSON array into a ``TimelineBuilder``, read
    by read: each payload one raw event, each problem a diagnostic in its place."""

    def __init__(self, builder: TimelineBuilder, decoder: NDJSONDecoder | JSONArrayDecoder) -> None:
        self.builder = builder
        self.decoder = decoder

    def feed(self, data: bytes, t: float | None = None) -> None:
        self._take(self.decoder.feed(data, t), t)

    def close(self, t: float | None = None) -> list[Stream]:
        self._take(self.decoder.close(t), t)
        return self.builder.close()

    def _take(self, items: list[JSONItem | Diagnostic], t: float | None) -> None:
        _in_runs(self.builder, items, t)


class EventStreamFeeder:
    """AWS event-stream bytes into a ``TimelineBuilder``, read by read: each good frame is one
    raw event whose payload is the frame's (an error frame's headers, when it has none), each
    problem a diagnostic in its place."""

    def __init__(
        self,
        builder: TimelineBuilder,
        *,
        byte: int = 0,
        max_frame: int = DEFAULT_MAX_FRAME,
        record: bool = False,
    ) -> None:
        self.builder = builder
        self.decoder = EventStreamDecoder(max_frame=max_frame, byte=byte)
        self.record = record  # append each read to the source (live reads); files give it whole

    def feed(self, data: bytes, t: float | None = None) -> None:
        if self.record:
            self.builder.source.append(data)
        self._take(self.decoder.feed(data, t), t)

    def feed_all(self, data: bytes, t: float | None = None) -> None:
        """A whole body at once, in blocks, so the decoder never holds it whole."""
        for start in range(0, len(data), FEED_BLOCK):
            self.feed(data[start : start + FEED_BLOCK], t)

    def close(self, t: float | None = None) -> list[Stream]:
        self._take(self.decoder.close(t), t)
        return self.builder.close()

    def _take(self, items: list[Frame | Diagnostic], t: float | None) -> None:
        _in_runs(self.builder, items, t)


def _in_runs(
    builder: TimelineBuilder, items: Sequence[JSONItem | Frame | Diagnostic], t: float | None
) -> None:
    """The payloads between two diagnostics go to the builder as one run (``items``), each
    diagnostic in its place. None of them is split at newlines: an NDJSON line holds none, and
    an array element's or a frame's are its own."""
    if Diagnostic not in set(map(type, items)):  # the common read: payloads only
        builder.items(cast("Sequence[Item]", items), split_lines=False)
        return
    run: list[JSONItem | Frame] = []
    for item in items:
        if isinstance(item, Diagnostic):
            builder.items(run, split_lines=False)
            run = []
            builder.diagnostic(item, t)
        else:
            run.append(item)
    builder.items(run, split_lines=False)
