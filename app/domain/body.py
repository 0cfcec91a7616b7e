"""One HTTP response body, read by read, as its content type says."""

from __future__ import annotations

import orjson

from .events import Diagnostic, RawEvent
from .eventstream import DEFAULT_MAX_FRAME, EventStreamDecoder, Frame
from .sse import DEFAULT_MAX_LINE
from .stream import Stream
from .timeline import FEED_BLOCK, SSEFeeder, TimelineBuilder

EVENTSTREAM_TYPE = "application/vnd.amazon.eventstream"
CONTAINER_OF = {"sse": "sse", "eventstream": "eventstream", "json": "json"}  # body mode -> Stream


class BodyFeeder:
    """One HTTP response body, read by read, chosen by its content type.

    An event stream (or no content type) goes through the SSE decoder as it arrives, AWS
    event-stream frames (``application/vnd.amazon.eventstream``) through the frame decoder. A
    JSON body (a non-streaming answer, or an error) is read whole at the end as one payload.
    Anything else (an HTML error page) is kept and reported as not a stream. Every read is
    appended to the stream's source either way.
    """

    def __init__(
        self,
        builder: TimelineBuilder,
        content_type: str | None,
        *,
        max_line: int = DEFAULT_MAX_LINE,
    ) -> None:
        kind = (content_type or "").lower()
        self.builder = builder
        self.mode = (
            "eventstream"
            if "amazon.eventstream" in kind
            else "sse"
            if not kind or "event-stream" in kind
            else "json"
            if "json" in kind
            else "other"
        )
        self.content_type = content_type
        builder.contain(CONTAINER_OF.get(self.mode, "json"))
        start = builder.source.end
        self.stream: SSEFeeder | EventStreamFeeder | None = None
        if self.mode == "sse":
            self.stream = SSEFeeder(builder, max_line=max_line)
        elif self.mode == "eventstream":
            self.stream = EventStreamFeeder(builder, max_frame=max_line, byte=start)
        self._start = start
        self._first_t: float | None = None

    def feed(self, data: bytes, t: float | None = None) -> None:
        self.builder.source.append(data)
        if self.stream is not None:
            self.stream.feed(data, t)
        elif self._first_t is None:
            self._first_t = t

    def close(self, t: float | None = None) -> list[Stream]:
        if self.stream is not None:
            return self.stream.close(t)
        end = self.builder.source.end
        body = self.builder.source.slice(self._start, end)
        raw = RawEvent(-1, 1, self._start, end, t)
        if self.mode == "json" and body.strip():
            self.builder.data(raw, body.strip(), self._start)
        elif body.strip():
            preview = body[:200].decode(errors="replace").strip()
            self.builder.note(
                raw,
                "not_a_stream",
                "error",
                f"the body is {self.content_type}, not an event stream: {preview!r}",
            )
        return self.builder.close()


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
        for item in items:
            if isinstance(item, Diagnostic):
                self.builder.diagnostic(item, t)
            else:
                self.builder.data(
                    item.raw, frame_data(item), item.payload_offset, split_lines=False
                )


def frame_data(frame: Frame) -> bytes:
    """What a frame says: its payload, or for an error frame without one, its error headers
    as an in-stream error object, ``{"error": {"code", "message"}}``."""
    if frame.message_type != "error" or frame.payload.strip():
        return frame.payload
    code, message = frame.headers.get(":error-code"), frame.headers.get(":error-message")
    error = {"code": code if isinstance(code, str) else None, "message": str(message or code or "")}
    return orjson.dumps({"error": error})
