"""Incremental reader of a streamed top-level JSON array (Gemini ``streamGenerateContent``
without ``alt=sse``: ``[{...}\\r\\n,{...}]``, written element by element), bytes in.

Pure and incremental like the SSE decoder (``sse.py``): feed network reads in any split and
get back each element the read completed, as a ``JSONItem`` (its bytes, never parsed here,
trimmed of the whitespace around them), and diagnostics in their place. Elements are found
without parsing values: brackets and braces are counted outside strings, and a comma at the
top level ends an element. It reads exactly what ``app/captures/jsonl.py`` ``split_array``
finds in the whole buffer (``tests/test_json_decoders.py`` checks it at every split point),
string rules included: a string also ends at a raw line break, as there.

A body that does not start with ``[`` (a lone object: a non-streaming answer, an error) is one
payload, read at the end. An element longer than ``max_line`` is skipped without being kept;
an array that never closes gives its last element up to the end, and says so; anything after
the closing bracket is said and ignored.
"""

from __future__ import annotations

import re

from .bytestart import DEFAULT_MAX_LINE, LeadingBOM, line_too_long
from .events import Diagnostic, RawEvent, Severity
from .ndjson import HeldPayload, JSONItem

_NOT_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")
_OUTSIDE = re.compile(rb'["\[\]{},]')
_INSIDE = re.compile(rb'["\\\r\n]')  # what ends a string, or escapes in it
_LEADING = b" \t\r\n"  # skipped before the first value, as the whole-buffer reader does
Out = list[JSONItem | Diagnostic]


class JSONArrayDecoder(LeadingBOM, HeldPayload):
    """Byte reads in, ``JSONItem`` s and ``Diagnostic`` s out, in byte order. ``line`` and
    ``byte`` give the position of the first byte fed."""

    def __init__(self, *, max_line: int = DEFAULT_MAX_LINE, line: int = 1, byte: int = 0) -> None:
        self.max_line = max_line
        self._byte = byte  # offset of the first byte of the read being decoded
        self._line = line  # line of that byte
        self._head = b""  # the first bytes, held until we know whether they are a BOM
        self._started = False
        self._phase = "start"  # start, array, whole (a lone value), after (the array closed)
        self._depth = 0
        self._in_string = False
        self._escape = False  # a backslash ended the last read, inside a string
        self._seeking = False  # between elements: the next one has not started
        self._start = 0  # where the element starts (its first byte that is not a space)
        self._start_line = 0
        self._pieces: list[bytes] = []
        self._size = 0
        self._overlong = False
        self._after_noted = False
        # line counting inside the current read: lines up to ``_counted``
        self._counted = 0
        self._counted_line = line

    # ----------------------------------------------------------------- input
    def feed(self, chunk: bytes, t: float | None = None) -> Out:
        out: Out = []
        if not self._started:
            chunk = self._strip_bom(chunk)
        if not chunk:
            return out
        self._counted, self._counted_line = 0, self._line
        pos = 0
        if self._phase == "start":
            pos = self._first_value(chunk)
        if self._phase == "array":
            pos = self._scan(chunk, pos, t, out)
        if self._phase == "whole":
            self._hold(chunk[pos:])
        elif self._phase == "after":
            self._after(chunk, pos, out)
        self._byte += len(chunk)
        self._line = self._line_at(chunk, len(chunk))
        return out

    def close(self, t: float | None = None) -> Out:
        out: Out = []
        if not self._started and self._head:
            self._started, chunk, self._head = True, self._head, b""
            out += self.feed(chunk, t)
        if self._phase == "whole":
            self._element(t, out)
        elif self._phase == "array":
            if not self._seeking:
                self._element(t, out)
            self._note(
                out,
                "unterminated_array",
                "warning",
                f"the JSON array is not closed: the body ends inside it, at byte {self._byte}; "
                "its last element was read up to there",
                self._line,
                self._byte,
            )
        self._phase = "after"
        return out

    # ----------------------------------------------------------------- phases
    def _first_value(self, chunk: bytes) -> int:
        stripped = chunk.lstrip(_LEADING)
        if not stripped:
            return len(chunk)
        pos = len(chunk) - len(stripped)
        if stripped[:1] == b"[":
            self._phase, self._depth = "array", 1
            self._begin()
            return pos + 1
        self._phase = "whole"
        self._open(chunk, pos)
        return pos

    def _scan(self, chunk: bytes, pos: int, t: float | None, out: Out) -> int:
        """Walk the read from ``pos``: strings, brackets and the commas between elements."""
        size = len(chunk)
        segment = pos if not self._seeking else size  # where this read's part of the element starts
        while pos < size:
            if self._seeking:
                found = _NOT_SPACE.search(chunk, pos)
                if found is None:
                    return size
                pos = segment = found.start()
                self._open(chunk, pos)
            if self._in_string:
                pos = self._in_string_from(chunk, pos)
                continue
            found = _OUTSIDE.search(chunk, pos)
            if found is None:
                break
            pos, mark = found.end(), chunk[found.start()]
            if mark == 0x22:  # "
                self._in_string = True
            elif mark in (0x5B, 0x7B):  # [ {
                self._depth += 1
            elif mark in (0x5D, 0x7D):  # ] }
                self._depth -= 1
                if self._depth == 0:
                    self._hold(chunk[segment : found.start()])
                    self._element(t, out)
                    self._phase = "after"
                    self._after(chunk, pos, out)
                    return size
            elif self._depth == 1:  # a comma between elements
                self._hold(chunk[segment : found.start()])
                self._element(t, out)
                self._begin()
                segment = size
        if not self._seeking:
            self._hold(chunk[segment:])
        return size

    def _in_string_from(self, chunk: bytes, pos: int) -> int:
        """Inside a string: where it ends (a quote, a raw line break, a backslash before a
        line feed), or past an escaped character."""
        if self._escape:
            self._escape = False
            if chunk[pos] == 0x0A:
                self._in_string = False
                return pos
            return pos + 1
        found = _INSIDE.search(chunk, pos)
        if found is None:
            return len(chunk)
        at, mark = found.start(), chunk[found.start()]
        if mark == 0x22:
            self._in_string = False
            return at + 1
        if mark != 0x5C:  # a raw CR or LF: the string ends before it
            self._in_string = False
            return at
        if at + 1 == len(chunk):
            self._escape = True
            return at + 1
        if chunk[at + 1] == 0x0A:
            self._in_string = False
            return at + 1
        return at + 2

    def _after(self, chunk: bytes, pos: int, out: Out) -> None:
        if self._after_noted:
            return
        found = _NOT_SPACE.search(chunk, pos)
        if found is not None:
            self._after_noted = True
            at = self._byte + found.start()
            self._note(
                out,
                "after_array",
                "warning",
                f"data after the end of the JSON array, from byte {at}, was ignored",
                self._line_at(chunk, found.start()),
                at,
            )

    # ----------------------------------------------------------------- elements
    def _begin(self) -> None:
        """After ``[`` or a comma: the next element starts at the next byte that is not a
        space."""
        self._seeking = True
        self._pieces, self._size, self._overlong = [], 0, False

    def _open(self, chunk: bytes, pos: int) -> None:
        self._seeking = False
        self._start = self._byte + pos
        self._start_line = self._line_at(chunk, pos)

    def _element(self, t: float | None, out: Out) -> None:
        pieces, size, overlong = self._pieces, self._size, self._overlong
        self._pieces, self._size, self._overlong = [], 0, False
        self._seeking = True
        if overlong:
            message = line_too_long(size, self.max_line)
            self._note(out, "line_too_long", "error", message, self._start_line, self._start)
            return
        data = (pieces[0] if len(pieces) == 1 else b"".join(pieces)).rstrip()
        if data:
            raw = RawEvent(-1, self._start_line, self._start, self._start + len(data), t)
            out.append(JSONItem(raw, data, self._start))

    # ----------------------------------------------------------------- helpers
    def _line_at(self, chunk: bytes, pos: int) -> int:
        """The line of byte ``pos`` of the read (positions asked in increasing order)."""
        if pos > self._counted:
            self._counted_line += chunk.count(b"\n", self._counted, pos)
            self._counted = pos
        return self._counted_line

    def _note(
        self, out: Out, code: str, severity: Severity, message: str, line: int, byte: int
    ) -> None:
        out.append(Diagnostic(code=code, severity=severity, message=message, line=line, byte=byte))
