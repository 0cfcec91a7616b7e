"""HTML pages: the home page with the bundled demos, and the player."""

from __future__ import annotations

from flask import Blueprint, render_template

from ..demos import catalog, find
from .errors import NotFound

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
    )
