"""Sending a presenter room's states to everyone in it, in this process: one writer thread per
room, as a live run has (web/fanout.py), with the same followers.

The room's bus (app/rooms/bus.py) hands each new state to the writer, which frames its
``mirror`` message once and gives the same bytes to every follower with non-blocking sends; a
follower whose socket does not drain for the send timeout is dropped, so a page that stops
reading never slows the others. Every mirror holds the whole state, so a follower that falls
more than ``KEEP`` states behind gets only the newest one. The followers' own threads only read
(``present``, ``raw_request``); what they answer goes through the writer, in order.

A bus across processes (Redis) may be away for a while: the writer tells every follower (a
``status`` of state ``fallback``, then ``live`` once it is back; docs/protocol.md), and a page
that joins meanwhile is told as it arrives.
"""

from __future__ import annotations

import threading
from collections import deque

from ...protocol import encode
from ...rooms.bus import Mirror, RoomBus
from ...services.frames import frame
from .fanout import Follower

KEEP = 64  # recent states a writer keeps for followers a little behind
IDLE_WAIT_S = 0.25
RETRY_S = 0.01  # how soon a follower with a backlog is tried again
PAUSED = (
    "Redis is unreachable: following the presenter through the store (up to a second behind); "
    "the presenter's actions are all kept"
)
BACK = "Redis is back: following the presenter live again"


class RoomWriter:
    """Starts with its first follower in its list (as web/fanout.py's writer does)."""

    def __init__(self, room: str, bus: RoomBus, first: Follower) -> None:
        self.room = room
        self.cond = threading.Condition()
        self.recent: deque[tuple[int, bytes]] = deque(maxlen=KEEP)
        self.followers: list[Follower] = [first]
        self.closed = False
        self.paused = False
        self.unsubscribe = bus.subscribe(room, self.offer, self.pause)
        self.thread = threading.Thread(target=self._loop, name=f"room-{room[:6]}", daemon=True)
        self.thread.start()

    def offer(self, mirror: Mirror) -> None:
        """A new state from the bus (called in order, under the bus's lock): framed here,
        once, and the writer woken."""
        data = frame(mirror.message().encode())
        with self.cond:
            if not self.recent or self.recent[-1][0] < mirror.seq:
                self.recent.append((mirror.seq, data))
            self.cond.notify_all()

    def pause(self, paused: bool) -> None:
        """The bus cannot follow the other processes (True), or can again: every follower is
        told, in order with the states around it."""
        text = encode(
            "status", state="fallback" if paused else "live", message=PAUSED if paused else BACK
        )
        with self.cond:
            self.paused = paused
            for follower in self.followers:
                follower.answer(text)
            self.cond.notify_all()

    def add(self, follower: Follower) -> bool:
        """False when this writer has already finished (the caller starts another)."""
        with self.cond:
            if self.closed:
                return False
            if self.paused:
                follower.answer(encode("status", state="fallback", message=PAUSED))
            self.followers.append(follower)
            self.cond.notify_all()
            return True

    def poke(self) -> None:
        """A follower has an answer to send."""
        with self.cond:
            self.cond.notify_all()

    def _loop(self) -> None:
        while True:
            with self.cond:
                followers = list(self.followers)
                if not self._due(followers):
                    self.cond.wait(RETRY_S if any(f.busy for f in followers) else IDLE_WAIT_S)
                recent = list(self.recent)
            self._deliver(recent, followers)
            with self.cond:
                self.followers = [f for f in self.followers if not f.done.is_set()]
                if not self.followers:
                    self.closed = True
                    break
        self.unsubscribe()
        with _writers_lock:
            if _writers.get(self.room) is self:
                del _writers[self.room]

    def _due(self, followers: list[Follower]) -> bool:
        newest = self.recent[-1][0] if self.recent else 0
        return any(f.index < newest or f.answers for f in followers)

    @staticmethod
    def _deliver(recent: list[tuple[int, bytes]], followers: list[Follower]) -> None:
        for follower in followers:
            if follower.done.is_set():
                continue
            missing = [(seq, data) for seq, data in recent if seq > follower.index]
            if missing:
                if recent[0][0] > follower.index + 1:  # some are gone: the newest is enough
                    missing = missing[-1:]
                for _seq, data in missing:
                    follower.backlog += data
                follower.index = missing[-1][0]
            follower.flush()


_writers: dict[str, RoomWriter] = {}
_writers_lock = threading.Lock()


def attach(room: str, bus: RoomBus, follower: Follower) -> RoomWriter:
    """Give a follower to the room's writer in this process, starting one if needed."""
    with _writers_lock:
        writer = _writers.get(room)
        if writer is None or not writer.add(follower):
            writer = _writers[room] = RoomWriter(room, bus, follower)
    latest = bus.latest(room)  # a state published before a new writer subscribed
    if latest is not None:
        writer.offer(latest)
    return writer
