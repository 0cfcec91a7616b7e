"""A capture's replay messages, encoded, framed and compressed once, shared by every viewer.

200 viewers opening one capture would otherwise each encode the whole timeline and compress it
for the socket (tens of ms of CPU each, and orjson's 4 KiB buffer per result in memory
meanwhile). The messages are encoded as the first viewer needs them, one batch at a time, and
kept with the cached capture (frames.py): that viewer gets its first events as soon as their
batch is encoded, not once the whole capture is, and a stream's summary (the assembled
completion, which for 100k chunks with logprobs is as large as the events) is encoded after
its last batch. Viewers that come meanwhile take the batches already encoded and wait for the
next one at most (single flight, batch by batch).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

from ..domain.stream import Stream
from ..settings import Settings
from ..wire import StreamEncoder, capture_message
from .frames import Prepared
from .sources import Loaded


class EncodedStream:
    """One stream's ``raw_meta`` (encoded at once: one message), then its ``events`` batches,
    ``summary`` and ``findings``, each encoded the first time a viewer asks for it."""

    def __init__(self, stream: Stream, settings: Settings, *, final: bool = True) -> None:
        self.index = stream.index
        self.final = final  # its findings are final: not a recording that is still growing
        encoder = StreamEncoder(stream, settings.event_batch)
        self.raw_meta = Prepared.of(encoder.raw_meta(0))
        self._lock = threading.Lock()
        self._batches: list[Prepared] = []
        self._pending: Iterator[bytes] | None = encoder.event_messages(0)
        self._summary: Prepared | None = None
        self._findings: Prepared | None = None
        self._encoder, self._stall_ms = encoder, settings.stall_ms

    def batches(self) -> Iterator[Prepared]:
        """Every ``events`` batch in order: those encoded already, then each next one,
        encoded by whichever viewer needs it first."""
        taken = 0
        while True:
            with self._lock:
                if taken == len(self._batches):
                    message = next(self._pending, None) if self._pending is not None else None
                    if message is None:
                        self._pending = None
                        return
                    self._batches.append(Prepared.of(message))
                batch = self._batches[taken]
            taken += 1
            yield batch

    def weight(self) -> int:
        with self._lock:
            held = [self.raw_meta, *self._batches]
            held += [p for p in (self._summary, self._findings) if p is not None]
        return sum(prepared.weight() for prepared in held)

    def summary(self) -> Prepared:
        with self._lock:
            if self._summary is None:
                self._summary = Prepared.of(self._encoder.summary_message(self._stall_ms))
            return self._summary

    def findings(self) -> Prepared:
        """The stream's ``findings`` (after its summary: its timeline is complete)."""
        with self._lock:
            if self._findings is None:
                message = self._encoder.findings_message(self._stall_ms, final=self.final)
                self._findings = Prepared.of(message)
            return self._findings


@dataclass(frozen=True)
class EncodedCapture:
    capture: Prepared
    streams: list[EncodedStream]

    def weight(self) -> int:
        """Bytes of the messages encoded so far (sources.py bounds its cache by them)."""
        return self.capture.weight() + sum(stream.weight() for stream in self.streams)


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
    streams = [
        EncodedStream(
            stream, settings, final=not (loaded.recorded_live and stream.end_reason is None)
        )
        for stream in capture.streams
    ]
    return EncodedCapture(Prepared.of(header), streams)
