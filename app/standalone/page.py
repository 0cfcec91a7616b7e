"""The static export: one HTML file holding the player (its CSS and its JS, bundled) and a
capture's timeline document with its raw texts (docs/teaching.md, "Static export").

The file needs no network and allows none: its Content-Security-Policy meta tag allows the one
inline script and the one inline style by their SHA-256 hashes (never ``'unsafe-inline'``),
images from ``data:`` only, and nothing else. The timeline sits in a ``<script
type="application/json">``, which is never executed, with every ``<``, ``>`` and ``&`` written
as a JSON escape so that no capture text can end the element; the player reads it with
``JSON.parse`` and puts it on the page as text, as the served page does.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
from pathlib import Path
from typing import IO, Any

import jinja2
import orjson

from ..resources import web_dir
from .bundle import BundleError, bundle

ENTRY = "js/standalone.js"
JSON_ESCAPES = {b"<": b"\\u003c", b">": b"\\u003e", b"&": b"\\u0026"}


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@functools.lru_cache(maxsize=1)
def player_assets() -> tuple[str, str, str]:
    """The bundled script, the stylesheet and the icon (a data: URL), read once."""
    static = web_dir("static")
    script = bundle(static / ENTRY)
    for closing in ("</script", "<!--"):
        if closing in script.lower():
            raise BundleError(f"the player's script contains {closing!r}, which would end it early")
    css = (static / "css" / "app.css").read_text(encoding="utf-8")
    if "</style" in css.lower():
        raise BundleError("the stylesheet contains '</style'")
    icon = base64.b64encode((static / "favicon.svg").read_bytes()).decode()
    return script, css, f"data:image/svg+xml;base64,{icon}"


def player_size() -> int:
    """Bytes of the player itself (script, stylesheet, icon), for the export's size report."""
    return sum(len(part.encode()) for part in player_assets())


def inline_json(data: bytes) -> str:
    """JSON bytes safe between ``<script type="application/json">`` tags."""
    return escaped_json(data).decode()


def escaped_json(data: bytes) -> bytes:
    """``inline_json`` on bytes: each of ``<``, ``>`` and ``&`` is one byte in UTF-8, so a
    document may be escaped a piece at a time, cut anywhere."""
    for raw, escaped in JSON_ESCAPES.items():
        data = data.replace(raw, escaped)
    return data


def csp(script: str, css: str) -> str:
    return (
        f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(css)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


@functools.lru_cache(maxsize=1)
def _templates() -> jinja2.Environment:
    # The export's own page lives here, not among the served templates: it is the one page
    # with inline script (allowed by its hash), and it is never served as a page.
    here = str(Path(__file__).resolve().parent)
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [jinja2.FileSystemLoader(here), jinja2.FileSystemLoader(str(web_dir("templates")))]
        ),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )


# Where the data goes in the rendered page: its last element, so the last occurrence (a title
# could hold the same text, never after it).
_DATA = "\x00the-timeline\x00"
PIECE = 1 << 20


def write_export(
    out: Any, document: IO[bytes], markers: list[dict[str, Any]], *, title: str, description: str
) -> None:
    """The file, written to ``out`` a piece at a time: ``document`` (a timeline document with
    its raw texts, ``?raw=1``) is copied through, never held whole."""
    script, css, icon = player_assets()
    page = (
        _templates()
        .get_template("export.html")
        .render(
            title=title,
            description=description,
            source_kind="export",
            source_id="",
            embed=False,
            record=None,
            theme=None,
            csp=csp(script, css),
            css=css,
            script=script,
            icon=icon,
            data=_DATA,
        )
    )
    head, _, tail = page.rpartition(_DATA)
    out.write(head.encode() + b'{"timeline":')
    while piece := document.read(PIECE):
        out.write(escaped_json(piece))
    out.write(b',"markers":' + escaped_json(orjson.dumps(markers)) + b"}" + tail.encode())


def export_html(
    document: bytes, markers: list[dict[str, Any]], *, title: str, description: str
) -> bytes:
    """The file, in memory: ``document`` is a timeline document with its raw texts."""
    out = io.BytesIO()
    write_export(out, io.BytesIO(document), markers, title=title, description=description)
    return out.getvalue()
