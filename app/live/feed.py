"""The timeline a live recording's redacted reads build, as every process builds it.

A run's own process feeds it the reads as they come (``recorded.py``); a process following the
run from elsewhere feeds it the same reads, with the same times, read back from the recorded
lines (``tail.py``: from Redis, or from the store). The builder is deterministic and is not
closed before the end record, so every process gets the same raw rows and events at the same
indices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..captures.timed import request_line
from ..domain.body import BodyFeeder
from ..domain.stream import Source, Stream
from ..domain.timeline import TimelineBuilder


class TimedFeed:
    def __init__(self, header: dict[str, Any]) -> None:
        self.builder = TimelineBuilder(
            Source(), origin=stored_origin(header), split_on_done=False, timed=True
        )
        self.builder.stream.request = stored_request(header)
        self.builder.stream.request_line = request_line(header)
        self.feeder: BodyFeeder | None = None

    @property
    def stream(self) -> Stream:
        return self.builder.stream

    def respond(self, content_type: str | None) -> None:
        self.stream.content_type = content_type
        self.feeder = BodyFeeder(self.builder, content_type)

    def read(self, t: float, data: bytes) -> None:
        self._feeder().feed(data, t)

    def close(
        self,
        t: float | None,
        reason: str,
        error: str | None,
        clean: Callable[[str], str] = lambda text: text,
    ) -> tuple[str, str | None]:
        """The stream ended: its last events, and how it ended (``settle_end``), the error
        passed through ``clean`` (the run's redactor) as the stream keeps it."""
        self._feeder().close(t)
        reason, error = settle_end(reason, error, self.builder.interpreter.errored)
        self.stream.end_reason = reason
        self.stream.end_error = clean(error) if error else None
        return reason, error

    def _feeder(self) -> BodyFeeder:
        if self.feeder is None:
            self.feeder = BodyFeeder(self.builder, None)
        return self.feeder


def settle_end(reason: str, error: str | None, errored: bool) -> tuple[str, str | None]:
    """How a run ended: one the upstream closed normally is still an error when the stream
    reported one (the live page and ``streamscope record`` say the same)."""
    if reason == "done" and errored:
        return "error", error or "the stream reported an error"
    return reason, error


def stored_origin(header: dict[str, Any]) -> str:
    """A run's stream is labelled as its stored recording reads (captures/timed.py)."""
    source = header.get("source")
    return str((source.get("url") if isinstance(source, dict) else None) or "timed capture")


def stored_request(header: dict[str, Any]) -> dict[str, Any] | None:
    request = header.get("request")
    return request if isinstance(request, dict) else None
