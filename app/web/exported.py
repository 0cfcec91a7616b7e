"""The player's download button: ``GET /api/captures/<id>/player.html`` and
``GET /api/demos/<name>/player.html``, the static export of docs/teaching.md built from the
capture's cached timeline document (timeline.py), with the capture's markers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response

from .services import services

if TYPE_CHECKING:
    from ..settings import Settings
    from ..standalone.export import Exported
    from .sources import Loaded


def _export() -> Callable[[Loaded, Settings, list[dict[str, Any]], int], Exported]:
    # Imported when used: app.standalone reads the web package's sources and timeline modules,
    # and importing it while this package initialises would be circular.
    from ..standalone.export import export_loaded

    return export_loaded


exported = Blueprint("exported", __name__, url_prefix="/api")


def _attachment(result: Exported, name: str) -> Response:
    response = Response(result.html, mimetype="text/html")
    response.headers["Content-Disposition"] = f'attachment; filename="streamscope-{name}.html"'
    response.headers["Cache-Control"] = "no-cache"
    return response


@exported.get("/captures/<capture_id>/player.html")
def capture_player(capture_id: str) -> Response:
    found = services()
    loaded = found.sources.stored(capture_id)
    record = found.store.get(capture_id)
    size = record.size if record is not None else 0
    result = _export()(loaded, found.settings, found.store.markers(capture_id), size)
    return _attachment(result, capture_id)


@exported.get("/demos/<name>/player.html")
def demo_player(name: str) -> Response:
    found = services()
    result = _export()(found.sources.demo(name), found.settings, [], 0)
    return _attachment(result, name)
