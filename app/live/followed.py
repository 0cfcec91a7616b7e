"""What a live run's viewers follow (web/fanout.py, web/live_session.py): the log a run keeps
of what each read added (``Piece``), and the run itself (``Followed``): a run of this process
(hub.py's ``LiveRun``) or one of another process read through Redis (mirror.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Piece:
    """One entry of the log: the part of the timeline one read added (raw events
        ``[raw_start, raw_end)`` and events ``[event_start, event_end)``) and the line it was
        recorded as (``lines``, starting at byte ``at`` of the recording: what Redis carries,
        ``publish.py``), or a whole message. A ``derived`` message (a run's summary and end) is
        made again from the lines by whoever follows them, so it is not published. A mirror's log
    holds messages only, each timeline message knowing its step and that step's ranges."""

    raw_start: int = 0
    raw_end: int = 0
    event_start: int = 0
    event_end: int = 0
    message: str | None = None
    lines: bytes = b""
    at: int = 0
    derived: bool = False
    step: int = -1  # on a mirror: the step whose timeline this message holds (mirror.py)

    @property
    def empty(self) -> bool:
        return (
            self.message is None
            and not self.lines
            and self.raw_end == self.raw_start
            and (self.event_end == self.event_start)
        )


class Followed(Protocol):
    """What a live run's viewers follow (web/fanout.py, web/live_session.py): a run of this
    process (``LiveRun``) or one of another process read through Redis (``mirror.py``)."""

    capture_id: str
    log: list[Piece]
    finished: bool
    cond: threading.Condition
    writer: Any

    def messages(self, pieces: list[Piece]) -> Iterator[str]: ...

    def snapshot(self, events_seen: int) -> tuple[list[str], int]: ...

    def raw_texts(self, start: int, count: int) -> list[dict[str, Any]]: ...

    def capture_message(self, title: str) -> str: ...

    def cancel(self) -> None: ...
