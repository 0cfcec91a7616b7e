"""What the three byte decoders (SSE, NDJSON, JSON array) share at the start of a body and for
every line: a leading UTF-8 byte order mark, dropped, and the line cap with its message."""

from __future__ import annotations

DEFAULT_MAX_LINE = 16 * 1024 * 1024
BOM = b"\xef\xbb\xbf"


def line_too_long(size: int, cap: int) -> str:
    """The message of a ``line_too_long`` diagnostic, for every reader."""
    return (
        f"line of {size:,} bytes is over the {cap:,}-byte cap (on a server: "
        "STREAMSCOPE_MAX_LINE_MB) and was skipped"
    )


class LeadingBOM:
    """A byte decoder's first bytes, held until it is known whether they are a UTF-8 BOM,
    which is dropped (and counted in ``_byte``)."""

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
