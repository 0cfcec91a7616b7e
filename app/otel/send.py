"""``streamscope export CAPTURE --otlp URL`` (docs/otel.md): a stored capture's spans, one per
stream, sent to an OTLP/HTTP receiver as the server sends its calls'.

CAPTURE is a capture file (``-`` for stdin), or with ``--server`` a stored capture's id on a
running Streamscope (its recording as stored, ``/api/captures/<id>/raw``; the span then links
to its share page). A span starts at the capture's ``created`` time when its header has one (a
timed capture, a live run's or proxied call's recording), else now; its times and TTFT are the
capture's own, as ``inspect`` reports them. Headers come from ``STREAMSCOPE_OTLP_HEADERS``,
content only with ``STREAMSCOPE_OTLP_CONTENT=1``, scrubbed of key-shaped strings.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx

from ..captures import Limits
from ..captures.ingest import ingest
from ..live.redact import Redactor
from ..settings import load
from .exporter import OtlpExporter, parse_headers
from .job import Job, share_url

EXIT_OK, EXIT_DROPPED, EXIT_NO_STREAM = 0, 1, 2
FETCH_TIMEOUT_S = 60.0


def send_capture(
    capture: str,
    url: str,
    server: str | None = None,
    fmt: str | None = None,
    dialect: str | None = None,
) -> int:
    settings = load({})
    try:
        headers = parse_headers(settings.otlp_headers)
        data, name, capture_id, link = _read(capture, server)
        exporter = OtlpExporter(url, headers, content=settings.otlp_content, metrics=False)
    except (OSError, ValueError, httpx.HTTPError) as exc:
        print(f"streamscope: {_said(exc)}", file=sys.stderr)
        return EXIT_NO_STREAM
    read = ingest(data, fmt, Limits(dialect=dialect), store=False).capture
    if not read.streams:
        print(f"streamscope: no stream could be read from {name}", file=sys.stderr)
        return EXIT_NO_STREAM
    scrub = Redactor([], settings.max_line_mb * 1024 * 1024).text
    now = time.time()
    for stream in read.streams:
        exporter.submit(
            Job(
                read.header,
                stream,
                capture_id=capture_id,
                share_url=link,
                scrub=scrub,
                stall_ms=settings.stall_ms,
                now=now,
                file=name if capture_id is None else None,
            )
        )
    exporter.shutdown()
    sent, dropped = exporter.exported, exporter.dropped
    print(f"sent {sent} span(s) of {name} to {url}" + (f"; {dropped} dropped" if dropped else ""))
    return EXIT_OK if dropped == 0 else EXIT_DROPPED


def _read(capture: str, server: str | None) -> tuple[bytes, str, str | None, str | None]:
    """The capture's bytes, its name, and with ``server`` its id and share link."""
    if server:
        base = server.rstrip("/")
        with httpx.Client(timeout=FETCH_TIMEOUT_S, follow_redirects=False) as client:
            answer = client.get(f"{base}/api/captures/{capture}/raw")
        if answer.status_code != 200:
            raise ValueError(f"{base} answered {answer.status_code} for capture {capture!r}")
        return answer.content, capture, capture, share_url(base, capture)
    if capture == "-":
        return sys.stdin.buffer.read(), "stdin", None, None
    return Path(capture).read_bytes(), Path(capture).name, None, None


def _said(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot read: {exc.strerror}" + (f" ({exc.filename})" if exc.filename else "")
    return str(exc)
