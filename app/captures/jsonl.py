"""JSON Lines of chunk objects, a JSON array of chunks, and a lone JSON body."""

from __future__ import annotations

import re
from itertools import accumulate, repeat
from operator import add

from ..domain.events import RawEvent
from ..domain.ndjson import JSONItem
from ..domain.stream import Source, Stream
from ..domain.timeline import TimelineBuilder
from .model import Limits, long_line

BLOCK = 64 * 1024  # lines read a block at a time: a few hundred payloads held at once
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")
_TOKENS = re.compile(rb'"(?:[^"\\\r\n]|\\.)*"?|[\[\]{},]')


def read_jsonl(data: bytes, limits: Limits, origin: str = "capture") -> list[Stream]:
    builder = limits.builder(Source(data), origin=origin, container="lines")
    if b"\r" in data:
        return _read_lines(data, limits, builder)
    line_no, pos, end = 1, 0, len(data)
    while pos < end:  # the common file: lines ended by "\n" alone, a block at a time
        stop = data.rfind(b"\n", pos, pos + BLOCK) + 1  # 0: no whole line in the block
        if stop:
            lines = data[pos:stop].split(b"\n")
            lines.pop()  # the empty piece after the last newline
            if _compact_run(builder, lines, pos, line_no, limits.max_line):
                line_no, pos = line_no + len(lines), stop
                continue
        else:  # a line longer than a block (never copied whole), or the file's last line
            stop = data.find(b"\n", pos + BLOCK) + 1 or end
        line_no = _read_each(builder, data, pos, stop, line_no, limits.max_line)
        pos = stop
    return builder.close()


def _compact_run(
    builder: TimelineBuilder, lines: list[bytes], pos: int, line: int, cap: int
) -> bool:
    """Whole lines from ``pos`` on, each one compact JSON object under the cap, read as one
    run without a Python statement per line (as ``sse_runs.py`` reads SSE); False, with
    nothing read, when any line is another kind (they are read one by one)."""
    if not lines or max(map(len, lines)) >= cap:
        return False
    if not all(map(bytes.startswith, lines, repeat(b"{"))):
        return False
    if not all(map(bytes.endswith, lines, repeat(b"}"))):
        return False
    count = len(lines)
    ends = list(accumulate(map(add, map(len, lines), repeat(1, count)), initial=pos))
    starts = ends[:-1]
    numbers = range(line, line + count)
    raws = map(RawEvent, repeat(-1, count), numbers, starts, ends[1:], repeat(None, count))
    builder.items(list(map(JSONItem, raws, lines, starts)))
    return True


def _read_each(
    builder: TimelineBuilder, data: bytes, pos: int, end: int, line_no: int, max_line: int
) -> int:
    """The lines of ``data[pos:end]`` one by one (blank lines, lines over the cap, payloads
    with blanks around them or a pasted ``data:`` prefix); returns the next line's number."""
    find = data.find
    run: list[JSONItem] = []  # read by the builder a run at a time (PayloadInterpreter.run)
    while pos < end:
        stop = find(b"\n", pos, end)
        stop = end if stop < 0 else stop
        size = stop + 1 - pos if stop < end else stop - pos
        if size > max_line:  # never copied, never parsed
            builder.items(run)
            run = []
            builder.diagnostic(long_line(size, max_line, line_no, pos))
        else:
            body = data[pos:stop]
            if body[:1] == b"{" and body[-1:] == b"}":  # compact: the line is the payload
                run.append(JSONItem(RawEvent(-1, line_no, pos, pos + size, None), body, pos))
            elif body.strip():  # a bare "data:" is an empty payload, said as such
                payload, offset = _payload(body)
                raw = RawEvent(-1, line_no, pos, pos + size, None)
                run.append(JSONItem(raw, payload, pos + offset))
        line_no += 1
        pos += size
    builder.items(run)
    return line_no


def _read_lines(data: bytes, limits: Limits, builder: TimelineBuilder) -> list[Stream]:
    """Lines ended by "\r\n", "\r" or "\n" (a file with any "\r")."""
    line_no, pos = 1, 0
    for match in _LINE.finditer(data):
        if match.end() == match.start():
            break
        if match.end() - match.start() > limits.max_line:  # never copied, never parsed
            size = match.end() - match.start()
            builder.diagnostic(long_line(size, limits.max_line, line_no, match.start()))
            line_no += 1
            pos = match.end()
            continue
        text = match.group()
        body = text.rstrip(b"\r\n")
        payload, offset = _payload(body)
        if body.strip():  # a bare "data:" is an empty payload, said as such
            raw = RawEvent(-1, line_no, pos, pos + len(text), None)
            builder.data(raw, payload, pos + offset)
        line_no += 1
        pos += len(text)
    return builder.close()


def _payload(body: bytes) -> tuple[bytes, int]:
    """A line's payload and where it starts in the line: blanks around it, and an SSE
    ``data:`` prefix pasted into JSON Lines, are not part of it."""
    lead = len(body) - len(body.lstrip())
    payload = body[lead:].rstrip()
    if payload.startswith(b"data:"):
        rest = payload[5:]
        lead += 5 + len(rest) - len(rest.lstrip())
        payload = rest.strip()
    return payload, lead


def read_json_array(data: bytes, limits: Limits, origin: str = "capture") -> list[Stream]:
    """Each top-level element of the array is one payload, kept as its own text. A lone
    (pretty-printed) object is one payload."""
    builder = limits.builder(Source(data), origin=origin, container="json")
    stripped = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not stripped:
        spans = []
    elif stripped[:1] != b"[":
        start = len(data) - len(stripped)
        spans = [(start, len(data.rstrip()))]
    else:
        spans = split_array(data)
    line, counted = 1, 0
    for start, end in spans:
        line += data.count(b"\n", counted, start)  # counted once, element by element
        counted = start
        if end - start > limits.max_line:
            builder.diagnostic(long_line(end - start, limits.max_line, line, start))
            continue
        raw = RawEvent(-1, line, start, end, None)
        builder.data(raw, data[start:end], start)
    return builder.close()


def read_json_body(
    source: Source, body: bytes, limits: Limits, *, origin: str, line: int = 1, byte: int = 0
) -> list[Stream]:
    """A non-streaming answer: the whole body is one payload."""
    builder = limits.builder(source, origin=origin, container="json")
    if len(body) > limits.max_line:
        builder.diagnostic(long_line(len(body), limits.max_line, line, byte))
        return builder.close()
    raw = RawEvent(-1, line, byte, byte + len(body), None)
    builder.data(raw, body.strip(), byte)
    return builder.close()


def split_array(data: bytes) -> list[tuple[int, int]]:
    """Byte ranges of the top-level elements of a JSON array, found without parsing values.

    An array that never closes gives its last element up to the end, so the payload decoder
    can say where it breaks."""
    spans: list[tuple[int, int]] = []
    depth, prev = 0, -1
    for match in _TOKENS.finditer(data):
        first = match.group()[:1]
        if first == b'"':
            continue
        if first in (b"[", b"{"):
            depth += 1
            if depth == 1:
                prev = match.start()
        elif first in (b"]", b"}"):
            depth -= 1
            if depth == 0:
                _add_span(data, prev + 1, match.start(), spans)
                return spans
        elif depth == 1:
            _add_span(data, prev + 1, match.start(), spans)
            prev = match.start()
    if prev >= 0:
        _add_span(data, prev + 1, len(data), spans)
    return spans


def _add_span(data: bytes, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and data[start : start + 1].isspace():
        start += 1
    while end > start and data[end - 1 : end].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))
