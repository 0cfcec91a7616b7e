"""Slow work counted against the threads that can do it (docs/security.md, "Threads").

Under gunicorn gthread a worker has ``threads`` threads, one per request being handled. Work
that can hold a thread for long, whatever the client or an upstream does, is counted here:
websockets (a thread for the whole session) and every request with a body (the body is
received at the client's pace, then an upload is parsed or an upstream asked for its models).
At most ``capacity`` of them run at once, ``threads - thread_reserve`` in production, and the
next one is answered 503 at once, so the reserve always serves requests without a body:
pages, static files, ``/healthz``, downloads, and the 503 answers themselves.

The check runs in ``before_request`` (after the Host and handshake checks, before the body is
read or the websocket upgraded); the unit is given back in ``teardown_request``.
"""

from __future__ import annotations

import threading

from flask import Flask, g, request

from ..proxy import is_call_path
from .errors import Busy
from .security import WS_PATH
from .services import services


class Workload:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.active = 0
        self._lock = threading.Lock()

    def enter(self) -> None:
        with self._lock:
            if self.active >= self.capacity:
                raise Busy(
                    f"this server is busy ({self.capacity} slow requests at once); "
                    "try again shortly",
                    code="capacity",
                )
            self.active += 1

    def leave(self) -> None:
        with self._lock:
            self.active = max(0, self.active - 1)


def has_body() -> bool:
    """Whether the request says a body follows (a length, or chunked framing)."""
    environ = request.environ
    length = environ.get("CONTENT_LENGTH", "")
    if length.strip() not in ("", "0"):
        return True
    return "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()


def is_slow() -> bool:
    """A websocket, a request with a body, or a proxied call (it holds its thread for as long
    as its upstream answers, body or not: docs/proxy.md)."""
    return request.path == WS_PATH or is_call_path(request.path) or has_body()


def install(app: Flask) -> None:
    @app.before_request
    def _enter() -> None:
        if is_slow():
            services().workload.enter()
            g.slow_work = True

    @app.teardown_request
    def _leave(_exc: BaseException | None) -> None:
        if g.pop("slow_work", False):
            services().workload.leave()
