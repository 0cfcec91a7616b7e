"""A live run's recording as stored so far, read as the run's own process reads it.

A viewer on another process falls back to the stored recording when Redis is away
(``mirror.py``). The recording holds the same redacted reads, with the same times, that the
run's hub parsed (``hub.py``, ``recorder.py``), so feeding them to the same timeline builder,
without closing it before the end record, gives the same raw rows and events at the same
indices: what a viewer already has from Redis and what the store adds line up exactly. Only
the end record closes the stream, as the run's own end does.
"""

from __future__ import annotations

from typing import Any

from ..captures.model import Capture
from ..captures.timed import read_records
from ..domain.body import BodyFeeder
from ..domain.stream import Source, Stream
from ..domain.timeline import TimelineBuilder
from ..protocol import UNTIMED_PACE_MS, encode
from ..storage import CaptureStore
from ..wire import StreamEncoder, capture_message
from .hub import stored_origin, stored_request
from .recorder import settle_end


class StoredTail:
    def __init__(self, store: CaptureStore, capture_id: str, stall_ms: float) -> None:
        self.store = store
        self.capture_id = capture_id
        self.stall_ms = stall_ms
        self.builder: TimelineBuilder | None = None
        self.feeder: BodyFeeder | None = None
        self.fed = 0  # reads fed so far
        self.end: dict[str, Any] | None = None
        self.deleted = False

    @property
    def stream(self) -> Stream | None:
        return self.builder.stream if self.builder is not None else None

    def refresh(self) -> None:
        """Read the recording again and feed the reads it gained (and its end, once there)."""
        if self.end is not None or self.deleted:
            return
        try:
            data = self.store.read_bytes(self.capture_id)
        except KeyError:
            self.deleted = True
            return
        records = read_records(data, Capture(format="timed"))
        header = records.header or {}
        if self.builder is None:
            self.builder = TimelineBuilder(
                Source(), origin=stored_origin(header), split_on_done=False, timed=True
            )
            self.builder.stream.request = stored_request(header)
        if self.feeder is None and (records.response is not None or records.reads):
            self.feeder = BodyFeeder(self.builder, records.content_type)
        for t, chunk in records.reads[self.fed :]:
            assert self.feeder is not None
            self.feeder.feed(chunk, t)
        self.fed = len(records.reads)
        if records.end is not None:
            self._close(records.end)

    def _close(self, end: dict[str, Any]) -> None:
        assert self.builder is not None
        if self.feeder is None:
            self.feeder = BodyFeeder(self.builder, None)
        t = end.get("t")
        self.feeder.close(float(t) if isinstance(t, int | float) else None)
        reason = end.get("reason") if isinstance(end.get("reason"), str) else "done"
        error = end.get("error") if isinstance(end.get("error"), str) else None
        reason, error = settle_end(str(reason), error, self.builder.interpreter.errored)
        self.builder.stream.end_reason = reason
        self.builder.stream.end_error = error
        self.end = {"reason": reason, "error": error}

    # ------------------------------------------------------------------ messages
    def counts(self) -> tuple[int, int]:
        stream = self.stream
        return (len(stream.raw), len(stream.events)) if stream is not None else (0, 0)

    def messages_from(self, raw: int, events: int) -> list[str]:
        """What the recording adds past ``raw`` raw rows and ``events`` events, and its
        summary and end once it has ended."""
        stream = self.stream
        if stream is None:
            return []
        encoder = StreamEncoder(stream)
        out: list[str] = []
        if len(stream.raw) > raw:
            out.append(encoder.raw_meta(raw))
        if len(stream.events) > events:
            out.extend(encoder.events(events))
        if self.end is not None:
            out.append(encoder.summary(self.stall_ms))
            out.append(encode("end", reason=self.end["reason"], error=self.end["error"]))
        return out

    def capture_message(self, title: str) -> str:
        stream = self.stream if self.stream is not None else Stream(0, Source())
        return capture_message(
            title=title,
            source={"kind": "live", "id": self.capture_id},
            fmt="timed",
            compression=None,
            streams=[stream],
            diagnostics=[],
            pace_ms=UNTIMED_PACE_MS,
            stall_ms=self.stall_ms,
            live=True,
        )

    def raw_items(self, start: int, count: int) -> list[dict[str, Any]]:
        stream = self.stream
        return StreamEncoder(stream).raw_items(start, count) if stream is not None else []
