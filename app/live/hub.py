"""A live run's timeline, shared by everyone watching it.

The upstream thread feeds reads in (``LiveRun`` is the upstream's ``Sink``); each read is
redacted (``redact.py``: what could be the start of a secret waits for the next read),
recorded, parsed, and appended to a log of pre-encoded protocol pieces. Viewers (the
person who started the run and anyone who opened its share link) each keep an index into that
log: a late viewer gets everything so far at once, then follows the live edge. Encoding happens
once per read, not once per viewer, and a viewer that falls behind gets everything pending in
one message.

A run is capped (``max_bytes``, STREAMSCOPE_MAX_LIVE_MB): its recording plus its timeline in
memory. Past the cap, or when its recording is deleted while it streams, the hub stops the
upstream (``too_large``, or ``cancelled``) and ignores what still arrives; the end comes as
always, so every viewer gets one (docs/live.md).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..domain.body import BodyFeeder
from ..domain.stream import Source, Stream
from ..domain.summary import summarize
from ..domain.timeline import TimelineBuilder
from ..protocol import encode
from .recorder import Recorder
from .redact import Redactor
from .upstream import RunRequest

RAW_KINDS = {"event": 0, "comment": 1, "other": 2}


@dataclass
class Piece:
    """One entry of the log: timeline data or a whole message. ``raws`` and ``events`` hold the
    items of a JSON list without its brackets, as one exact-size bytes object per read (orjson
    gives each result a buffer of at least 4 KiB: one result per event would cost that much per
    event while the run lasts)."""

    raws: bytes = b""
    events: bytes = b""
    message: str | None = None


class LiveRun:
    def __init__(
        self,
        request: RunRequest,
        recorder: Recorder,
        redactor: Redactor,
        stall_ms: float,
        max_bytes: int | None = None,
    ) -> None:
        self.request = request
        self.recorder = recorder
        self.redactor = redactor
        self.stall_ms = stall_ms
        self.max_bytes = max_bytes
        self.capture_id = recorder.capture_id
        self.builder = TimelineBuilder(
            Source(), origin=recorder_url(request), split_on_done=False, timed=True
        )
        self.feeder: BodyFeeder | None = None
        self.log: list[Piece] = []
        self.finished = False
        self.end_reason: str | None = None
        self.cond = threading.Condition()
        self.upstream: Any = None  # the UpstreamRun, for cancel()
        self.writer: Any = None  # sends to the run's viewers (web/fanout.py)
        self._raw_sent = 0
        self._events_sent = 0
        self._timeline_bytes = 0
        self._last_read = 0.0
        self._stopped = False  # the hub stopped the upstream: what still arrives is ignored

    @property
    def stream(self) -> Stream:
        return self.builder.stream

    # ------------------------------------------------------------------ Sink (upstream thread)
    def status(self, state: str, message: str) -> None:
        self._publish(
            Piece(message=encode("status", state=state, message=self.redactor.text(message)))
        )

    def response(self, t: float, status: int, content_type: str) -> None:
        self.recorder.response(t, status, content_type)
        with self.cond:
            self.feeder = BodyFeeder(self.builder, content_type)

    def read(self, t: float, data: bytes) -> None:
        if self._stopped:
            return
        self._last_read = t
        self._take(t, self.redactor.feed(data))
        if self.recorder.deleted:
            self._stop(
                "cancelled", "the recording was deleted while it streamed; the run was stopped"
            )
        elif self.max_bytes is not None and self.size > self.max_bytes:
            self._stop(
                "too_large",
                f"the run passed its cap of {self.max_bytes / 1e6:g} MB (STREAMSCOPE_MAX_LIVE_MB); "
                "it was stopped, and what arrived until then is kept",
            )

    @property
    def size(self) -> int:
        """What the run holds: its recording, and its timeline as the log keeps it."""
        return self.recorder.size + self._timeline_bytes

    def _take(self, t: float, data: bytes) -> None:
        if not data:
            return
        self.recorder.read(t, data)
        with self.cond:
            if self.feeder is None:
                self.feeder = BodyFeeder(self.builder, None)
            self.feeder.feed(data, t)
            # Parsed and logged in one critical section, so a snapshot never sees events
            # that are not yet in the log (a resuming page would get them twice).
            self._append(self._new_timeline())

    def _stop(self, reason: str, message: str) -> None:
        self._stopped = True
        self.upstream.stop(reason, message)

    def end(self, t: float, reason: str, error: str | None) -> None:
        self._take(self._last_read, self.redactor.flush())  # what was held back
        with self.cond:
            if self.feeder is None:
                self.feeder = BodyFeeder(self.builder, None)
            self.feeder.close(t)
            if reason == "done" and self.builder.interpreter.errored:
                reason = "error"
                error = error or "the stream reported an error"
            self.stream.end_reason = reason
            self.stream.end_error = self.redactor.text(error) if error else None
            self._append(self._new_timeline())
        self.recorder.end(t, reason, error)
        summary = summarize(self.stream, self.stall_ms)
        end = encode("end", reason=reason, error=self.stream.end_error)
        self._publish(
            Piece(message=encode("summary", stream=0, **summary)),
            Piece(message=end),
            finished=reason,
        )

    def _new_timeline(self) -> Piece:
        stream = self.stream
        raws = list_items([raw_row(r) for r in stream.raw[self._raw_sent :]])
        events = list_items([e.to_json() for e in stream.events[self._events_sent :]])
        self._raw_sent, self._events_sent = len(stream.raw), len(stream.events)
        self._timeline_bytes += len(raws) + len(events)
        return Piece(raws=raws, events=events)

    def _publish(self, *pieces: Piece, finished: str | None = None) -> None:
        with self.cond:
            self._append(*pieces)
            if finished:
                self.finished = True
                self.end_reason = finished
                self.cond.notify_all()

    def _append(self, *pieces: Piece) -> None:
        """Add to the log and wake the viewers; the caller holds ``cond``."""
        self.log.extend(p for p in pieces if p.message or p.raws or p.events)
        self.cond.notify_all()

    def snapshot(self, events_seen: int) -> tuple[str, int]:
        """For a page coming back after a dropped connection: one message with every raw row
        and the events from ``events_seen`` on, and the log index to follow from."""
        with self.cond:
            stream = self.stream
            rows = list_items([raw_row(r) for r in stream.raw[: self._raw_sent]])
            events = list_items(
                [e.to_json() for e in stream.events[events_seen : self._events_sent]]
            )
            index = len(self.log)
            message = _events([rows], [events])
            if self.finished:  # its summary and end are in the log; send them again
                index = max(0, len(self.log) - 2)
            return message, index

    def raw_texts(self, start: int, count: int) -> list[dict[str, Any]]:
        with self.cond:
            stream = self.stream
            end = min(start + count, len(stream.raw))
            return [
                dict(stream.raw[i].to_json(), text=stream.raw_text(i)) for i in range(start, end)
            ]

    def capture_message(self, title: str) -> str:
        with self.cond:
            info = {
                "index": 0,
                "origin": self.stream.origin,
                "timed": True,
                "raw": 0,
                "events": 0,
                "request": None,
                "end_reason": None,
            }
        return encode(
            "capture",
            title=title,
            source={"kind": "live", "id": self.capture_id},
            format="timed",
            compression=None,
            live=True,
            pace_ms=40.0,
            stall_ms=self.stall_ms,
            streams=[info],
            diagnostics=[],
        )


def messages(pieces: list[Piece]) -> Iterator[str]:
    """Merge consecutive timeline pieces into one ``events`` message."""
    raws: list[bytes] = []
    events: list[bytes] = []
    for piece in pieces:
        if piece.message is not None:
            if raws or events:
                yield _events(raws, events)
                raws, events = [], []
            yield piece.message
        else:
            raws.append(piece.raws)
            events.append(piece.events)
    if raws or events:
        yield _events(raws, events)


def _events(raws: list[bytes], events: list[bytes]) -> str:
    return encode(
        "events",
        stream=0,
        raw=orjson.Fragment(b"[" + b",".join(r for r in raws if r) + b"]"),
        events=orjson.Fragment(b"[" + b",".join(e for e in events if e) + b"]"),
    )


def list_items(values: list[Any]) -> bytes:
    """The JSON items of a list, without brackets, as one exact-size bytes object."""
    return orjson.dumps(values)[1:-1] if values else b""


def raw_row(raw: Any) -> list[Any]:
    return [raw.index, raw.line, raw.t, RAW_KINDS[raw.kind], 1 if raw.choices else 0]


def recorder_url(request: RunRequest) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(request.url)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


class Registry:
    """The runs in progress, by capture id (their share links attach here)."""

    def __init__(self) -> None:
        self._runs: dict[str, LiveRun] = {}
        self._lock = threading.Lock()

    def add(self, run: LiveRun) -> None:
        with self._lock:
            self._runs[run.capture_id] = run

    def get(self, capture_id: str) -> LiveRun | None:
        with self._lock:
            return self._runs.get(capture_id)

    def remove(self, capture_id: str) -> None:
        with self._lock:
            self._runs.pop(capture_id, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._runs)
