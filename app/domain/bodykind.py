"""How to read a response body: from its content type, or, when that is missing or generic,
from its first bytes (docs/formats.md, "Bodies read as they arrive").

The kinds: ``sse`` (``text/event-stream``), ``eventstream`` (AWS event-stream frames),
``ndjson`` (``application/x-ndjson``, Ollama), ``json`` (any other JSON: a streamed array,
Gemini without ``alt=sse``, or one whole value) and ``other`` (an HTML page, anything that is
not a stream).
"""

from __future__ import annotations

import re

import orjson

from .bytestart import BOM
from .eventstream import PRELUDE, is_eventstream

NDJSON_TYPES = ("ndjson", "jsonl", "jsonlines", "json-lines", "json-seq")
GENERIC_TYPES = frozenset(
    {"text/plain", "application/octet-stream", "binary/octet-stream", "application/unknown"}
)
SNIFF_CAP = 64 * 1024  # past this much without a decision, the fallback is taken
_SPACE = b" \t\r\n"
_SSE_START = re.compile(rb"(?:data|event|id|retry) ?:|:")
_SSE_PROBE = 7  # enough bytes to see "retry :"


def kind_of(content_type: str | None) -> str | None:
    """The kind a content type names, or None when the first bytes must decide."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if not media or media in GENERIC_TYPES:
        return None
    if "amazon.eventstream" in media:
        return "eventstream"
    if "event-stream" in media:
        return "sse"
    if any(name in media for name in NDJSON_TYPES):
        return "ndjson"
    if "json" in media:
        return "json"
    return "other"


class Sniffer:
    """Decides a body's kind from its first bytes, read by read, looking at each byte once.

    ``[`` is a JSON array; ``{`` starts NDJSON when its first line is a whole JSON value, else
    one JSON document over several lines (the rule ``streamscope inspect`` detects files by);
    an event-stream prelude whose CRC checks is AWS frames; SSE fields are SSE. Anything else
    is ``fallback``: SSE when the content type is missing (what an event stream without its
    header looks like), ``other`` when it is generic (``text/plain``)."""

    def __init__(self, fallback: str) -> None:
        self.fallback = fallback
        self.head = bytearray()
        self._first = -1  # where the first byte that is not a BOM or a space is

    def add(self, data: bytes) -> str | None:
        """The kind, once these bytes decide it; None while more are needed."""
        seen = len(self.head)
        self.head += data[: SNIFF_CAP + 1]
        if self._first < 0:
            self._first = self._significant(seen)
            if self._first < 0:
                return self.fallback if len(self.head) > SNIFF_CAP else None
        return self._decide(seen, final=False)

    def finish(self) -> str:
        """The kind at the end of the body, decided with whatever came."""
        if self._first < 0:
            return self.fallback
        return self._decide(self._first, final=True) or self.fallback

    def _significant(self, seen: int) -> int:
        head = self.head
        start = max(seen, len(BOM) if head.startswith(BOM) else 0)
        if len(head) < len(BOM) and BOM.startswith(head):
            return -1
        for index in range(start, len(head)):
            if head[index] not in _SPACE:
                return index
        return -1

    def _decide(self, seen: int, *, final: bool) -> str | None:
        head, first = self.head, self._first
        mark = head[first]
        if mark == 0x5B:  # [
            return "json"
        if mark == 0x7B:  # {
            return self._object(max(seen, first), final)
        if mark < 0x09:  # a binary prelude: frames start with a 4-byte length
            if len(head) < PRELUDE:
                return None if not final else self.fallback
            return "eventstream" if is_eventstream(bytes(head[:PRELUDE])) else self.fallback
        if self.fallback == "sse":
            return "sse"
        probe = bytes(head[first : first + _SSE_PROBE])
        if _SSE_START.match(probe):
            return "sse"
        if len(probe) < _SSE_PROBE and not final and b"\n" not in probe:
            return None
        return self.fallback

    def _object(self, seen: int, final: bool) -> str | None:
        head, first = self.head, self._first
        ends = [i for i in (head.find(b"\n", seen), head.find(b"\r", seen)) if i >= 0]
        if not ends:
            return "json" if final or len(head) - first > SNIFF_CAP else None
        try:
            orjson.loads(head[first : min(ends)])
        except orjson.JSONDecodeError:
            return "json"
        return "ndjson"
