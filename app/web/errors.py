"""How the web layer answers errors: every ``StreamscopeError`` (app/services/errors.py, where
the classes are; named here too, for the web modules) and every other failure in one JSON shape,
``{"error": {"code", "message"}}``; pages render the same code and message as HTML. Nothing ever
answers with a traceback.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from ..services.errors import (
    BadRequest,
    Busy,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    RequestTimeout,
    StreamscopeError,
    error_body,
    too_large_message,
)
from .context import services_of

__all__ = [
    "BadRequest",
    "Busy",
    "Forbidden",
    "NotFound",
    "PayloadTooLarge",
    "RateLimited",
    "RequestTimeout",
    "StreamscopeError",
    "error_body",
    "install",
    "too_large_message",
]


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
