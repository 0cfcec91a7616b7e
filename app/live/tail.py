"""A live run's recorded lines, fed to the builder its own process feeds (``feed.py``).

A process following a run of another process gets the run's input, not its output: the
recorded lines (timed capture records: the redacted reads with their times, the response and
the end), from Redis while it answers and from the store otherwise (``mirror.py``). Both carry
the same bytes at the same offsets of the recording, so the tail knows how far it has read
(``at``) and takes from any piece only what is new; feeding the same reads, with the same times,
to the same builder, without closing it before the end record, gives the same raw rows and
events at the same indices as the run's process has.
"""

from __future__ import annotations

from typing import Any

from ..captures.model import Capture
from ..captures.timed import read_records
from ..domain.stream import Stream
from .feed import TimedFeed


class RecordedTail:
    def __init__(self) -> None:
        self.feed: TimedFeed | None = None
        self.at = 0  # bytes of the recording fed so far (whole lines)
        self.end: dict[str, Any] | None = None  # how it ended, once its end record came

    @property
    def stream(self) -> Stream | None:
        return self.feed.stream if self.feed is not None else None

    def take(self, at: int, data: bytes) -> bool:
        """Feed what of the recording's bytes ``[at, at + len(data))`` is new (whole lines);
        False when they start past what was fed (the bytes between are in the store)."""
        if at > self.at:
            return False
        data = data[self.at - at :]
        cut = data.rfind(b"\n") + 1
        if cut and self.end is None:
            self._feed(data[:cut])
            self.at += cut
        return True

    def _feed(self, data: bytes) -> None:
        # No line cap here: the run's process took these reads, so its readers did.
        records = read_records(data, Capture(format="timed"), max_line=len(data) + 1)
        if records.header is not None and self.feed is None:
            self.feed = TimedFeed(records.header)
        feed = self.feed if self.feed is not None else self._headless()
        if records.response is not None:
            feed.respond(records.content_type)
        for t, chunk in records.reads:
            feed.read(t, chunk)
        if records.end is not None:
            self._close(feed, records.end)

    def _headless(self) -> TimedFeed:
        self.feed = TimedFeed({})
        return self.feed

    def _close(self, feed: TimedFeed, end: dict[str, Any]) -> None:
        t = end.get("t")
        reason = end.get("reason") if isinstance(end.get("reason"), str) else "done"
        error = end.get("error") if isinstance(end.get("error"), str) else None
        reason, error = feed.close(
            float(t) if isinstance(t, int | float) else None, str(reason), error
        )
        self.end = {"reason": reason, "error": error}
