"""One recorded stream: what every producer of a live timeline does with the reads it gets
(a live page's run, ``streamscope record``, a proxied call).

Each read is redacted (``redact.py``: swept a line at a time, so the line still open waits for
its end), recorded (the store's ``Recorder``, or a file), fed to the timeline builder
(``feed.py``) and handed, with the line it was recorded as, to the producer's ``added`` (under
``lock``, so that what the builder made and what the producer logs never differ). The recorded
lines are the input every other process rebuilds the same timeline from (docs/scaling.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ..domain.stream import Stream
from .feed import TimedFeed
from .redact import Redactor


class RecordingTarget(Protocol):
    """Where the lines go (``Recorder``, or ``streamscope record``'s file): each step gives
    back the line it wrote; ``size`` is what is written before the first step (the header)."""

    header: dict[str, Any]
    size: int

    def response(
        self, t: float, status: int, content_type: str, headers: dict[str, str] | None = None
    ) -> bytes: ...
    def read(self, t: float, data: bytes) -> bytes: ...
    def end(self, t: float, reason: str, error: str | None) -> bytes: ...


Added = Callable[[bytes, int], None]  # a recorded line (may be empty) and where it starts


class RecordedStream:
    def __init__(
        self,
        redactor: Redactor,
        recording: RecordingTarget,
        *,
        lock: AbstractContextManager[Any] | None = None,
        added: Added = lambda line, at: None,
    ) -> None:
        self.redactor = redactor
        self.recording = recording
        self.lock = lock if lock is not None else threading.Lock()
        self.added = added
        self.feed = TimedFeed(recording.header)
        self.at = recording.size  # where the next line starts in the recording

    @property
    def stream(self) -> Stream:
        return self.feed.stream

    def response(
        self, t: float, status: int, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        line = self.recording.response(t, status, content_type, headers)
        with self.lock:
            self.feed.respond(content_type)
            self._added(line)

    def read(self, t: float, data: bytes) -> None:
        for read_at, piece in self.redactor.feed(t, data):
            self._take(read_at, piece)

    def end(self, t: float, reason: str, error: str | None) -> tuple[str, str | None]:
        """The line still open, swept and fed; the builder closed; the end recorded. How the
        stream ended (settled: ``feed.settle_end``), the error as given."""
        for read_at, piece in self.redactor.flush():
            self._take(read_at, piece)
        with self.lock:
            reason, error = self.feed.close(t, reason, error, self.redactor.text)
            self._added(b"")  # the close's last events, in the same critical section
        line = self.recording.end(t, reason, error)
        with self.lock:
            self._added(line)
        return reason, error

    def _take(self, t: float, data: bytes) -> None:
        if not data:
            return
        line = self.recording.read(t, data)
        with self.lock:
            self.feed.read(t, data)
            self._added(line)

    def _added(self, line: bytes) -> None:
        at, self.at = self.at, self.at + len(line)
        self.added(line, at)
