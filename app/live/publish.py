"""A live run's input, published to its Redis stream for viewers on other processes
(docs/scaling.md, "Live fan-out through Redis Streams").

The publisher is one more reader of the run's log (``hub.py``), on its own thread, as the
fan-out writer is: the upstream thread only appends to the log and never waits for Redis.
What crosses Redis is what came in, not what went out: the lines the run recorded (the
redacted reads with their times, the response and the end, as the store has them: ``l``, from
byte ``o`` of the recording on) and the status messages its viewers get (``m``). A follower
builds the timeline from the lines with the same builder (``mirror.py``), so nothing is
encoded for Redis here, and the summary and end it makes itself from the end line.

One batch of log pieces is one ``XADD`` per run of lines (at most ``ENTRY_BYTES`` each) and
per message, in one round trip, in order; the stream's first batch gives its lines before its
messages (what was recorded so far, then what was said meanwhile). When Redis fails, the
publisher keeps its place and tries again every ``RETRY_S``; a follower finds in the store
whatever a stream lost (each entry says where in the recording it starts). A run that ends
while Redis is away is published once Redis is back, or given up ``GIVE_UP_S`` after its end
(its recording has everything).

The same thread reads the run's control stream every ``CONTROL_S``: a Stop asked on another
process (its recording deleted there, or the Stop of a page there that holds its delete token)
ends the run here.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import replace

from .followed import Piece
from .hub import LiveRun
from .streams import Fields, RedisStreams, StreamsDown

log = logging.getLogger(__name__)

RETRY_S = 0.5
CONTROL_S = 0.25
GIVE_UP_S = 30.0
ENTRY_BYTES = 256 * 1024
KEY_PREFIX = "live:"
OFFSET, LINES, MESSAGE = b"o", b"l", b"m"

# What a control request may ask, and the words the run's viewers get (docs/live.md); a
# ``stopped`` is the Stop of a page that holds the run's delete token, asked on another
# process: the run's own ``cancel``, as its starter's Stop (a proxied call's goes on).
STOPS = {
    b"deleted": ("cancelled", "the recording was deleted while it streamed; the run was stopped"),
    b"stopped": ("cancelled", "stopped by the user"),
}


def stream_key(capture_id: str) -> str:
    return KEY_PREFIX + capture_id


def entries_of(pieces: list[Piece], *, first: bool = False) -> list[Fields]:
    """The entries for these log pieces: consecutive recorded lines as one (from the byte the
    first starts at), each message to publish as one; a ``first`` batch's lines first."""
    lines: list[Fields] = []
    messages: list[Fields] = []
    order: list[Fields] = []
    run: list[bytes] = []
    at = 0
    size = 0

    def cut() -> None:
        nonlocal run, size
        if run:
            entry = {OFFSET: str(at).encode(), LINES: b"".join(run)}
            lines.append(entry)
            order.append(entry)
        run, size = [], 0

    for piece in pieces:
        if piece.lines:
            if run and size + len(piece.lines) > ENTRY_BYTES:
                cut()
            if not run:
                at = piece.at
            run.append(piece.lines)
            size += len(piece.lines)
        elif piece.message is not None and not piece.derived:
            cut()
            entry = {MESSAGE: piece.message.encode()}
            messages.append(entry)
            order.append(entry)
    cut()
    return [*lines, *messages] if first else order


class RunPublisher:
    def __init__(self, run: LiveRun, streams: RedisStreams) -> None:
        self.run = run
        self.streams = streams
        self.key = stream_key(run.capture_id)
        self.index = 0  # the next log piece to publish
        self.control_after = b"0"
        self.control_at = 0.0
        self.published = 0  # batches written (for tests and the log)
        self.failing = False
        run.publishing = True  # before the run's first read (service.py, proxy/service.py)
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
        entries = entries_of(pieces, first=not self.published)
        try:
            if entries:
                self.streams.append_all(self.key, entries)
        except StreamsDown as exc:
            if not self.failing:
                log.warning("live run %s: Redis unreachable (%s); retrying", self.key, exc)
            self.failing = True
            return False
        self.failing = False
        self._let_go(self.index, self.index + len(pieces))
        self.index += len(pieces)
        self.published += 1
        return True

    def _let_go(self, start: int, end: int) -> None:
        """The log keeps the published pieces' ranges, not their lines (the store has them)."""
        log = self.run.log
        with self.run.cond:
            for index in range(start, end):
                if log[index].lines:
                    log[index] = replace(log[index], lines=b"")

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
            why = request.fields.get(b"stop", b"")
            if why == b"stopped":
                self.run.cancel()
            elif why in STOPS:
                self.run.stop(*STOPS[why])


def request_stop(streams: RedisStreams, capture_id: str, why: bytes) -> bool:
    """Ask the process running ``capture_id`` to stop it (``why``: a key of ``STOPS``)."""
    if why not in STOPS:
        raise ValueError(f"not a stop request: {why!r}")
    try:
        streams.request(stream_key(capture_id), {b"stop": why})
    except StreamsDown:
        return False
    return True
