"""Errors the web layer answers with, all in one JSON shape: ``{"error": {"code", "message"}}``.

    StreamscopeError            code, message, HTTP status
     ├── NotFound               404: no such demo, capture, or page
     ├── BadRequest             400: a request the API cannot take (with where and why)
     ├── Forbidden              403: foreign Origin, wrong delete token
     ├── PayloadTooLarge        413: an upload over the size cap
     ├── RequestTimeout         408: a request body that arrived too slowly
     ├── Busy                   503: too many imports or viewers at once; try again shortly
     └── RateLimited            429: too many requests from one client

Pages render the same code and message as HTML; nothing ever answers with a traceback.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from .services import services_of


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


def _wants_json() -> bool:
    return (
        request.path.startswith(("/api/", "/ws", "/proxy/"))
        or request.accept_mimetypes.best == "application/json"
    )


def _respond(status: int, code: str, message: str, extra: dict[str, Any] | None = None) -> Response:
    if _wants_json():
        response = jsonify(error_body(code, message, **(extra or {})))
    else:
        response = Response(
            render_template("error.html", status=status, code=code, message=message),
            mimetype="text/html",
        )
    response.status_code = status
    return response


def install(app: Flask) -> None:
    @app.errorhandler(StreamscopeError)
    def _ours(exc: StreamscopeError) -> Response:
        return _respond(exc.status, exc.code, exc.message, exc.extra)

    @app.errorhandler(RequestEntityTooLarge)
    def _too_large(exc: RequestEntityTooLarge) -> Response:
        message = too_large_message(services_of(app).settings.max_upload_mb)
        return _respond(413, PayloadTooLarge.code, message)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        code = (exc.name or "error").lower().replace(" ", "_")
        return _respond(exc.code or 500, code, exc.description or exc.name or "error")

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        app.logger.exception("unexpected error on %s %s", request.method, request.path)
        return _respond(500, "internal", "something went wrong on the server; it has been logged")
