"""Where templates, static files and demos are: inside the installed package, or beside it in
a source checkout (``templates/`` and ``static/`` at the top level)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent  # the app package


def web_dir(name: str) -> Path:
    installed = PACKAGE / "_web" / name
    if installed.is_dir():
        return installed
    return PACKAGE.parent / name
