"""One thread that looks after every proxied call in progress (docs/proxy.md, "Deadlines").

Each call's thread spends its life blocked: on the upstream's next read, or on the client's
socket while it writes. What must happen meanwhile is done here, every ``INTERVAL`` seconds,
for all calls at once: a deadline that passed (the first byte, the idle time between reads,
the whole call) or a client that hung up while the upstream was silent stops the call by
shutting its upstream socket, which wakes its thread. The thread runs while there are calls,
and ends when there are none.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Iterator
from typing import Protocol

INTERVAL = 0.2
GONE = select.POLLHUP | select.POLLERR | getattr(select, "POLLRDHUP", 0)


class Watched(Protocol):
    def check(self, now: float) -> None: ...


class Watch:
    def __init__(self, interval: float = INTERVAL) -> None:
        self.interval = interval
        self._calls: set[Watched] = set()
        self._lock = threading.Lock()
        self._running = False

    @contextlib.contextmanager
    def watching(self, call: Watched) -> Iterator[None]:
        self.add(call)
        try:
            yield
        finally:
            self.remove(call)

    def add(self, call: Watched) -> None:
        with self._lock:
            self._calls.add(call)
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="proxy-watch", daemon=True).start()

    def remove(self, call: Watched) -> None:
        with self._lock:
            self._calls.discard(call)

    def _run(self) -> None:
        while True:
            time.sleep(self.interval)
            with self._lock:
                if not self._calls:
                    self._running = False
                    return
                calls = list(self._calls)
            now = time.monotonic()
            for call in calls:
                call.check(now)


def hung_up(sock: socket.socket | None) -> bool:
    """Whether the client closed its side of ``sock`` (or it failed), without reading from it
    and without blocking: a client that sent its request and waits says nothing until then."""
    if sock is None:
        return False
    try:
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN | GONE)
        events = poller.poll(0)
    except (OSError, ValueError):
        return True
    if not events:
        return False
    revents = events[0][1]
    if revents & GONE:
        return True
    try:  # readable: the end of the stream (gone), or the client's next request (pipelined)
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
