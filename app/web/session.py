"""One websocket connection's work, built from ``send`` and ``receive`` callables so that
tests need no socket.

For a capture, the whole timeline goes out at once, in batches (``raw_meta``, ``events``,
``summary`` per stream, then ``end``): the page paces playback with its own clock, so play,
pause, seek and speed never wait for the server. Afterwards the session answers
``raw_request`` s for the raw view until the page leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson

from .. import __version__
from ..domain.events import Event
from ..domain.stream import Stream
from ..domain.summary import diagnostic_json, summarize
from ..protocol import MAX_RAW_REQUEST, VERSION, ProtocolError, decode_client, encode
from .errors import StreamscopeError
from .live_session import LiveViewing
from .sources import Loaded, Sources

OPEN_TIMEOUT = 30.0
BATCH_BYTES = 512 * 1024
RAW_KINDS = {"event": 0, "comment": 1, "other": 2}


class Closed(Exception):
    """The page went away."""


class Session(LiveViewing):
    def __init__(
        self,
        send: Callable[[str], None],
        receive: Callable[[float | None], str | bytes | None],
        sources: Sources,
        settings: dict[str, Any],
        live: Any = None,
    ) -> None:
        self._send = send
        self._receive = receive
        self.sources = sources
        self.settings = settings
        self.live = live
        self.kind = "none"  # replay, live-start, live-follow: for the log line
        self.source_name: str | None = None
        self.loaded: Loaded | None = None

    def run(self) -> None:
        self._send(
            encode(
                "hello",
                version=VERSION,
                server=f"streamscope {__version__}",
                max_message=self.settings["ws_max_message"],
                max_raw_request=MAX_RAW_REQUEST,
            )
        )
        first = self._next(OPEN_TIMEOUT)
        if first is None:
            self._error("timeout", "no open message came")
            return
        if first.get("type") == "start" and self.live is not None:
            self.kind = "live-start"
            self._start(first)
            return
        if first.get("type") != "open" or not isinstance(first.get("source"), dict):
            self._error("bad_message", "the first message must be open (with a source) or start")
            return
        capture_id = first["source"].get("capture")
        run = (
            self.live.registry.get(capture_id)
            if self.live and isinstance(capture_id, str)
            else None
        )
        self.source_name = str(first["source"].get("demo") or capture_id)
        resume = parse_resume(first.get("resume"))
        if run is not None:
            self.kind = "live-follow"
            record = self.sources.store.get(capture_id)
            self._follow(run, record.title if record else "Live run", starter=False, resume=resume)
            return
        try:
            self.loaded = self.sources.open(first["source"])
        except StreamscopeError as exc:
            self._error(exc.code, exc.message)
            return
        self.kind = "replay"
        self.send_capture(self.loaded, resume)
        self._serve_requests()

    # ------------------------------------------------------------------ sending
    def send_capture(self, loaded: Loaded, resume: tuple[int, int] | None = None) -> None:
        """Everything, or (resuming after a dropped connection) what the page lacks: streams
        before ``resume[0]`` are skipped, and that stream's first ``resume[1]`` events."""
        capture = loaded.capture
        self._send(
            encode(
                "capture",
                title=loaded.title,
                source=loaded.info,
                format=capture.format,
                compression=capture.compression,
                pace_ms=self.settings["untimed_pace_ms"],
                stall_ms=self.settings["stall_ms"],
                streams=[stream_info(s) for s in capture.streams],
                diagnostics=[diagnostic_json(d) for d in capture.diagnostics],
            )
        )
        first_stream, skip = resume or (0, 0)
        for stream in capture.streams[first_stream:]:
            self._send(encode("raw_meta", stream=stream.index, start=0, **raw_columns(stream, 0)))
            events = stream.events[skip:] if stream.index == first_stream else stream.events
            for batch in event_batches(events, self.settings["event_batch"]):
                self._send(encode("events", stream=stream.index, events=batch))
            self.send_summary(stream)
        self._send(encode("end", reason="complete"))

    def send_summary(self, stream: Stream) -> None:
        summary = summarize(stream, self.settings["stall_ms"])
        self._send(encode("summary", stream=stream.index, **summary))

    def _serve_requests(self) -> None:
        while True:
            message = self._next(None)
            if message is None:
                continue
            if message["type"] == "raw_request":
                self._raw(message)
            elif message["type"] == "stop":
                continue  # nothing to stop in a replay

    def _raw(self, message: dict[str, Any]) -> None:
        assert self.loaded is not None
        streams = self.loaded.capture.streams
        index, start, count = message.get("stream"), message.get("start"), message.get("count")
        if not all(isinstance(v, int) and v >= 0 for v in (index, start, count)) or index >= len(
            streams
        ):
            self._error("bad_message", "raw_request needs stream, start and count (integers)")
            return
        stream = streams[index]
        end = min(start + min(count, MAX_RAW_REQUEST), len(stream.raw))
        items = [raw_item(stream, i) for i in range(start, end)]
        self._send(encode("raw", stream=index, start=start, items=items))

    # ------------------------------------------------------------------ receiving
    def _next(self, timeout: float | None) -> dict[str, Any] | None:
        text = self._receive(timeout)
        if text is None:
            return None
        try:
            return decode_client(text)
        except ProtocolError as exc:
            self._error(exc.code, exc.message)
            return {"type": "invalid"}

    def _error(self, code: str, message: str) -> None:
        self._send(encode("error", code=code, message=message))


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
    """Events as JSON arrays of at most ``max_count`` events and about ``BATCH_BYTES``."""
    batch: list[bytes] = []
    size = 0
    for event in events:
        data = orjson.dumps(event.to_json())
        batch.append(data)
        size += len(data)
        if len(batch) >= max_count or size >= BATCH_BYTES:
            yield orjson.Fragment(b"[" + b",".join(batch) + b"]")
            batch, size = [], 0
    if batch:
        yield orjson.Fragment(b"[" + b",".join(batch) + b"]")


def parse_resume(value: Any) -> tuple[int, int] | None:
    """``{"stream": s, "events": n}``: the page has streams before s and n events of s."""
    if not isinstance(value, dict):
        return None
    stream, events = value.get("stream"), value.get("events")
    if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (stream, events)):
        return stream, events
    return None
