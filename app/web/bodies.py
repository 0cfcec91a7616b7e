"""Receiving request bodies whole, before any handler runs (docs/security.md, "Request bodies").

Werkzeug reads a body as the handler asks for it, with no deadline, and stops quietly at
``MAX_CONTENT_LENGTH`` when the body is chunked (no ``Content-Length``): the handler then sees
a truncated body as if it were whole. Here every body (``Content-Length`` or chunked; a
request with neither has none) is read in ``before_request``, into a spooled temporary file
(memory up to ``SPOOL`` bytes, then disk), and then handed to the request in its place:

* over the upload cap: 413 at once for a ``Content-Length`` over it, or as soon as a chunked
  body passes it; nothing is kept;
* too slow: a body may take ``body_timeout`` seconds, plus one second per
  ``body_min_rate_kb`` KB received (Apache's mod_reqtimeout rule). A body that falls behind
  is cut off (a watch thread shuts the socket's read side, so a blocked read returns) and
  answered 408;
* at most ``max_receiving`` bodies are received at once, a quarter of them from one address;
  the next waits a few seconds for its turn, then gets 503 ``busy``.

So an upload holds an import slot (``uploads.py``) only once its body is all here, and a
client that trickles its body holds a receiving slot for a bounded time, never an import.
"""

from __future__ import annotations

import contextlib
import socket
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import IO, Any

import orjson
from flask import Flask, request
from flask.json.provider import DefaultJSONProvider

from ..digits import whole_number
from ..proxy import is_call_path
from .context import services
from .errors import BadRequest, Busy, PayloadTooLarge, RequestTimeout, too_large_message
from .workload import has_body

SPOOL = 1024 * 1024  # bytes of a body kept in memory before it goes to a temporary file
BLOCK = 64 * 1024
WAIT_FOR_TURN = 5.0
WATCH_INTERVAL = 0.2
KEY = "streamscope.body"


@dataclass(frozen=True)
class BodyRules:
    cap_mb: int
    timeout: float  # seconds every body may take
    min_rate: float  # bytes per second it must average after that
    cap_setting: str = ""  # the setting a 413 names, when not the upload cap's

    @property
    def cap(self) -> int:
        return self.cap_mb * 1024 * 1024

    def too_large(self) -> str:
        if not self.cap_setting:
            return too_large_message(self.cap_mb)
        return f"the request body is over the {self.cap_mb} MB cap ({self.cap_setting})"

    def deadline(self, started: float, received: int) -> float:
        return started + self.timeout + received / self.min_rate

    def too_slow(self) -> str:
        return (
            f"the request body arrived too slowly (a body may take {self.timeout:g} s, plus "
            f"1 s per {self.min_rate / 1024:g} KB: STREAMSCOPE_BODY_TIMEOUT, "
            "STREAMSCOPE_BODY_MIN_RATE_KB); nothing was kept"
        )


@dataclass(eq=False)
class Reception:
    """One body being received: what the watch needs to cut it off when it falls behind."""

    sock: socket.socket | None
    started: float = field(default_factory=time.monotonic)
    received: int = 0
    late: bool = False


class Watch:
    """One thread for all receptions: every ``WATCH_INTERVAL`` it cuts off the late ones. It
    runs while there are receptions, and ends when there are none."""

    def __init__(self, rules: BodyRules) -> None:
        self.rules = rules
        self._receptions: set[Reception] = set()
        self._lock = threading.Lock()
        self._running = False

    @contextlib.contextmanager
    def watching(self, reception: Reception) -> Iterator[Reception]:
        with self._lock:
            self._receptions.add(reception)
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="body-watch", daemon=True).start()
        try:
            yield reception
        finally:
            with self._lock:
                self._receptions.discard(reception)

    def _run(self) -> None:
        while True:
            time.sleep(WATCH_INTERVAL)
            now = time.monotonic()
            with self._lock:
                if not self._receptions:
                    self._running = False
                    return
                late = [
                    r
                    for r in self._receptions
                    if not r.late and now > self.rules.deadline(r.started, r.received)
                ]
                for reception in late:
                    reception.late = True
            for reception in late:
                if reception.sock is not None:
                    with contextlib.suppress(OSError):
                        reception.sock.shutdown(socket.SHUT_RD)


class Turns:
    """At most ``capacity`` bodies received at once, ``per_client`` from one address."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.per_client = max(1, capacity // 4)
        self.active = 0
        self._by_client: dict[str, int] = defaultdict(int)
        self._free = threading.Condition()

    @contextlib.contextmanager
    def turn(self, client: str, wait: float = WAIT_FOR_TURN) -> Iterator[None]:
        with self._free:
            if not self._free.wait_for(lambda: self._has_room(client), timeout=wait):
                raise Busy("too many uploads are being received right now; try again shortly")
            self.active += 1
            self._by_client[client] += 1
        try:
            yield
        finally:
            with self._free:
                self.active -= 1
                self._by_client[client] -= 1
                if self._by_client[client] <= 0:
                    del self._by_client[client]
                self._free.notify_all()

    def _has_room(self, client: str) -> bool:
        return self.active < self.capacity and self._by_client.get(client, 0) < self.per_client


class StrictJSON(DefaultJSONProvider):
    """Request bodies read as JSON by orjson, which refuses what no store can keep (a lone
    surrogate such as ``"\\ud800"``): ``get_json(silent=True)`` then gives None and the
    view says what it needed (docs/security.md, "Odd bytes"). Answers are written as before."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)


def _declared_length(environ: dict[str, Any]) -> int | None:
    """The Content-Length, or None for a chunked body (whose framing wins over a length)."""
    text = environ.get("CONTENT_LENGTH", "").strip()
    if not text or "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        return None
    length = whole_number(text)
    if length is None:
        raise BadRequest(f"Content-Length {text[:40]!r} is not a number", code="bad_length")
    return length


def receive(environ: dict[str, Any], rules: BodyRules, watch: Watch) -> IO[bytes]:
    """The whole body, spooled, or 413 / 408 / 400; nothing is kept on a refusal."""
    length = _declared_length(environ)
    if length is not None and length > rules.cap:
        raise PayloadTooLarge(rules.too_large())
    stream = environ["wsgi.input"]
    sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL)  # noqa: SIM115 (handed on open)
    try:
        with watch.watching(Reception(sock)) as reception:
            _copy(stream, spool, length, rules, reception)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


def _copy(
    stream: IO[bytes], spool: IO[bytes], length: int | None, rules: BodyRules, got: Reception
) -> None:
    """Copy until ``length`` bytes, or the end of a chunked body."""
    while length is None or got.received < length:
        want = BLOCK if length is None else min(BLOCK, length - got.received)
        try:
            piece = stream.read(want)
        except (OSError, ValueError):
            piece = None
        if got.late:
            raise RequestTimeout(rules.too_slow())
        if piece is None or (not piece and length is not None):
            raise BadRequest("the request body ended before it was complete", code="body_cut")
        if not piece:
            return
        got.received += len(piece)
        if got.received > rules.cap:
            raise PayloadTooLarge(rules.too_large())
        spool.write(piece)


class Bodies:
    """What the web app keeps for receiving bodies: the rules, the turns, the watch."""

    def __init__(self, rules: BodyRules, receiving: int, proxy_cap_mb: int | None = None) -> None:
        self.rules = rules
        self.turns = Turns(receiving)
        self.watch = Watch(rules)
        # A proxied call's body has its own cap (docs/proxy.md).
        self.proxy_rules = replace(
            rules,
            cap_mb=rules.cap_mb if proxy_cap_mb is None else proxy_cap_mb,
            cap_setting="STREAMSCOPE_PROXY_MAX_BODY_MB",
        )

    def rules_for(self, path: str) -> BodyRules:
        return self.proxy_rules if is_call_path(path) else self.rules

    def take(self, environ: dict[str, Any], client: str, rules: BodyRules | None = None) -> None:
        """Receive the body and put it in the request's place, with its length."""
        with self.turns.turn(client):
            body = receive(environ, rules or self.rules, self.watch)
        size = body.seek(0, 2)
        body.seek(0)
        environ["wsgi.input"] = environ[KEY] = body
        environ["CONTENT_LENGTH"] = str(size)
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ.pop("wsgi.input_terminated", None)


def install(app: Flask) -> None:
    @app.before_request
    def _receive() -> None:
        if has_body():
            bodies: Bodies = services().bodies
            rules = bodies.rules_for(request.path)
            bodies.take(request.environ, request.remote_addr or "?", rules)

    @app.teardown_request
    def _close(_exc: BaseException | None) -> None:
        body = request.environ.pop(KEY, None)
        if body is not None:
            body.close()
