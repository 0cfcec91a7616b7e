"""Shared test helpers: the capture folder, and a way to compare whole timelines."""

from __future__ import annotations

from pathlib import Path

import orjson

from app.captures import Capture, read_capture
from app.domain.stream import Source, Stream
from app.domain.summary import summarize
from app.domain.timeline import SSEFeeder, TimelineBuilder

CAPTURES = Path(__file__).parent / "captures"
GOLDEN = Path(__file__).parent / "golden"


def capture_path(name: str) -> Path:
    return CAPTURES / name


def timeline(stream: Stream) -> list[dict]:
    """Every event and raw event of a stream, as plain JSON (for equality checks)."""
    events = orjson.loads(orjson.dumps([e.to_json() for e in stream.events]))
    raws = [r.to_json() for r in stream.raw]
    return [{"events": events, "raw": raws}]


def capture_timeline(capture: Capture) -> list[dict]:
    return [item for stream in capture.streams for item in timeline(stream)]


def feed_pieces(pieces: list[bytes], times: list[float | None] | None = None) -> list[Stream]:
    """Run SSE bytes through the live pipeline, one read per piece."""
    builder = TimelineBuilder(Source(), split_on_done=False, timed=times is not None)
    feeder = SSEFeeder(builder, record=True)
    for i, piece in enumerate(pieces):
        feeder.feed(piece, None if times is None else times[i])
    return feeder.close(None if times is None else (times[-1] if times else 0.0))


def corpus(name: str) -> bytes:
    return capture_path(name).read_bytes()


def exercise(data: bytes, fmt: str | None = None) -> Capture:
    """Read ``data`` and do what the page and the API do with it: summarise each stream,
    serialise its events, take every raw text. Any exception is a bug."""
    capture = read_capture(data, fmt)
    for stream in capture.streams:
        orjson.dumps(summarize(stream))
        orjson.dumps([e.to_json() for e in stream.events])
        for i in range(len(stream.raw)):
            stream.raw_text(i)
    return capture
