"""Incremental NDJSON decoder (``application/x-ndjson``: Ollama's native API), bytes in.

Pure and incremental like the SSE decoder (``sse.py``): feed network reads as they come, in
any split, and get back each line completed by the read, as a ``JSONItem`` (the payload
bytes, never parsed here, and where they sit), and diagnostics in their place. A line ends
at LF, CR or CRLF (a CRLF pair may straddle two reads, as in SSE); blank lines are skipped;
a leading ``data:`` is tolerated, as in JSON Lines files (docs/formats.md, ``jsonl``). It
reads exactly what ``app/captures/jsonl.py`` ``read_jsonl`` reads from the whole buffer
(``tests/test_json_decoders.py`` checks it at every split point).

A line longer than ``max_line`` is skipped without being kept: what it costs is bounded by the
cap, not by the line (docs/security.md).
"""

from __future__ import annotations

import re

import msgspec

from .bytestart import DEFAULT_MAX_LINE, LeadingBOM, line_too_long
from .events import Diagnostic, RawEvent

_TERMINATOR = re.compile(rb"[\r\n]")


class JSONItem(msgspec.Struct, gc=False):
    """One JSON payload (an NDJSON line, an array element): its bytes, stripped, and where
    they start (``data_offset``, for error positions)."""

    raw: RawEvent
    data: bytes
    data_offset: int


class HeldPayload:
    """The pieces of a payload still arriving, for the NDJSON and JSON array decoders: held
    while under ``max_line``, then only counted (an over-long payload is never kept)."""

    max_line: int
    _pieces: list[bytes]
    _size: int
    _overlong: bool

    def _hold(self, piece: bytes) -> None:
        if not piece:
            return
        self._size += len(piece)
        if self._overlong:
            return
        if self._size > self.max_line:
            self._overlong = True  # never kept: only its size is counted from here on
            self._pieces = []
        else:
            self._pieces.append(piece)


class NDJSONDecoder(LeadingBOM, HeldPayload):
    """Byte reads in, ``JSONItem`` s and ``Diagnostic`` s out, in byte order. ``line`` and
    ``byte`` give the position of the first byte fed."""

    def __init__(self, *, max_line: int = DEFAULT_MAX_LINE, line: int = 1, byte: int = 0) -> None:
        self.max_line = max_line
        self._line = line
        self._byte = byte  # where the line being read starts
        self._head = b""  # the first bytes, held until we know whether they are a BOM
        self._started = False
        self._pieces: list[bytes] = []
        self._size = 0
        self._overlong = False
        self._cr_pending = False  # the last read ended with a CR: an LF next belongs to it
        self._last: RawEvent | None = None

    def feed(self, chunk: bytes, t: float | None = None) -> list[JSONItem | Diagnostic]:
        out: list[JSONItem | Diagnostic] = []
        if not self._started:
            chunk = self._strip_bom(chunk)
        if self._cr_pending and chunk:
            self._cr_pending = False
            if chunk[:1] == b"\n":  # the LF of a CRLF split across reads
                chunk = chunk[1:]
                self._byte += 1
                if self._last is not None and self._last.end == self._byte - 1:
                    self._last.end = self._byte
        if b"\r" not in chunk:  # the usual case: LF only, split in one step
            *lines, rest = chunk.split(b"\n")
            for line in lines:
                self._hold(line)
                self._end_line(1, t, out)
            self._hold(rest)
            return out
        pos = 0
        while True:
            found = _TERMINATOR.search(chunk, pos)
            if found is None:
                self._hold(chunk[pos:])
                return out
            cut = found.start()
            size = 1
            if chunk[cut] == 0x0D:
                if cut + 1 == len(chunk):
                    self._cr_pending = True
                elif chunk[cut + 1] == 0x0A:
                    size = 2
            self._hold(chunk[pos:cut])
            self._end_line(size, t, out)
            pos = cut + size

    def close(self, t: float | None = None) -> list[JSONItem | Diagnostic]:
        """End of input: a last line without a line ending is read as it is."""
        out: list[JSONItem | Diagnostic] = []
        if not self._started and self._head:
            self._started = True
            self._hold(self._head)
            self._head = b""
        if self._pieces or self._overlong:
            self._end_line(0, t, out)
        return out

    # ----------------------------------------------------------------- helpers
    def _end_line(self, terminator: int, t: float | None, out: list[JSONItem | Diagnostic]) -> None:
        start, line, size = self._byte, self._line, self._size
        self._byte, self._line = start + size + terminator, line + 1
        pieces, overlong = self._pieces, self._overlong
        self._pieces, self._size, self._overlong = [], 0, False
        if overlong:
            message = line_too_long(size, self.max_line)
            out.append(
                Diagnostic(
                    code="line_too_long", severity="error", message=message, line=line, byte=start
                )
            )
            return
        text = pieces[0] if len(pieces) == 1 else b"".join(pieces)
        payload = text.strip()
        if not payload:
            return
        offset = start + len(text) - len(text.lstrip())
        if payload.startswith(b"data:"):  # an SSE prefix pasted into JSON Lines
            after = payload[5:]
            payload = after.strip()
            offset += 5 + len(after) - len(after.lstrip())
        raw = RawEvent(-1, line, start, self._byte, t)
        self._last = raw
        out.append(JSONItem(raw, payload, offset))
