"""A capture's timeline document (docs/protocol.md, "The timeline document"): the messages a
replay sends over the websocket, in its order, written a message at a time from the capture's
encoded replay (replay.py), with its raw texts when asked. Served by app/web/http/timeline.py
and written into the offline export (app/standalone/export.py)."""

from __future__ import annotations

from collections.abc import Iterator

from ..protocol import MAX_RAW_REQUEST, VERSION, encode
from ..settings import Settings
from ..wire import StreamEncoder
from .replay import encoded_capture
from .results import Out
from .sources import Loaded


def growing(loaded: Loaded) -> bool:
    """A live recording that has not ended yet (its stored bytes have no end line)."""
    return loaded.recorded_live and any(s.end_reason is None for s in loaded.capture.streams)


def write_document(loaded: Loaded, settings: Settings, out: Out, *, raw: bool) -> None:
    """``{"version": <the protocol's>, "messages": [...]}``, with ``"raw": [...]`` when asked, written a
    message at a time from the capture's encoded replay (never joined in memory)."""
    encoded = encoded_capture(loaded, settings)
    out.write(f'{{"version":{VERSION},"messages":['.encode())
    out.write(encoded.capture.payload)
    for stream in encoded.streams:
        out.write(b",")
        out.write(stream.raw_meta.payload)
        for batch in stream.batches():
            out.write(b",")
            out.write(batch.payload)
        out.write(b",")
        out.write(stream.summary().payload)
        out.write(b",")
        out.write(stream.findings().payload)
    out.write(b"," + encode("end", reason="complete").encode() + b"]")
    if raw:
        out.write(b',"raw":[')
        for index, message in enumerate(raw_messages(loaded)):
            out.write((b"," if index else b"") + message.encode())
        out.write(b"]")
    out.write(b"}")


def raw_messages(loaded: Loaded) -> Iterator[str]:
    """Every raw event's text, as ``raw`` messages (the shape the websocket answers a
    ``raw_request`` with), a page at a time."""
    for stream in loaded.capture.streams:
        encoder = StreamEncoder(stream)
        for start in range(0, len(stream.raw), MAX_RAW_REQUEST):
            items = encoder.raw_items(start, MAX_RAW_REQUEST)
            yield encode("raw", stream=stream.index, start=start, items=items)
