"""One writer thread per live run instead of one waiting thread per follower.

Every ``STREAMSCOPE_FANOUT_INTERVAL`` seconds at most (0.04; 0 for every read), the run's
writer takes the new log pieces, encodes one ``events`` message, builds its websocket frame
once (server frames are not masked, so the bytes are the same for every follower) and writes
it to each follower's socket with non-blocking sends; what a socket does not take waits in
that follower's buffer, and a follower whose buffer has not drained for ``ws_send_timeout``
(5 s) is dropped. The follower's own thread only reads (``raw_request``, ``stop``). A prototype
for measurement (``load_fanout_live.py``), not production code: resume goes the old way."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from typing import Any

from app.live.hub import messages
from app.protocol import MAX_RAW_REQUEST, encode
from app.web import session

INTERVAL = float(os.environ.get("STREAMSCOPE_FANOUT_INTERVAL", "0.04"))
DROP_AFTER = 5.0


def frame(text: str) -> bytes:
    data = text.encode()
    n = len(data)
    if n < 126:
        head = bytes([0x81, n])
    elif n < 65536:
        head = bytes([0x81, 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x81, 127]) + n.to_bytes(8, "big")
    return head + data


def frames(pieces: list[Any]) -> bytes:
    return b"".join(frame(text) for text in messages(pieces)) if pieces else b""


class Follower:
    def __init__(self, guarded: Any) -> None:
        self.raw = guarded._raw  # ws.GuardedSocket: its socket and its send lock
        self.lock = guarded._lock
        self.index = 0
        self.pending = bytearray()
        self.stuck_since: float | None = None
        self.done = threading.Event()
        self.dropped = False
        self.extra: list[bytes] = []  # frames from the follower's thread (raw answers)
        self.extra_lock = threading.Lock()

    def flush(self) -> None:
        with self.extra_lock:
            for data in self.extra:
                self.pending += data
            self.extra = []
        if not self.pending:
            self.stuck_since = None
            return
        if not self.lock.acquire(blocking=False):  # a ping or pong is being sent
            return
        try:
            while self.pending:
                try:
                    sent = self.raw.send(self.pending, socket.MSG_DONTWAIT)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    self.drop()
                    return
                del self.pending[:sent]
        finally:
            self.lock.release()
        if not self.pending:
            self.stuck_since = None
        elif self.stuck_since is None:
            self.stuck_since = time.monotonic()
        elif time.monotonic() - self.stuck_since > DROP_AFTER:
            self.drop()

    def drop(self) -> None:
        self.dropped = True
        self.pending.clear()
        with contextlib.suppress(OSError):
            self.raw.shutdown(socket.SHUT_RDWR)
        self.done.set()


class Writer:
    def __init__(self, run: Any) -> None:
        self.run = run
        self.followers: list[Follower] = []
        self.index = 0
        self.thread = threading.Thread(target=self._loop, name="fanout", daemon=True)
        self.thread.start()

    def add(self, follower: Follower) -> None:
        with self.run.cond:
            self.followers.append(follower)
            self.run.cond.notify_all()

    def _loop(self) -> None:
        run, last = self.run, 0.0
        while True:
            wait = last + INTERVAL - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            last = time.monotonic()
            with run.cond:
                busy = any(f.pending or f.extra for f in self.followers)
                behind = any(f.index < len(run.log) for f in self.followers)
                if self.index >= len(run.log) and not behind:
                    run.cond.wait(0.01 if busy else 0.05)
                end = len(run.log)
                log = run.log[:end]
                finished = run.finished
                followers = list(self.followers)
            shared = frames(log[self.index : end])
            for f in followers:
                if f.done.is_set():
                    continue
                if f.index < self.index:  # a new follower: everything so far first
                    f.pending += frames(log[f.index : self.index])
                    f.index = self.index
                if f.index < end:
                    f.pending += shared
                    f.index = end
                f.flush()
                if finished and f.index == end and not f.pending and not f.extra:
                    f.done.set()
            self.index = end
            with run.cond:
                self.followers = [f for f in self.followers if not f.done.is_set()]
                if finished and not self.followers and self.index == len(run.log):
                    return


_lock = threading.Lock()


def writer_for(run: Any) -> Writer:
    with _lock:
        writer = getattr(run, "_writer", None)
        if writer is None or not writer.thread.is_alive():
            writer = run._writer = Writer(run)
        return writer


_original_follow = session.Session._follow


def _follow(
    self: Any, run: Any, title: str, *, starter: bool, resume: tuple[int, int] | None = None
) -> None:
    if resume is not None:
        _original_follow(self, run, title, starter=starter, resume=resume)
        return
    self._send(run.capture_message(title))
    follower = Follower(self._receive.ws.sock)
    writer_for(run).add(follower)
    while not follower.done.is_set():
        message = self._next(0.25)
        if message is None:
            continue
        if message["type"] == "stop" and starter:
            run.upstream.cancel()
        elif message["type"] == "raw_request":
            start, count = message.get("start"), message.get("count")
            if isinstance(start, int) and isinstance(count, int) and start >= 0 and count >= 0:
                items = run.raw_texts(start, min(count, MAX_RAW_REQUEST))
                with follower.extra_lock:
                    follower.extra.append(frame(encode("raw", stream=0, start=start, items=items)))
    if follower.dropped:
        raise OSError("dropped: the page stopped reading")
    while True:
        message = self._next(None)
        if message is not None and message["type"] == "raw_request":
            self._raw_live(run, message)


session.Session._follow = _follow
