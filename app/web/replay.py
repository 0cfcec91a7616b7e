"""A capture's replay messages, encoded, framed and compressed once, shared by every viewer.

200 viewers opening one capture would otherwise each encode the whole timeline and compress it
for the socket (tens of ms of CPU each, and orjson's 4 KiB buffer per result in memory
meanwhile). The first viewer encodes, the others wait for it (single flight), and the frames
stay with the cached capture (frames.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import Settings
from ..wire import StreamEncoder, capture_message
from .frames import Prepared
from .sources import Loaded


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
    header = capture_message(
        title=loaded.title,
        source=loaded.info,
        fmt=capture.format,
        compression=capture.compression,
        streams=capture.streams,
        diagnostics=capture.diagnostics,
        pace_ms=settings.untimed_pace_ms,
        stall_ms=settings.stall_ms,
    )
    streams = []
    for stream in capture.streams:
        encoder = StreamEncoder(stream, settings.event_batch)
        streams.append(
            EncodedStream(
                index=stream.index,
                raw_meta=Prepared.of(encoder.raw_meta(0)),
                batches=[Prepared.of(batch) for batch in encoder.event_messages(0)],
                summary=Prepared.of(encoder.summary_message(settings.stall_ms)),
            )
        )
    return EncodedCapture(Prepared.of(header), streams)
