"""A transport that answers every request with the captured bytes (the Python judges): the
client under judgement reads them as it would read the server's answer."""

from __future__ import annotations

import importlib
from typing import Any

CONTENT_TYPE = "text/event-stream; charset=utf-8"
BASE_URL = "http://judge.invalid"


def http_client(body: bytes, package: str = "httpx") -> Any:
    """A ``Client`` of ``package`` (httpx, or httpx2 for the clients built on it, anthropic 2)
    whose every request is answered 200 with ``body`` through its ``MockTransport``."""
    http = importlib.import_module(package)

    def answer(_request: Any) -> Any:
        return http.Response(200, headers={"content-type": CONTENT_TYPE}, content=body)

    return http.Client(transport=http.MockTransport(answer))
