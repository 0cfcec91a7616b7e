"""Structured logs: one JSON line per request and one per websocket stream, never a secret.

Requests log method, path (without the query string), status, duration, bytes and the client
address; streams log what was played and how it ended. Headers, bodies and query strings are
never logged by the app, and no other logger may carry them either (docs/security.md, "Logs"):
httpx and httpcore (which log request URLs and headers) are quieted to warnings, and every
record that reaches a handler, whoever logged it, passes ``SecretFilter``, which cuts query
strings and user-info out of URLs, blanks secret header values, and redacts key-shaped strings
and the values of the server's key variables. gunicorn's own handlers get the same filter
(``app/production.py``).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Iterable
from typing import Any

from flask import Flask, Response, g, request

from ..captures.scrub import REDACTED, SECRET_HEADERS, Redactions, sweep

log = logging.getLogger("streamscope")
QUIET = ("httpx", "httpcore", "hpack", "werkzeug")  # they log URLs, headers, request lines
# A path (every URL's path starts at a slash) and its query, which is cut. The path's run is
# taken whole whether a query follows or not, so the search never scans a run twice
# (docs/security.md, "Scrubbing in linear time").
QUERY = re.compile(r"/[^\s?#'\"<>]*+(\?[^\s'\"<>]*+)?")
USER_INFO = re.compile(r"(?<=[A-Za-z0-9+.\-])://[^\s/@'\"<>]*+@")
HEADER = re.compile(
    r"(?i)\b(" + "|".join(sorted(map(re.escape, SECRET_HEADERS), key=len, reverse=True)) + r")"
    r"(['\"]?\s*[:=,]\s*(?:b?['\"])?)[^\r\n'\"]*"
)
_secrets: set[str] = set()


def protect(values: Iterable[str | None]) -> None:
    """Exact values (the server's keys) that no log line may carry."""
    _secrets.update(v for v in values if v and len(v) >= 8)


def clean(text: str) -> str:
    for secret in sorted(_secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    text = QUERY.sub(_without_query, text)
    text = USER_INFO.sub(f"://{REDACTED}@", text)
    text = HEADER.sub(rf"\1\2{REDACTED}", text)
    return sweep(text.encode(), Redactions()).decode(errors="replace")


def _without_query(match: re.Match[str]) -> str:
    if match[1] is None:
        return match[0]
    return match[0][: match.start(1) - match.start()] + "?" + REDACTED


class SecretFilter(logging.Filter):
    """Rewrites each record so that its message, exception and fields are clean."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = clean(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = clean(record.exc_text)
        if record.stack_info:
            record.stack_info = clean(record.stack_info)
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            record.fields = {k: clean(v) if isinstance(v, str) else v for k, v in fields.items()}
        return True


class JSONFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            payload.update(fields)
        else:
            payload["message"] = record.getMessage()
        if record.exc_info or record.exc_text:
            text = record.exc_text or self.formatException(record.exc_info)  # type: ignore[arg-type]
            payload["error"] = text.splitlines()[-1]
        return json.dumps(payload, ensure_ascii=False, default=str)


def configure(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JSONFormatter())
    handler.addFilter(SecretFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in QUIET:  # requests are logged here instead
        logging.getLogger(name).setLevel(logging.WARNING)


def event(name: str, **fields: Any) -> None:
    log.info(name, extra={"fields": {"event": name, **fields}})


def client_address() -> str:
    return request.remote_addr or "?"


def install(app: Flask) -> None:
    @app.before_request
    def _start() -> None:
        g.started = time.monotonic()

    @app.after_request
    def _log(response: Response) -> Response:
        if request.path != "/ws":  # websocket sessions log one "stream" line when they end
            event(
                "request",
                method=request.method,
                path=request.path,
                status=response.status_code,
                ms=round((time.monotonic() - g.get("started", time.monotonic())) * 1000, 1),
                bytes=response.calculate_content_length(),
                client=client_address(),
            )
        return response
