"""Taking an upload in: read the bytes, undo gzip within the cap, detect the format, scrub
secrets, read it (so the answer can say what was found), store it. At most a few imports run at
once (a large HAR costs several times its size to parse); the next one waits briefly, then gets
a clear "busy" answer. The body has been received whole before the slot is taken
(``bodies.py``), so a client that sends slowly never holds an import slot.

A gzip upload may not grow past ``max_decompressed_mb`` (by default the upload cap: gzip
saves bandwidth, it does not buy a larger capture); over it the answer is 413 and nothing is
stored (docs/security.md, "What one client can cost")."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..captures import Capture, Limits, detect, read_capture
from ..captures.model import FORMATS
from ..captures.read import gunzip, readable
from ..captures.scrub import Unscrubbable, scrub
from ..domain.summary import diagnostic_json
from ..storage import CaptureRecord, CaptureStore, NewCapture
from ..storage.base import EXPIRY
from .errors import BadRequest, Busy, PayloadTooLarge

WAIT_FOR_SLOT = 5.0
MAX_TITLE = 200


@dataclass
class Imported:
    record: CaptureRecord
    token: str
    capture: Capture


class Importer:
    def __init__(self, store: CaptureStore, limits: Limits, concurrent: int) -> None:
        self.store = store
        self.limits = limits
        self._slots = threading.BoundedSemaphore(concurrent)

    @contextmanager
    def slot(self) -> Iterator[None]:
        """One of the few import slots, for running an import."""
        if not self._slots.acquire(timeout=WAIT_FOR_SLOT):
            raise Busy("too many uploads are being read right now; try again in a few seconds")
        try:
            yield
        finally:
            self._slots.release()

    def run(
        self,
        data: bytes,
        *,
        title: str | None,
        expires: str | None,
        fmt: str | None,
        name: str | None,
    ) -> Imported:
        """Import ``data``; the caller holds a ``slot()``."""
        if expires not in (None, "", *EXPIRY):
            raise BadRequest(f"expires must be one of {', '.join(EXPIRY)}", code="bad_expires")
        if fmt not in (None, "") and fmt not in FORMATS:
            raise BadRequest(
                f"unknown format {fmt!r}; known: {', '.join(FORMATS)}", code="bad_format"
            )
        return self._import(data, title, expires or "never", fmt or None, name)

    def _import(
        self, data: bytes, title: str | None, expires: str, fmt: str | None, name: str | None
    ) -> Imported:
        probe = Capture(format=None)
        compression = None
        if data[:2] == b"\x1f\x8b":
            compression = "gzip"
            data = gunzip(data, self.limits.max_decompressed, probe)
            if any(d.code == "gzip_too_large" for d in probe.diagnostics):
                cap = self.limits.max_decompressed // (1024 * 1024)
                raise PayloadTooLarge(
                    f"the capture is over the {cap} MB cap once decompressed "
                    "(STREAMSCOPE_MAX_DECOMPRESSED_MB); nothing was stored",
                    code="too_large_decompressed",
                )
        detected = fmt or detect(data, probe)
        if detected is None:
            problem = probe.diagnostics[-1]
            raise BadRequest(
                problem.message,
                code=problem.code,
                diagnostics=[diagnostic_json(d) for d in probe.diagnostics],
            )
        try:
            clean, redactions = scrub(data, detected)
        except Unscrubbable as exc:
            raise BadRequest(str(exc), code="cannot_scrub", where=exc.where, why=exc.why) from None
        capture = read_capture(clean, detected, self.limits)
        capture.compression = compression
        if not readable(capture):
            raise BadRequest(
                f"no stream could be read as {detected}",
                code="no_stream",
                diagnostics=[diagnostic_json(d) for d in capture.all_diagnostics],
            )
        new = NewCapture(
            data=clean,
            title=_title(title, name, capture),
            format=detected,
            streams=len(capture.streams),
            compression=compression,
            expires_in=EXPIRY[expires],
            redacted=redactions.as_list(),
        )
        record, token = self.store.add(new)
        return Imported(record, token, capture)


def _title(title: str | None, name: str | None, capture: Capture) -> str:
    for candidate in (title, name):
        if candidate and candidate.strip():
            return candidate.strip()[:MAX_TITLE]
    return f"{capture.format} capture, {len(capture.streams)} stream{'s' if len(capture.streams) != 1 else ''}"


def stream_summaries(capture: Capture, stall_ms: float) -> list[dict[str, Any]]:
    from ..domain.assemble import assemble, plain
    from ..domain.metrics import compute

    out = []
    for stream in capture.streams:
        completion = plain(assemble(stream.events))
        out.append(
            {
                "index": stream.index,
                "origin": stream.origin,
                "model": completion.get("model"),
                "choices": len(completion["choices"]),
                "finish_reasons": [c["finish_reason"] for c in completion["choices"]],
                "usage": completion.get("usage"),
                "metrics": compute(stream, stall_ms).to_json(),
                "diagnostics": len(stream.diagnostics),
            }
        )
    return out
