"""Streamscope's timed capture format (``docs/capture-format.md``).

JSON Lines, one record per line, in this order:

1. ``{"type":"header","format":"streamscope.timed","version":1,"created":...,"source":{...},
   "request":{...},"response":{...}}``: where the stream came from, credentials removed;
2. optionally ``{"type":"response","t":..,"status":200,"content_type":"text/event-stream"}``
   when the response line arrived (live recordings);
3. ``{"type":"read","t":12.5,"text":"data: ..."}`` per network read: ``t`` is the monotonic
   offset from the request start in milliseconds; ``text`` holds the bytes when they are valid
   UTF-8, else ``"base64"`` holds them;
4. ``{"type":"end","t":...,"reason":"done"|"error"|"cancelled"|"disconnected"|"too_large"|"client_stalled"}``.

``write_*`` emit one canonical byte form (orjson, compact, keys in this order), and
``read_records`` keeps the records as they were, so reading then writing a file that Streamscope
wrote gives the same bytes, read boundaries and times included.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..domain.body import BodyFeeder
from ..domain.bytestart import DEFAULT_MAX_LINE
from ..domain.jsontext import decode_lenient, deep_problem, too_deep
from ..domain.shapes import as_object
from ..domain.stream import RequestLine, Source, Stream
from .model import Capture, Limits, long_line
from .scrub import Redactions, scrub_url

FORMAT_NAME = "streamscope.timed"
FORMAT_VERSION = 1
END_REASONS = ("done", "error", "cancelled", "disconnected", "too_large", "client_stalled")
MAX_OFFSET_MS = 1e12  # about 30 years: anything larger is not a time offset


@dataclass
class TimedRecords:
    header: dict[str, Any] | None = None
    response: dict[str, Any] | None = None
    reads: list[tuple[float, bytes]] = field(default_factory=list)
    end: dict[str, Any] | None = None

    @property
    def content_type(self) -> str | None:
        for record in (self.response, (self.header or {}).get("response")):
            if isinstance(record, dict) and isinstance(record.get("content_type"), str):
                return record["content_type"]
        return None


# ---------------------------------------------------------------------- writing
def header_line(
    *,
    created: str,
    source: dict[str, Any] | None = None,
    request: dict[str, Any] | None = None,
    response: dict[str, Any] | None = None,
    api: str | None = None,
    timing: str | None = None,
) -> bytes:
    record: dict[str, Any] = {
        "type": "header",
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "created": created,
        "source": source or {},
    }
    if api is not None:  # the API a live run or ``streamscope record`` called (docs/live.md)
        record["api"] = api
    record |= {"request": request or {}, "response": response or {}}
    if timing is not None:  # "synthesized" or "none": the reads' times were not measured
        record["timing"] = timing
    return orjson.dumps(record) + b"\n"


def read_line(t: float, data: bytes) -> bytes:
    try:
        record: dict[str, Any] = {"type": "read", "t": float(t), "text": data.decode()}
    except UnicodeDecodeError:
        record = {"type": "read", "t": float(t), "base64": base64.b64encode(data).decode()}
    return orjson.dumps(record) + b"\n"


def response_line(
    t: float, status: int, content_type: str, headers: dict[str, str] | None = None
) -> bytes:
    record: dict[str, Any] = {
        "type": "response",
        "t": float(t),
        "status": status,
        "content_type": content_type,
    }
    if headers is not None:  # a proxied call's response headers, without secrets (docs/proxy.md)
        record["headers"] = headers
    return orjson.dumps(record) + b"\n"


def end_line(t: float, reason: str, error: str | None = None) -> bytes:
    record: dict[str, Any] = {"type": "end", "t": float(t), "reason": reason}
    if error:
        record["error"] = error
    return orjson.dumps(record) + b"\n"


def write_records(records: TimedRecords) -> bytes:
    out = []
    if records.header is not None:
        out.append(orjson.dumps(records.header) + b"\n")
    if records.response is not None:
        out.append(orjson.dumps(records.response) + b"\n")
    out.extend(read_line(t, data) for t, data in records.reads)
    if records.end is not None:
        out.append(orjson.dumps(records.end) + b"\n")
    return b"".join(out)


# ---------------------------------------------------------------------- reading
def is_timed(first_line: bytes) -> bool:
    try:
        record = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(record, dict) and record.get("format") == FORMAT_NAME


def _lines(data: bytes) -> Iterator[tuple[int, int, int]]:
    """(line number, start, end) of each line, without copying any."""
    start, line_no = 0, 1
    while start <= len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield line_no, start, end
        start, line_no = end + 1, line_no + 1


def read_records(data: bytes, capture: Capture, max_line: int = DEFAULT_MAX_LINE) -> TimedRecords:
    records = TimedRecords()
    last_t = 0.0
    for line_no, start, end in _lines(data):
        if end - start > max_line:
            capture.diagnostics.append(long_line(end - start, max_line, line_no, start))
            continue
        line = data[start:end]
        if not line.strip():
            continue
        record = _record(line, line_no, capture)
        if record is None:
            continue
        kind = record.get("type")
        if kind == "header":
            records.header = record
            version = record.get("version")
            if version != FORMAT_VERSION:
                capture.note("timed_version", "warning", f"format version {version!r}", line_no)
        elif kind == "read":
            read = _read(record, line_no, capture)
            if read is not None:
                if read[0] < last_t:
                    capture.note("timed_order", "warning", "time goes backwards here", line_no)
                last_t = read[0]
                records.reads.append(read)
        elif kind == "response":
            records.response = record
        elif kind == "end":
            records.end = record
        else:
            capture.note("timed_record", "warning", f"unknown record type {kind!r}", line_no)
    if records.header is None:
        capture.note("timed_header", "warning", "no header record")
    return records


def _record(line: bytes, line_no: int, capture: Capture) -> dict[str, Any] | None:
    if too_deep(line):
        capture.note("json_too_deep", "error", deep_problem().message, line_no)
        return None
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        decoded = decode_lenient(line)
        record = decoded.value
        if not decoded.ok:
            message = decoded.problems[-1].message if decoded.problems else "not JSON"
            capture.note("timed_json", "error", f"record is not JSON: {message}", line_no)
            return None
    if not isinstance(record, dict):
        capture.note("timed_record", "error", "record is not a JSON object", line_no)
        return None
    return record


def offset(value: Any) -> float | None:
    """A record's ``t`` as milliseconds, when it is a finite number in a sane range."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        t = float(value)
    except OverflowError:
        return None
    return t if math.isfinite(t) and abs(t) <= MAX_OFFSET_MS else None


def _read(record: dict[str, Any], line_no: int, capture: Capture) -> tuple[float, bytes] | None:
    t = offset(record.get("t"))
    if t is None:
        capture.note(
            "timed_time", "error", "read without a usable t (a number of milliseconds)", line_no
        )
        return None
    if isinstance(record.get("text"), str):
        return t, record["text"].encode("utf-8", errors="replace")
    encoded = record.get("base64")
    try:
        return t, base64.b64decode(encoded if isinstance(encoded, str) else "", validate=True)
    except (binascii.Error, ValueError):
        capture.note("timed_base64", "error", "read whose base64 does not decode", line_no)
        return None


def read_timed(data: bytes, capture: Capture, limits: Limits) -> list[Stream]:
    records = read_records(data, capture, limits.max_line)
    capture.header = records.header
    header = records.header or {}
    source = as_object(header.get("source"))
    origin = str(source.get("url") or "timed capture")
    # A converted capture ("timing": "none") has no real times and may hold several streams.
    real_timing = header.get("timing") != "none"
    builder = limits.builder(
        Source(), origin=origin, split_on_done=not real_timing, timed=real_timing
    )
    feeder = BodyFeeder(builder, records.content_type, max_line=limits.max_line)
    for t, chunk in records.reads:
        feeder.feed(chunk, t)
    end = records.end or {}
    streams = feeder.close(offset(end.get("t")))
    synthesized = header.get("timing") == "synthesized"
    for stream in streams:
        stream.synthesized = synthesized and stream.timed
        stream.request = header.get("request") if isinstance(header.get("request"), dict) else None
        stream.request_line = request_line(header)
        stream.content_type = records.content_type
        stream.end_reason = end.get("reason") if isinstance(end.get("reason"), str) else None
        stream.end_error = end.get("error") if isinstance(end.get("error"), str) else None
    if records.end is None:
        capture.note("timed_end", "warning", "no end record: the recording was cut short")
    return streams


def request_line(header: dict[str, Any]) -> RequestLine:
    """How a recording's request was sent: the source's method (a proxied call's), else POST
    when the header names the API a live run or ``streamscope record`` called (they POST);
    the source's URL scrubbed (no user-info, secret query values replaced)."""
    source = as_object(header.get("source"))
    method = source.get("method")
    if not isinstance(method, str) or not method:
        method = "POST" if isinstance(header.get("api"), str) else None
    url = source.get("url")
    clean = scrub_url(url, Redactions()) if isinstance(url, str) else ""
    return RequestLine(method, clean or None, "recording")
