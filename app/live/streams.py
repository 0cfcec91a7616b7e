"""A small transport over Redis Streams (docs/scaling.md, "Live fan-out through Redis Streams"):
append entries to a stream key, capped by ``MAXLEN`` and expiring, read them from an entry id
on with ``XREAD BLOCK``, and a control stream beside each key for requests to whoever writes
it (a Stop). It knows nothing of runs or of the protocol: a live run's publisher
(``publish.py``) and its followers on other processes (``mirror.py``) use it, and so can any
other bus that needs ordered, replayable entries across processes.

Every call is bounded: connecting and every socket operation time out (``timeout``), a blocking
read asks Redis to wait at most ``block`` (up to ``MAX_BLOCK_S``) on connections whose socket
timeout is that much longer, and nothing is retried here (the caller decides when to try again). Any failure of Redis, refused, reset,
timed out or answering an error, is one exception, ``StreamsDown``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

Fields = dict[bytes, bytes]

CONTROL_SUFFIX = ":control"
MAX_BLOCK_S = 2.0  # the longest a blocking read waits for an entry


class StreamsDown(Exception):
    """Redis could not be reached, or failed to answer in time."""


@dataclass(frozen=True)
class Entry:
    id: bytes
    fields: Fields


class RedisStreams:
    """One client (a pool of connections, shared by threads) for one Redis URL.

    ``maxlen`` caps each stream (approximately, as Redis trims whole nodes); ``ttl`` is how long
    a stream lives after its last write while it is written to, ``ttl_after`` once it is
    ``close``\\ d. Keys are used as given, so a caller's prefix separates its streams."""

    def __init__(
        self, url: str, *, maxlen: int, ttl: int, ttl_after: int, timeout: float = 1.0
    ) -> None:
        self.url = url
        self.maxlen = maxlen
        self.ttl = ttl
        self.ttl_after = ttl_after
        self.timeout = timeout
        self.client = _client(url, timeout, timeout)
        # Blocking reads on their own connections, whose answers may take the block longer:
        # redis-py reads every answer within its socket timeout (a per-call timeout is not
        # applied), so on ``client`` an XREAD BLOCK as long as the timeout always timed out.
        self.blocking = _client(url, timeout, timeout + MAX_BLOCK_S)

    # ------------------------------------------------------------------ writing
    def append(self, key: str, fields: Fields) -> bytes:
        """Add one entry (trimming the stream to about ``maxlen``) and renew the key's expiry;
        the new entry's id."""
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.xadd(key, fields, maxlen=self.maxlen, approximate=True)  # type: ignore[arg-type]
            pipe.expire(key, self.ttl)
            entry_id, _ = pipe.execute()
        except redis.RedisError as exc:
            raise StreamsDown(str(exc)) from None
        return bytes(entry_id)

    def append_all(self, key: str, entries: list[Fields]) -> None:
        """Add these entries in order, in one round trip and all or none (``MULTI``), trimming
        and renewing the key's expiry as ``append`` does."""
        try:
            pipe = self.client.pipeline(transaction=True)
            for fields in entries:
                pipe.xadd(key, fields, maxlen=self.maxlen, approximate=True)  # type: ignore[arg-type]
            pipe.expire(key, self.ttl)
            pipe.execute()
        except redis.RedisError as exc:
            raise StreamsDown(str(exc)) from None

    def close(self, key: str) -> None:
        """The stream is complete: it (and its control stream) expire ``ttl_after`` from now."""
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.expire(key, self.ttl_after)
            pipe.expire(key + CONTROL_SUFFIX, self.ttl_after)
            pipe.execute()
        except redis.RedisError as exc:
            raise StreamsDown(str(exc)) from None

    # ------------------------------------------------------------------ reading
    def read(self, key: str, after: bytes, block: float, count: int = 1000) -> list[Entry]:
        """Entries after the id ``after`` (``b"0"``: from the first), waiting up to ``block``
        seconds (at most ``MAX_BLOCK_S``) for one when there are none yet (0: do not wait); at
        most ``count``."""
        wait_ms = int(min(block, MAX_BLOCK_S) * 1000)
        try:
            answer = (self.blocking if wait_ms > 0 else self.client).execute_command(
                *("XREAD", "COUNT", count),
                *(("BLOCK", wait_ms) if wait_ms > 0 else ()),
                *("STREAMS", key, after),
            )
        except redis.RedisError as exc:
            raise StreamsDown(str(exc)) from None
        return _entries(answer)

    def last(self, key: str) -> Entry | None:
        """The stream's newest entry, or None when the key does not exist (or is empty)."""
        try:
            answer = self.client.execute_command("XREVRANGE", key, "+", "-", "COUNT", 1)
        except redis.RedisError as exc:
            raise StreamsDown(str(exc)) from None
        found = [Entry(bytes(i), _fields(f)) for i, f in answer or []]
        return found[0] if found else None

    # ------------------------------------------------------------------ control
    def request(self, key: str, fields: Fields) -> bytes:
        """Ask whoever writes ``key`` for something (its control stream)."""
        return self.append(key + CONTROL_SUFFIX, fields)

    def requests(self, key: str, after: bytes) -> list[Entry]:
        """Requests made to ``key``'s writer after the id ``after``, without waiting."""
        return self.read(key + CONTROL_SUFFIX, after, 0.0, 100)

    def ping(self) -> bool:
        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def shut(self) -> None:
        self.client.close()
        self.blocking.close()


def _client(url: str, connect_timeout: float, socket_timeout: float) -> redis.Redis:
    return redis.Redis.from_url(
        url,
        socket_timeout=socket_timeout,
        socket_connect_timeout=connect_timeout,
        retry=Retry(NoBackoff(), 0),
        health_check_interval=0,
    )


def _entries(answer: Any) -> list[Entry]:
    """XREAD's answer, ``[[key, [[id, {field: value}], ...]]]`` in RESP2 (a dict in RESP3)."""
    if not answer:
        return []
    streams = answer.items() if isinstance(answer, dict) else answer
    found: list[Entry] = []
    for _key, items in streams:
        for entry_id, fields in items:
            found.append(Entry(bytes(entry_id), _fields(fields)))
    return found


def _fields(raw: Any) -> Fields:
    if isinstance(raw, dict):
        return {bytes(k): bytes(v) for k, v in raw.items()}
    items = list(raw)
    return {bytes(items[i]): bytes(items[i + 1]) for i in range(0, len(items), 2)}
