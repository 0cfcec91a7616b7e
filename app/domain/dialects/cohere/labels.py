"""What the page shows of Cohere v2 chat (labels.py): its content blocks' roles, and citations
that name the documents or tool outputs they come from, with a document's snippet as the
quote."""

from __future__ import annotations

from typing import Any

from ...events import BlockStart, Citation, Event
from ..labels import Labels, View
from ..viewparts import citation, plain_citation, source, span, text_of

ROLES = {"text": "text", "thinking": "reasoning"}

LABELS = Labels()


def view(event: Event) -> View | None:
    if isinstance(event, BlockStart):
        role = ROLES.get(event.type)
        return {"role": role} if role else None
    if isinstance(event, Citation):
        return _citation(event.value)
    return None


def _citation(value: Any) -> View:
    if not isinstance(value, dict) or not isinstance(value.get("sources"), list):
        return plain_citation(value)
    named = [s for s in value["sources"] if isinstance(s, dict)]
    sources = [_source(s) for s in named]
    snippets = [s["document"].get("snippet") for s in named if isinstance(s.get("document"), dict)]
    quote = next((q for q in snippets if isinstance(q, str) and q), None)
    kind = text_of(value.get("type"))
    at = span(value.get("start"), value.get("end"))
    return citation(
        "citation" if kind is None else kind, sources, quote, text_of(value.get("text")), at
    )


def _source(named: dict[str, Any]) -> dict[str, Any]:
    """A document, a tool output, or the source itself; else its type."""
    for found in (source(named.get("document")), source(named.get("tool_output")), source(named)):
        if found is not None:
            return found
    kind = text_of(named.get("type"))
    return {"title": "source" if kind is None else kind, "url": None}
