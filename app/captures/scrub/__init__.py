"""Removing secrets from a capture before anything is stored (docs/security.md, "Secrets in
uploads").

One scrubber per format (each format's record in ``formats.py`` names it), each reading the
file the way its reader does, all applying one set of rules (``rules.py``: secret header,
parameter and field names, key shapes) through one sweep (``text.py``) and one set of value
scrubbers (``values.py``):

* ``sse``, ``docs``, ``jsonl``, ``ndjson``, ``json``: the sweep, over the whole text;
* ``har``: ``har.py`` (only event-stream entries, no headers or cookies, bodies decoded);
* ``curl``: ``curl.py`` (secret headers in the HTTP heads, then the sweep);
* ``timed``: ``timed.py`` (the header's fields, the reads swept as one text);
* ``eventstream``: ``eventstream.py`` (each frame's payload and headers, frames written again).

``scrub(data, fmt)`` gives the clean bytes and what was removed, or raises ``Unscrubbable``:
what cannot be scrubbed is refused, never stored as it came.
"""

from __future__ import annotations

from ..model import Capture
from .redactions import REDACTED, Budget, Redactions, Unscrubbable, known_forms
from .rules import KEY_PATTERNS, SECRET_HEADERS
from .text import sweep, sweep_pieces, sweep_str
from .values import scrub_form, scrub_json, scrub_url

__all__ = [
    "KEY_PATTERNS",
    "REDACTED",
    "SECRET_HEADERS",
    "Redactions",
    "Unscrubbable",
    "known_forms",
    "scrub",
    "scrub_form",
    "scrub_json",
    "scrub_url",
    "sweep",
    "sweep_pieces",
    "sweep_str",
]

GZIP_MAGIC = b"\x1f\x8b"


def scrub(data: bytes, fmt: str | None, seconds: float | None = None) -> tuple[bytes, Redactions]:
    """``data`` (already decompressed) without its secrets, read as ``fmt``, in at most
    ``seconds`` of CPU (``Budget``; None: no bound)."""
    if data[:2] == GZIP_MAGIC:
        # The reader would decompress it again, and read what the scrubber never saw.
        raise Unscrubbable("byte 0", "still gzip after decompressing (gzip inside gzip)")
    from ..formats import format_named  # the registry imports the scrubbers

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
    from ..read import detect

    detected = detect(data, Capture(format=None))
    if detected in ("har", "timed"):
        raise Unscrubbable(
            "the format",
            f"this is a {detected} capture, scrubbed only as {detected}: "
            f"upload it as {detected}, or leave the format to detection (not {fmt})",
        )
