"""A room's message stream: the one place that orders what a presenter mirrors, and the part
that changes when rooms span several processes (docs/scaling.md, "Presenter rooms").

``RoomBus`` is the interface: ``publish`` numbers a new state (``seq``, one more than the last)
and hands it to every listener of the room in this process; ``latest`` is the last state
published; ``seed`` gives a bus that has none the state the store kept (after a restart);
``subscribe`` registers a listener (each process's fan-out writer, app/web/ws/room_fanout.py).
``LocalBus`` is the one-process implementation; ``RedisBus`` (redis_bus.py) the one across
processes, chosen when ``STREAMSCOPE_REDIS_URL`` is set. The presenter's state is also saved in
the store (app/storage/rooms.py), which stays the source of truth when the bus is empty or
away; a bus that can be away tells its listeners' ``paused`` callbacks (True while it is).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..protocol import encode

MAX_ROOMS = 10_000  # rooms whose latest state a local bus keeps (least recently used go)


@dataclass(frozen=True)
class Mirror:
    """One mirrored state of a room: its number, the action that made it, and when."""

    room: str
    seq: int
    action: str
    state: dict[str, Any]
    at: float  # wall-clock seconds

    def message(self) -> str:
        return encode("mirror", room=self.room, seq=self.seq, action=self.action, state=self.state)


Listener = Callable[[Mirror], None]
PauseListener = Callable[[bool], None]  # True: following is paused (Redis away), False: back


class RoomBus(Protocol):
    def publish(self, room: str, action: str, state: dict[str, Any], at: float) -> Mirror:
        """Number the state after the room's last one and deliver it to the room's listeners
        (in order, without blocking: a listener only queues it)."""

    def latest(self, room: str) -> Mirror | None: ...

    def seed(self, mirror: Mirror) -> None:
        """The store's last state, for a bus that holds none as new (after a restart)."""

    def subscribe(
        self, room: str, listener: Listener, paused: PauseListener | None = None
    ) -> Callable[[], None]:
        """Call ``listener`` with each state published from now on (and ``paused`` when the
        bus cannot follow other processes for a while, and when it can again); returns the
        unsubscribe."""

    def forget(self, room: str) -> None:
        """The room is gone."""


class LocalBus:
    """``RoomBus`` inside one process: listeners are called under the bus's lock, in order."""

    def __init__(self, max_rooms: int = MAX_ROOMS) -> None:
        self.max_rooms = max_rooms
        self._latest: OrderedDict[str, Mirror] = OrderedDict()
        self._listeners: dict[str, list[Listener]] = {}
        self._lock = threading.Lock()

    def publish(self, room: str, action: str, state: dict[str, Any], at: float) -> Mirror:
        with self._lock:
            previous = self._latest.get(room)
            mirror = Mirror(room, (previous.seq if previous else 0) + 1, action, state, at)
            self._keep(mirror)
            for listener in self._listeners.get(room, ()):
                listener(mirror)
            return mirror

    def latest(self, room: str) -> Mirror | None:
        with self._lock:
            return self._latest.get(room)

    def seed(self, mirror: Mirror) -> None:
        with self._lock:
            known = self._latest.get(mirror.room)
            if known is None or known.seq < mirror.seq:
                self._keep(mirror)

    def subscribe(
        self, room: str, listener: Listener, paused: PauseListener | None = None
    ) -> Callable[[], None]:
        """``paused`` is never called: one process's bus is never away."""
        with self._lock:
            self._listeners.setdefault(room, []).append(listener)

        def unsubscribe() -> None:
            with self._lock:
                listeners = self._listeners.get(room, [])
                if listener in listeners:
                    listeners.remove(listener)
                if not listeners:
                    self._listeners.pop(room, None)

        return unsubscribe

    def forget(self, room: str) -> None:
        with self._lock:
            self._latest.pop(room, None)

    def _keep(self, mirror: Mirror) -> None:
        self._latest[mirror.room] = mirror
        self._latest.move_to_end(mirror.room)
        while len(self._latest) > self.max_rooms:
            oldest = next(iter(self._latest))
            if oldest in self._listeners:  # someone follows it: keep it, drop the next
                self._latest.move_to_end(oldest)
                if all(r in self._listeners for r in self._latest):
                    break
                continue
            del self._latest[oldest]
