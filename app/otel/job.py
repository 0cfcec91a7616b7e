"""One finished call, as handed to the exporter: what its span is made of, taken without
copying (the stream is finished: nothing changes it any more). Imports no OpenTelemetry, so
the proxy and the live runs can hand calls over without loading the SDK."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..domain.metrics import DEFAULT_STALL_MS
from ..domain.stream import Stream
from .model import Parent


@dataclass(frozen=True)
class Job:
    header: Mapping[str, Any] | None
    stream: Stream
    capture_id: str | None = None
    share_url: str | None = None
    scrub: Callable[[str], str] = field(default=lambda text: text)
    ended_ms: float | None = None  # the recorded end, ms from the request (else the last read)
    stall_ms: float = DEFAULT_STALL_MS
    now: float = 0.0  # epoch seconds: the start when the header has none
    parent: Parent | None = None  # the run this call belongs to (a later seam: runs)
    file: str | None = None  # the capture file it was read from (export --otlp)


class Sink(Protocol):
    """Where finished calls go (``exporter.OtlpExporter``), and what became of them."""

    exported: int
    dropped: int

    def submit(self, job: Job) -> bool: ...


def share_url(origin: str | None, capture_id: str) -> str:
    """A recording's share link: absolute when the server's origin is known (the request that
    made it), else the path on this server."""
    path = f"/c/{capture_id}"
    return f"{origin.rstrip('/')}{path}" if origin else path
