"""The player's download button: ``GET /api/captures/<id>/player.html`` and
``GET /api/demos/<name>/player.html``, the static export of docs/teaching.md. It is built once
per capture version and set of markers from the capture's timeline document with its raw
texts, written a piece at a time into the results (results.py: on disk when large) and sent
from there, with a strong ETag (docs/security.md, "Heavy GETs")."""

from __future__ import annotations

import hashlib
from typing import IO, Any

import orjson
from flask import Blueprint, Response, request

from ...services.results import Out
from ...standalone.export import write_loaded_export
from ..context import services
from ..sending import heavy, matches, send
from .timeline import Subject, demo_subject, stored_subject, timeline_document

exported = Blueprint("exported", __name__, url_prefix="/api")


def _export(subject: Subject, markers: list[dict[str, Any]], name: str) -> Response:
    settings = services().settings
    document = timeline_document(subject, settings, raw=True)
    marked = hashlib.sha256(orjson.dumps(markers)).hexdigest()

    def build(out: Out) -> None:
        with document.body(services().results, None)[0] as source:
            write_loaded_export(subject.load(), source, markers, out)

    body: IO[bytes] | None
    if document.kept is None:  # a recording still growing: built for this request only
        body, digest, size = services().results.transient(build)
        document.close()
    else:
        version = f"{document.digest}|{marked}"
        result = services().results.get(subject.owner, "export", version, build)
        digest, size = result.digest, result.size
        body = (
            None if matches(request.headers.get("If-None-Match"), f'"{digest}"') else result.open()
        )
    response = send(body, size, f'"{digest}"', "no-cache", "text/html")
    if body is not None:
        response.headers["Content-Disposition"] = f'attachment; filename="streamscope-{name}.html"'
    return response


@exported.get("/captures/<capture_id>/player.html")
@heavy
def capture_player(capture_id: str) -> Response:
    return _export(stored_subject(capture_id), services().store.markers(capture_id), capture_id)


@exported.get("/demos/<name>/player.html")
@heavy
def demo_player(name: str) -> Response:
    return _export(demo_subject(name), [], name)
