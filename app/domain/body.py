"""One HTTP response body, read by read, as its content type says."""

from __future__ import annotations

from .events import RawEvent
from .sse import DEFAULT_MAX_LINE
from .stream import Stream
from .timeline import SSEFeeder, TimelineBuilder


class BodyFeeder:
    """One HTTP response body, read by read, chosen by its content type.

    An event stream (or no content type) goes through the SSE decoder as it arrives. A JSON
    body (a non-streaming answer, or an error) is read whole at the end as one payload.
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
            "sse" if not kind or "event-stream" in kind else "json" if "json" in kind else "other"
        )
        self.content_type = content_type
        self.sse = SSEFeeder(builder, max_line=max_line) if self.mode == "sse" else None
        self._start = builder.source.end
        self._first_t: float | None = None

    def feed(self, data: bytes, t: float | None = None) -> None:
        self.builder.source.append(data)
        if self.sse is not None:
            self.sse.feed(data, t)
        elif self._first_t is None:
            self._first_t = t

    def close(self, t: float | None = None) -> list[Stream]:
        if self.sse is not None:
            return self.sse.close(t)
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
