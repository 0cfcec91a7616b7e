"""The REST API for captures (README: "REST API"). Errors use one JSON shape (errors.py)."""

from __future__ import annotations

from typing import IO

from flask import Blueprint, Response, jsonify, request, url_for

from ...captures.scrub import Redactions, sweep_str
from ...domain.summary import diagnostic_json
from ...services.exports import EXPORTS, export, suffix_of
from ...services.findings import capture_findings
from ...services.results import Out
from ...services.uploads import Importer, summaries_of
from ...settings import Settings
from ..context import services
from ..errors import BadRequest, Forbidden, NotFound
from ..sending import heavy, matches, send
from .timeline import document_digest, stored_subject, timeline_url

api = Blueprint("api", __name__, url_prefix="/api")


def _store():
    return services().store


def _settings() -> Settings:
    return services().settings


def _record(capture_id: str):
    record = _store().get(capture_id)
    if record is None:
        raise NotFound("no such capture (deleted, expired, or never uploaded)", code="no_capture")
    return record


def _upload_bytes() -> tuple[bytes, str | None]:
    if (
        request.mimetype == "multipart/form-data"
        or request.mimetype == "application/x-www-form-urlencoded"
    ):
        upload = request.files.get("file")
        if upload is not None and upload.filename:
            return upload.read(), upload.filename
        text = request.form.get("text")
        if text:
            return text.encode(), None
        raise BadRequest(
            "send a file in the multipart field 'file', or text in 'text'", code="no_file"
        )
    data = request.get_data(cache=False)
    if not data:
        raise BadRequest("the request body is empty", code="no_file")
    return data, request.headers.get("X-Filename")


@api.post("/captures")
def upload() -> tuple[Response, int]:
    importer: Importer = services().importer
    arg = lambda key: request.form.get(key) or request.args.get(key)  # noqa: E731
    with importer.slot():  # the body is all here already (bodies.py)
        data, name = _upload_bytes()
        imported = importer.run(
            data,
            title=arg("title"),
            expires=arg("expires"),
            fmt=arg("format"),
            name=name,
            dialect=arg("dialect"),
        )
    record, capture = imported.record, imported.capture
    loaded = services().sources.stored(record.id)  # cached as it was read: no parse
    # Its document, built now and its digest kept with it: opening its page builds nothing.
    document_digest(stored_subject(record.id), _settings())
    body = {
        "id": record.id,
        "url": url_for("pages.capture", capture_id=record.id, _external=True),
        "delete_token": imported.token,
        "title": record.title,
        "format": record.format,
        "compression": record.compression,
        "expires": record.expires,
        "streams": summaries_of(loaded, _settings().stall_ms),
        "redacted": record.redacted,
        "diagnostics": [diagnostic_json(d) for d in capture.all_diagnostics],
    }
    response = jsonify(body)
    response.headers["Cache-Control"] = "no-store"
    return response, 201


@api.get("/captures/<capture_id>")
@heavy
def metadata(capture_id: str) -> Response:
    record = _record(capture_id)
    loaded = services().sources.stored(capture_id)
    body = record.public()
    body["url"] = url_for("pages.capture", capture_id=record.id, _external=True)
    body["stream_count"] = body.pop("streams")
    body["streams"] = summaries_of(loaded, _settings().stall_ms)
    body["downloads"] = {
        kind: url_for("api.download", capture_id=record.id, kind=kind, _external=True)
        for kind in EXPORTS
    }
    body["timeline_url"] = timeline_url(record.id)
    return jsonify(body)


@api.get("/captures/<capture_id>/findings")
@heavy
def findings(capture_id: str) -> Response:
    """Each stream's findings (the rule catalogue, /rules) with their counts by severity."""
    _record(capture_id)
    loaded = services().sources.stored(capture_id)
    return jsonify({"streams": capture_findings(loaded, _settings().stall_ms)})


@api.get("/captures/<capture_id>/raw")
@heavy
def raw(capture_id: str) -> Response:
    return download(capture_id, "original")


@api.get("/captures/<capture_id>/download/<kind>")
@heavy
def download(capture_id: str, kind: str) -> Response:
    """A download, built once per stored version (results.py) and sent with its ETag."""
    record = _record(capture_id)
    if kind not in EXPORTS:
        raise NotFound(f"no download {kind!r}; available: {', '.join(EXPORTS)}", code="no_download")
    subject = stored_subject(capture_id)

    def build(out: Out) -> None:
        capture = subject.load().capture
        out.write(export(kind, _store().read_bytes(capture_id), capture, record)[0])

    body: IO[bytes] | None
    if subject.growing() is not None:
        body, digest, size = services().results.transient(build)
    else:
        version = f"{subject.version}|{record.format}"
        result = services().results.get(subject.owner, f"download-{kind}", version, build)
        digest, size = result.digest, result.size
        body = (
            None if matches(request.headers.get("If-None-Match"), f'"{digest}"') else result.open()
        )
    response = send(body, size, f'"{digest}"', "no-cache", "text/plain")
    if body is not None:
        response.headers["Content-Disposition"] = (
            f'attachment; filename="streamscope-{record.id}{suffix_of(kind, record)}"'
        )
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@api.patch("/captures/<capture_id>")
def update(capture_id: str) -> Response:
    payload = request.get_json(silent=True) or {}
    title = payload.get("title")
    if not isinstance(title, str) or not title.strip():
        raise BadRequest('send JSON {"title": "..."}', code="bad_title")
    try:
        record = _store().update(
            capture_id,
            request.headers.get("X-Delete-Token"),
            title=sweep_str(title.strip()[:200], Redactions()),
        )
    except PermissionError:
        raise Forbidden("wrong or missing X-Delete-Token", code="bad_token") from None
    if record is None:
        raise NotFound("no such capture", code="no_capture")
    services().sources.cache.drop(f"capture:{capture_id}")
    return jsonify(record.public())


@api.delete("/captures/<capture_id>")
def delete(capture_id: str) -> tuple[str, int]:
    try:
        deleted = _store().delete(capture_id, request.headers.get("X-Delete-Token"))
    except PermissionError:
        raise Forbidden("wrong or missing X-Delete-Token", code="bad_token") from None
    if not deleted:
        raise NotFound("no such capture", code="no_capture")
    services().sources.cache.drop(f"capture:{capture_id}")
    services().results.drop(f"capture-{capture_id}")  # its documents, export and downloads
    services().live.deleted(capture_id)  # a live run of another process stops (docs/live.md)
    return "", 204
