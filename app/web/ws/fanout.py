"""Sending a live run to everyone who watches it: one writer thread per run.

With a thread per viewer, each waking, encoding and sending every read, 200 viewers keep the
GIL so busy that the upstream reader itself falls behind. Instead, each run has one writer: it
takes the new log pieces, encodes them once into one ``events`` message, builds its websocket
frame once (server frames are not masked, and an uncompressed message is valid even where
permessage-deflate was negotiated), and hands the same bytes to every follower with
non-blocking sends. What a socket does not take waits in that follower's buffer; a follower
whose buffer has not drained for ``drop_after`` seconds is dropped, so a page that stops
reading costs nothing but its buffer and never slows the others.

The writer sends as soon as it has something for a few followers; with many it gathers the
reads of a few milliseconds (``coalesce``) so that it sends fewer, larger messages. The viewers'
own threads only read (``stop``, ``raw_request``); their answers go through the writer too, in
order.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import TYPE_CHECKING

from ...live.followed import Followed, Piece
from ...services.frames import frame

if TYPE_CHECKING:
    from .endpoint import GuardedSocket

PER_FOLLOWER_S = 0.0002  # gather reads for 0.2 ms per follower...
MAX_COALESCE_S = 0.04  # ...and at most 40 ms
RETRY_S = 0.01  # how soon a follower with a backlog is tried again


def frames(run: Followed, pieces: list[Piece]) -> bytes:
    return b"".join(frame(text.encode()) for text in run.messages(pieces))


class Follower:
    """One viewer's socket as the writer sees it: a send lock shared with the connection's own
    pings, and a backlog of bytes the socket has not taken yet."""

    def __init__(self, guarded: GuardedSocket, index: int, drop_after: float) -> None:
        self.raw: socket.socket = guarded.raw
        self.lock: threading.Lock = guarded.lock
        self.index = index  # the next log piece this follower needs
        self.drop_after = drop_after
        self.backlog = bytearray()
        self.stuck_since: float | None = None
        self.answers: list[bytes] = []  # frames from the viewer's own thread (raw answers)
        self.answers_lock = threading.Lock()
        self.done = threading.Event()
        self.dropped = False

    def answer(self, text: str) -> None:
        with self.answers_lock:
            self.answers.append(frame(text.encode()))

    def flush(self) -> None:
        with self.answers_lock:
            for data in self.answers:
                self.backlog += data
            self.answers = []
        if self.backlog and self.lock.acquire(blocking=False):  # else a ping is being sent
            try:
                if not self.done.is_set():  # the viewer's thread may have just left
                    self._send()
            finally:
                self.lock.release()
        if not self.backlog:
            self.stuck_since = None
        elif self.stuck_since is None:
            self.stuck_since = time.monotonic()
        elif time.monotonic() - self.stuck_since > self.drop_after:
            self.drop()

    def _send(self) -> None:
        while self.backlog:
            try:
                sent = self.raw.send(self.backlog, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.drop()
                return
            del self.backlog[:sent]

    @property
    def busy(self) -> bool:
        return bool(self.backlog or self.answers)

    def unsent(self) -> list[bytes]:
        """Answers queued after the writer let this follower go (a raw request that crossed
        the run's end): the viewer's own thread sends them."""
        with self.answers_lock:
            left, self.answers = self.answers, []
        return left

    def leave(self) -> None:
        """The viewer's thread is leaving (the page went away): never touch its socket again."""
        with self.lock:
            self.done.set()

    def drop(self) -> None:
        self.dropped = True
        self.backlog.clear()
        with contextlib.suppress(OSError):
            self.raw.shutdown(socket.SHUT_RDWR)
        self.done.set()


class Writer:
    """Starts with its first follower already in its list: a writer that started empty could
    see a run that has already ended, find no follower, and finish before anyone is added."""

    def __init__(self, run: Followed, first: Follower) -> None:
        self.run = run
        self.followers: list[Follower] = [first]
        self.closed = False
        self.thread = threading.Thread(
            target=self._loop, name=f"fanout-{run.capture_id[:6]}", daemon=True
        )
        self.thread.start()

    def add(self, follower: Follower) -> bool:
        """False when this writer has already finished (the caller starts another)."""
        with self.run.cond:
            if self.closed:
                return False
            self.followers.append(follower)
            self.run.cond.notify_all()
            return True

    def _loop(self) -> None:
        run = self.run
        while True:
            with run.cond:
                followers = list(self.followers)
                behind = any(f.index < len(run.log) for f in followers)
                if not behind:
                    run.cond.wait(RETRY_S if any(f.busy for f in followers) else 0.25)
            coalesce = min(MAX_COALESCE_S, PER_FOLLOWER_S * len(followers))
            if coalesce > 0.001:
                time.sleep(coalesce)  # many followers: gather a few reads into one message
            with run.cond:
                log, finished, followers = run.log, run.finished, list(self.followers)
                end = len(log)
            self._deliver(log, end, finished, followers)
            with run.cond:
                self.followers = [f for f in self.followers if not f.done.is_set()]
                if finished and not self.followers:
                    self.closed = True
                    return

    def _deliver(
        self, log: list[Piece], end: int, finished: bool, followers: list[Follower]
    ) -> None:
        shared: dict[int, bytes] = {}  # followers at the same index get the same bytes
        for follower in followers:
            if follower.done.is_set():
                continue
            if follower.index < end:
                start = follower.index
                if start not in shared:
                    shared[start] = frames(self.run, log[start:end])
                follower.backlog += shared[start]
                follower.index = end
            follower.flush()
            if finished and follower.index == end and not follower.busy:
                follower.done.set()


_writers_lock = threading.Lock()


def attach(run: Followed, follower: Follower) -> None:
    """Give a follower to the run's writer, starting one if there is none (or it finished)."""
    with _writers_lock:
        writer = getattr(run, "writer", None)
        if writer is None or not writer.add(follower):
            run.writer = Writer(run, follower)
