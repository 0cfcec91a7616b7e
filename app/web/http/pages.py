"""HTML pages: the home page with the bundled demos, and the player."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Blueprint, render_template, request, url_for

from ...captures import FORMATS, format_named
from ...demos import catalog, find
from ...domain.dialects import DIALECTS
from ..context import services
from ..errors import NotFound, StreamscopeError
from ..sending import heavy
from .timeline import document_digest, stored_subject

pages = Blueprint("pages", __name__)
THEMES = ("light", "dark", "contrast")
THEME_COOKIE = "streamscope_theme"  # set by the page's theme switch (static/js/theme.js)


@pages.app_context_processor
def theme() -> dict[str, str | None]:
    """The theme every page is rendered in: ``?theme=`` for this view, else the one the theme
    switch remembered, else none (the OS setting)."""
    for value in (request.args.get("theme"), request.cookies.get(THEME_COOKIE)):
        if value in THEMES:
            return {"theme": value}
    return {"theme": None}


def _utc(timestamp: float) -> datetime:
    return datetime.fromtimestamp(float(timestamp), UTC)


@pages.app_template_filter("isotime")
def isotime(timestamp: float) -> str:
    """A Unix time as ISO 8601 (a <time datetime>)."""
    return _utc(timestamp).isoformat(timespec="seconds").replace("+00:00", "Z")


@pages.app_template_filter("humantime")
def humantime(timestamp: float) -> str:
    """A Unix time for people (the page shows it in local time where its script runs)."""
    return _utc(timestamp).strftime("%d %b %Y, %H:%M UTC")


@pages.get("/")
def home() -> str:
    """The demos, and the upload form, whose format and dialect lists come from the registries
    (a wrong guess of either can be fixed there)."""
    return render_template(
        "home.html",
        demos=list(catalog().values()),
        formats=FORMATS,
        dialects=DIALECTS,
        dialect_titles={d.name: d.title for d in DIALECTS},
    )


def _noun(name: str) -> str:
    found = format_named(name)
    return found.noun if found is not None else name


def _demo_page(name: str, embed: bool) -> str:
    found = find(name)
    if found is None:
        raise NotFound(f"no demo named {name!r}", code="no_demo")
    return render_template(
        "player.html",
        title=found.title,
        description=found.description,
        source_kind="demo",
        source_id=found.name,
        embed=embed,
    )


@pages.get("/demos/<name>")
def demo(name: str) -> str:
    return _demo_page(name, embed=False)


@pages.get("/embed/demos/<name>")
def embed_demo(name: str) -> str:
    """A demo in the compact player for an iframe (like a capture's ``/embed/<id>``)."""
    return _demo_page(name, embed=True)


def _stored(capture_id: str):
    record = services().store.get(capture_id)
    if record is None:
        raise NotFound("no such capture (deleted, expired, or never uploaded)", code="no_capture")
    return record


def _http_replay(capture_id: str) -> dict[str, str]:
    """Where the page fetches a finished capture's replay over HTTP (its timeline document at
    its immutable URL, and raw texts a page at a time: docs/protocol.md, "The timeline
    document"). Empty for a live recording still growing, which the page follows over the
    websocket, and for one that cannot be read here (the websocket then says why)."""
    try:
        version = document_digest(stored_subject(capture_id), services().settings)
    except StreamscopeError:
        return {}
    if version is None:
        return {}
    return {
        "timeline_url": url_for("documents.capture_timeline", capture_id=capture_id, v=version),
        "raw_url": url_for("raw_pages.capture_raw", capture_id=capture_id, v=version),
    }


def _capture_page(capture_id: str, embed: bool) -> str:
    record = _stored(capture_id)
    streams = f"{record.streams} stream{'s' if record.streams != 1 else ''}"
    return render_template(
        "player.html",
        title=record.title,
        description=f"{_noun(record.format)} ({streams}), replayed in Streamscope.",
        source_kind="capture",
        source_id=record.id,
        record=record,
        embed=embed,
        **_http_replay(record.id),
    )


@pages.get("/c/<capture_id>")
@heavy
def capture(capture_id: str) -> str:
    return _capture_page(capture_id, embed=False)


@pages.get("/embed/<capture_id>")
@heavy
def embed(capture_id: str) -> str:
    return _capture_page(capture_id, embed=True)
