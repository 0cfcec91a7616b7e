"""What the page shows of a dialect, as data: the browser knows roles, not dialects
(docs/dialects.md, "Roles and labels"; docs/protocol.md, ``capture`` and ``events``).

A dialect's ``Labels`` say, once per stream, what one of its outputs is called, what its
metrics count, which meta fields name the model, which usage fields have the page's own short
names, and what the server's own timings mean. Its ``view`` says, per block event, what the
block is for (its **role**) and what the page shows of it, read from the dialect's own shapes
in Python, so that no file in ``static/js`` names a dialect (tests/test_js_dialect_names.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..events import Event

# What a block is for (docs/timeline.md, "Block views").
ROLES: tuple[str, ...] = (
    "text",  # answer text
    "reasoning",  # reasoning, shown, redacted or encrypted
    "tool_call",  # a call the client runs
    "server_call",  # a call the server runs itself
    "tool_result",  # what a call found
    "citation",  # a source the answer cites
    "note",  # something the lanes do not show (a signature, redacted bytes)
    "refusal",  # the model declines
    "compaction",  # a summary of the conversation so far
)
View = dict[str, Any]
ViewOf = Callable[[Event], View | None]


@dataclass(frozen=True)
class Unit:
    """What a dialect's metrics count, in words: one, many, and what comes after the last."""

    one: str
    many: str
    trailing: str


CHUNKS = Unit("chunk with choices", "chunks with choices", "a trailing usage chunk")
OUTPUT_EVENTS = Unit("event with output", "events with output", "a trailing usage or end event")


@dataclass(frozen=True)
class UsageRow:
    """A usage row under the page's own short name: ``key`` the row's name, ``path`` where
    its value is (dotted), ``help`` the usage field whose definition it takes."""

    key: str
    label: str
    path: str
    help: str


@dataclass(frozen=True)
class Labels:
    """``output``: what one output is called (``numbered``: with its index, "Choice 0").
    ``unit``: what the metrics count. ``model``: the meta fields that name the model, the
    first present wins. ``usage_rows``: the usage fields with the page's short names, used
    when the usage has the first row's field; the other fields keep their own names.
    ``server_metrics``: what each of the server's own timings (metrics.server) means."""

    output: str = "Answer"
    numbered: bool = False
    unit: Unit = OUTPUT_EVENTS
    model: tuple[str, ...] = ("model",)
    usage_rows: tuple[UsageRow, ...] = ()
    usage_when: tuple[str, ...] = ()
    server_metrics: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "numbered": self.numbered,
            "unit": {"one": self.unit.one, "many": self.unit.many, "trailing": self.unit.trailing},
            "model": list(self.model),
            "usage_rows": [
                {"key": r.key, "label": r.label, "path": r.path, "help": r.help}
                for r in self.usage_rows
            ],
            "usage_when": list(self.usage_when),
            "server_metrics": dict(self.server_metrics),
        }


def no_view(event: Event) -> View | None:
    """A dialect without blocks: no event needs a view."""
    return None


# ------------------------------------------------------------------ helpers for the views
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
