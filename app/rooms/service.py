"""Presenter rooms (docs/teaching.md): making one for a capture or a demo, checking a
presenter's every message, and handing the states on to the room's bus.

What a room may cost is capped here (docs/security.md, "Presenter rooms"): rooms per capture
and per address (``rooms_per_capture``, ``rooms_per_client``), and the states one room mirrors
per second (``room_rate``, a token bucket with a burst of twice that). Viewers per room are
counted by the websocket admission (app/web/ws/admission.py).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..demos import find as find_demo
from ..protocol import ProtocolError
from ..settings import Settings
from ..storage.base import CaptureStore
from ..storage.rooms import DEMO_PREFIX, RoomRecord, RoomStore
from .bus import Mirror, RoomBus
from .state import advance, parse_action, parse_state

TOUCH_EVERY_S = 60.0  # a room is marked active at most this often for its joins
MAX_BUCKETS = 10_000


class RoomRefused(Exception):
    """A room that cannot be made: ``kind`` is not_found, conflict or limit."""

    def __init__(self, kind: str, code: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.code, self.message = kind, code, message


@dataclass(frozen=True)
class Created:
    record: RoomRecord
    key: str


class Bucket:
    """A token bucket: ``rate`` a second, a burst of twice that."""

    def __init__(self, rate: float, now: float) -> None:
        self.rate, self.burst = rate, max(1.0, 2 * rate)
        self.tokens, self.stamp = self.burst, now

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def stored_mirror(record: RoomRecord) -> Mirror | None:
    if record.state is None or record.action is None:
        return None
    return Mirror(record.id, record.seq, record.action, record.state, record.state_at or 0.0)


class RoomService:
    def __init__(
        self,
        store: Any,  # a CaptureStore that is also a RoomStore (the SQL stores are both)
        bus: RoomBus,
        settings: Settings,
        recording: Callable[[str], bool] = lambda _id: False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.captures: CaptureStore = store
        self.rooms: RoomStore = store
        self.bus = bus
        self.settings = settings
        self.recording = recording  # is this capture a live run still streaming?
        self.clock = clock
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()
        self._touched: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ making rooms
    def create(self, source: str, client: str) -> Created:
        """A room for ``source`` (a capture id, or ``demos/<name>``), made from ``client``."""
        self._check_source(source)
        now = self.clock()
        self.rooms.purge_rooms(now)
        cap = self.settings.rooms_per_capture
        if self.rooms.count_rooms(source=source, now=now) >= cap:
            raise RoomRefused(
                "limit",
                "too_many_rooms",
                f"this capture already has {cap} rooms (STREAMSCOPE_ROOMS_PER_CAPTURE); "
                "use one of them, or wait until one has been idle for a day",
            )
        cap = self.settings.rooms_per_client
        if self.rooms.count_rooms(client=client, now=now) >= cap:
            raise RoomRefused(
                "limit",
                "too_many_rooms",
                f"your address already has {cap} rooms (STREAMSCOPE_ROOMS_PER_CLIENT)",
            )
        record, key = self.rooms.create_room(source, client, now)
        return Created(record, key)

    def _check_source(self, source: str) -> None:
        if source.startswith(DEMO_PREFIX):
            if find_demo(source.removeprefix(DEMO_PREFIX)) is None:
                raise RoomRefused("not_found", "no_demo", f"no demo named {source!r}")
            return
        if self.captures.get(source) is None:
            raise RoomRefused(
                "not_found", "no_capture", "no such capture (deleted, expired, or never uploaded)"
            )
        if self.recording(source):
            raise RoomRefused(
                "conflict",
                "still_recording",
                "this live run is still streaming: present its recording once it has ended",
            )

    # ------------------------------------------------------------------ a room's state
    def get(self, room_id: str) -> RoomRecord | None:
        return self.rooms.get_room(room_id, self.clock())

    def latest(self, record: RoomRecord) -> Mirror | None:
        """The room's current state, from the bus, or from the store after a restart."""
        stored = stored_mirror(record)
        if stored is not None:
            self.bus.seed(stored)
        return self.bus.latest(record.id)

    def stored(self, room_id: str) -> Mirror | None:
        """The room's newest state as the store has it (a bus's fallback while Redis is away)."""
        record = self.get(room_id)
        return stored_mirror(record) if record is not None else None

    def now_state(self, mirror: Mirror) -> dict[str, Any]:
        """The state as it stands now (a playing presenter has moved on since it was sent)."""
        return advance(mirror.state, self.clock() - mirror.at)

    def joined(self, record: RoomRecord) -> None:
        """A viewer came: the room is not idle (written at most once a minute per room)."""
        now = self.clock()
        with self._lock:
            last = self._touched.get(record.id, record.touched)
            if now - last < TOUCH_EVERY_S:
                return
            self._remember(self._touched, record.id, now)
        self.rooms.touch_room(record.id, now)

    def present(self, room_id: str, message: dict[str, Any]) -> Mirror:
        """One presenter message: its key checked (in constant time) before anything else,
        then the room's rate, then the action and state; published and saved. Raises
        ``ProtocolError``: ``not_presenter``, ``no_room``, ``rate_limited``, ``bad_message``."""
        record = self.get(room_id)
        if record is None:
            raise ProtocolError("no_room", "this room is gone (expired, or its capture deleted)")
        key = message.get("key")
        if not isinstance(key, str) or not record.key_matches(key):
            raise ProtocolError(
                "not_presenter", "only the presenter's link may steer this room; nothing mirrored"
            )
        now = self.clock()
        if not self._allowed(room_id, now):
            rate = self.settings.room_rate
            raise ProtocolError(
                "rate_limited",
                f"more than {rate:g} presenter actions per second (STREAMSCOPE_ROOM_RATE); "
                "this one was not mirrored",
            )
        action = parse_action(message.get("action"))
        state = parse_state(message.get("state"))
        self.latest(record)  # the bus numbers on from the store's last state
        mirror = self.bus.publish(room_id, action, state, now)
        self.rooms.save_room_state(room_id, mirror.seq, action, state, now)
        return mirror

    def _allowed(self, room_id: str, now: float) -> bool:
        with self._lock:
            bucket = self._buckets.get(room_id)
            if bucket is None:
                bucket = Bucket(self.settings.room_rate, now)
            self._remember(self._buckets, room_id, bucket)
            return bucket.take(now)

    @staticmethod
    def _remember(table: OrderedDict[str, Any], key: str, value: Any) -> None:
        table[key] = value
        table.move_to_end(key)
        while len(table) > MAX_BUCKETS:
            table.popitem(last=False)
