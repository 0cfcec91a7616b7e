"""Scrubbing a capture of a known format before anything is stored (docs/security.md,
"Secrets in uploads"): the format's own scrubber, named by its record in ``formats.py``, in at
most a budget of CPU.

``scrub(data, fmt)`` gives the clean bytes and what was removed, or raises ``Unscrubbable``:
what cannot be scrubbed is refused, never stored as it came. The rules and the sweep every
scrubber applies are in ``scrub/``; this module sits above the registry, which names them.
"""

from __future__ import annotations

from .formats import format_named
from .model import Capture
from .read import detect
from .scrub.redactions import Budget, Redactions, Unscrubbable

GZIP_MAGIC = b"\x1f\x8b"


def scrub(data: bytes, fmt: str | None, seconds: float | None = None) -> tuple[bytes, Redactions]:
    """``data`` (already decompressed) without its secrets, read as ``fmt``, in at most
    ``seconds`` of CPU (``Budget``; None: no bound)."""
    if data[:2] == GZIP_MAGIC:
        # The reader would decompress it again, and read what the scrubber never saw.
        raise Unscrubbable("byte 0", "still gzip after decompressing (gzip inside gzip)")
    found = format_named(fmt)
    if found is None:
        raise Unscrubbable("the format", f"no scrubber for format {fmt!r}")
    scrubber = found.scrub
    redactions = Redactions()
    redactions.budget = Budget(seconds)
    if fmt in ("json", "jsonl", "ndjson"):
        _refuse_hidden_structure(data, fmt)
        clean = scrubber(data, redactions)
        _refuse_hidden_structure(clean, fmt)  # a redaction can make broken JSON whole
        return clean, redactions
    return scrubber(data, redactions), redactions


def _refuse_hidden_structure(data: bytes, fmt: str) -> None:
    """A HAR file or a timed capture read as plain JSON would show its headers, cookies and
    request as payload text, which the sweep alone does not know to remove."""
    detected = detect(data, Capture(format=None))
    if detected in ("har", "timed"):
        raise Unscrubbable(
            "the format",
            f"this is a {detected} capture, scrubbed only as {detected}: "
            f"upload it as {detected}, or leave the format to detection (not {fmt})",
        )
