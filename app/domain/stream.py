"""A stream: its source bytes, raw events and timeline, and what is derived from them."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .events import Diagnostic, Event, RawEvent
from .sightings import Sightings

if TYPE_CHECKING:  # the record is given by the registry, which imports this module
    from .dialects.base import Dialect

MAX_DIAGNOSTICS_PER_CODE = 20


class Source:
    """The bytes a stream was read from, kept once; raw event text is sliced from here.

    Reads are appended as they come (live) or given whole (files); offsets are absolute.
    """

    def __init__(self, data: bytes = b"", base: int = 0) -> None:
        self._chunks: list[bytes] = [data] if data else []
        self._starts: list[int] = [base] if data else []
        self._end = base + len(data)
        self._base = base

    def append(self, data: bytes) -> None:
        if data:
            self._chunks.append(data)
            self._starts.append(self._end)
            self._end += len(data)

    @property
    def end(self) -> int:
        return self._end

    def slice(self, start: int, end: int) -> bytes:
        if len(self._chunks) == 1:
            base = self._starts[0]
            return self._chunks[0][start - base : end - base]
        out = []
        i = max(bisect_right(self._starts, start) - 1, 0)
        while i < len(self._chunks) and self._starts[i] < end:
            chunk_start = self._starts[i]
            out.append(self._chunks[i][max(start - chunk_start, 0) : end - chunk_start])
            i += 1
        return b"".join(out)


@dataclass(frozen=True)
class ResponseTiming:
    """Times of a whole response, from a capture without per-read times (a HAR entry's
    ``timings``): milliseconds from the request start to the response's first byte and to its
    last byte, ``None`` when not known; ``started`` is when the request started, as the capture
    says it (text); ``source`` names where these came from ("har")."""

    source: str
    first_byte_ms: float | None
    end_ms: float | None
    started: str | None = None


TIMING_SOURCES = ("recorded", "synthesized", "har", "none")


@dataclass(frozen=True)
class RequestLine:
    """How a stream's request was sent, where the capture says: its method and URL (secrets
    scrubbed by the capture's reader: no user-info, secret query values replaced), and where
    it was known from: ``recording`` (a live run, a proxied call, a timed capture's header) or
    ``har`` (a HAR entry)."""

    method: str | None
    url: str | None
    source: str


@dataclass
class Stream:
    """One response stream as read: raw events, typed timeline, and where it came from.

    ``timed`` is true when every raw event has a real time offset (a timed capture or a live
    recording); metrics are computed only then. ``response_timing`` holds the whole response's
    times when the capture has only those (a HAR entry): TTFT and E2EL come from them.
    ``synthesized`` is true when the times were made up by a generator (the demos' network
    timing, a timed header's ``"timing": "synthesized"``), not measured; ``timing`` says where
    the times came from in one word (``TIMING_SOURCES``).
    """

    index: int
    source: Source
    origin: str = "capture"
    raw: list[RawEvent] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    timed: bool = False
    request: dict[str, Any] | None = None
    request_line: RequestLine | None = None  # its method and URL, where known (requests/)
    # How its raw events hold their payloads (docs/formats.md, "Containers"): "sse" events,
    # "lines" (one JSON payload per line), "json" (array elements, or one whole body), "docs"
    # (documentation-form blocks) or "eventstream" (binary frames).
    container: str = "sse"
    dialect: Dialect | None = None  # the registered dialect's record, once known (docs/dialects.md)
    dialect_reason: str | None = None  # why: the payload that decided it, or "named by the user"
    end_reason: str | None = None
    end_error: str | None = None
    response_timing: ResponseTiming | None = None
    synthesized: bool = False
    # The response's media type where the capture says it (curl -v, HAR, a timed capture, a
    # live run); None when the capture has only the body.
    content_type: str | None = None
    # What the reading saw that the timeline does not keep, for the rules (sightings.py).
    sightings: Sightings = field(default_factory=Sightings)
    _codes: Counter[str] = field(default_factory=Counter)

    @property
    def timing(self) -> str:
        """Where the stream's times came from: ``recorded`` (measured at each network read),
        ``synthesized`` (made by a generator), ``har`` (a HAR entry's whole-response timings)
        or ``none``."""
        if self.timed:
            return "synthesized" if self.synthesized else "recorded"
        if self.response_timing is not None:
            return self.response_timing.source
        return "none"

    @property
    def dialect_name(self) -> str | None:
        """The dialect's name, as ``inspect --json``, the wire and the store say it."""
        return self.dialect.name if self.dialect is not None else None

    def add(self, event: Event) -> None:
        if isinstance(event, Diagnostic):
            self._codes[event.code] += 1
            if self._codes[event.code] > MAX_DIAGNOSTICS_PER_CODE:
                return
        event.seq = len(self.events)
        self.events.append(event)

    def note_suppressed(self) -> None:
        """Say how many diagnostics of one code were left out (called once, at the end)."""
        for code, count in list(self._codes.items()):
            extra = count - MAX_DIAGNOSTICS_PER_CODE
            if extra > 0:
                self.add(
                    Diagnostic(
                        code="more_diagnostics",
                        severity="info",
                        message=f"{extra} more '{code}' diagnostics not listed",
                    )
                )

    def raw_text(self, index: int) -> str:
        raw = self.raw[index]
        return self.source.slice(raw.byte, raw.end).decode(errors="replace")

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [e for e in self.events if isinstance(e, Diagnostic)]
