"""Who may open a websocket: capacity and per-client limits, decided before the upgrade.

Each websocket holds a server thread for its whole life (under gunicorn gthread as under the
threaded dev server), so the server admits at most ``capacity`` at once and answers the next
with a clear 503 instead of letting it queue behind busy threads. Per client address, at most
``per_client`` at once (429) and a token bucket of ``rate`` new connections per second with a
``burst`` (429). The checks run in ``before_request``; the slot is given back in
``teardown_request``, which runs when the websocket session is over. A presenter room
(docs/teaching.md) is named only by the page's first message, so its pages are counted when
they join (``join_room``): at most ``per_room`` at once, the next is refused (``room_full``).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass

from ..errors import Busy, RateLimited


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class Admission:
    def __init__(
        self,
        capacity: int,
        per_client: int,
        rate: float,
        burst: int,
        clock=time.monotonic,
        per_room: int = 300,
    ) -> None:
        self.capacity = capacity
        self.per_client = per_client
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.active = 0
        self._by_client: dict[str, int] = defaultdict(int)
        self._buckets: dict[str, _Bucket] = {}
        self.per_room = per_room
        self._by_room: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def enter(self, client: str) -> None:
        with self._lock:
            if self.active >= self.capacity:
                raise Busy(
                    f"this server is at capacity ({self.capacity} viewers); try again shortly",
                    code="capacity",
                )
            if self._by_client[client] >= self.per_client:
                raise RateLimited(
                    f"too many open connections from your address (limit {self.per_client})",
                    code="too_many_connections",
                )
            if not self._take_token(client):
                raise RateLimited(
                    "too many new connections from your address; slow down", code="rate_limited"
                )
            self.active += 1
            self._by_client[client] += 1

    def leave(self, client: str) -> None:
        with self._lock:
            self.active = max(0, self.active - 1)
            self._by_client[client] -= 1
            if self._by_client[client] <= 0:
                del self._by_client[client]

    def join_room(self, room: str) -> None:
        with self._lock:
            if self._by_room[room] >= self.per_room:
                raise RateLimited(
                    f"this room is full ({self.per_room} pages, STREAMSCOPE_ROOM_VIEWERS)",
                    code="room_full",
                )
            self._by_room[room] += 1

    def leave_room(self, room: str) -> None:
        with self._lock:
            self._by_room[room] -= 1
            if self._by_room[room] <= 0:
                del self._by_room[room]

    def in_room(self, room: str) -> int:
        with self._lock:
            return self._by_room.get(room, 0)

    def _take_token(self, client: str) -> bool:
        now = self.clock()
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = self._buckets[client] = _Bucket(float(self.burst), now)
            if len(self._buckets) > 10_000:  # forget idle clients now and then
                self._buckets = {k: b for k, b in self._buckets.items() if now - b.stamp < 60}
                self._buckets[client] = bucket
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True
