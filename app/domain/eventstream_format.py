"""The pieces of the AWS event-stream format (eventstream.py has the frame layout): header
decoding and what a frame's headers say (``Headers``, ``frame_data``), and header and frame
encoding (for scrubbing a capture and for tests).

Every header type of the format is read: 0 true, 1 false, 2 byte, 3 short, 4 int, 5 long
(signed, big-endian), 6 bytes, 7 string (UTF-8), 8 timestamp (milliseconds since the epoch, read
as an aware UTC ``datetime``), 9 UUID. Headers that cannot be read are problems with their
offset, never exceptions; what was read before a problem is kept.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID

import orjson

from .events import Severity

HeaderValue = bool | int | bytes | str | datetime | UUID
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_LENGTH = struct.Struct(">H")


@dataclass(frozen=True, slots=True)
class HeaderProblem:
    code: str
    offset: int  # from the start of the headers
    message: str
    severity: Severity = "error"


def _timestamp(data: bytes) -> datetime:
    return _EPOCH + timedelta(milliseconds=struct.unpack(">q", data)[0])


# type byte -> (name, fixed size or None for a 2-byte length first, reader)
_TYPES: dict[int, tuple[str, int | None, Callable[[bytes], HeaderValue]]] = {
    0: ("true", 0, lambda _: True),
    1: ("false", 0, lambda _: False),
    2: ("byte", 1, lambda b: struct.unpack(">b", b)[0]),
    3: ("short", 2, lambda b: struct.unpack(">h", b)[0]),
    4: ("int", 4, lambda b: struct.unpack(">i", b)[0]),
    5: ("long", 8, lambda b: struct.unpack(">q", b)[0]),
    6: ("bytes", None, bytes),
    7: ("string", None, lambda b: b.decode()),
    8: ("timestamp", 8, _timestamp),
    9: ("uuid", 16, lambda b: UUID(bytes=bytes(b))),
}


def parse_headers(data: bytes) -> tuple[dict[str, HeaderValue], list[HeaderProblem]]:
    """The headers in order of arrival; a repeated name keeps its first value (said)."""
    headers: dict[str, HeaderValue] = {}
    problems: list[HeaderProblem] = []
    pos, end = 0, len(data)
    while pos < end:
        start = pos
        name_end = pos + 1 + data[pos]
        if name_end >= end:
            problems.append(_broken(start, "a header name runs past the end of the headers"))
            break
        try:
            name = data[pos + 1 : name_end].decode()
        except UnicodeDecodeError:
            problems.append(_broken(start, "a header name is not valid UTF-8"))
            break
        kind = _TYPES.get(data[name_end])
        if kind is None:
            problems.append(_broken(start, f"header {name!r} has unknown type {data[name_end]}"))
            break
        type_name, size, read = kind
        pos = name_end + 1
        if size is None:
            if pos + 2 > end:
                problems.append(_broken(start, f"header {name!r} ({type_name}) is cut short"))
                break
            size = _LENGTH.unpack_from(data, pos)[0]
            pos += 2
        if pos + size > end:
            problems.append(_broken(start, f"header {name!r} ({type_name}) is cut short"))
            break
        try:
            value = read(data[pos : pos + size])
        except (UnicodeDecodeError, OverflowError) as exc:
            problems.append(_broken(start, f"header {name!r} ({type_name}) is unreadable: {exc}"))
            break
        pos += size
        if name in headers:
            problems.append(
                HeaderProblem(
                    "eventstream_duplicate_header",
                    start,
                    f"header {name!r} is repeated; the first value is kept",
                    "warning",
                )
            )
            continue
        headers[name] = value
    return headers, problems


def _broken(offset: int, message: str) -> HeaderProblem:
    return HeaderProblem("eventstream_header", offset, f"{message}; the headers after it were lost")


_INTS = {2: ">b", 3: ">h", 4: ">i", 5: ">q"}


def encode_header(name: str, value: HeaderValue, kind: int = 5) -> bytes:
    """One header as the format writes it; an ``int`` goes out as type ``kind`` (2 byte,
    3 short, 4 int, 5 long), every other value as its own type."""
    raw = name.encode()
    head = bytes([len(raw)]) + raw
    if isinstance(value, bool):
        return head + bytes([0 if value else 1])
    if isinstance(value, int):
        return head + bytes([kind]) + struct.pack(_INTS[kind], value)
    if isinstance(value, bytes):
        return head + b"\x06" + _LENGTH.pack(len(value)) + value
    if isinstance(value, str):
        data = value.encode()
        return head + b"\x07" + _LENGTH.pack(len(data)) + data
    if isinstance(value, datetime):
        millis = (value - _EPOCH) // timedelta(milliseconds=1)
        return head + b"\x08" + struct.pack(">q", millis)
    return head + b"\x09" + value.bytes


def encode_frame(headers: bytes, payload: bytes) -> bytes:
    """A whole frame around encoded headers and a payload, both CRCs computed."""
    total = 16 + len(headers) + len(payload)
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + headers + payload
    return body + struct.pack(">I", zlib.crc32(body))


def frame_data(headers: dict[str, HeaderValue], payload: bytes, message_type: str) -> bytes:
    """What a frame says: its payload, or for an error frame without one, its error headers
    as an in-stream error object, ``{"error": {"code", "message"}}``."""
    if message_type != "error" or payload.strip():
        return payload
    code, message = headers.get(":error-code"), headers.get(":error-message")
    text = str(message or code or "")
    return orjson.dumps(
        {"error": {"code": code if isinstance(code, str) else None, "message": text}}
    )


@dataclass(frozen=True, slots=True)
class Headers:
    """A frame's headers read once, with what they say (kept per distinct header bytes)."""

    values: dict[str, HeaderValue]
    name: str | None
    message_type: str

    @classmethod
    def of(cls, values: dict[str, HeaderValue]) -> Headers:
        kind = values.get(":message-type", "event")
        kind = kind if isinstance(kind, str) else "event"
        if kind == "error":
            return cls(values, "error", kind)
        name = values.get(":exception-type" if kind == "exception" else ":event-type")
        return cls(values, name if isinstance(name, str) else None, kind)
