"""Incremental Server-Sent-Events decoder (WHATWG "event stream interpretation"), bytes in.

Pure and incremental: feed it network reads as they come, in any split, and it returns the SSE
items completed by each read. Two parts, as in httpx-sse's ``_decoders.py``: a line splitter
(``sse_lines.LineSplitter``: reads to complete lines, at LF, CR or CRLF) and a field decoder
(``sse_fields.FieldDecoder``: lines to events and comments, with diagnostics and positions).
"""

from __future__ import annotations

from .bytestart import DEFAULT_MAX_LINE
from .events import Diagnostic
from .sse_fields import FieldDecoder
from .sse_lines import LineSplitter
from .sse_runs import SSEItem

__all__ = ["DEFAULT_MAX_LINE", "SSEDecoder", "SSEItem"]


class SSEDecoder:
    """Turns byte reads into ``SSEItem`` s. Problems go to ``diagnostics``; ``take_notes``
    takes them out with their place among the items (how many items were emitted before each),
    so the order does not depend on where the reads were cut.

    ``line`` and ``byte`` give the position of the first byte fed, so a body that starts after
    HTTP headers still reports file positions.
    """

    def __init__(self, *, max_line: int = DEFAULT_MAX_LINE, line: int = 1, byte: int = 0) -> None:
        self.fields = FieldDecoder(max_line, line, byte)
        self.splitter = LineSplitter(self.fields)

    def feed(self, chunk: bytes, t: float | None = None) -> list[SSEItem]:
        out: list[SSEItem] = []
        self.splitter.feed(chunk, t, out)
        return out

    def close(self, t: float | None = None) -> list[SSEItem]:
        """End of input: an unterminated last line and event are accepted, with a diagnostic."""
        out: list[SSEItem] = []
        self.splitter.close(t, out)
        self.fields.finish(t, out)
        return out

    def take_notes(self) -> list[tuple[int, Diagnostic]]:
        return self.fields.take_notes()

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.fields.diagnostics

    @property
    def emitted(self) -> int:
        """Items emitted so far."""
        return self.fields.emitted

    @property
    def last_event_id(self) -> str | None:
        return self.fields.last_event_id
