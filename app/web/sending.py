"""Sending a built result (results.py), and which views do heavy work (docs/security.md,
"Heavy GETs").

``heavy`` marks a view whose answer is built from a whole capture (its timeline document, the
static export, a download, the stored bytes): such a request counts against the slow-work
budget and its address's share of it (workload.py), like a request with a body. ``send``
answers with a file or bytes, its strong ETag and cache policy, or 304 with no body when the
caller found that ``If-None-Match`` names the ETag (``matches``, RFC 9110 section 13.1.2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TypeVar

from flask import Response, current_app, request
from werkzeug.wsgi import wrap_file

View = TypeVar("View", bound=Callable[..., object])


def heavy(view: View) -> View:
    """Mark ``view`` as heavy (read in ``before_request``: ``is_heavy``)."""
    view.heavy = True  # type: ignore[attr-defined]
    return view


def is_heavy() -> bool:
    view = current_app.view_functions.get(request.endpoint or "")
    return bool(getattr(view, "heavy", False))


def matches(header: str | None, etag: str) -> bool:
    """If-None-Match (weak comparison)."""
    if not header:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in header.split(",")]
    return "*" in tags or etag in tags


def send(
    body: IO[bytes] | bytes | None,
    size: int,
    etag: str,
    cache: str,
    mimetype: str,
    *,
    coding: str | None = None,
    vary: bool = False,
) -> Response:
    """200 with ``body`` (a file is sent as it is read, and closed after), or 304 when ``body``
    is None."""
    if body is None:
        response = Response(status=304)
    elif isinstance(body, bytes):
        response = Response(body, mimetype=mimetype)
    else:
        response = Response(
            wrap_file(request.environ, body), mimetype=mimetype, direct_passthrough=True
        )
        response.content_length = size
    if body is not None and coding:
        response.headers["Content-Encoding"] = coding
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = cache
    if vary:
        response.headers["Vary"] = "Accept-Encoding"
    return response
