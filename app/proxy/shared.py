"""The proxy's calls list shared by every process that shares Redis (docs/proxy.md, "The calls
list"): a call made through one process is listed, live, on every other's ``/proxy`` and
``GET /api/proxy/calls``.

Each process publishes its calls as they change to one Redis stream (``proxy:calls``, capped
like a live run's by ``STREAMSCOPE_REDIS_MAXLEN`` and expiring): a thread that runs while
calls are in progress looks at them every ``TICK_S`` and appends the listing of each call
whose listing changed, without its delete token (a secret stays on its process: a call from
another process is listed with ``delete_token`` null). A listing reads what the stream gained
since the last one (never waiting), keeps the newest listing of each call (at most ``KEPT``),
and merges them with this process's own calls, newest first; a call still in progress there
has its duration counted on from its start. With Redis away a process lists its own calls.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from typing import Any

import orjson

from ..live.streams import Entry, RedisStreams, StreamsDown
from .calls import KEPT, Call, Calls

KEY = "proxy:calls"
TICK_S = 0.25
PAGE = 1000  # entries read at a time
ACTIVE = ("connecting", "streaming")
CHANGING = ("duration_ms", "delete_token")  # not what makes a listing change


SETTLING_S = 30.0  # how long after its end a call's recording may take to be all stored


def shared(listing: dict[str, Any]) -> dict[str, Any]:
    """A call's listing as other processes get it."""
    listing = {**listing, "delete_token": None}
    listing.pop("ended", None)
    return listing


def unsettled(call: Call) -> bool:
    """Whether the call's listing may still change: it is in progress, or its recording is
    not all in the store yet (``recording_end``)."""
    if call.ended is None:
        return True
    waiting = call.recording is not None and call.recording_end is None
    return waiting and time.monotonic() - call.ended < SETTLING_S


class SharedCalls:
    def __init__(self, calls: Calls, streams: RedisStreams) -> None:
        self.calls = calls
        self.streams = streams
        self.sent: dict[int, dict[str, Any]] = {}  # by call number: the listing last published
        self.remote: OrderedDict[str, dict[str, Any]] = OrderedDict()  # by call id
        self.after = b"0"
        self.origin = secrets.token_hex(8).encode()  # this process's entries, not read back
        self._lock = threading.Lock()
        self._running = False
        calls.on_add = self.watch

    # ------------------------------------------------------------------ publishing
    def watch(self, call: Call) -> None:
        """A call began here: publish it now and while it changes."""
        with self._lock:
            if self._running:
                return
            self._running = True
        threading.Thread(target=self._loop, name="proxy-calls", daemon=True).start()

    def _loop(self) -> None:
        while True:
            busy = self.publish()
            time.sleep(TICK_S)
            with self._lock:
                if not busy and not any(unsettled(c) for c in self.calls.kept()):
                    self.publish()
                    self._running = False
                    return

    def publish(self) -> bool:
        """The listings that changed since the last publication; whether any was left to
        publish (Redis away)."""
        now = time.monotonic()
        changed = []
        for call in self.calls.kept():
            listing = call.to_json(now)
            listing["ended"] = call.ended is not None  # its duration is final (not shared)
            if _steady(listing) != _steady(self.sent.get(call.number, {})):
                changed.append((call, listing))
        if not changed:
            return False
        try:
            self.streams.append_all(
                KEY,
                [
                    {b"c": orjson.dumps(shared(listing)), b"p": self.origin}
                    for _, listing in changed
                ],
            )
        except StreamsDown:
            return True
        for call, listing in changed:
            self.sent[call.number] = listing
        kept = {call.number for call in self.calls.kept()}
        self.sent = {n: listing for n, listing in self.sent.items() if n in kept}
        return False

    # ------------------------------------------------------------------ listing
    def listing(self) -> list[dict[str, Any]]:
        """Every process's calls, newest first (the most recent ``KEPT``)."""
        own = self.calls.listing()
        self._read()
        ids = {call["id"] for call in own}
        now = time.time()
        with self._lock:
            others = [_aged(c, now) for i, c in self.remote.items() if i not in ids]
        every = sorted([*own, *others], key=lambda call: call["started"], reverse=True)
        return every[:KEPT]

    def _read(self) -> None:
        """What the stream gained since the last listing (all of it, a page at a time)."""
        while True:
            try:
                entries = self.streams.read(KEY, self.after, 0.0, count=PAGE)
            except StreamsDown:
                return
            self._take(entries)
            if len(entries) < PAGE:
                return

    def _take(self, entries: list[Entry]) -> None:
        with self._lock:
            for entry in entries:
                self.after = entry.id
                if entry.fields.get(b"p") == self.origin:
                    continue
                try:
                    listing = orjson.loads(entry.fields.get(b"c", b""))
                except orjson.JSONDecodeError:
                    continue
                if isinstance(listing, dict) and isinstance(listing.get("id"), str):
                    self.remote.pop(listing["id"], None)
                    self.remote[listing["id"]] = listing
            while len(self.remote) > KEPT:
                self.remote.popitem(last=False)


def _steady(listing: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in listing.items() if k not in CHANGING}


def _aged(listing: dict[str, Any], now: float) -> dict[str, Any]:
    """A call in progress on another process: its duration so far, from its start."""
    if listing.get("state") in ACTIVE and isinstance(listing.get("started"), int | float):
        return {**listing, "duration_ms": round((now - listing["started"]) * 1000, 1)}
    return listing
