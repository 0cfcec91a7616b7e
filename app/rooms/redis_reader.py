"""One room's Redis stream, read for one process (docs/scaling.md, "Presenter rooms"): the
reader half of ``RedisBus`` (redis_bus.py), with the keys both halves use.

A reader calls its room's listeners under its lock, in order, each state once (numbers only go
up, whether a state came from the stream, from the store while Redis was away, or from this
process's own publish while it was). It ends once its room has no listeners (within one
blocking read), or when its bus is closed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import orjson

from ..live.streams import Entry, StreamsDown
from .bus import Listener, Mirror, PauseListener

if TYPE_CHECKING:
    from .redis_bus import RedisBus

log = logging.getLogger(__name__)

KEY_PREFIX = "streamscope:room:"
KEEP = 64  # states a room's stream keeps (MAXLEN ~)
# A reader's XREAD BLOCK waits half the transport's timeout at a time (RedisStreams.read gives
# a blocking read's socket that much longer, so a quiet room is never taken for Redis away).
BLOCK_FRACTION = 0.5
POLL_S = 1.0  # how often a paused reader looks at the store

Stored = Callable[[str], Mirror | None]  # the store's newest state of a room


def keys(room: str) -> tuple[str, str, str]:
    """The room's number, stream and latest state (one hash tag: one Redis Cluster slot)."""
    base = f"{KEY_PREFIX}{{{room}}}"
    return base + ":seq", base, base + ":latest"


def from_fields(room: str, fields: dict[bytes, bytes]) -> Mirror:
    body = orjson.loads(fields[b"m"])
    return Mirror(room, int(fields[b"s"]), body["action"], body["state"], float(body["at"]))


class Reader:
    """One room's stream, read for this process: listeners are called under its lock, in
    order, each state once (numbers only go up)."""

    def __init__(self, bus: RedisBus, room: str, after: bytes | None, floor: int) -> None:
        self.bus, self.room = bus, room
        self.key = keys(room)[1]
        self.after = after
        self.delivered = floor
        self.paused = False
        self.ended = False
        self.listeners: list[Listener] = []
        self.pause_listeners: list[PauseListener] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._loop, name=f"room-bus-{room[:6]}", daemon=True)
        self.thread.start()

    def add(self, listener: Listener, paused: PauseListener | None) -> None:
        with self.lock:
            self.listeners.append(listener)
            if paused is not None:
                self.pause_listeners.append(paused)
                if self.paused:
                    paused(True)

    def remove(self, listener: Listener, paused: PauseListener | None) -> None:
        with self.lock:
            if listener in self.listeners:
                self.listeners.remove(listener)
            if paused is not None and paused in self.pause_listeners:
                self.pause_listeners.remove(paused)

    def end_if_unheard(self) -> bool:
        with self.lock:
            self.ended = self.ended or not self.listeners
            return self.ended

    def deliver(self, mirror: Mirror) -> None:
        with self.lock:
            if mirror.seq <= self.delivered:
                return
            self.delivered = mirror.seq
            for listener in self.listeners:
                listener(mirror)

    def _loop(self) -> None:
        try:
            while not self.bus.closed.is_set() and not self.bus._ended(self):
                self._step()
        except Exception:  # a bug must not end the room for this process's pages silently
            log.exception("following room %s failed", self.room[:6])
        finally:
            with self.lock:
                self.ended = True

    def _step(self) -> None:
        try:
            if self.after is None:
                last = self.bus.streams.last(self.key)
                self.after = last.id if last is not None else b"0-0"
            block = self.bus.streams.timeout * BLOCK_FRACTION
            entries = self.bus.streams.read(self.key, self.after, block, KEEP)
        except StreamsDown:
            self._pause(True)
            self._from_store()
            self.bus.closed.wait(POLL_S)
            return
        if self.paused:
            self._pause(False)
            self._from_store()  # what the presenter did while Redis was away
        for entry in entries:
            self._take(entry)

    def _take(self, entry: Entry) -> None:
        self.after = entry.id
        try:
            mirror = from_fields(self.room, entry.fields)
        except (KeyError, ValueError, TypeError):
            log.warning("room %s: an entry that is not a state, skipped", self.room[:6])
            return
        self.bus._know(mirror)
        self.deliver(mirror)

    def _from_store(self) -> None:
        try:
            mirror = self.bus.stored(self.room)
        except Exception:  # the store is away too: the next poll tries again
            log.warning("room %s: the store did not answer", self.room[:6], exc_info=True)
            return
        if mirror is not None:
            self.bus._know(mirror)
            self.deliver(mirror)

    def _pause(self, paused: bool) -> None:
        with self.lock:
            if self.paused == paused:
                return
            self.paused = paused
            for listener in self.pause_listeners:
                listener(paused)
