"""Incremental Server-Sent-Events decoder (WHATWG "event stream interpretation"), bytes in.

Pure and incremental: feed it network reads as they come, in any split, and it returns the SSE
items completed by each read. It splits bytes into lines first (at LF, CR or CRLF, a CRLF pair
may straddle two reads) and never decodes the ``data`` bytes itself: U+2028, U+2029 and U+0085
are legal inside JSON strings and must not end a line, and the payload decoder validates UTF-8.

Linear in the input: a long line arriving in many small reads is kept as a list of pieces and
joined once, when it ends (sseclient-py rescans its buffer and goes quadratic).
"""

from __future__ import annotations

import re

from .events import Diagnostic, RawEvent
from .sse_lines import LineReading
from .sse_runs import FIRST_WINDOW, SSEItem

DEFAULT_MAX_LINE = 16 * 1024 * 1024
BOM = b"\xef\xbb\xbf"
_FIELDS = (b"data", b"event", b"id", b"retry")
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


class SSEDecoder(LeadingBOM, LineReading):
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
        self._names: dict[bytes, str] = {}  # event names decoded so far
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

    def _emit(self, out: list[SSEItem], item: SSEItem) -> None:
        self.emitted += 1
        out.append(item)

    def _release(self, out: list[SSEItem]) -> None:
        """Comments held while an event was pending come after it."""
        if self._held:
            self.emitted += len(self._held)
            out.extend(self._held)
            self._held = []

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

    def _reset_event(self) -> None:
        self._data: list[bytes] | None = None
        self._data_offset = 0
        self._event: str | None = None
        self._ev_line = 0
        self._ev_byte = -1

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

    def _process_line(self, line: bytes, term: int, t: float | None, out: list[SSEItem]) -> None:
        start = self._byte
        lineno = self._line
        self._byte = start + len(line) + term
        self._line = lineno + 1
        if len(line) > self.max_line:
            self._byte, self._line = start, lineno
            self._byte_skipped = len(line)
            self._skip_overlong(term)
            return
        if not line:
            if self._data is not None:
                self._dispatch(t, out)
            else:
                self._reset_event()
            self._release(out)
            return
        if line[0] == 0x3A:  # ":" comment
            raw = RawEvent(-1, lineno, start, self._byte, t, "comment")
            text = line[2:] if line[1:2] == b" " else line[1:]  # one space, as for values
            item = SSEItem(raw, comment=self._text(text, start + len(line) - len(text)))
            self._last = raw  # the LF of a CRLF split across reads still belongs to it
            if self._ev_byte >= 0:
                self._held.append(item)  # inside an event: after it, to keep byte order
            else:
                self._emit(out, item)
            return
        if self._ev_byte < 0:
            self._ev_byte, self._ev_line = start, lineno
        colon = line.find(b":")
        if colon < 0:
            name, value = line, b""
        else:
            name, value = line[:colon], line[colon + 1 :]
            if value[:1] == b" ":
                value = value[1:]
            if name not in _FIELDS and name.strip() in _FIELDS:
                self._note(
                    "field_whitespace",
                    "warning",
                    "a field name has spaces around it; read anyway (strict clients drop it)",
                    lineno,
                    start,
                )
                name = name.strip()
        if name == b"data":
            if self._data is None:
                self._data = [value]
                self._data_offset = self._byte - term - len(value)
            else:
                self._data.append(value)
        elif name == b"event":
            self._event = self._text(value, start + len(line) - len(value))
        elif name == b"id":
            if b"\x00" not in value:
                self.last_event_id = self._text(value, start + len(line) - len(value))
        elif name != b"retry":
            self._note(
                "unknown_field",
                "info",
                f"line is not an SSE field ({self._text(name[:40], start)!r}...); ignored",
                lineno,
                start,
            )

    def _dispatch(self, t: float | None, out: list[SSEItem]) -> None:
        data = self._data
        assert data is not None
        payload = data[0] if len(data) == 1 else b"\n".join(data)
        raw = RawEvent(
            -1,
            self._ev_line,
            self._ev_byte,
            self._byte,
            t,
            "event",
            self._event,
            self.last_event_id,
        )
        self._last = raw
        self._emit(out, SSEItem(raw, data=payload, data_offset=self._data_offset))
        self._reset_event()

    def _text(self, value: bytes, at: int) -> str:
        try:
            return value.decode()
        except UnicodeDecodeError as exc:
            self._note(
                "invalid_utf8",
                "warning",
                f"byte 0x{value[exc.start]:02x} is not valid UTF-8; replaced with U+FFFD",
                self._line - 1,
                at + exc.start,
            )
            return value.decode(errors="replace")

    def _note(
        self,
        code: str,
        severity: str,
        message: str,
        line: int | None = None,
        byte: int | None = None,
    ) -> None:
        self._marks.append(self.emitted)
        self.diagnostics.append(
            Diagnostic(
                code=code,
                severity=severity,  # type: ignore[arg-type]
                message=message,
                line=self._line - 1 if line is None else line,
                byte=self._byte if byte is None else byte,
            )
        )
