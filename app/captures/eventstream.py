"""AWS event-stream captures (``.eventstream``): the binary frames of a Bedrock response body
as recorded, read frame by frame (app/domain/eventstream.py; docs/formats.md), and what the
exports and the scrubbing need to know of frames."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

import orjson

from ..domain.body import EventStreamFeeder
from ..domain.eventstream import PRELUDE, EventStreamDecoder, Frame, is_eventstream
from ..domain.eventstream_format import encode_frame, encode_header, parse_headers
from ..domain.stream import Source, Stream
from .model import Capture, Limits

_LENGTHS = struct.Struct(">II")


def read_eventstream(data: bytes, capture: Capture, limits: Limits) -> list[Stream]:
    builder = limits.builder(Source(data), container="eventstream")
    feeder = EventStreamFeeder(builder, max_frame=limits.max_line)
    feeder.feed_all(data)
    return feeder.close()


def frame_payload(frame: bytes) -> bytes:
    """One frame's payload for the JSON exports, named as boto3 names events,
    ``{"contentBlockDelta": {...}}``, so that the export still reads as Bedrock."""
    items = EventStreamDecoder().feed(frame)
    found = next((item for item in items if isinstance(item, Frame)), None)
    if found is None:
        return b""
    data = found.data
    if found.raw.event in (None, "error"):
        return data
    return b"{" + orjson.dumps(found.raw.event) + b":" + data + b"}"


def reframe(data: bytes, clean: Callable[[bytes], bytes]) -> bytes:
    """The frames with their payloads and string header values passed through ``clean`` (the
    secret sweep), written again with new lengths and CRCs where something changed. A damaged
    frame that ``clean`` would change is dropped (it cannot be written again without faking its
    CRC); from the first unreadable prelude on, the bytes are cleaned as they are."""
    out: list[bytes] = []
    pos = 0
    while is_eventstream(data[pos : pos + PRELUDE]):
        total, headers_length = _LENGTHS.unpack_from(data, pos)
        end = pos + total
        if end > len(data):
            break
        frame = data[pos:end]
        if zlib.crc32(frame[:-4]) != int.from_bytes(frame[-4:], "big"):
            out.append(frame if clean(frame) == frame else b"")
        else:
            headers = frame[PRELUDE : PRELUDE + headers_length]
            payload = frame[PRELUDE + headers_length : -4]
            new_headers, new_payload = _clean_headers(headers, clean), clean(payload)
            same = new_headers == headers and new_payload == payload
            out.append(frame if same else encode_frame(new_headers, new_payload))
        pos = end
    out.append(clean(data[pos:]))
    return b"".join(out)


def _clean_headers(headers: bytes, clean: Callable[[bytes], bytes]) -> bytes:
    values, problems = parse_headers(headers)
    if problems:
        return clean(headers)  # unreadable as headers: swept as bytes
    cleaned = {
        name: clean(value) if isinstance(value, bytes) else clean(value.encode()).decode()
        for name, value in values.items()
        if isinstance(value, bytes | str)
    }
    if all(cleaned[name] == values[name] for name in cleaned):
        return headers
    return b"".join(encode_header(name, cleaned.get(name, v)) for name, v in values.items())
