"""Raw SSE files and curl output (``curl -N``, ``curl -i``: status line and headers first)."""

from __future__ import annotations

import re

from ..domain.stream import RequestLine, Source, Stream
from ..domain.timeline import SSEFeeder
from . import curlv
from .jsonl import read_json_body
from .model import Capture, Limits

_STATUS = re.compile(rb"HTTP/[0-9.]+ +(\d{3})[^\r\n]*")
_HEADER_END = re.compile(rb"\r?\n\r?\n")


def read_sse(data: bytes, limits: Limits, origin: str = "capture") -> list[Stream]:
    return read_sse_body(Source(data), data, limits, origin=origin)


def read_sse_body(
    source: Source,
    body: bytes,
    limits: Limits,
    *,
    origin: str,
    line: int = 1,
    byte: int = 0,
) -> list[Stream]:
    builder = limits.builder(source, origin=origin)
    feeder = SSEFeeder(builder, line=line, byte=byte, max_line=limits.max_line)
    feeder.feed_all(body)
    return feeder.close()


def read_curl(data: bytes, capture: Capture, limits: Limits) -> list[Stream]:
    how = curlv.kind(data.lstrip())
    if how is None:
        return _read_response(data, capture, limits)
    # curl -v / --trace-ascii: the response read as curl -i shows it (its head, then the body
    # lines without curl's own), each stream told the request the capture holds (curlv.py).
    exchange = curlv.parse(data.lstrip(), how)
    if not exchange.body.strip():
        capture.note(
            "curl_no_body",
            "error",
            "curl's own lines hold no response body (curl -v writes them on standard error: "
            "capture with 2>&1; a trace with -o writes the body elsewhere)",
        )
        return []
    streams = _read_response(exchange.response_head + exchange.body, capture, limits)
    summary = exchange.summary()
    for stream in streams:
        stream.request = summary
        stream.request_line = RequestLine(exchange.method, summary["url"], "curl")
    return streams


def _read_response(data: bytes, capture: Capture, limits: Limits) -> list[Stream]:
    head = http_head(data)
    if head is None:
        capture.note("curl_headers", "error", "the HTTP headers never end; no body")
        return []
    pos, status, content_type = head
    if status is not None and status >= 400:
        capture.note("http_status", "error", f"the server answered HTTP {status}")
    line = data.count(b"\n", 0, pos) + 1
    body = data[pos:]
    origin = f"HTTP {status}" if status else "capture"
    if b"json" in content_type and not body.lstrip().startswith(b"data:"):
        streams = read_json_body(Source(data), body, limits, origin=origin, line=line, byte=pos)
    else:
        streams = read_sse_body(Source(data), body, limits, origin=origin, line=line, byte=pos)
    if content_type:
        for stream in streams:
            stream.content_type = content_type.decode("latin-1")
    return streams


def http_head(data: bytes) -> tuple[int, int | None, bytes] | None:
    """Skip each ``HTTP/x status`` block (100 Continue, redirects with -L) before the body:
    where the body starts, the last status and content type; None if the headers never end."""
    pos, status, content_type = 0, None, b""
    while True:
        match = _STATUS.match(data, pos)
        if match is None:
            return pos, status, content_type
        end = _HEADER_END.search(data, match.end())
        if end is None:
            return None
        status = int(match.group(1))
        headers = data[match.end() : end.start()]
        found = re.search(rb"(?im)^content-type:\s*([^\r\n]*)", headers)
        content_type = found.group(1).lower() if found else b""
        pos = end.end()
