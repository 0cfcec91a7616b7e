"""``RoomBus`` across processes, on Redis (docs/scaling.md, "Presenter rooms"), over the same
small transport as a live run's fan-out (app/live/streams.py).

Three keys per room, sharing a hash tag: ``…:seq`` (the last number), the stream (each state,
``MAXLEN ~ 64``: every state is whole, so the newest is enough) and ``…:latest`` (the last
state, a hash). ``publish`` is one Lua script that numbers the state and appends it, so two
presenters' messages racing from two processes are numbered in the order the stream holds
them. Each process runs one reader thread per followed room: ``XREAD BLOCK`` from the last
entry id it had, calling the room's listeners in order; it ends once the room has none.

A reader calls its room's listeners under its lock, in order, each state once (numbers only go
up, whether a state came from the stream, from the store while Redis was away, or from this
process's own publish while it was). It ends once its room has no listeners (within one
blocking read), or when its bus is closed.

When Redis fails, nothing is lost: the store keeps every presenter state (the service saves
each one, app/rooms/service.py). ``publish`` numbers on from the last state this process knows
and hands it to this process's listeners; the readers tell their listeners following is paused
and hand them the store's newest state every ``POLL_S``; once Redis answers they say so, catch
up from the store and read the stream on.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import orjson
import redis

from ..live.streams import Entry, RedisStreams, StreamsDown
from .bus import MAX_ROOMS, Listener, Mirror, PauseListener

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


TTL_S = 86_400  # a room's keys expire a day after its last state (as an idle room does)

PUBLISH = """
local seq = redis.call('INCR', KEYS[1])
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 's', seq, 'm', ARGV[1])
redis.call('HSET', KEYS[3], 's', seq, 'm', ARGV[1])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[3]) end
return {seq, id}
"""
SEED = """
local have = tonumber(redis.call('GET', KEYS[1]) or '0')
if have >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
redis.call('HSET', KEYS[2], 's', ARGV[1], 'm', ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
"""


def payload(mirror: Mirror) -> bytes:
    return orjson.dumps({"action": mirror.action, "state": mirror.state, "at": mirror.at})


class RedisBus:
    """``stored`` reads a room's newest state from the store (while Redis is away)."""

    def __init__(self, streams: RedisStreams, stored: Stored, max_rooms: int = MAX_ROOMS) -> None:
        self.streams = streams
        self.stored = stored
        self.max_rooms = max_rooms
        self._publish = streams.client.register_script(PUBLISH)
        self._seed = streams.client.register_script(SEED)
        self._known: OrderedDict[str, Mirror] = OrderedDict()  # newest seen here, per room
        self._readers: dict[str, Reader] = {}
        self._lock = threading.Lock()
        self.closed = threading.Event()

    # ------------------------------------------------------------------ RoomBus
    def publish(self, room: str, action: str, state: dict[str, Any], at: float) -> Mirror:
        body = payload(Mirror(room, 0, action, state, at))
        try:
            seq, _id = self._call(self._publish, keys(room), (body, KEEP, TTL_S))
        except StreamsDown:
            return self._publish_here(room, action, state, at)
        mirror = Mirror(room, int(seq), action, state, at)
        self._know(mirror)
        return mirror

    def latest(self, room: str) -> Mirror | None:
        try:
            fields = self._call(lambda k, _a: self.streams.client.hgetall(k[2]), keys(room), ())
        except StreamsDown:
            return self.known(room)
        if not fields:
            return None
        mirror = from_fields(room, fields)
        self._know(mirror)
        return mirror

    def seed(self, mirror: Mirror) -> None:
        self._know(mirror)
        seq_key, _stream, latest_key = keys(mirror.room)
        # Redis away: known here, and Redis is seeded by the next presenter message once back.
        with contextlib.suppress(StreamsDown):
            self._call(self._seed, (seq_key, latest_key), (mirror.seq, payload(mirror), TTL_S))

    def subscribe(
        self, room: str, listener: Listener, paused: PauseListener | None = None
    ) -> Callable[[], None]:
        reader = self._join(room, listener, paused)
        if reader is None:  # the first listener here: a reader from the stream's newest entry
            after, floor = self._start(room)
            with self._lock:
                reader = self._readers.get(room)
                if reader is None or reader.ended:
                    reader = self._readers[room] = Reader(self, room, after, floor)
                reader.add(listener, paused)

        def unsubscribe() -> None:
            reader.remove(listener, paused)

        return unsubscribe

    def forget(self, room: str) -> None:
        with self._lock:
            self._known.pop(room, None)
        try:
            self._call(lambda k, _a: self.streams.client.delete(*k), keys(room), ())
        except StreamsDown:
            log.warning("room %s: Redis unreachable, its keys expire on their own", room[:6])

    # ------------------------------------------------------------------ this process
    def known(self, room: str) -> Mirror | None:
        with self._lock:
            return self._known.get(room)

    def close(self) -> None:
        """Readers end (within the transport's timeout, twice: a read and a look at the last)."""
        self.closed.set()
        with self._lock:
            readers = list(self._readers.values())
        for reader in readers:
            reader.thread.join(2 * self.streams.timeout + POLL_S + 1)

    def _publish_here(self, room: str, action: str, state: dict[str, Any], at: float) -> Mirror:
        """Redis is away: the next number after the newest this process knows (the service
        seeds it from the store first), handed to this process's listeners."""
        with self._lock:
            previous = self._known.get(room)
            mirror = Mirror(room, (previous.seq if previous else 0) + 1, action, state, at)
            self._keep(mirror)
            reader = self._readers.get(room)
        if reader is not None:
            reader.deliver(mirror)
        return mirror

    def _join(self, room: str, listener: Listener, paused: PauseListener | None) -> Reader | None:
        """The room's reader here, with the listener added; None when it has none (yet)."""
        with self._lock:
            reader = self._readers.get(room)
            if reader is None or reader.ended:
                return None
            reader.add(listener, paused)
            return reader

    def _start(self, room: str) -> tuple[bytes | None, int]:
        """Where a new reader starts: after the stream's newest entry (None: Redis is away,
        the reader looks once it is back), and the number it has already."""
        try:
            last = self.streams.last(keys(room)[1])
        except StreamsDown:
            known = self.known(room)
            return None, known.seq if known else 0
        if last is None:
            return b"0-0", 0
        return last.id, int(last.fields.get(b"s", b"0"))

    @staticmethod
    def _call(script: Callable[..., Any], names: tuple[str, ...], args: tuple[Any, ...]) -> Any:
        try:
            return script(names, args)
        except redis.RedisError as exc:
            raise StreamsDown(str(exc)) from None

    def _know(self, mirror: Mirror) -> None:
        with self._lock:
            known = self._known.get(mirror.room)
            if known is None or known.seq < mirror.seq:
                self._keep(mirror)

    def _keep(self, mirror: Mirror) -> None:
        self._known[mirror.room] = mirror
        self._known.move_to_end(mirror.room)
        while len(self._known) > self.max_rooms:
            self._known.popitem(last=False)

    def _ended(self, reader: Reader) -> bool:
        """Called by a reader: True (and it is gone) when its room has no listeners left."""
        with self._lock:
            if not reader.end_if_unheard():
                return False
            if self._readers.get(reader.room) is reader:
                del self._readers[reader.room]
            return True


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
