"""The capture formats Streamscope reads, one registered record each (docs/formats.md).

A ``Format`` says how to recognise a file (``sniff``: why it is this format, or None), how to
read it into streams, how to scrub it before it is stored, what the page calls it and what a
download of it is named. ``FORMATS`` is the registry in detection order; the reader, the
scrubber, the exports, the pages and the command line all read it, so adding a format is one
module, one record here, its docs and its tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from ..domain.eventstream import is_eventstream
from ..domain.stream import Stream
from . import curlv
from .docs import looks_like_docs, read_docs
from .eventstream import read_eventstream
from .har import read_har
from .jsonl import read_json_array, read_jsonl
from .model import Capture, Limits
from .scrub.curl import scrub_curl
from .scrub.eventstream import scrub_eventstream
from .scrub.har import scrub_har
from .scrub.redactions import Redactions
from .scrub.text import sweep
from .scrub.timed import scrub_timed
from .sse import read_curl, read_sse
from .timed import is_timed, read_timed

Reader = Callable[[bytes, Capture, Limits], list[Stream]]
Scrubber = Callable[[bytes, Redactions], bytes]
# (the first 64 KiB, the same without BOM and leading blanks, its first line) -> why, or None
Sniff = Callable[[bytes, bytes, bytes], str | None]

# An SSE field or comment at a line start: the start of the text, or after LF, CR or CRLF.
_SSE_FIELD = re.compile(rb"(?:\A|(?<=[\r\n]))(?:(?:data|event|id|retry) ?:|:)")


@dataclass(frozen=True)
class Format:
    """``title`` says what the format is; ``noun`` names a capture of it in a sentence;
    ``suffix`` ends a download of the stored original; ``binary`` formats are recognised before
    binary data is refused."""

    name: str
    title: str
    noun: str
    suffix: str
    sniff: Sniff | None
    read: Reader
    scrub: Scrubber
    binary: bool = False


def _json_line(line: bytes) -> bool:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def _starts_object(text: bytes) -> bool:
    return text[:1] == b"{"


FORMATS: tuple[Format, ...] = (
    Format(
        "eventstream",
        "AWS event-stream binary frames (Bedrock)",
        "An AWS event-stream capture",
        ".eventstream",
        lambda head, text, line: (
            "a frame whose prelude checks at byte 0" if is_eventstream(head) else None
        ),
        read_eventstream,
        scrub_eventstream,
        binary=True,
    ),
    Format(
        "curl",
        "curl -N / curl -i output (status line and headers before the body), curl -v or "
        "--trace-ascii output (the request with it)",
        "curl output",
        ".txt",
        lambda head, text, line: (
            "an HTTP status line first"
            if text.startswith(b"HTTP/")
            else {"verbose": "curl -v lines (> request, < response)", "trace": "a curl trace"}.get(
                curlv.kind(text) or ""
            )
        ),
        read_curl,
        scrub_curl,
    ),
    Format(
        "timed",
        "Streamscope's timed capture (JSON Lines of network reads with time offsets)",
        "A timed capture",
        ".timed.jsonl",
        lambda head, text, line: (
            "a streamscope.timed header on line 1"
            if _starts_object(text) and is_timed(line)
            else None
        ),
        read_timed,
        scrub_timed,
    ),
    Format(
        "har",
        "HAR 1.2 exported from browser DevTools",
        "A HAR capture from DevTools",
        ".har",
        lambda head, text, line: (
            "a JSON object with log.entries"
            if _starts_object(text) and b'"log"' in head[:4096] and b'"entries"' in head
            else None
        ),
        read_har,
        scrub_har,
    ),
    Format(
        "jsonl",
        "JSON Lines (NDJSON), one payload per line",
        "JSON Lines of payloads",
        ".jsonl",
        lambda head, text, line: (
            "a whole JSON object on line 1" if _starts_object(text) and _json_line(line) else None
        ),
        lambda data, capture, limits: read_jsonl(data, limits),
        sweep,
    ),
    Format(
        "ndjson",
        "NDJSON as a server streams it (application/x-ndjson, e.g. Ollama); a file of it is "
        "detected as jsonl, which reads it the same way",
        "An NDJSON stream",
        ".ndjson",
        None,  # chosen by a body's content type, or by name: a file is jsonl
        lambda data, capture, limits: read_jsonl(data, limits),
        sweep,
    ),
    Format(
        "json",
        "a JSON array of payloads (or one JSON body), read element by element",
        "A JSON array of payloads",
        ".json",
        lambda head, text, line: (
            "a JSON value over several lines"
            if text[:1] in (b"{", b"[") and not text.startswith(b"[DONE]")
            else None
        ),
        lambda data, capture, limits: read_json_array(data, limits),
        sweep,
    ),
    Format(
        "docs",
        "the documentation form: pretty-printed payloads after data:, '...' elisions, prose",
        "A documentation-form capture",
        ".txt",
        lambda head, text, line: (
            "data: values that continue on the next lines"
            if _SSE_FIELD.search(text) and looks_like_docs(text)
            else None
        ),
        lambda data, capture, limits: read_docs(data, limits),
        sweep,
    ),
    Format(
        "sse",
        "raw Server-Sent Events, as sent on the wire",
        "A raw SSE capture",
        ".sse",
        lambda head, text, line: (
            "an SSE field at a line start" if _SSE_FIELD.search(text) else None
        ),
        lambda data, capture, limits: read_sse(data, limits),
        sweep,
    ),
)
NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS)
_BY_NAME = {f.name: f for f in FORMATS}


def format_named(name: str | None) -> Format | None:
    return _BY_NAME.get(name) if name else None
