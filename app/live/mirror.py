"""A live run of another process, followed through Redis (docs/scaling.md, "Live fan-out
through Redis Streams").

One ``Mirror`` per run and process: one thread reads the run's stream (``XREAD BLOCK`` from
the last entry id it has) and appends the messages to a log, which the process's fan-out
writer (web/fanout.py) sends to every viewer here, as it does a local run's. The mirror counts
the raw rows and events it has, so an entry it partly has (a snapshot after Redis came back,
``publish.py``) adds only the rest: nothing twice, nothing missing.

When Redis fails, the viewers are told (a ``status`` of state ``fallback``) and the mirror
follows the stored recording instead (``tail.py``), polling it every ``POLL_S``; when Redis
answers again they are told (``live``) and the mirror reads the stream on from where it was.
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

from ..protocol import encode
from ..storage import CaptureStore
from .entries import events_from, events_piece, kind_of, merged_events, merged_raw, skip_seen
from .followed import Piece
from .publish import stream_key
from .recorder import RECORDED_KINDS
from .streams import Entry, RedisStreams, StreamsDown
from .tail import StoredTail

log = logging.getLogger(__name__)

BLOCK_S = 1.0
CATCH_UP_S = 5.0  # how long a resuming page waits for a new mirror to reach its events
ENDED_KEPT = 1000
POLL_S = 0.5
FALLBACK = "Redis is unreachable: following the recording as the store has it (up to a second behind the live edge)"
BACK = "Redis is back: following the live edge again"


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
        self.key = stream_key(capture_id)
        self.tail = StoredTail(store, capture_id, stall_ms)
        self.deadline = deadline  # time.time() past which a run still without an end is over
        self.cond = threading.Condition()
        self.log: list[Piece] = []
        self.finished = False
        self.writer: Any = None
        self.have = (0, 0)  # raw rows and events in the log
        self.after = b"0"  # the last entry id read
        self.falling_back = False
        self.tail_lock = threading.Lock()  # the stored recording, read apart from the log
        self.tail.refresh()
        self.thread = threading.Thread(
            target=self._loop, name=f"mirror-{capture_id[:6]}", daemon=True
        )

    def start(self) -> Mirror:
        self.thread.start()
        return self

    # ------------------------------------------------------------------ what viewers use
    def messages(self, pieces: list[Piece]) -> Iterator[str]:
        """The log's messages, consecutive ``raw_meta`` and ``events`` merged as a local run's
        writer merges its pieces (hub.py): one of each per delivery, not one per entry."""
        raw: list[str] = []
        events: list[str] = []
        for piece in pieces:
            text = piece.message or ""
            kind = kind_of(text)
            if kind == "raw_meta":
                raw.append(text)
            elif kind == "events":
                events.append(text)
            elif text:
                yield from merged_raw(raw)
                yield from merged_events(events)
                raw, events = [], []
                yield text
        yield from merged_raw(raw)
        yield from merged_events(events)

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
            catch_up: list[str] = []
            for piece in self.log:
                text = piece.message or ""
                if kind_of(text) == "events":
                    catch_up.extend(events_from(piece, events_seen))
                elif kind_of(text) != "status":
                    catch_up.append(text)
            return catch_up, len(self.log)

    def raw_texts(self, start: int, count: int) -> list[dict[str, Any]]:
        with self.tail_lock:
            self.tail.refresh()
            return self.tail.raw_items(start, count)

    def capture_message(self, title: str) -> str:
        with self.tail_lock:
            return self.tail.capture_message(title)

    def cancel(self) -> None:
        """Only the page that started a run stops it, and that page is on the run's process."""

    # ------------------------------------------------------------------ reading
    def _loop(self) -> None:
        try:
            while not self.finished:
                self._step()
        except Exception:  # a bug must not leave this process's viewers without an end
            log.exception("following live run %s failed", self.key)
            self._append([encode("end", reason="error", error="following the run failed")], None)

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
            self._take(entry)
        if gone:  # expired, or lost by Redis and not written since: the store has the run
            self._from_store()

    def _say(self, state: str, message: str, *, falling_back: bool) -> None:
        if self.falling_back != falling_back:
            self.falling_back = falling_back
            self._append([encode("status", state=state, message=message)], None)

    def _take(self, entry: Entry) -> None:
        raw = [int(x) for x in entry.fields.get(b"r", b"0 0").split()]
        events = [int(x) for x in entry.fields.get(b"e", b"0 0").split()]
        if raw[0] > self.have[0] or events[0] > self.have[1]:
            self._from_store()  # the stream lost its start (MAXLEN): the store has it
        texts = entry.fields.get(b"m", b"").decode().split("\n")
        self._append_entry(texts, events[0], (raw[1], events[1]))
        self.after = entry.id

    def _append_entry(self, texts: list[str], first_event: int, ends: tuple[int, int]) -> None:
        kept: list[str | Piece] = []
        at = first_event
        for text in texts:
            kind = kind_of(text)
            if kind == "events":
                piece = events_piece(text, at)
                at = piece.event_end
                kept.extend(skip_seen(piece, self.have[1]))
            elif kind == "raw_meta" and ends[0] <= self.have[0]:
                continue
            elif text:
                kept.append(text)
        self._append(kept, ends)

    def _from_store(self) -> None:
        with self.tail_lock:
            self.tail.refresh()
            texts = self.tail.messages_from(*self.have)
            counts = self.tail.counts()
        if self.tail.deleted:
            texts = [encode("end", reason="cancelled", error="the recording was deleted")]
        elif not texts and self.tail.end is None and time.time() > self.deadline:
            texts = [
                encode("end", reason="disconnected", error="the run's server stopped answering")
            ]
        pieces: list[str | Piece] = []
        at = self.have[1]  # the tail's events start where the log's end (messages_from)
        for text in texts:
            if kind_of(text) == "events":
                piece = events_piece(text, at)
                pieces.append(piece)
                at = piece.event_end
            else:
                pieces.append(text)
        self._append(pieces, (max(self.have[0], counts[0]), max(self.have[1], counts[1])))

    def _append(self, items: list[str | Piece], ends: tuple[int, int] | None) -> None:
        with self.cond:
            for item in items:
                piece = item if isinstance(item, Piece) else Piece(message=item)
                self.log.append(piece)
                if kind_of(piece.message or "") == "end":
                    self.finished = True
            if ends is not None:
                self.have = (max(self.have[0], ends[0]), max(self.have[1], ends[1]))
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
        texts = last.fields.get(b"m", b"").decode().split("\n")
        return not any(kind_of(text) == "end" for text in texts)
