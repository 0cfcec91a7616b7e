"""A live run of another process, followed through Redis (docs/scaling.md, "Live fan-out
through Redis Streams").

One ``Mirror`` per run and process: the run's tail (``tail.py``) fed from Redis. It reads the
stored recording once when it is made, then one thread reads the run's stream (``XREAD BLOCK``
from the last entry id it has): the run's recorded lines, each entry at its byte of the
recording, and its status messages (``publish.py``). The tail takes from each entry only the
bytes it has not fed, so nothing is built twice and nothing is missing, and it builds the same
timeline the run's process builds, with the same builder. Each step's raw rows and events are
encoded once into the mirror's log, which the process's fan-out writer (web/fanout.py) sends
to every viewer here, as it does a local run's.

When Redis fails, the viewers are told (a ``status`` of state ``fallback``) and the mirror
follows the stored recording instead, every ``POLL_S`` reading it from the byte the tail is at
(``read_from``: what is new, whatever the recording's length); when Redis answers again they
are told (``live``) and the mirror reads the stream on from where it was. An entry that starts
past the tail (the stream lost its start: ``MAXLEN``, or a restarted Redis) has what comes
before it in the store.
A run whose stream is gone (expired, or Redis lost it and its process did not write again) is
followed from the store until its end record; one that never ends there (its process died) is
ended ``disconnected`` once it is older than the longest a run may last.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

from ..domain.stream import Source, Stream
from ..protocol import encode
from ..storage import CaptureStore
from ..wire import StreamEncoder
from .findings import LiveFindings
from .followed import Piece
from .publish import LINES, MESSAGE, OFFSET, request_stop, stream_key
from .recorder import RECORDED_KINDS
from .streams import Entry, RedisStreams, StreamsDown
from .tail import RecordedTail
from .view import live_capture_message, span_messages

log = logging.getLogger(__name__)
END_LINE = b'{"type":"end"'  # a recorded end record starts so (captures/timed.py)

BLOCK_S = 1.0
CATCH_UP_S = 5.0  # how long a resuming page waits for a new mirror to reach its events
ENDED_KEPT = 1000
POLL_S = 0.5
FALLBACK = "Redis is unreachable: following the recording as the store has it (up to a second behind the live edge)"
BACK = "Redis is back: following the live edge again"


def is_end(text: str) -> bool:
    """Every message starts with its type (protocol.encode)."""
    return text.startswith('{"type":"end"')


class Mirror:
    def __init__(
        self,
        capture_id: str,
        streams: RedisStreams,
        store: CaptureStore,
        stall_ms: float,
        deadline: float,
    ) -> None:
        self.capture_id = capture_id
        self.streams = streams
        self.store = store
        self.stall_ms = stall_ms
        self.key = stream_key(capture_id)
        self.tail = RecordedTail()
        self.deadline = deadline  # time.time() past which a run still without an end is over
        self.cond = threading.Condition()
        self.log: list[Piece] = []
        self.closing: list[str] = []  # the summary and end, once they came
        self.finished = False
        self.writer: Any = None
        self.after = b"0"  # the last entry id read
        self.falling_back = False
        self._steps = 0
        self._findings: LiveFindings | None = None  # made with the stream (the tail's)
        self._from_store(whole=True)
        self.thread = threading.Thread(
            target=self._loop, name=f"mirror-{capture_id[:6]}", daemon=True
        )

    def start(self) -> Mirror:
        self.thread.start()
        return self

    @property
    def stream(self) -> Stream:
        return self.tail.stream if self.tail.stream is not None else Stream(0, Source())

    @property
    def have(self) -> tuple[int, int]:
        """The raw rows and events built so far."""
        stream = self.tail.stream
        return (len(stream.raw), len(stream.events)) if stream is not None else (0, 0)

    # ------------------------------------------------------------------ what viewers use
    def messages(self, pieces: list[Piece]) -> Iterator[str]:
        """The log's messages, the timeline of consecutive steps merged as a local run's
        writer merges its pieces (hub.py): one ``raw_meta`` and one ``events`` per delivery;
        one step's messages as they were encoded."""
        span: list[Piece] = []
        for piece in [*pieces, Piece(message="")]:
            if piece.step >= 0:
                span.append(piece)
                continue
            if span:
                yield from self._span(span)
                span = []
            if piece.message:
                yield piece.message

    def _span(self, span: list[Piece]) -> Iterator[str]:
        if span[0].step == span[-1].step:
            yield from (piece.message or "" for piece in span)
        else:
            yield from span_messages(StreamEncoder(self.stream), span[0], span[-1])

    def snapshot(self, events_seen: int) -> tuple[list[str], int]:
        """For a page coming back after a dropped connection: every raw row, the events from
        ``events_seen`` on, and the summary and end when they came; then the live edge."""
        with self.cond:
            # The page has these events from another process: wait (a little) until this
            # mirror has them too, so that it resumes after them rather than sending them again.
            deadline = time.monotonic() + CATCH_UP_S
            while self.have[1] < events_seen and not self.finished:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            raw, events = self.have
            encoder = StreamEncoder(self.stream)
            catch_up = [encoder.raw_meta(0, raw)] if raw else []
            if events > events_seen:
                catch_up.extend(encoder.events(events_seen, events))
            if not self.closing and self._findings is not None and self._findings.last:
                catch_up.append(self._findings.last)
            return [*catch_up, *self.closing], len(self.log)

    def raw_texts(self, start: int, count: int) -> list[dict[str, Any]]:
        with self.cond:
            return StreamEncoder(self.stream).raw_items(start, count)

    def capture_message(self, title: str) -> str:
        with self.cond:
            return live_capture_message(self.capture_id, self.stream, title, self.stall_ms)

    def cancel(self) -> None:
        """A Stop from a page here that may stop the run (it holds the delete token:
        web/live_session.py): asked of the run's process through its control stream."""
        if not request_stop(self.streams, self.capture_id, b"stopped"):
            log.warning("live run %s: Redis unreachable; the Stop was not passed on", self.key)

    # ------------------------------------------------------------------ reading
    def _loop(self) -> None:
        try:
            while not self.finished:
                self._step()
        except Exception:  # a bug must not leave this process's viewers without an end
            log.exception("following live run %s failed", self.key)
            self._end(encode("end", reason="error", error="following the run failed"))

    def _step(self) -> None:
        try:
            entries = self.streams.read(self.key, self.after, BLOCK_S)
            gone = not entries and self.streams.last(self.key) is None
        except StreamsDown:
            self._say("fallback", FALLBACK, falling_back=True)
            self._from_store()
            time.sleep(POLL_S)
            return
        self._say("live", BACK, falling_back=False)
        for entry in entries:
            if not self._take(entry):
                time.sleep(POLL_S)  # what comes before it is not in the store yet either
                return
            self.after = entry.id
        if gone:  # expired, or lost by Redis and not written since: the store has the run
            self._from_store()

    def _say(self, state: str, message: str, *, falling_back: bool) -> None:
        if self.falling_back != falling_back:
            self.falling_back = falling_back
            with self.cond:
                self._append(Piece(message=encode("status", state=state, message=message)))

    def _take(self, entry: Entry) -> bool:
        """One entry: a message (a status, or the end of a run that could not end as
        recorded), or recorded lines from a byte of the recording on (``publish.py``)."""
        fields = entry.fields
        if MESSAGE in fields:
            text = fields[MESSAGE].decode()
            if is_end(text):
                self._end(text)
            else:
                with self.cond:
                    self._append(Piece(message=text))
            return True
        at = int(fields.get(OFFSET, b"0"))
        if at > self.tail.at:
            self._from_store()  # the stream lost its start (MAXLEN, a restart): the store has it
        return self._feed(at, fields.get(LINES, b""))

    def _from_store(self, *, whole: bool = False) -> None:
        """What the stored recording adds: from the byte the tail is at on (the first time,
        all of it)."""
        try:
            at = 0 if whole else self.tail.at
            data = (
                self.store.read_bytes(self.capture_id)
                if whole
                else self.store.read_from(self.capture_id, at)
            )
        except KeyError:
            self._end(encode("end", reason="cancelled", error="the recording was deleted"))
            return
        fed = self.tail.at
        self._feed(at, data)
        if self.tail.at == fed and self.tail.end is None and time.time() > self.deadline:
            self._end(
                encode("end", reason="disconnected", error="the run's server stopped answering")
            )

    def _feed(self, at: int, data: bytes) -> bool:
        """Build what these lines add, and log it as one step."""
        with self.cond:
            if self.finished:
                return True
            raw, events = self.have
            if not self.tail.take(at, data):
                return False
            self._log_step(raw, events)
            end = self.tail.end
            if end is not None:
                encoder = StreamEncoder(self.stream)
                self.closing = [
                    encoder.summary(self.stall_ms),
                    LiveFindings(encoder, self.stall_ms).final(),
                    encode("end", reason=end["reason"], error=end["error"]),
                ]
                self._append(*(Piece(message=text) for text in self.closing))
                self.finished = True
            return True

    def _log_step(self, raw: int, events: int) -> None:
        """The step's raw rows and events, encoded once, each message a piece that knows the
        step's ranges (``cond`` is held)."""
        now_raw, now_events = self.have
        if (now_raw, now_events) == (raw, events):
            return
        encoder = StreamEncoder(self.stream)
        texts = [encoder.raw_meta(raw, now_raw)] if now_raw > raw else []
        if now_events > events:
            texts.extend(encoder.events(events, now_events))
        step = self._steps
        self._steps += 1
        self._append(
            *(Piece(raw, now_raw, events, now_events, message=text, step=step) for text in texts)
        )
        if self.tail.end is None:  # the end judges it once more (_feed)
            found = self._live_findings().due()
            if found is not None:
                self._append(Piece(message=found))

    def _live_findings(self) -> LiveFindings:
        """The run's findings as this process judges them, from its own timeline (findings.py)."""
        if self._findings is None or self._findings.encoder.stream is not self.stream:
            self._findings = LiveFindings(StreamEncoder(self.stream), self.stall_ms)
        return self._findings

    def _end(self, text: str) -> None:
        with self.cond:
            if not self.finished:
                self.closing = [text]
                self._append(Piece(message=text))
                self.finished = True

    def _append(self, *pieces: Piece) -> None:
        """Add to the log and wake the viewers; the caller holds ``cond``."""
        self.log.extend(pieces)
        self.cond.notify_all()


class Mirrors:
    """This process's mirrors, one per run followed here, made on its first viewer."""

    def __init__(self, streams: RedisStreams, store: CaptureStore, stall_ms: float, longest: float):
        self.streams = streams
        self.store = store
        self.stall_ms = stall_ms
        self.longest = longest  # seconds a run may last (total_timeout), plus a margin
        self._mirrors: dict[str, Mirror] = {}
        self._ended: dict[str, None] = {}  # recordings found ended (oldest first), not read again
        self._flights: dict[str, threading.Lock] = {}  # a mirror being made, by capture id
        self._lock = threading.Lock()

    def follow(self, capture_id: str) -> Mirror | None:
        """The mirror of ``capture_id`` when it is a live run of another process: its recording
        is live and has no end, and Redis (when it answers) has not published an end. A class
        opening the link together makes one mirror: the others wait for it (single flight)."""
        with self._lock:
            flight = self._flights.setdefault(capture_id, threading.Lock())
        try:
            with flight:
                return self._follow(capture_id)
        finally:
            with self._lock:
                if not flight.locked():
                    self._flights.pop(capture_id, None)

    def _follow(self, capture_id: str) -> Mirror | None:
        with self._lock:
            found = self._mirrors.get(capture_id)
            if found is not None and not found.finished:
                return found
            if capture_id in self._ended:
                return None
        record = self.store.get(capture_id)
        if (
            record is None
            or record.source not in RECORDED_KINDS
            or time.time() > record.created + self.longest
        ):
            return None  # not a live recording, or older than any run may last: ended
        if not self._running(capture_id):
            return None
        mirror = Mirror(
            capture_id, self.streams, self.store, self.stall_ms, record.created + self.longest
        )
        with self._lock:
            if mirror.tail.end is not None:  # its stream expired after the end: a replay
                self._ended[capture_id] = None
                while len(self._ended) > ENDED_KEPT:
                    self._ended.pop(next(iter(self._ended)))
                return None
            self._mirrors = {k: m for k, m in self._mirrors.items() if not m.finished}
            self._mirrors[capture_id] = mirror
        return mirror.start()

    def _running(self, capture_id: str) -> bool:
        try:
            last = self.streams.last(stream_key(capture_id))
        except StreamsDown:
            return True  # the stored recording decides (its end record)
        if last is None:
            return True
        if MESSAGE in last.fields:
            return not is_end(last.fields[MESSAGE].decode())
        lines = last.fields.get(LINES, b"")
        return not (lines.startswith(END_LINE) or b"\n" + END_LINE in lines)
