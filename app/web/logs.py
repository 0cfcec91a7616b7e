"""Structured logs: one JSON line per request and one per websocket stream, never a secret.

Requests log method, path (without the query string), status, duration, bytes and the client
address; streams log what was played and how it ended. Headers, bodies and query strings are
never logged, so keys cannot reach the logs through them.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from flask import Flask, Response, g, request

log = logging.getLogger("streamscope")


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
        if record.exc_info:
            payload["error"] = self.formatException(record.exc_info).splitlines()[-1]
        return json.dumps(payload, ensure_ascii=False, default=str)


def configure(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JSONFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # requests are logged here instead


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
