"""A live run's log, published to its Redis stream for viewers on other processes
(docs/scaling.md, "Live fan-out through Redis Streams").

The publisher is one more reader of the run's log (``hub.py``), on its own thread, as the
fan-out writer is: the upstream thread only appends to the log and never waits for Redis. Each
entry carries what the log pieces it covers say, encoded as the page receives it (``m``: the
protocol messages, one per line), and the ranges of raw rows (``r``) and events (``e``) they
cover, so that a reader knows where each entry starts and can skip what it already has.

When Redis fails, the publisher keeps its place and tries again every ``RETRY_S``; the first
entry after a failure (and the very first) is a snapshot, the whole timeline so far, so a
stream that Redis lost in a restart is whole again from its first entry on. The run records
to the store as always; a run that ends while Redis is away is published once Redis is back,
or given up ``GIVE_UP_S`` after its end (its recording has everything).

The same thread reads the run's control stream every ``CONTROL_S``: a Stop asked on another
process (its recording deleted there) ends the run here.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

from .followed import Piece
from .hub import LiveRun
from .streams import Fields, RedisStreams, StreamsDown

log = logging.getLogger(__name__)

RETRY_S = 0.5
CONTROL_S = 0.25
GIVE_UP_S = 30.0
KEY_PREFIX = "live:"

# What a control request may ask, and the words the run's viewers get (docs/live.md).
STOPS = {
    b"deleted": ("cancelled", "the recording was deleted while it streamed; the run was stopped"),
}


def stream_key(capture_id: str) -> str:
    return KEY_PREFIX + capture_id


def entry_fields(run: LiveRun, pieces: list[Piece], at: tuple[int, int], snapshot: bool) -> Fields:
    """One entry for these log pieces: the raw rows and events from ``at`` (what was published
    before) to the end of the last timeline piece, all of them from 0 for a ``snapshot``."""
    timeline = [p for p in pieces if p.message is None]
    raw_end = timeline[-1].raw_end if timeline else at[0]
    events_end = timeline[-1].event_end if timeline else at[1]
    start = (0, 0) if snapshot else at
    if snapshot:
        whole = Piece(0, raw_end, 0, events_end)
        pieces = [whole, *(p for p in pieces if p.message is not None)]
    messages = "\n".join(run.messages(pieces))
    return {
        b"r": f"{start[0]} {raw_end}".encode(),
        b"e": f"{start[1]} {events_end}".encode(),
        b"m": messages.encode(),
    }


class RunPublisher:
    def __init__(self, run: LiveRun, streams: RedisStreams) -> None:
        self.run = run
        self.streams = streams
        self.key = stream_key(run.capture_id)
        self.index = 0  # the next log piece to publish
        self.at = (0, 0)  # raw rows and events published so far
        self.snapshot = True  # the next entry starts the stream (first, or after a failure)
        self.control_after = b"0"
        self.control_at = 0.0
        self.published = 0  # entries written (for tests and the log)
        self.thread = threading.Thread(
            target=self._loop, name=f"publish-{run.capture_id[:6]}", daemon=True
        )

    def start(self) -> RunPublisher:
        self.thread.start()
        return self

    def _loop(self) -> None:
        run = self.run
        ended_at: float | None = None
        while True:
            with run.cond:
                if self.index >= len(run.log) and not run.finished:
                    run.cond.wait(CONTROL_S)
                pieces, finished = run.log[self.index :], run.finished
            if finished and ended_at is None:
                ended_at = time.monotonic()
            ok = self._publish(pieces) if pieces else True
            if not finished:
                self._control()
            elif ok:
                self._close()
                return
            elif ended_at is not None and time.monotonic() - ended_at > GIVE_UP_S:
                log.warning(
                    "live run %s: Redis still unreachable; its end was not published", self.key
                )
                return
            if not ok:
                time.sleep(RETRY_S)

    def _publish(self, pieces: list[Piece]) -> bool:
        if self.snapshot and self.published and not self.streams.ping():
            return False  # still away: the whole timeline is not encoded again for nothing
        fields = entry_fields(self.run, pieces, self.at, self.snapshot)
        try:
            self.streams.append(self.key, fields)
        except StreamsDown as exc:
            if not self.snapshot:
                log.warning("live run %s: Redis unreachable (%s); retrying", self.key, exc)
            self.snapshot = True
            return False
        raw, events = fields[b"r"].split(), fields[b"e"].split()
        self.at = (int(raw[1]), int(events[1]))
        self.index += len(pieces)
        self.snapshot = False
        self.published += 1
        return True

    def _close(self) -> None:
        with contextlib.suppress(StreamsDown):  # else it expires ``ttl`` after its last entry
            self.streams.close(self.key)

    def _control(self) -> None:
        now = time.monotonic()
        if now - self.control_at < CONTROL_S:
            return
        self.control_at = now
        try:
            requests = self.streams.requests(self.key, self.control_after)
        except StreamsDown:
            return
        for request in requests:
            self.control_after = request.id
            stop = STOPS.get(request.fields.get(b"stop", b""))
            if stop is not None:
                self.run.stop(*stop)


def request_stop(streams: RedisStreams, capture_id: str, why: bytes) -> bool:
    """Ask the process running ``capture_id`` to stop it (``why``: a key of ``STOPS``)."""
    if why not in STOPS:
        raise ValueError(f"not a stop request: {why!r}")
    try:
        streams.request(stream_key(capture_id), {b"stop": why})
    except StreamsDown:
        return False
    return True
