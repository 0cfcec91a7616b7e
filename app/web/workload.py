"""Slow work counted against the threads that can do it (docs/security.md, "Threads" and
"Heavy GETs").

Under gunicorn gthread a worker has ``threads`` threads, one per request being handled. Work
that can hold a thread for long, whatever the client or an upstream does, is counted here:
websockets (a thread for the whole session), every request with a body (the body is received
at the client's pace, then an upload is parsed or an upstream asked for its models), proxied
calls (as long as their upstream answers), and heavy GETs (views marked ``heavy``: what they
answer is built from a whole capture, sending.py). At most ``capacity`` of them run at once,
``threads - thread_reserve`` in production, and the next one is answered 503 at once, so the
reserve always serves pages, static files, ``/healthz`` and the 503 answers themselves.

One address may hold at most ``per_client`` of them at once (a quarter of the capacity, as
for websockets); the next gets 429 at once. Websockets are not counted per address here: the
handshake's admission (admission.py) has their own share.

The check runs in ``before_request`` (after the Host and handshake checks, before the body is
read or the websocket upgraded); the unit is given back in ``teardown_request``, or, for a
proxied call whose answer streams, when the call ends (web/proxy.py: ``g.slow_work``).
"""

from __future__ import annotations

import threading
from collections import defaultdict

from flask import Flask, g, request

from ..proxy import is_call_path
from .context import services
from .errors import Busy, RateLimited
from .security import WS_PATH
from .sending import is_heavy


class Workload:
    def __init__(self, capacity: int, per_client: int = 0) -> None:
        self.capacity = capacity
        self.per_client = per_client or max(1, capacity // 4)
        self.active = 0
        self._by_client: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def enter(self, client: str | None = None) -> None:
        """Take a unit; ``client`` is the address it counts for (None: not per address)."""
        with self._lock:
            if self.active >= self.capacity:
                raise Busy(
                    f"this server is busy ({self.capacity} slow requests at once); "
                    "try again shortly",
                    code="capacity",
                )
            if client is not None and self._by_client[client] >= self.per_client:
                raise RateLimited(
                    f"too many slow requests from your address at once (limit "
                    f"{self.per_client}, STREAMSCOPE_WORK_PER_CLIENT); try again when one ends",
                    code="too_many_requests",
                )
            self.active += 1
            if client is not None:
                self._by_client[client] += 1

    def leave(self, client: str | None = None) -> None:
        with self._lock:
            self.active = max(0, self.active - 1)
            if client is not None and client in self._by_client:
                self._by_client[client] -= 1
                if self._by_client[client] <= 0:
                    del self._by_client[client]

    def of(self, client: str) -> int:
        """Units ``client`` holds now."""
        with self._lock:
            return self._by_client.get(client, 0)


def has_body() -> bool:
    """Whether the request says a body follows (a length, or chunked framing)."""
    environ = request.environ
    length = environ.get("CONTENT_LENGTH", "")
    if length.strip() not in ("", "0"):
        return True
    return "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()


def is_slow() -> bool:
    """A websocket, a request with a body, a proxied call (it holds its thread for as long
    as its upstream answers, body or not: docs/proxy.md), or a heavy GET."""
    return request.path == WS_PATH or is_call_path(request.path) or has_body() or is_heavy()


class Held:
    """The unit a request holds: given back once, whoever ends it (the request's teardown,
    or a proxied call's end)."""

    def __init__(self, workload: Workload, client: str | None) -> None:
        self.workload = workload
        self.client = client
        self._given = False
        self._lock = threading.Lock()

    def give_back(self) -> None:
        with self._lock:
            if self._given:
                return
            self._given = True
        self.workload.leave(self.client)


def install(app: Flask) -> None:
    @app.before_request
    def _enter() -> None:
        if is_slow():
            workload = services().workload
            client = None if request.path == WS_PATH else (request.remote_addr or "?")
            workload.enter(client)
            g.slow_work = Held(workload, client)

    @app.teardown_request
    def _leave(_exc: BaseException | None) -> None:
        held = g.pop("slow_work", None)
        if held is not None:
            held.give_back()
