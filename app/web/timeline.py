"""A replay as one cacheable HTTP resource: ``GET /api/captures/<id>/timeline`` and
``GET /api/demos/<name>/timeline`` (docs/protocol.md, "The timeline document").

The document holds the messages a replay sends over the websocket, in the order it sends them
(``capture``, per stream ``raw_meta``, ``events`` batches and ``summary``, then ``end``), taken
from the capture's encoded replay (replay.py), so the two never differ. It is built once per
capture and per variant (one build at a time: viewers arriving together wait for it), each
compressed form made once (codings.py: brotli or gzip, by ``Accept-Encoding``), and kept with
the cached capture. ``?raw=1`` adds the raw event texts (``raw`` messages) for a player without
a server (the static export); ``GET /api/captures/<id>/timeline/raw`` serves them a page at a time, for
the player page replaying over HTTP (rawpages.py).

Caching. The ETag is the document's SHA-256 (strong; a compressed form's has ``.br`` or ``.gz``
appended),
and a conditional GET that names it gets 304. What can change a stored capture's document is a
rename (the title is in its ``capture`` message) and a live recording that is still growing;
so the bare URL is ``no-cache`` (kept, revalidated each time, 304 while unchanged), and the
URL that names its version, ``?v=<etag>`` (the ``timeline_url`` of the capture's metadata),
is ``public, max-age=31536000, immutable`` once the capture can no longer grow: a rename gives
a new version and so a new URL. A recording still growing is never immutable.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from flask import Blueprint, Response, request, url_for

from ..protocol import VERSION, encode
from ..settings import Settings
from ..wire import StreamEncoder
from .codings import SUFFIX, Forms, negotiate
from .replay import encoded_capture
from .services import services
from .sources import Loaded

documents = Blueprint("documents", __name__, url_prefix="/api")

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "public, no-cache"
GROWING = "no-cache"
RAW_PAGE = 500  # raw texts per ``raw`` message in a document with them


@dataclass(frozen=True)
class TimelineDocument:
    body: bytes  # the JSON document
    digest: str  # hex SHA-256 of ``body``, the version
    finished: bool  # the capture can no longer grow
    forms: Forms = field(init=False)  # the body and its compressed forms, made once each

    def __post_init__(self) -> None:
        object.__setattr__(self, "forms", Forms(self.body))

    def etag(self, coding: str | None) -> str:
        return f'"{self.digest}{SUFFIX[coding] if coding else ""}"'


def growing(loaded: Loaded) -> bool:
    """A live recording that has not ended yet (its stored bytes have no end line)."""
    return loaded.recorded_live and any(s.end_reason is None for s in loaded.capture.streams)


def document_bytes(loaded: Loaded, settings: Settings, *, raw: bool) -> bytes:
    """``{"version": 2, "messages": [...]}``, with ``"raw": [...]`` when asked."""
    encoded = encoded_capture(loaded, settings)
    texts = [encoded.capture.text]
    for stream in encoded.streams:
        texts.append(stream.raw_meta.text)
        texts.extend(batch.text for batch in stream.batches())
        texts.append(stream.summary().text)
    texts.append(encode("end", reason="complete"))
    parts = [f'{{"version":{VERSION},"messages":[', ",".join(texts), "]"]
    if raw:
        parts += [',"raw":[', ",".join(raw_messages(loaded)), "]"]
    parts.append("}")
    return "".join(parts).encode()


def raw_messages(loaded: Loaded) -> list[str]:
    """Every raw event's text, as ``raw`` messages (the shape the websocket answers a
    ``raw_request`` with), a page at a time."""
    out = []
    for stream in loaded.capture.streams:
        encoder = StreamEncoder(stream)
        for start in range(0, len(stream.raw), RAW_PAGE):
            items = encoder.raw_items(start, RAW_PAGE)
            out.append(encode("raw", stream=stream.index, start=start, items=items))
    return out


def timeline_document(loaded: Loaded, settings: Settings, *, raw: bool = False) -> TimelineDocument:
    """The document, built once per capture and variant and kept with it: concurrent first
    requests wait for the one build rather than each building it."""
    with loaded.document_lock:
        found = loaded.documents.get(raw)
        if found is None:
            body = document_bytes(loaded, settings, raw=raw)
            found = loaded.documents[raw] = TimelineDocument(
                body=body, digest=hashlib.sha256(body).hexdigest(), finished=not growing(loaded)
            )
        return found


def _matches(header: str | None, etag: str) -> bool:
    """If-None-Match (weak comparison, RFC 9110 section 13.1.2)."""
    if not header:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in header.split(",")]
    return "*" in tags or etag in tags


def cache_control(doc: TimelineDocument) -> str:
    """Immutable only at the URL naming the current version of a capture that cannot grow."""
    if not doc.finished:
        return GROWING
    return IMMUTABLE if request.args.get("v") == doc.digest else REVALIDATE


def answer(forms: Forms, etag_of: Callable[[str | None], str], cache: str) -> Response:
    """200 with the negotiated form, or 304 when If-None-Match names its ETag."""
    coding = negotiate(request.accept_encodings)
    etag = etag_of(coding)
    if _matches(request.headers.get("If-None-Match"), etag):
        response = Response(status=304)
    else:
        response = Response(forms.get(coding), mimetype="application/json")
        if coding:
            response.headers["Content-Encoding"] = coding
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = cache
    response.headers["Vary"] = "Accept-Encoding"
    return response


def serve(loaded: Loaded) -> Response:
    doc = timeline_document(loaded, services().settings, raw=request.args.get("raw") == "1")
    return answer(doc.forms, doc.etag, cache_control(doc))


def timeline_url(loaded: Loaded, capture_id: str) -> str:
    """The URL of the capture's current document version (immutable once finished)."""
    doc = timeline_document(loaded, services().settings)
    return url_for("documents.capture_timeline", capture_id=capture_id, v=doc.digest)


@documents.get("/captures/<capture_id>/timeline")
def capture_timeline(capture_id: str) -> Response:
    return serve(services().sources.stored(capture_id))


@documents.get("/demos/<name>/timeline")
def demo_timeline(name: str) -> Response:
    return serve(services().sources.demo(name))
