"""Reading any capture: undo gzip, detect the format (or take the one given), read streams.

``read_capture`` never raises on bad input: what cannot be read becomes a diagnostic with a
code, a position where there is one, and a message in plain words.
"""

from __future__ import annotations

import re
import zlib

from ..domain import collector
from .formats import FORMATS, NAMES, Format, format_named
from .model import Capture, Limits

SNIFF = 64 * 1024
_LINE_END = re.compile(rb"\r\n|\r|\n")


def read_capture(data: bytes, fmt: str | None = None, limits: Limits | None = None) -> Capture:
    limits = limits or Limits()
    capture = Capture(format=None)
    if data[:2] == b"\x1f\x8b":
        capture.compression = "gzip"
        data = gunzip(data, limits.max_decompressed, capture)
    if fmt is not None and format_named(fmt) is None:
        capture.note(
            "unknown_format", "error", f"unknown format {fmt!r}; known: {', '.join(NAMES)}"
        )
        return capture
    if fmt is not None:
        capture.format_reason = "named by the user"
    fmt = fmt or detect(data, capture)
    capture.format = fmt
    found = format_named(fmt)
    if found is None:
        return capture
    with collector.paused():  # a timeline holds no cycle (collector.py)
        capture.streams = found.read(data, capture, limits)
    if not readable(capture):
        capture.note("no_stream", "error", f"no stream could be read as {fmt}")
    return capture


def readable(capture: Capture) -> bool:
    """Whether a capture holds something to show: a stream with raw events, or a recording in
    Streamscope's own timed format that says how it ended (a run refused before any byte came,
    docs/capture-format.md): its end reason and error are what there is to see."""
    if any(stream.raw for stream in capture.streams):
        return True
    return (
        capture.format == "timed"
        and capture.header is not None
        and any(stream.end_reason is not None for stream in capture.streams)
    )


def unread(capture: Capture) -> bool:
    """Whether every stream with events was read by no dialect and holds nothing one reads
    (an error sent in the stream is read): nothing of it is understood (``unknown_dialect``)."""
    streams = [stream for stream in capture.streams if stream.raw]
    return bool(streams) and all(
        stream.dialect is None and not any(e.kind == "error" for e in stream.events)
        for stream in streams
    )


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
    """The first registered format that recognises the file (formats.py, in order), with the
    reason kept in ``capture.format_reason``; None, with a diagnostic, when none does."""
    head = data[:SNIFF]
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text:
        capture.note("empty", "error", "not a stream: the file is empty")
        return None
    line = _LINE_END.split(text, maxsplit=1)[0]
    binary = [f for f in FORMATS if f.binary and f.sniff is not None]
    found = _first(binary, head, text, line, capture)
    if found is not None:
        return found
    if _is_binary(head):
        capture.note("binary", "error", "not a stream: this is binary data, not text")
        return None
    if _is_html(text):
        capture.note("html", "error", "not a stream: this is an HTML page (an error page?)")
        return None
    found = _first([f for f in FORMATS if not f.binary], head, text, line, capture)
    if found is not None:
        return found
    capture.note(
        "unknown_format",
        "error",
        "not a stream: no 'data:' lines, JSON chunks, HAR or HTTP response found",
    )
    return None


def _first(
    candidates: list[Format], head: bytes, text: bytes, line: bytes, capture: Capture
) -> str | None:
    for candidate in candidates:
        reason = candidate.sniff(head, text, line) if candidate.sniff is not None else None
        if reason is not None:
            capture.format_reason = reason
            return candidate.name
    return None


def _is_html(text: bytes) -> bool:
    lowered = text[:512].lower()
    return lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered[:200]


def _is_binary(head: bytes) -> bool:
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head[:4096] if b < 9 or 13 < b < 32)
    return controls > len(head[:4096]) // 20
