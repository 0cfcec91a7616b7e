"""The one encoder of timeline messages (docs/protocol.md): a stored capture's replay and a live
run's tail are built here alike, so the page never learns where its events came from.

``StreamEncoder`` turns a range of one stream's raw events into a ``raw_meta`` message (one
raw-row shape, columns) and a range of its events into ``events`` batches; ``capture_message``
describes what is played. A replay encodes everything once (services/replay.py); a live run's hub
keeps only indices and its fan-out writer encodes each range once for all its viewers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from .domain.dialects.labels import ViewOf, no_view
from .domain.events import Diagnostic, Event
from .domain.findings.engine import counts
from .domain.findings.model import Finding
from .domain.requests import request_view
from .domain.rules import find
from .domain.stream import Stream
from .domain.summary import diagnostic_json, dialect_of, summarize
from .protocol import RAW_COLUMNS, encode, encode_bytes

RAW_KINDS = {"event": 0, "comment": 1, "other": 2}
RULE_DOC = "/rules#"  # a rule's entry in the catalogue page (app/web/http/rules.py)
BATCH_BYTES = 512 * 1024


def stream_info(stream: Stream) -> dict[str, Any]:
    """One stream in a ``capture`` message: where it came from, its size so far, its dialect,
    what its usage fields mean and what the page shows of it (``labels``); ``request`` is its
    request's view (app/domain/requests/), None when the capture has none."""
    dialect = dialect_of(stream)
    request = request_view(stream)
    return {
        "index": stream.index,
        "origin": stream.origin,
        "timed": stream.timed,
        "timing": stream.timing,
        "raw": len(stream.raw),
        "events": len(stream.events),
        "request": request.to_json() if request is not None else None,
        "end_reason": stream.end_reason,
        "dialect": stream.dialect_name,
        "dialect_reason": stream.dialect_reason,
        "usage_help": dialect.usage_help,
        "labels": dialect.labels.to_json(),
    }


def capture_message(
    *,
    title: str,
    source: dict[str, Any],
    fmt: str | None,
    compression: str | None,
    streams: list[Stream],
    diagnostics: list[Diagnostic],
    pace_ms: float,
    stall_ms: float,
    live: bool = False,
) -> str:
    fields: dict[str, Any] = {
        "title": title,
        "source": source,
        "format": fmt,
        "compression": compression,
        "pace_ms": pace_ms,
        "stall_ms": stall_ms,
        "streams": [stream_info(s) for s in streams],
        "diagnostics": [diagnostic_json(d) for d in diagnostics],
    }
    if live:  # the page is sent a live stream from its first raw event on, as it grows
        fields["live"] = True
        for info in fields["streams"]:
            info["raw"] = info["events"] = 0
    return encode("capture", **fields)


class StreamEncoder:
    """Messages for one stream, by range: what a replay sends whole and a live tail sends as it
    grows. Ranges are read as the stream stands; a live run only asks for ranges its hub has
    already logged, which are complete."""

    def __init__(self, stream: Stream, max_events: int = 2000) -> None:
        self.stream = stream
        self.max_events = max_events

    def raw_meta(self, start: int, end: int | None = None) -> str:
        """Raw events ``[start, end)`` as columns: time, line, kind, whether they carried
        output (``choices``), and their event name (an SSE ``event:`` or a frame's type)."""
        raws = self.stream.raw[start:end]
        values = (  # in the order of the protocol's RAW_COLUMNS
            [r.t for r in raws],
            [r.line for r in raws],
            [RAW_KINDS[r.kind] for r in raws],
            [1 if r.choices else 0 for r in raws],
            [r.event for r in raws],
        )
        columns = dict(zip(RAW_COLUMNS, values, strict=True))
        return encode("raw_meta", stream=self.stream.index, start=start, **columns)

    def events(self, start: int, end: int | None = None) -> Iterator[str]:
        """Events ``[start, end)`` in batches of at most ``max_events`` and about
        ``BATCH_BYTES``, each encoded in one call."""
        for message in self.event_messages(start, end):
            yield message.decode()

    def event_messages(self, start: int, end: int | None = None) -> Iterator[bytes]:
        """``events`` as the UTF-8 bytes that are framed (a replay frames them directly)."""
        view = dialect_of(self.stream).view
        for batch in event_batches(self.stream.events[start:end], self.max_events, view):
            yield encode_bytes("events", stream=self.stream.index, events=batch)

    def summary(self, stall_ms: float) -> str:
        return self.summary_message(stall_ms).decode()

    def summary_message(self, stall_ms: float) -> bytes:
        return encode_bytes("summary", stream=self.stream.index, **summarize(self.stream, stall_ms))

    def findings(self, stall_ms: float, *, final: bool = True) -> str:
        return self.findings_message(stall_ms, final=final).decode()

    def findings_message(self, stall_ms: float, *, final: bool = True) -> bytes:
        """The stream's findings as it stands (docs/protocol.md, ``findings``): the whole
        list, which replaces any sent before; ``final`` once the stream is complete."""
        return findings_bytes(self.stream.index, stream_findings(self.stream, stall_ms), final)

    def raw_items(self, start: int, count: int) -> list[dict[str, Any]]:
        """Raw events with their text, for the raw view (``raw``, in answer to ``raw_request``)."""
        stream = self.stream
        end = min(start + count, len(stream.raw))
        return [dict(stream.raw[i].to_json(), text=stream.raw_text(i)) for i in range(start, end)]


def rule_doc(rule: str) -> str:
    """Where a rule's entry is: its anchor on the catalogue page."""
    return RULE_DOC + rule


def finding_json(finding: Finding) -> dict[str, Any]:
    """A finding as the page, the API and ``findings`` messages give it: its fields and the
    link to its rule's entry on the catalogue page."""
    return finding.to_json(RULE_DOC)


def stream_findings(stream: Stream, stall_ms: float) -> list[Finding]:
    return find(stream, stall_ms=stall_ms)


def findings_fields(index: int, findings: list[Finding]) -> dict[str, Any]:
    """One stream's findings with their counts by severity (a message's fields, and an
    entry of ``GET /api/captures/<id>/findings``)."""
    return {
        "stream": index,
        "findings": [finding_json(f) for f in findings],
        "counts": counts(findings),
    }


def findings_bytes(index: int, findings: list[Finding], final: bool) -> bytes:
    return encode_bytes("findings", **findings_fields(index, findings), final=final)


def event_batches(
    events: list[Event], max_count: int, view: ViewOf = no_view
) -> Iterator[orjson.Fragment]:
    """Events as JSON arrays of at most ``max_count`` events and about ``BATCH_BYTES``, each
    encoded in one call (one result per event would cost a 4 KiB buffer each). A batch that
    comes out over twice ``BATCH_BYTES`` is encoded again with as many events as fit in
    ``BATCH_BYTES`` at its size per event, and so are the batches after it (a stream's events
    are alike: with logprobs, every one is large), so each event is encoded about once; small
    batches grow back to ``max_count``. ``view`` is the stream's dialect's: an event it has a
    view of carries it as ``view`` (docs/protocol.md, ``events``)."""
    count, start = max_count, 0
    while start < len(events):
        batch = events[start : start + count]
        data = _encoded(batch) if view is no_view else _encoded_with_views(batch, view)
        if len(data) > 2 * BATCH_BYTES and len(batch) > 1:
            count = max(1, len(batch) * BATCH_BYTES // len(data))
            continue
        yield orjson.Fragment(data)
        start += len(batch)
        if len(data) < BATCH_BYTES // 2 and count < max_count:
            count = min(max_count, 2 * count)


# The kinds a dialect's view may describe (docs/timeline.md, "Block views").
VIEWED = frozenset(
    {"block_start", "block_stop", "block_delta", "citation", "extra", "payload", "tool_start"}
)


def _encoded(events: list[Event]) -> bytes:
    return orjson.dumps([e.to_json() for e in events])


def _encoded_with_views(events: list[Event], view: ViewOf) -> bytes:
    return orjson.dumps([_viewed(e, view) for e in events])


def _viewed(event: Event, view: ViewOf) -> dict[str, Any]:
    found = event.to_json()
    if event.kind in VIEWED:
        seen = view(event)
        if seen is not None:
            found["view"] = seen
    return found
