"""The SSE line splitter: byte reads in, complete lines out to a ``FieldDecoder`` (the first
half of sse.py's decoder; httpx-sse's ``SSELineDecoder``).

Lines end at LF, CR or CRLF, and a CRLF pair may straddle two reads. The ``data`` bytes are
never decoded here: U+2028, U+2029 and U+0085 are legal inside JSON strings and must not end a
line, and the payload decoder validates UTF-8. A read is cut after its last line ending: the
lines before go to the field decoder as one block (an LF-only block as a list of lines, read
at once), what follows is held. Linear in the input: a long line arriving in many small reads
is kept as a list of pieces and joined once, when it ends (sseclient-py rescans its buffer and
goes quadratic); a line over the cap is not kept at all, only counted, and skipped with a
diagnostic.
"""

from __future__ import annotations

import re

from .bytestart import LeadingBOM
from .sse_fields import FieldDecoder
from .sse_runs import SSEItem

_LINES = re.compile(rb"([^\r\n]*)(\r\n|\r|\n)")


class LineSplitter(LeadingBOM):
    """Cuts reads into lines for ``fields``, which keeps the position (a leading BOM is
    dropped and counted there too)."""

    def __init__(self, fields: FieldDecoder) -> None:
        self.fields = fields
        self._started = False
        self._head = b""  # first bytes held until we know whether they are a BOM
        self._pieces: list[bytes] = []  # the line being read, in pieces
        self._pieces_len = 0
        self._overlong = False  # the line being read is over the cap: only counted
        self._skipped = 0
        self._cr_pending = False  # the last read ended with a CR: an LF may follow

    @property
    def _byte(self) -> int:  # LeadingBOM counts the BOM in the field decoder's position
        return self.fields.byte

    @_byte.setter
    def _byte(self, value: int) -> None:
        self.fields.byte = value

    def feed(self, chunk: bytes, t: float | None, out: list[SSEItem]) -> None:
        if not self._started:
            chunk = self._strip_bom(chunk)
            if not self._started:
                return
        if self._cr_pending and chunk:
            self._cr_pending = False
            if chunk[0] == 0x0A:  # the LF of a CRLF split across reads
                chunk = chunk[1:]
                self.fields.lf_of_crlf()
                if not chunk:
                    return
        cut = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
        if cut < 0:
            self._hold(chunk)
            return
        block = chunk if cut == len(chunk) - 1 else chunk[: cut + 1]
        if self._pieces:
            if not self._overlong:
                block = b"".join(self._pieces) + block
            self._pieces = []
            self._pieces_len = 0
        # Only a CR that ends the read may be the first half of a CRLF: when a partial line
        # is held after it, the next read's LF ends that line instead.
        self._cr_pending = cut == len(chunk) - 1 and chunk[cut] == 0x0D
        self._block(block, t, out)
        if cut + 1 < len(chunk):
            self._hold(chunk[cut + 1 :])

    def close(self, t: float | None, out: list[SSEItem]) -> None:
        """End of input: an unterminated last line is read, with a diagnostic."""
        if not self._started and self._head:
            self._started = True
            self._hold(self._head)
        if self._overlong:
            self._overlong = False
            self.fields.overlong(self._skipped, 0)
        elif self._pieces:
            block = b"".join(self._pieces)
            self._pieces, self._pieces_len = [], 0
            self.fields.line(block, 0, t, out)
            self.fields.note("unterminated_line", "info", "the last line has no line ending")

    def _hold(self, piece: bytes) -> None:
        if self._overlong:
            self._skipped += len(piece)
            return
        self._pieces.append(piece)
        self._pieces_len += len(piece)
        if self._pieces_len > self.fields.max_line:
            self._overlong = True
            self._skipped = self._pieces_len
            self._pieces = []
            self._pieces_len = 0

    def _block(self, block: bytes, t: float | None, out: list[SSEItem]) -> None:
        """A block made only of complete lines."""
        if self._overlong:
            # The first line of this block is the tail of an over-long line: drop it.
            m = _LINES.match(block)
            assert m is not None
            self._overlong = False
            self.fields.overlong(self._skipped + len(m.group(1)), len(m.group(2)))
            block = block[m.end() :]
        if b"\r" not in block:
            lines = block.split(b"\n")
            lines.pop()  # the block ends with a terminator
            self.fields.lines(lines, t, out)
        else:
            line = self.fields.line
            for m in _LINES.finditer(block):
                line(m.group(1), len(m.group(2)), t, out)
