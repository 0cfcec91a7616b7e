"""The documentation form: chunks pretty-printed over many lines after ``data:``, ``...``
elision lines, and prose around them (as on providers' API reference pages).

Strict SSE cannot read this: its continuation lines are not fields. We read it line by line:
``data: {`` opens a JSON value that continues until its brackets balance (strings are skipped,
so braces inside them do not count); ``...`` marks elided chunks; anything else is prose, skipped
with one diagnostic per run of lines. ``[DONE]`` separates streams.
"""

from __future__ import annotations

import re

from ..domain.events import RawEvent
from ..domain.stream import Source, Stream
from .model import Limits, long_line

_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")
_BRACKETS = re.compile(rb'"(?:[^"\\\r\n]|\\.)*"?|[\[\]{}]')
_ELISION = (b"...", b"\xe2\x80\xa6", b"[...]", b"// ...")


def depth_change(line: bytes) -> int:
    depth = 0
    for match in _BRACKETS.finditer(line):
        token = match.group()[:1]
        if token in (b"{", b"["):
            depth += 1
        elif token in (b"}", b"]"):
            depth -= 1
    return depth


def looks_like_docs(text: bytes) -> bool:
    """True when a ``data:`` value opens JSON that continues on the next, non-field line, or
    an elision line stands between events."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped in _ELISION:
            return True
        if stripped.startswith(b"data:"):
            value = stripped[5:].strip()
            if value[:1] in (b"{", b"[") and depth_change(value) > 0:
                follower = lines[i + 1].strip() if i + 1 < len(lines) else b""
                if follower and not follower.startswith((b"data:", b"event:", b"id:", b":")):
                    return True
    return False


def comment_text(line: bytes) -> bytes:
    """A comment line's text: after the colon, one leading space is dropped, as SSE does for
    comments and field values (the line's own indentation and ending are not part of it)."""
    text = line.lstrip().rstrip(b"\r\n")[1:]
    return text[1:] if text[:1] == b" " else text


class _DocsReader:
    def __init__(self, data: bytes, limits: Limits, origin: str) -> None:
        self.builder = limits.builder(Source(data), origin=origin, container="docs")
        self.max_line = limits.max_line
        self.block: list[bytes] = []
        self.block_size = 0  # over max_line: the value is skipped (its pieces dropped)
        self.block_start = (0, 0, 0)  # line, byte, data offset
        self.depth = 0
        self.prose: list[int] | None = None  # first line, first byte, end byte, line count

    def run(self, data: bytes) -> list[Stream]:
        line_no, pos = 1, 0
        for match in _LINE.finditer(data):
            text = match.group()
            if not text:
                break
            self.line(text, line_no, pos)
            line_no += 1
            pos += len(text)
        if self.block_size:
            self.emit(pos)
        self.flush_prose()
        return self.builder.close()

    def line(self, text: bytes, line_no: int, pos: int) -> None:
        if self.block_size:
            self.add(text)
            self.depth += depth_change(text)
            if self.depth <= 0:
                self.emit(pos + len(text))
            return
        stripped = text.strip()
        if stripped.startswith(b"data:"):
            self.flush_prose()
            value = stripped[5:].strip()
            self.add(value + b"\n")
            self.block_start = (line_no, pos, pos + text.find(value[:1]) if value else pos)
            self.depth = depth_change(value)
            if self.depth <= 0:
                self.emit(pos + len(text))
        elif stripped in _ELISION:
            self.flush_prose()
            raw = RawEvent(-1, line_no, pos, pos + len(text), None, "other")
            self.builder.note(
                raw, "elided", "warning", "chunks elided here ('...'): this stream is incomplete"
            )
        elif stripped.startswith(b":"):
            self.flush_prose()
            raw = RawEvent(-1, line_no, pos, pos + len(text), None, "comment")
            self.builder.comment(raw, comment_text(text).decode(errors="replace"))
        elif stripped and not stripped.startswith((b"event:", b"id:", b"retry:")):
            if self.prose is None:
                self.prose = [line_no, pos, pos, 0]
            self.prose[2] = pos + len(text)
            self.prose[3] += 1

    def add(self, text: bytes) -> None:
        self.block_size += len(text)
        if self.block_size <= self.max_line:
            self.block.append(text)
        else:
            self.block = []

    def emit(self, end: int) -> None:
        line_no, pos, data_offset = self.block_start
        size, payload = self.block_size, b"".join(self.block).strip()
        self.block, self.block_size, self.depth = [], 0, 0
        if size > self.max_line:
            self.builder.diagnostic(long_line(size, self.max_line, line_no, pos))
            return
        raw = RawEvent(-1, line_no, pos, end, None)
        self.builder.data(raw, payload, data_offset)

    def flush_prose(self) -> None:
        if self.prose is None:
            return
        line_no, pos, end, count = self.prose
        self.prose = None
        raw = RawEvent(-1, line_no, pos, end, None, "other")
        self.builder.note(
            raw, "prose", "info", f"{count} line{'s' if count > 1 else ''} of prose skipped"
        )


def read_docs(data: bytes, limits: Limits, origin: str = "capture") -> list[Stream]:
    return _DocsReader(data, limits, origin).run(data)
