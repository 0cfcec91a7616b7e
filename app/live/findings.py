"""A growing stream's findings (docs/protocol.md, ``findings``), as they happen.

``find`` reads the whole stream each time (app/domain/rules), so a live run's findings are
judged again at most once a second (``EVERY_S``), and, on a long stream where one judging costs
more than a tenth of a second, only after ten times what the last one took (``SHARE``): the
rules never take more than a tenth of the thread that reads the upstream. A message is made only
when the findings changed since the last one; the stream's end always judges it once more,
``final``. Used by the run's process (hub.py) and by a process that follows it (mirror.py)
alike, each from its own copy of the timeline.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..domain.findings.engine import counts
from ..wire import StreamEncoder, findings_bytes, stream_findings

EVERY_S = 1.0
SHARE = 0.1


class LiveFindings:
    def __init__(
        self,
        encoder: StreamEncoder,
        stall_ms: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.encoder = encoder
        self.stall_ms = stall_ms
        self.clock = clock
        self.next_at = clock() + EVERY_S
        self.last: str | None = None  # the latest message made (a resuming page gets it)
        self.counts: dict[str, int] | None = None  # by severity, as last judged (/proxy lists it)
        self.judged = 0  # how many times the stream was judged (tests read it)

    def due(self) -> str | None:
        """The findings of the stream as it stands, when it is time to judge it again and they
        changed; else None."""
        now = self.clock()
        if now < self.next_at:
            return None
        message = self._judge(final=False)
        cost = self.clock() - now
        self.next_at = now + max(EVERY_S, cost / SHARE)
        if message == self.last:
            return None
        self.last = message
        return message

    def final(self) -> str:
        """The stream has ended: its findings, judged once more."""
        self.last = self._judge(final=True)
        return self.last

    def _judge(self, *, final: bool) -> str:
        self.judged += 1
        stream = self.encoder.stream
        found = stream_findings(stream, self.stall_ms)
        self.counts = counts(found)
        return findings_bytes(stream.index, found, final).decode()
