"""Reading any capture: undo gzip, detect the format (or take the one given), read streams.

``read_capture`` never raises on bad input: what cannot be read becomes a diagnostic with a
code, a position where there is one, and a message in plain words.
"""

from __future__ import annotations

import re
import zlib

import orjson

from ..domain.eventstream import is_eventstream
from .docs import looks_like_docs, read_docs
from .eventstream import read_eventstream
from .har import read_har
from .jsonl import read_json_array, read_jsonl
from .model import FORMATS, Capture, Limits
from .sse import read_curl, read_sse
from .timed import is_timed, read_timed

SNIFF = 64 * 1024
_SSE_FIELD = re.compile(rb"^(?:data|event|id|retry) ?:|^:", re.MULTILINE)


def read_capture(data: bytes, fmt: str | None = None, limits: Limits | None = None) -> Capture:
    limits = limits or Limits()
    capture = Capture(format=None)
    if data[:2] == b"\x1f\x8b":
        capture.compression = "gzip"
        data = gunzip(data, limits.max_decompressed, capture)
    if fmt is not None and fmt not in FORMATS:
        capture.note(
            "unknown_format", "error", f"unknown format {fmt!r}; known: {', '.join(FORMATS)}"
        )
        return capture
    fmt = fmt or detect(data, capture)
    capture.format = fmt
    if fmt is None:
        return capture
    capture.streams = _READERS[fmt](data, capture, limits)
    if not any(stream.raw for stream in capture.streams):
        capture.note("no_stream", "error", f"no stream could be read as {fmt}")
    return capture


def gunzip(data: bytes, cap: int, capture: Capture) -> bytes:
    """Decompress every gzip member, refusing to grow past ``cap`` bytes (gzip bombs)."""
    out: list[bytes] = []
    size = 0
    rest = data
    while rest[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            piece = inflater.decompress(rest, cap - size + 1)
        except zlib.error as exc:
            capture.note("gzip_error", "error", f"gzip data is damaged ({exc}); kept what came out")
            break
        out.append(piece)
        size += len(piece)
        if size > cap:
            capture.note(
                "gzip_too_large",
                "error",
                f"decompressed data is over the {cap:,}-byte cap; the rest was not read",
            )
            return b"".join(out)[:cap]
        if not inflater.eof:
            capture.note(
                "gzip_truncated", "warning", "the gzip data ends early; kept what came out"
            )
            break
        rest = inflater.unused_data
    return b"".join(out)


def detect(data: bytes, capture: Capture) -> str | None:
    head = data[:SNIFF]
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text:
        capture.note("empty", "error", "not a stream: the file is empty")
        return None
    if is_eventstream(head):
        return "eventstream"
    if _is_binary(head):
        capture.note("binary", "error", "not a stream: this is binary data, not text")
        return None
    lowered = text[:512].lower()
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered[:200]:
        capture.note("html", "error", "not a stream: this is an HTML page (an error page?)")
        return None
    if text.startswith(b"HTTP/"):
        return "curl"
    first_line = text.split(b"\n", 1)[0]
    if text[:1] == b"{":
        if is_timed(first_line):
            return "timed"
        if b'"log"' in head[:4096] and b'"entries"' in head:
            return "har"
        return "jsonl" if _is_json(first_line) else "json"
    if text[:1] == b"[" and not text.startswith(b"[DONE]"):
        return "json"
    if _SSE_FIELD.search(head):
        return "docs" if looks_like_docs(head) else "sse"
    capture.note(
        "unknown_format",
        "error",
        "not a stream: no 'data:' lines, JSON chunks, HAR or HTTP response found",
    )
    return None


def _is_json(line: bytes) -> bool:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def _is_binary(head: bytes) -> bool:
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head[:4096] if b < 9 or 13 < b < 32)
    return controls > len(head[:4096]) // 20


_READERS = {
    "sse": lambda d, c, lim: read_sse(d, lim),
    "docs": lambda d, c, lim: read_docs(d, lim),
    "jsonl": lambda d, c, lim: read_jsonl(d, lim),
    "json": lambda d, c, lim: read_json_array(d, lim),
    "har": read_har,
    "curl": read_curl,
    "timed": read_timed,
    "eventstream": read_eventstream,
}
