"""Stopping a streamed HTTP call at once, from another thread: a live run's upstream request
(upstream.py) and a proxied call (app/proxy/exchange.py) both stop this way."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading


def hang_up(sock: socket.socket) -> None:
    """Stop the connection now: the shutdown wakes the reading thread, and when httpx then
    closes the socket it resets the connection (linger 0) instead of closing it politely, which
    an upstream that fills a zero receive window would never notice."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class Hangup:
    """A connection's first stop reason and its socket: the socket is hung up as soon as both
    are known, whichever comes first (a stop before the connection exists waits for it). A
    live run's upstream request and a proxied call (app/proxy/exchange.py) stop this way."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reason: tuple[str, str] | None = None
        self._socket: socket.socket | None = None

    def stop(self, reason: str, message: str) -> None:
        """Stop with this reason (the first stop wins) and hang up the socket, if there is one."""
        with self._lock:
            if self._reason is None:
                self._reason = (reason, message)
            sock = self._socket
        if sock is not None:
            hang_up(sock)

    def keep(self, sock: socket.socket) -> None:
        """The connection's socket (``pinned_client``'s callback), hung up at once when the
        stop came first."""
        with self._lock:
            self._socket = sock
            stopped = self._reason is not None
        if stopped:
            hang_up(sock)

    def reason(self) -> tuple[str, str] | None:
        with self._lock:
            return self._reason

    @property
    def socket(self) -> socket.socket | None:
        with self._lock:
            return self._socket
