"""What a live timeline's viewers get from it, on the run's process (``hub.py``) and on one
following it (``mirror.py``) alike: its ``capture`` message, and its log's pieces as protocol
messages, consecutive timeline pieces merged into one ``raw_meta`` and one or more ``events``,
encoded as replays are (app/wire.py)."""

from __future__ import annotations

from collections.abc import Iterator

from ..domain.stream import Stream
from ..protocol import UNTIMED_PACE_MS
from ..wire import StreamEncoder, capture_message
from .followed import Piece


def live_capture_message(capture_id: str, stream: Stream, title: str, stall_ms: float) -> str:
    return capture_message(
        title=title,
        source={"kind": "live", "id": capture_id},
        fmt="timed",
        compression=None,
        streams=[stream],
        diagnostics=[],
        pace_ms=UNTIMED_PACE_MS,
        stall_ms=stall_ms,
        live=True,
    )


def timeline_messages(encoder: StreamEncoder, pieces: list[Piece]) -> Iterator[str]:
    """The pieces' messages: a run of timeline pieces (no ``message``) as the raw rows and
    events it covers, each message as it is."""
    span: list[Piece] = []
    for piece in [*pieces, Piece(message="")]:
        if piece.message is None:
            span.append(piece)
            continue
        if span:
            yield from span_messages(encoder, span[0], span[-1])
            span = []
        if piece.message:
            yield piece.message


def span_messages(encoder: StreamEncoder, first: Piece, last: Piece) -> Iterator[str]:
    if last.raw_end > first.raw_start:
        yield encoder.raw_meta(first.raw_start, last.raw_end)
    if last.event_end > first.event_start:
        yield from encoder.events(first.event_start, last.event_end)
