"""Taking a capture in: the one path uploads, the command line and stored recordings take
(docs/formats.md, "Reading a capture").

Undo gzip within the cap, check the named format and dialect, detect the format, scrub it
(docs/security.md, "Secrets in uploads"), read it. ``ingest(..., store=True)`` applies the rules
for what is stored: a capture over the decompressed cap, one that cannot be scrubbed, or one
with nothing to show is refused with an ``IngestError`` (code, message, where and why), and
nothing is kept. ``store=False`` (``streamscope inspect`` on the user's own file) reads it as it
is and says what is wrong in diagnostics instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..domain.dialects import NAMES as DIALECT_NAMES
from ..domain.events import Diagnostic
from ..domain.summary import diagnostic_json
from .formats import NAMES as FORMAT_NAMES
from .formats import format_named
from .model import Capture, Limits
from .read import detect, gunzip, read_capture, readable
from .scrub import Redactions, Unscrubbable
from .scrubbing import scrub

GZIP_MAGIC = b"\x1f\x8b"


class IngestError(ValueError):
    """A capture that is not taken in, and why: ``code`` names the reason; ``too_large`` is set
    for a capture over a size cap; ``extra`` holds where and why, and the diagnostics."""

    def __init__(self, code: str, message: str, *, too_large: bool = False, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.too_large = too_large
        self.extra = extra


@dataclass
class Ingested:
    """The capture as read, and the bytes it was read from: decompressed and, when it is to be
    stored, scrubbed."""

    capture: Capture
    data: bytes
    redactions: Redactions
    # What was said of the upload before its stored bytes (a truncated gzip): a reading of
    # those bytes cannot say it again, so it is kept with them (the capture's ``notes``).
    before: list[Diagnostic] = field(default_factory=list)


def ingest(data: bytes, fmt: str | None, limits: Limits, *, store: bool) -> Ingested:
    _check_names(fmt, limits.dialect)
    if not store:
        return Ingested(read_capture(data, fmt, limits), data, Redactions())
    probe = Capture(format=None)
    if data[:2] == GZIP_MAGIC:
        probe.compression = "gzip"
        data = gunzip(data, limits.max_decompressed, probe)
        if any(d.code == "gzip_too_large" for d in probe.diagnostics):
            cap = limits.max_decompressed // (1024 * 1024)
            raise IngestError(
                "too_large_decompressed",
                f"the capture is over the {cap} MB cap once decompressed "
                "(STREAMSCOPE_MAX_DECOMPRESSED_MB); nothing was stored",
                too_large=True,
            )
    detected = fmt or detect(data, probe)
    if detected is None:
        problem = probe.diagnostics[-1]
        raise IngestError(problem.code, problem.message, diagnostics=_json(probe))
    try:
        clean, redactions = scrub(data, detected, limits.scrub_seconds)
    except Unscrubbable as exc:
        raise IngestError("cannot_scrub", str(exc), where=exc.where, why=exc.why) from None
    capture = read_capture(clean, detected, limits)
    capture.diagnostics[:0] = probe.diagnostics  # the cause (a truncated gzip) first
    capture.compression = probe.compression
    capture.format_reason = probe.format_reason or "named by the user"
    if not readable(capture):
        raise IngestError(
            "no_stream", f"no stream could be read as {detected}", diagnostics=_json(capture)
        )
    return Ingested(capture, clean, redactions, list(probe.diagnostics))


def _check_names(fmt: str | None, dialect: str | None) -> None:
    if fmt is not None and format_named(fmt) is None:
        raise IngestError("bad_format", f"unknown format {fmt!r}; known: {', '.join(FORMAT_NAMES)}")
    if dialect is not None and dialect not in DIALECT_NAMES:
        raise IngestError(
            "bad_dialect", f"unknown dialect {dialect!r}; known: {', '.join(DIALECT_NAMES)}"
        )


def _json(capture: Capture) -> list[dict[str, Any]]:
    return [diagnostic_json(d) for d in capture.all_diagnostics]


def with_dialect(limits: Limits, dialect: str | None) -> Limits:
    """The same limits, reading the named dialect (None: detect it)."""
    return replace(limits, dialect=dialect or None)
