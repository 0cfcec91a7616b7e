"""Incremental Server-Sent-Events decoder (WHATWG "event stream interpretation"), bytes in.

Pure and incremental: feed it network reads as they come, in any split, and it returns the SSE
items completed by each read. It splits bytes into lines first (at LF, CR or CRLF, a CRLF pair
may straddle two reads) and never decodes the ``data`` bytes itself: U+2028, U+2029 and U+0085
are legal inside JSON strings and must not end a line, and the payload decoder validates UTF-8.

Linear in the input: a long line arriving in many small reads is kept as a list of pieces and
joined once, when it ends (sseclient-py rescans its buffer and goes quadratic). This module cuts
reads into blocks of whole lines; ``sse_lines.py`` reads LF-only blocks, runs at once;
``sse_fields.py`` reads a line's field and dispatches events.
"""

from __future__ import annotations

import re

from .events import Diagnostic, RawEvent
from .sse_fields import FieldReading
from .sse_lines import LineReading
from .sse_runs import FIRST_WINDOW, SSEItem

DEFAULT_MAX_LINE = 16 * 1024 * 1024
BOM = b"\xef\xbb\xbf"
_LINES = re.compile(rb"([^\r\n]*)(\r\n|\r|\n)")


def line_too_long(size: int, cap: int) -> str:
    """The message of a ``line_too_long`` diagnostic, for every reader."""
    return (
        f"line of {size:,} bytes is over the {cap:,}-byte cap (on a server: "
        "STREAMSCOPE_MAX_LINE_MB) and was skipped"
    )


class LeadingBOM:
    """A byte decoder's first bytes, held until it is known whether they are a UTF-8 BOM,
    which is dropped (and counted in ``_byte``): the SSE, NDJSON and JSON array decoders."""

    _head: bytes
    _started: bool
    _byte: int

    def _strip_bom(self, chunk: bytes) -> bytes:
        self._head += chunk
        if len(self._head) < len(BOM) and BOM.startswith(self._head):
            return b""
        self._started = True
        chunk, self._head = self._head, b""
        if chunk.startswith(BOM):
            self._byte += len(BOM)
            return chunk[len(BOM) :]
        return chunk


class SSEDecoder(LeadingBOM, FieldReading, LineReading):
    """Turns byte reads into ``SSEItem`` s. Problems go to ``diagnostics``; ``take_notes``
    takes them out with their place among the items (how many items were emitted before each),
    so the order does not depend on where the reads were cut.

    ``line`` and ``byte`` give the position of the first byte fed, so a body that starts after
    HTTP headers still reports file positions.
    """

    def __init__(self, *, max_line: int = DEFAULT_MAX_LINE, line: int = 1, byte: int = 0) -> None:
        self.max_line = max_line
        self.diagnostics: list[Diagnostic] = []
        self._marks: list[int] = []  # per diagnostic: how many items were emitted before it
        self.emitted = 0
        self._line = line
        self._byte = byte
        self._started = False
        self._head = b""  # first bytes held until we know whether they are a BOM
        self._pieces: list[bytes] = []
        self._pieces_len = 0
        self._overlong = False
        self._byte_skipped = 0
        self._cr_pending = False
        self._held: list[SSEItem] = []
        self._names: dict[bytes, str] = {}  # event names decoded so far, by their whole line
        self._window = FIRST_WINDOW  # events looked at for a run of data events (_lines)
        self._last: RawEvent | None = None
        self._reset_event()
        self.last_event_id: str | None = None

    # ----------------------------------------------------------------- input
    def feed(self, chunk: bytes, t: float | None = None) -> list[SSEItem]:
        out: list[SSEItem] = []
        if not self._started:
            chunk = self._strip_bom(chunk)
            if not self._started:
                return out
        if self._cr_pending and chunk:
            self._cr_pending = False
            if chunk[0] == 0x0A:  # the LF of a CRLF split across reads
                chunk = chunk[1:]
                self._byte += 1
                if self._last is not None and self._last.end == self._byte - 1:
                    self._last.end = self._byte
                if not chunk:
                    return out
        cut = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
        if cut < 0:
            self._hold(chunk)
            return out
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
        return out

    def close(self, t: float | None = None) -> list[SSEItem]:
        """End of input: an unterminated last line and event are accepted, with a diagnostic."""
        out: list[SSEItem] = []
        if not self._started and self._head:
            self._started = True
            self._hold(self._head)
        if self._overlong:
            self._skip_overlong(0)
        elif self._pieces:
            block = b"".join(self._pieces)
            self._pieces, self._pieces_len = [], 0
            self._process_line(block, 0, t, out)
            self._note("unterminated_line", "info", "the last line has no line ending")
        if self._data is not None:
            self._note(
                "unterminated_event",
                "warning",
                "the last event is not followed by a blank line; it was read anyway",
            )
            self._dispatch(t, out)
        self._release(out)
        return out

    def take_notes(self) -> list[tuple[int, Diagnostic]]:
        """Take out every diagnostic so far, each with the number of items emitted before it
        (items are numbered from 0 over the decoder's life, as ``emitted`` counts them)."""
        notes = list(zip(self._marks, self.diagnostics, strict=True))
        self._marks.clear()
        self.diagnostics.clear()
        return notes

    # --------------------------------------------------------------- helpers
    def _hold(self, piece: bytes) -> None:
        if self._overlong:
            self._byte_skipped += len(piece)
            return
        self._pieces.append(piece)
        self._pieces_len += len(piece)
        if self._pieces_len > self.max_line:
            self._overlong = True
            self._byte_skipped = self._pieces_len
            self._pieces = []
            self._pieces_len = 0

    def _block(self, block: bytes, t: float | None, out: list[SSEItem]) -> None:
        """Process a block made only of complete lines."""
        if self._overlong:
            # The first line of this block is the tail of an over-long line: drop it.
            m = _LINES.match(block)
            assert m is not None
            self._byte_skipped += len(m.group(1))
            self._skip_overlong(len(m.group(2)))
            block = block[m.end() :]
        if b"\r" not in block:
            lines = block.split(b"\n")
            lines.pop()  # the block ends with a terminator
            self._lines(lines, t, out)
        else:
            for m in _LINES.finditer(block):
                self._process_line(m.group(1), len(m.group(2)), t, out)

    def _skip_overlong(self, term_len: int) -> None:
        size = self._byte_skipped
        self._note(
            "line_too_long",
            "error",
            line_too_long(size, self.max_line),
            self._line,
            self._byte,
        )
        self._byte += size + term_len
        self._line += 1
        self._overlong = False
