"""The parts the dialects' views are made of (labels.py, ``view``): a result's lines, a note on
what a block holds by its size, a cited source and a citation, shown as the page shows them.
The shapes read here are the dialects' own (a source's title and URL fields, a citation's
quote and offsets), shared by several of them; tests/test_js_dialect_names.py reads this
module's names with the dialect packages', as names only the server may know."""

from __future__ import annotations

import json
from typing import Any

from .labels import View

MAX_TEXT = 2000  # characters of any one value shown in a result line
MAX_LINES = 40  # result lines of one result


def shown(value: Any) -> str:
    """A value as the page writes it (a string as it is, anything else as compact JSON),
    clipped to ``MAX_TEXT`` characters."""
    text = value if isinstance(value, str) else compact(value)
    return f"{text[:MAX_TEXT]}…" if len(text) > MAX_TEXT else text


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def line(label: Any, text: Any, url: Any = None) -> dict[str, Any]:
    """One line of a result: ``url`` is shown as a link only when it is http(s)."""
    return {
        "label": label if isinstance(label, str) else compact(label),
        "text": shown(text),
        "url": url if isinstance(url, str) else None,
    }


def byte_count(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def note(kind: str, words: str, data: str) -> dict[str, str]:
    """A note on what a block holds that the lanes do not show: its size, never its bytes."""
    return {"note": kind, "text": f"{words} ({byte_count(data):,} bytes)"}


def text_of(value: Any) -> str | None:
    """A title, URL or quote as shown: a string, or a number written out."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return compact(value)
    return None


def source(value: Any) -> dict[str, str | None] | None:
    """A cited source: its title (the first of the names a source has) and URL."""
    if not isinstance(value, dict):
        return None
    title = next(
        (
            t
            for k in ("title", "document_title", "filename", "source", "file_id", "id")
            if (t := text_of(value.get(k))) is not None
        ),
        None,
    )
    url = text_of(value.get("url"))
    if url is None:
        url = text_of(value.get("uri"))
    return None if title is None and url is None else {"title": title, "url": url}


def span(start: Any, end: Any) -> list[int] | None:
    """Offsets into the cited block's text, when they say a stretch of it."""
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end))
    return [start, end] if ints and end > start else None


def citation(
    kind: str,
    sources: list[dict[str, Any]],
    quote: str | None = None,
    text: str | None = None,
    at: list[int] | None = None,
    refs: list[Any] | None = None,
) -> View:
    """A citation as shown: ``sources`` [{title, url}], ``quote`` from the source, the answer
    text it is on (``span``: as sent, or ``at``: offsets into its block's text), and ``refs``,
    indices into the choice's numbered sources (an ``extra``'s view) instead of sources."""
    found: View = {"role": "citation", "kind": kind, "sources": sources, "quote": quote}
    found["span"] = text
    found["at"] = at
    if refs is not None:
        found["refs"] = refs
    return found


def plain_citation(value: Any) -> View:
    """A citation that names its one source in its own fields (a title and URL, a quote of
    it, offsets into the cited block's text)."""
    if not isinstance(value, dict):
        return citation("citation", [], text_of(value))
    one = source(value)
    at = span(value.get("start_index"), value.get("end_index"))
    if at is None:
        at = span(value.get("startIndex"), value.get("endIndex"))
    kind = text_of(value.get("type"))
    quote = text_of(value.get("cited_text"))
    return citation("citation" if kind is None else kind, [one] if one else [], quote, None, at)
