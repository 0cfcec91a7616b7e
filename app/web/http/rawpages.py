"""Raw event texts over HTTP, a page at a time: ``GET /api/captures/<id>/timeline/raw?stream=&start=&count=``
(docs/protocol.md, "The timeline document"). The player page that replays a stored capture over
HTTP asks here what a websocket replay asks with ``raw_request``; the answer is the same ``raw``
message. A page is cached as its capture's document is (``?v=`` of the current version of a
capture that cannot grow: immutable), with a strong ETag of its own bytes.
"""

from __future__ import annotations

import hashlib

from flask import Blueprint, Response, request

from ...digits import whole_number
from ...protocol import MAX_RAW_REQUEST, encode
from ...wire import StreamEncoder
from ..codings import SUFFIX, compress, negotiate
from ..context import services
from ..errors import BadRequest
from ..sending import heavy, matches, send
from .timeline import cache_control, document_digest, stored_subject

raw_pages = Blueprint("raw_pages", __name__, url_prefix="/api")


def _whole(name: str, *, default: int | None = None) -> int:
    text = request.args.get(name)
    if text is None and default is not None:
        return default
    number = whole_number(text, 12) if text is not None else None
    if number is None:
        raise BadRequest(
            f"query parameter {name!r} must be a whole number >= 0 (got {text!r})",
            code="bad_raw_request",
        )
    return number


@raw_pages.get("/captures/<capture_id>/timeline/raw")
@heavy
def capture_raw(capture_id: str) -> Response:
    loaded = services().sources.stored(capture_id)
    streams = loaded.capture.streams
    stream, start = _whole("stream"), _whole("start")
    count = min(_whole("count", default=MAX_RAW_REQUEST), MAX_RAW_REQUEST)
    if stream >= len(streams):
        raise BadRequest(
            f"query parameter 'stream' is {stream}; this capture has {len(streams)} stream(s)",
            code="bad_raw_request",
        )
    items = StreamEncoder(streams[stream]).raw_items(start, count)
    body = encode("raw", stream=stream, start=start, items=items).encode()
    digest = hashlib.sha256(body).hexdigest()
    cache = cache_control(document_digest(stored_subject(capture_id), services().settings))
    # Compressed per request: a page is small, and a proxy in front may keep it (docs/deploy.md).
    coding = negotiate(request.accept_encodings)
    etag = f'"{digest}{SUFFIX[coding] if coding else ""}"'
    if matches(request.headers.get("If-None-Match"), etag):
        return send(None, 0, etag, cache, "application/json", vary=True)
    packed = compress(body, coding) if coding else body
    return send(packed, len(packed), etag, cache, "application/json", coding=coding, vary=True)
