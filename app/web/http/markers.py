"""Markers through the REST API: ``POST/GET /api/captures/<id>/markers`` and
``DELETE /api/captures/<id>/markers/<marker>`` (docs/teaching.md, "Markers").

A marker is ``{"t": seconds}`` or ``{"event": seq, "stream": s}`` (a moment of the player's
time axis, as a link's ``t``, or one timeline event), a ``label`` and an optional ``note``.
Only the capture's owner (its delete token) adds or removes them; anyone with the link reads
them. Every field is checked here, with the field named in the error; the count per capture,
the texts and the request body are capped.
"""

from __future__ import annotations

import math
from typing import Any

import orjson
from flask import Blueprint, Response, jsonify, request

from ...captures import Capture
from ...captures.scrub import Redactions, sweep_str
from ...storage.markers import TooManyMarkers
from ..context import services
from ..errors import BadRequest, Forbidden, NotFound, PayloadTooLarge

markers = Blueprint("markers", __name__, url_prefix="/api")

MAX_LABEL = 80
MAX_NOTE = 1000
MAX_BODY = 16 * 1024
MAX_T = 10_000_000.0  # seconds: about 115 days, past any recording
FIELDS = frozenset({"t", "event", "stream", "label", "note"})


def _bad(message: str, field: str) -> BadRequest:
    return BadRequest(message, code="bad_marker", field=field)


def checked_marker(payload: Any, capture: Capture) -> dict[str, Any]:
    """The marker a request asks for, or a BadRequest naming the field that is wrong."""
    if not isinstance(payload, dict):
        raise _bad('send a JSON object {"t" or "event", "label", "note"}', "body")
    unknown = sorted(set(payload) - FIELDS)
    if unknown:
        raise _bad(
            f"unknown field {unknown[0]!r}; a marker has {', '.join(sorted(FIELDS))}", unknown[0]
        )
    label = payload.get("label")
    if not isinstance(label, str) or not label.strip():
        raise _bad("label: a non-empty string is required", "label")
    if len(label.strip()) > MAX_LABEL:
        raise _bad(f"label: at most {MAX_LABEL} characters ({len(label.strip())} sent)", "label")
    note = payload.get("note", "")
    if not isinstance(note, str):
        raise _bad("note: must be a string", "note")
    if len(note) > MAX_NOTE:
        raise _bad(f"note: at most {MAX_NOTE} characters ({len(note)} sent)", "note")
    swept = Redactions()  # a label or a note is shown to everyone: swept as the capture is
    fields: dict[str, Any] = {
        "label": sweep_str(label.strip(), swept),
        "note": sweep_str(note, swept),
    }
    has_t, has_event = "t" in payload, "event" in payload
    if has_t == has_event:
        raise _bad("give exactly one of t (seconds) or event (a timeline event's seq)", "t")
    if has_t:
        if "stream" in payload:
            raise _bad("stream goes with event, not with t", "stream")
        t = payload["t"]
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
            raise _bad("t: a number of seconds is required", "t")
        if not 0 <= t <= MAX_T:
            raise _bad(f"t: must be between 0 and {MAX_T:.0f} seconds", "t")
        fields["t"] = float(t)
        return fields
    stream, event = payload.get("stream", 0), payload["event"]
    if not _integer(stream) or not 0 <= stream < len(capture.streams):
        raise _bad(f"stream: an index from 0 to {len(capture.streams) - 1} is required", "stream")
    count = len(capture.streams[stream].events)
    if not _integer(event) or not 0 <= event < count:
        raise _bad(f"event: a seq from 0 to {count - 1} of stream {stream} is required", "event")
    fields.update(stream=stream, event=event)
    return fields


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_body() -> Any:
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise PayloadTooLarge(f"a marker is at most {MAX_BODY // 1024} KB of JSON")
    data = request.get_data(cache=False)
    if len(data) > MAX_BODY:
        raise PayloadTooLarge(f"a marker is at most {MAX_BODY // 1024} KB of JSON")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise _bad(f"the body is not JSON: {exc}", "body") from None


def _missing() -> NotFound:
    return NotFound("no such capture (deleted, expired, or never uploaded)", code="no_capture")


@markers.post("/captures/<capture_id>/markers")
def add(capture_id: str) -> tuple[Response, int]:
    store = services().store
    if store.get(capture_id) is None:
        raise _missing()
    fields = checked_marker(_json_body(), services().sources.stored(capture_id).capture)
    try:
        marker = store.add_marker(
            capture_id,
            request.headers.get("X-Delete-Token"),
            fields,
            services().settings.max_markers,
        )
    except PermissionError:
        raise Forbidden("wrong or missing X-Delete-Token", code="bad_token") from None
    except TooManyMarkers as exc:
        raise BadRequest(str(exc), code="too_many_markers") from None
    if marker is None:
        raise _missing()
    response = jsonify(marker)
    response.headers["Cache-Control"] = "no-store"
    return response, 201


@markers.get("/captures/<capture_id>/markers")
def listed(capture_id: str) -> Response:
    store = services().store
    if store.get(capture_id) is None:
        raise _missing()
    response = jsonify({"markers": store.markers(capture_id)})
    response.headers["Cache-Control"] = "no-cache"
    return response


@markers.delete("/captures/<capture_id>/markers/<marker_id>")
def remove(capture_id: str, marker_id: str) -> tuple[str, int]:
    try:
        removed = services().store.delete_marker(
            capture_id, request.headers.get("X-Delete-Token"), marker_id
        )
    except PermissionError:
        raise Forbidden("wrong or missing X-Delete-Token", code="bad_token") from None
    if not removed:
        raise NotFound("no such capture or marker", code="no_marker")
    return "", 204
