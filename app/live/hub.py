"""A live run's timeline, shared by everyone watching it.

The upstream thread feeds reads in (``LiveRun`` is the upstream's ``Sink``) to the run's
recorded stream (``recorded.py``: redacted, recorded, parsed), and each step is logged as the
range of the timeline it added (indices, not encoded text) with the line it was recorded as
(what Redis carries to the other processes: ``publish.py``). Viewers (the person who started the run and anyone who opened its share link) each keep
an index into that log: a late viewer gets everything so far at once, then follows the live
edge. The fan-out writer (web/fanout.py) encodes each range once for every viewer at the same
place, with the encoder replays use (app/wire.py), and a viewer that falls behind gets
everything pending in one ``raw_meta`` and one ``events`` message.

A run is capped (``max_bytes``, STREAMSCOPE_MAX_LIVE_MB): its recording plus its timeline in
memory. Past the cap, or when its recording is deleted while it streams, the hub stops the
upstream (``too_large``, or ``cancelled``) and ignores what still arrives; the end comes as
always, so every viewer gets one (docs/live.md).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, Protocol

from ..captures.model import Capture
from ..domain.stream import Stream
from ..protocol import encode
from ..wire import StreamEncoder
from .findings import LiveFindings
from .followed import Piece
from .recorded import RecordedStream
from .recorder import Recorder
from .redact import Redactor
from .request import RunRequest
from .view import live_capture_message, timeline_messages

CLOSING = 3  # the last pieces of a finished run's log: its summary, findings and end


class Stoppable(Protocol):
    """What feeds a run: an upstream request (``upstream.py``), or a proxied call
    (``app/proxy/recording.py``, whose ``stop`` ends the recording and leaves the call going)."""

    def cancel(self) -> None: ...
    def stop(self, reason: str, message: str) -> None: ...


class LiveRun:
    def __init__(
        self,
        request: RunRequest | None,
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
        self.log: list[Piece] = []
        self.finished = False
        self.end_reason: str | None = None
        self.ended_ms: float | None = None  # the recorded end, ms from the request
        self.cond = threading.Condition()
        self.recorded = RecordedStream(redactor, recorder, lock=self.cond, added=self._added)
        self.builder = self.recorded.feed.builder
        self.upstream: Stoppable | None = None  # for cancel()
        self.writer: Any = None  # sends to the run's viewers (web/fanout.py)
        self.encoder = StreamEncoder(self.builder.stream)
        self.findings = LiveFindings(self.encoder, stall_ms)  # findings.py: at most once a second
        self._raw_sent = 0
        self._events_sent = 0
        self._stopped = False  # the hub stopped the upstream: what still arrives is ignored
        # A publisher (publish.py) takes the recorded lines from the log, and lets them go
        # once published; without one, the log keeps none.
        self.publishing = False

    @property
    def stream(self) -> Stream:
        return self.builder.stream

    # ------------------------------------------------------------------ Sink (upstream thread)
    def status(self, state: str, message: str) -> None:
        self._publish(
            Piece(message=encode("status", state=state, message=self.redactor.text(message)))
        )

    def response(
        self, t: float, status: int, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.recorded.response(t, status, content_type, headers)

    def read(self, t: float, data: bytes) -> None:
        if self._stopped:
            return
        self.recorded.read(t, data)
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
        """What the run holds: its recording, and the bytes its timeline is read from (kept in
        memory for the raw view; the timeline's objects are a small multiple of them)."""
        return self.recorder.size + self.stream.source.end

    def _added(self, line: bytes, at: int) -> None:
        """What one step of the recorded stream added, logged (``cond`` is held): parsed and
        logged in one critical section, so a snapshot never sees events that are not yet in
        the log (a resuming page would get them twice)."""
        stream = self.stream
        piece = Piece(
            self._raw_sent,
            len(stream.raw),
            self._events_sent,
            len(stream.events),
            lines=line,
            at=at,
        )
        self._raw_sent, self._events_sent = piece.raw_end, piece.event_end
        self._append(piece)
        found = self.findings.due()  # derived: a process that follows the run judges it itself
        if found is not None:
            self._append(Piece(message=found, derived=True))

    def cancel(self) -> None:
        """Stop the upstream at once (the page that started the run asked, or went away)."""
        if self.upstream is not None:
            self.upstream.cancel()

    def stop(self, reason: str, message: str) -> None:
        """End the run with this reason (a request from another process: publish.py)."""
        self._stop(reason, message)

    def _stop(self, reason: str, message: str) -> None:
        self._stopped = True
        if self.upstream is not None:
            self.upstream.stop(reason, message)

    def end(self, t: float, reason: str, error: str | None) -> None:
        self.ended_ms = t
        reason, _ = self.recorded.end(t, reason, error)
        end = encode("end", reason=reason, error=self.stream.end_error)
        with self.cond:
            found = self.findings.final()
        self._publish(
            Piece(message=self.encoder.summary(self.stall_ms), derived=True),
            Piece(message=found, derived=True),
            Piece(message=end, derived=True),
            finished=reason,
        )

    def abandon(self, error: str) -> None:
        """End the run for its viewers when its own end failed (its recording could not be
        finished): each gets an ``end`` saying so, whatever was stored."""
        with self.cond:
            if self.finished:
                return
        self._publish(Piece(message=encode("end", reason="error", error=error)), finished="error")

    def _publish(self, *pieces: Piece, finished: str | None = None) -> None:
        with self.cond:
            self._append(*pieces)
            if finished:
                self.finished = True
                self.end_reason = finished
                self.cond.notify_all()

    def _append(self, *pieces: Piece) -> None:
        """Add to the log and wake the viewers; the caller holds ``cond``."""
        self.log.extend(p for p in pieces if not p.empty)
        self.cond.notify_all()

    def snapshot(self, events_seen: int) -> tuple[list[str], int]:
        """For a page coming back after a dropped connection: every raw row and the events from
        ``events_seen`` on, the latest findings, and the log index to follow from."""
        with self.cond:
            catch_up = [
                self.encoder.raw_meta(0, self._raw_sent),
                *self.encoder.events(events_seen, self._events_sent),
            ]
            index = len(self.log)
            if self.finished:  # its summary, findings and end are in the log; send them again
                index = max(0, len(self.log) - CLOSING)
            elif self.findings.last is not None:
                catch_up.append(self.findings.last)
            return catch_up, index

    def raw_texts(self, start: int, count: int) -> list[dict[str, Any]]:
        with self.cond:
            return self.encoder.raw_items(start, count)

    def capture_message(self, title: str) -> str:
        with self.cond:
            return live_capture_message(self.capture_id, self.stream, title, self.stall_ms)

    def capture(self) -> Capture:
        """The finished run as its stored recording reads: one timed stream, so that the first
        open of its share link does not read the recording again."""
        with self.cond:
            return Capture(format="timed", streams=[self.stream], header=self.recorder.header)

    def messages(self, pieces: list[Piece]) -> Iterator[str]:
        """The log's pieces as protocol messages (``view.py``)."""
        return timeline_messages(self.encoder, pieces)


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
