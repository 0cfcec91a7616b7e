"""HTML pages: the home page with the bundled demos, and the player."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, request

from ..demos import catalog, find
from .errors import NotFound

FORMAT_NAMES = {
    "sse": "A raw SSE capture",
    "docs": "A documentation-form capture",
    "jsonl": "JSON Lines of chunks",
    "json": "A JSON array of chunks",
    "har": "A HAR capture from DevTools",
    "curl": "curl output",
    "timed": "A timed capture",
}

pages = Blueprint("pages", __name__)


@pages.get("/")
def home() -> str:
    return render_template("home.html", demos=list(catalog().values()))


@pages.get("/demos/<name>")
def demo(name: str) -> str:
    found = find(name)
    if found is None:
        raise NotFound(f"no demo named {name!r}", code="no_demo")
    return render_template(
        "player.html",
        title=found.title,
        description=found.description,
        source_kind="demo",
        source_id=found.name,
        embed=False,
        theme=request.args.get("theme") if request.args.get("theme") in ("light", "dark") else None,
    )


def _stored(capture_id: str):
    record = current_app.extensions["streamscope.store"].get(capture_id)
    if record is None:
        raise NotFound("no such capture (deleted, expired, or never uploaded)", code="no_capture")
    return record


def _capture_page(capture_id: str, embed: bool) -> str:
    record = _stored(capture_id)
    streams = f"{record.streams} stream{'s' if record.streams != 1 else ''}"
    return render_template(
        "player.html",
        title=record.title,
        description=f"{FORMAT_NAMES.get(record.format, record.format)} ({streams}), replayed in Streamscope.",
        source_kind="capture",
        source_id=record.id,
        record=record,
        embed=embed,
        theme=request.args.get("theme") if request.args.get("theme") in ("light", "dark") else None,
    )


@pages.get("/c/<capture_id>")
def capture(capture_id: str) -> str:
    return _capture_page(capture_id, embed=False)


@pages.get("/embed/<capture_id>")
def embed(capture_id: str) -> str:
    return _capture_page(capture_id, embed=True)
