"""A capture's replay messages, encoded, framed and compressed once, shared by every viewer.

200 viewers opening one capture would otherwise each encode the whole timeline and compress it
for the socket (tens of ms of CPU each, and orjson's 4 KiB buffer per result in memory
meanwhile). The first viewer encodes, the others wait for it (single flight), and the frames
stay with the cached capture (frames.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..domain.events import Event
from ..domain.stream import Stream
from ..domain.summary import diagnostic_json, summarize
from ..live.hub import RAW_KINDS
from ..protocol import encode
from ..settings import Settings
from .frames import Prepared
from .sources import Loaded

BATCH_BYTES = 512 * 1024


@dataclass(frozen=True)
class EncodedStream:
    index: int
    raw_meta: Prepared
    batches: list[Prepared]
    summary: Prepared


@dataclass(frozen=True)
class EncodedCapture:
    capture: Prepared
    streams: list[EncodedStream]


def encoded_capture(loaded: Loaded, settings: Settings) -> EncodedCapture:
    with loaded.lock:
        if loaded.encoded is None:
            loaded.encoded = _encode(loaded, settings)
        return loaded.encoded


def _encode(loaded: Loaded, settings: Settings) -> EncodedCapture:
    capture = loaded.capture
    header = Prepared.of(
        encode(
            "capture",
            title=loaded.title,
            source=loaded.info,
            format=capture.format,
            compression=capture.compression,
            pace_ms=settings.untimed_pace_ms,
            stall_ms=settings.stall_ms,
            streams=[stream_info(s) for s in capture.streams],
            diagnostics=[diagnostic_json(d) for d in capture.diagnostics],
        )
    )
    streams = [
        EncodedStream(
            index=stream.index,
            raw_meta=Prepared.of(
                encode("raw_meta", stream=stream.index, start=0, **raw_columns(stream, 0))
            ),
            batches=[
                Prepared.of(encode("events", stream=stream.index, events=batch))
                for batch in event_batches(stream.events, settings.event_batch)
            ],
            summary=Prepared.of(
                encode("summary", stream=stream.index, **summarize(stream, settings.stall_ms))
            ),
        )
        for stream in capture.streams
    ]
    return EncodedCapture(header, streams)


def stream_info(stream: Stream) -> dict[str, Any]:
    return {
        "index": stream.index,
        "origin": stream.origin,
        "timed": stream.timed,
        "raw": len(stream.raw),
        "events": len(stream.events),
        "request": stream.request,
        "end_reason": stream.end_reason,
    }


def raw_columns(stream: Stream, start: int) -> dict[str, list[Any]]:
    raws = stream.raw[start:]
    return {
        "t": [r.t for r in raws],
        "line": [r.line for r in raws],
        "kind": [RAW_KINDS[r.kind] for r in raws],
        "choices": [1 if r.choices else 0 for r in raws],
    }


def raw_item(stream: Stream, index: int) -> dict[str, Any]:
    item = stream.raw[index].to_json()
    item["text"] = stream.raw_text(index)
    return item


def event_batches(events: list[Event], max_count: int) -> Iterator[orjson.Fragment]:
    """Events as JSON arrays of at most ``max_count`` events and about ``BATCH_BYTES``, each
    encoded in one call (one result per event would cost a 4 KiB buffer each)."""
    for start in range(0, len(events), max_count):
        yield from _sized(events[start : start + max_count])


def _sized(events: list[Event]) -> Iterator[orjson.Fragment]:
    data = orjson.dumps([e.to_json() for e in events])
    if len(data) > 2 * BATCH_BYTES and len(events) > 1:
        half = len(events) // 2
        yield from _sized(events[:half])
        yield from _sized(events[half:])
    else:
        yield orjson.Fragment(data)
