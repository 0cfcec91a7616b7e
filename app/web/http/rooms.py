"""Presenter rooms on the web (docs/teaching.md): ``POST /api/rooms`` makes one,
``GET /api/rooms/<room>`` says what it shows and where its presenter is, ``/r/<room>`` is its
page. The presenter's link is the viewer link with the key in its fragment (``#key=...``):
browsers never send a fragment to a server or in a Referer, so the key reaches no log.
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template, request, url_for

from ...demos import catalog
from ...demos import find as find_demo
from ...rooms.service import RoomRefused, RoomService
from ...storage.rooms import RoomRecord
from ..context import services
from ..errors import BadRequest, NotFound, RateLimited, StreamscopeError
from ..logs import client_address

rooms = Blueprint("rooms", __name__)


class Conflict(StreamscopeError):
    status, code = 409, "conflict"


REFUSALS: dict[str, type[StreamscopeError]] = {
    "not_found": NotFound,
    "conflict": Conflict,
    "limit": RateLimited,
}


def _service() -> RoomService:
    return services().rooms


def _room(room_id: str) -> RoomRecord:
    record = _service().get(room_id)
    if record is None:
        raise NotFound(
            "no such room (it was idle for a day, or its capture was deleted)", code="no_room"
        )
    return record


@rooms.app_context_processor
def compare_choices() -> dict[str, list[str]]:
    """The demos the "Compare with…" field offers on every player page."""
    return {"compare_demos": list(catalog())}


@rooms.post("/api/rooms")
def create() -> tuple[Response, int]:
    payload = request.get_json(silent=True)
    capture = payload.get("capture") if isinstance(payload, dict) else None
    if not isinstance(capture, str) or not capture.strip():
        raise BadRequest(
            'send JSON {"capture": "<capture id>"} or {"capture": "demos/<name>"}',
            code="bad_request",
        )
    try:
        created = _service().create(capture.strip(), client_address())
    except RoomRefused as exc:
        raise REFUSALS[exc.kind](exc.message, code=exc.code) from None
    viewer = url_for("rooms.page", room_id=created.record.id, _external=True)
    response = jsonify(
        {
            "room": created.record.id,
            "viewer_url": viewer,
            "presenter_url": f"{viewer}#key={created.key}",
        }
    )
    response.headers["Cache-Control"] = "no-store"
    return response, 201


@rooms.get("/api/rooms/<room_id>")
def metadata(room_id: str) -> Response:
    record = _room(room_id)
    mirror = _service().latest(record)
    return jsonify(
        {
            "room": record.id,
            "capture": record.source,
            "viewer_url": url_for("rooms.page", room_id=record.id, _external=True),
            "created": record.created,
            "expires": record.expires(),
            "seq": mirror.seq if mirror else 0,
            "action": mirror.action if mirror else None,
            "state": _service().now_state(mirror) if mirror else None,
            "in_room": services().admission.in_room(record.id),
        }
    )


@rooms.get("/r/<room_id>")
def page(room_id: str) -> str:
    record = _room(room_id)
    if record.demo is not None:
        demo = find_demo(record.demo)
        title = demo.title if demo else record.demo
    else:
        capture = services().store.get(record.source)
        if capture is None:
            raise NotFound("no such room (its capture was deleted)", code="no_room")
        title = capture.title
    return render_template(
        "room.html",
        title=title,
        description="A presenter room: this page follows the presenter's player.",
        source_kind="room",
        source_id=record.id,
        room_source=record.source,
        embed=False,
    )
