"""JSON strings as the readers see them, for the rules that replace or decode a string.

The readers find strings with one rule (``captures/jsonl.py`` splitting an array,
``captures/docs.py`` counting brackets): a string starts at a quote and ends at its closing
quote or at the end of the line; an escape may hold any character but LF. In broken JSON a
pattern can pair quotes otherwise than they do; replacing such a "string" would change where
the readers split the text. So a rule replaces a string only where it is one of their strings,
and a replaced value keeps its brackets and commas (``structure``).
"""

from __future__ import annotations

import re

from .redactions import REDACTED

_RED = REDACTED.encode()
# The readers' string rule (unrolled: the same strings), the closing quote in its own group.
TOKEN = re.compile(rb'"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*(")?')
_STRUCTURE = re.compile(rb'"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"?|[\[\]{},]')


class Strings:
    """The closed strings of each line asked about (a line ends at LF; no string spans it),
    each line read once."""

    def __init__(self, text: bytes) -> None:
        self.text = text
        self._lines: dict[int, dict[int, int]] = {}

    def line(self, at: int) -> tuple[int, int]:
        start = self.text.rfind(b"\n", 0, at) + 1
        end = self.text.find(b"\n", at)
        return start, len(self.text) if end < 0 else end

    def closed(self, at: int) -> dict[int, int]:
        """Start -> end of each closed string on the line holding ``at``."""
        start, end = self.line(at)
        found = self._lines.get(start)
        if found is None:
            found = {m.start(): m.end() for m in TOKEN.finditer(self.text, start, end) if m[1]}
            self._lines[start] = found
        return found

    def whole(self, start: int, end: int) -> bool:
        """Is ``text[start:end]`` one closed string, as the readers see it?"""
        return self.closed(start).get(start) == end


def structure(value: bytes) -> bytes:
    """The brackets and commas of a value, outside its strings: kept where a value is replaced,
    so that the readers split the text as before (``[redacted]`` itself is balanced)."""
    tokens = _STRUCTURE.findall(value.replace(_RED, b""))
    return b"".join(token for token in tokens if token[:1] != b'"')
