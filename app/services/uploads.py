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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..captures import Capture, Limits
from ..captures.ingest import IngestError, ingest, with_dialect
from ..captures.scrub import Redactions, sweep_str
from ..domain.summary import diagnostic_json, dialect_of, identity, summarize
from ..storage import CaptureRecord, CaptureStore, NewCapture
from ..storage.base import EXPIRY
from .errors import BadRequest, Busy, PayloadTooLarge
from .sources import Loaded

WAIT_FOR_SLOT = 5.0
MAX_TITLE = 200


@dataclass
class Imported:
    record: CaptureRecord
    token: str
    capture: Capture


class Importer:
    """Uploads through the one ingest path (captures/ingest.py), stored, and handed to the
    parsed-capture cache (``remember``) so that the first open does not read them again."""

    def __init__(
        self,
        store: CaptureStore,
        limits: Limits,
        concurrent: int,
        remember: Callable[[CaptureRecord, Capture], None] = lambda record, capture: None,
    ) -> None:
        self.store = store
        self.limits = limits
        self.remember = remember
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
        dialect: str | None = None,
    ) -> Imported:
        """Import ``data``; the caller holds a ``slot()``."""
        if expires not in (None, "", *EXPIRY):
            raise BadRequest(f"expires must be one of {', '.join(EXPIRY)}", code="bad_expires")
        try:
            ingested = ingest(data, fmt or None, with_dialect(self.limits, dialect), store=True)
        except IngestError as exc:
            error = PayloadTooLarge if exc.too_large else BadRequest
            raise error(exc.message, code=exc.code, **exc.extra) from None
        capture = ingested.capture
        new = NewCapture(
            data=ingested.data,
            title=_title(title, name, capture, ingested.redactions),
            format=capture.format or "sse",
            streams=len(capture.streams),
            compression=capture.compression,
            expires_in=EXPIRY[expires or "never"],
            redacted=ingested.redactions.as_list(),
            dialect=dialect or None,
            notes=[diagnostic_json(d) for d in ingested.before],
        )
        record, token = self.store.add(new)
        self.remember(record, capture)
        return Imported(record, token, capture)


def _title(title: str | None, name: str | None, capture: Capture, redactions: Redactions) -> str:
    """The typed title, else the file's name, swept as the capture is (a file named
    ``sk-proj-....sse`` names its key: docs/security.md, "Secrets in uploads")."""
    for candidate in (title, name):
        if candidate and candidate.strip():
            return sweep_str(candidate.strip()[:MAX_TITLE], redactions)
    return f"{capture.format} capture, {len(capture.streams)} stream{'s' if len(capture.streams) != 1 else ''}"


def summaries_of(loaded: Loaded, stall_ms: float) -> list[dict[str, Any]]:
    """The capture's stream summaries, made once and kept with it (the upload's answer and
    every ``GET /api/captures/<id>`` after it)."""
    with loaded.lock:
        if loaded.summaries is None:
            loaded.summaries = stream_summaries(loaded.capture, stall_ms)
        found: list[dict[str, Any]] = loaded.summaries
        return found


def stream_summaries(capture: Capture, stall_ms: float) -> list[dict[str, Any]]:
    """Per stream, what an upload's answer and the metadata say: its dialect, model, outputs
    and their stop reasons, its usage as the dialect reports it, metrics, diagnostics."""
    out = []
    for stream in capture.streams:
        summary = summarize(stream, stall_ms)
        outputs = summary["normalized"]["outputs"]
        out.append(
            {
                "index": stream.index,
                "origin": stream.origin,
                "dialect": stream.dialect_name,
                "model": identity(stream)[1],
                "choices": len(outputs),
                "finish_reasons": [o["stop_reason"] for o in outputs],
                "usage": dialect_of(stream).final_usage(summary["completion"]),
                "metrics": summary["metrics"],
                "diagnostics": len(summary["diagnostics"]),
            }
        )
    return out
