"""The errors Streamscope's services raise and its web layer answers with, in one JSON shape:
``{"error": {"code", "message"}}`` (the web layer's handlers are in app/web/errors.py).

    StreamscopeError            code, message, HTTP status
     ├── NotFound               404: no such demo, capture, or page
     ├── BadRequest             400: a request the API cannot take (with where and why)
     ├── Forbidden              403: foreign Origin, wrong delete token
     ├── PayloadTooLarge        413: an upload over the size cap
     ├── RequestTimeout         408: a request body that arrived too slowly
     ├── Busy                   503: too many imports or viewers at once; try again shortly
     └── RateLimited            429: too many requests from one client
"""

from __future__ import annotations

from typing import Any


class StreamscopeError(Exception):
    status = 500
    code = "internal"

    def __init__(self, message: str, code: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.extra = extra


class NotFound(StreamscopeError):
    status, code = 404, "not_found"


class BadRequest(StreamscopeError):
    status, code = 400, "bad_request"


class Forbidden(StreamscopeError):
    status, code = 403, "forbidden"


class PayloadTooLarge(StreamscopeError):
    status, code = 413, "too_large"


class RequestTimeout(StreamscopeError):
    status, code = 408, "too_slow"


class Busy(StreamscopeError):
    status, code = 503, "busy"


class RateLimited(StreamscopeError):
    status, code = 429, "rate_limited"


def too_large_message(cap_mb: int) -> str:
    return f"the upload is over the {cap_mb} MB cap (STREAMSCOPE_MAX_UPLOAD_MB)"


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **extra}}
