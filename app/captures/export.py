"""Converting a read capture to the download formats: Streamscope's timed format, JSON Lines
of chunks, plain SSE. The stored original is offered as it is.

Payloads are taken back out of each raw event's text by the stream's container (how its reader
put them in, docs/formats.md): SSE events are decoded again, binary frames give their payload,
JSON lines and array elements are their text, documentation-form blocks are compacted to one
line when they parse. A payload on several lines that is not JSON keeps its line breaks in SSE
(one ``data:`` line each) and shows each as the two characters ``\\n`` in JSON Lines: joining
its lines could make a key shape that no view of the stored capture holds ("Bearer" ending one
line, a word starting the next; docs/security.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import orjson

from ..domain.body import EVENTSTREAM_TYPE
from ..domain.sse import SSEDecoder
from ..domain.stream import Stream
from .eventstream import frame_payload
from .model import Capture
from .scrub import Redactions
from .scrub.values import scrub_json
from .timed import end_line, header_line, read_line

# The content type a timed capture's reads are read back with, by container (SSE: none needed).
CONTENT_TYPES = {"eventstream": EVENTSTREAM_TYPE, "lines": "application/x-ndjson"}


def payloads(stream: Stream, line_break: bytes = b"\\n") -> Iterator[bytes]:
    """Each payload of the stream; ``line_break`` joins the lines of one that is not JSON."""
    extract = _EXTRACT.get(stream.container) or (lambda text: _one_line(text, line_break))
    for raw in stream.raw:
        if raw.kind == "event":
            yield from extract(stream.source.slice(raw.byte, raw.end))


def _sse(text: bytes) -> Iterator[bytes]:
    decoder = SSEDecoder()
    items = decoder.feed(text) + decoder.feed(b"\n\n") + decoder.close()
    return (item.data for item in items if item.data is not None)


def _frame(text: bytes) -> Iterator[bytes]:
    yield frame_payload(text)


def _one_line(text: bytes, line_break: bytes) -> Iterator[bytes]:
    yield _compact(text, line_break)


def _compact(text: bytes, line_break: bytes) -> bytes:
    body = text.strip()
    if body.startswith(b"data:"):
        body = body[5:].strip()
    if b"\n" in body or b"\r" in body:
        try:
            return orjson.dumps(orjson.loads(body))
        except (orjson.JSONDecodeError, orjson.JSONEncodeError):  # read 1,024 deep, written 254
            return line_break.join(line.strip() for line in body.splitlines())
    return body


_EXTRACT = {"sse": _sse, "eventstream": _frame}


def to_jsonl(capture: Capture) -> bytes:
    lines = [
        payload
        for stream in capture.streams
        for payload in payloads(stream)
        if payload.strip() != b"[DONE]"
    ]
    return b"\n".join(lines) + (b"\n" if lines else b"")


def to_sse(capture: Capture) -> bytes:
    out: list[bytes] = []
    for stream in capture.streams:
        out.extend(
            b"data: " + p.replace(b"\n", b"\ndata: ") + b"\n\n" for p in payloads(stream, b"\n")
        )
    return b"".join(out)


def known_request(capture: Capture) -> tuple[dict[str, Any], dict[str, str]]:
    """The request its streams share, for a timed header: the body (a JSON object: a HAR
    entry's ``postData``, a curl trace's body sent, a recording's body as kept), scrubbed
    again, and the request line as ``source`` fields (``method``, ``url``: scrubbed by the
    reader). Streams with different requests, or none, give ``({}, {})``: one header holds
    one request."""
    seen = {_request_of(stream) for stream in capture.streams}
    if len(seen) != 1:
        return {}, {}
    body_json, method, url = seen.pop()
    line = {k: v for k, v in (("url", url), ("method", method)) if v}
    body = orjson.loads(body_json) if body_json else {}
    return scrub_json(body, Redactions()) if body else {}, line


def _request_of(stream: Stream) -> tuple[bytes, str | None, str | None]:
    line = stream.request_line
    kept = stream.request or {}
    body = kept.get("body") if line is not None and line.source in ("har", "curl") else kept
    as_json = orjson.dumps(body, option=orjson.OPT_SORT_KEYS) if isinstance(body, dict) else b""
    return as_json, line.method if line else None, line.url if line else None


def to_timed(capture: Capture, original: bytes, *, source: dict | None = None) -> bytes:
    """A timed capture is returned as it is; anything else becomes one read per raw event,
    marked ``"timing": "none"`` (its times are not real), its header's ``request`` and
    ``source.url``/``source.method`` the request the streams share (``known_request``)."""
    if capture.format == "timed":
        return original
    created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    containers = {stream.container for stream in capture.streams}
    content_type = CONTENT_TYPES.get(containers.pop()) if len(containers) == 1 else None
    response = {"content_type": content_type} if content_type else {}
    request, line = known_request(capture)
    header = header_line(
        created=created, source=(source or {}) | line, request=request, response=response
    )
    header = header[:-2] + b',"timing":"none"}\n'
    reads = []
    for stream in capture.streams:
        for raw in stream.raw:
            reads.append(read_line(0.0, stream.source.slice(raw.byte, raw.end)))
    return header + b"".join(reads) + end_line(0.0, "done")
