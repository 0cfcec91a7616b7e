"""A replay's messages are encoded once per parsed capture and shared by every viewer (kept on
the cached ``Loaded``; one viewer encodes, the others wait for it), each ``events`` batch as
one ``orjson.dumps`` of a list (not one ``bytes`` per event: orjson 3.13 allocates about 4 KiB
for each). ``STREAMSCOPE_FIRST_BATCH`` (0: off) makes the first batch that many events."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator
from typing import Any

import orjson

from app.domain.summary import diagnostic_json, summarize
from app.protocol import encode
from app.web import session

FIRST = int(os.environ.get("STREAMSCOPE_FIRST_BATCH", "0"))
_lock = threading.Lock()
_original = session.Session.send_capture


def _batches(events: list[Any], max_count: int) -> Iterator[orjson.Fragment]:
    bounds = [0, min(FIRST or max_count, len(events))]
    while bounds[-1] < len(events):
        bounds.append(min(bounds[-1] + max_count, len(events)))
    for i, j in itertools.pairwise(bounds):
        yield orjson.Fragment(orjson.dumps([e.to_json() for e in events[i:j]]))


def _build(self: Any, loaded: Any) -> list[str]:
    capture = loaded.capture
    out = [
        encode(
            "capture",
            title=loaded.title,
            source=loaded.info,
            format=capture.format,
            compression=capture.compression,
            pace_ms=self.settings["untimed_pace_ms"],
            stall_ms=self.settings["stall_ms"],
            streams=[session.stream_info(s) for s in capture.streams],
            diagnostics=[diagnostic_json(d) for d in capture.diagnostics],
        )
    ]
    for stream in capture.streams:
        out.append(
            encode("raw_meta", stream=stream.index, start=0, **session.raw_columns(stream, 0))
        )
        for batch in _batches(stream.events, self.settings["event_batch"]):
            out.append(encode("events", stream=stream.index, events=batch))
        summary = summarize(stream, self.settings["stall_ms"])
        out.append(encode("summary", stream=stream.index, **summary))
    out.append(encode("end", reason="complete"))
    return out


def send_capture(self: Any, loaded: Any, resume: tuple[int, int] | None = None) -> None:
    if resume is not None:
        _original(self, loaded, resume)
        return
    encoded = getattr(loaded, "_encoded", None)
    if encoded is None:
        with _lock:
            encoded = getattr(loaded, "_encoded", None)
            if encoded is None:
                encoded = _build(self, loaded)
                loaded._encoded = encoded
    for text in encoded:
        self._send(text)


session.Session.send_capture = send_capture
