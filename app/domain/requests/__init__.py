"""A stream's request, read into one view for every dialect (docs/timeline.md, "The
request"): one reader per dialect, registered here by the dialect's name.

``request_view(stream)`` reads what the capture kept of the request (``Stream.request``: a
recording's body as sent, a HAR entry's summary with its posted body) with the reader of the
stream's dialect, or, when the stream's dialect is not known or has no reader, of the dialect
the body's shape names. No request known gives None; a body that cannot be read gives a view
that says why (``note``), never an error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..stream import Stream
from . import anthropic, bedrock, chat, cohere, completions, gemini, ollama, responses
from .model import Draft, RequestView

Reader = Callable[[dict[str, Any], str | None], Draft]

READERS: dict[str, Reader] = {
    "chat-completions": chat.read,
    "anthropic-messages": anthropic.read,
    "openai-responses": responses.read,
    "gemini": gemini.read,
    "ollama": ollama.read,
    "completions": completions.read,
    "cohere": cohere.read,
    "bedrock-converse": bedrock.read,
}
NOT_AN_OBJECT = "the request body is not a JSON object"
# A recording's request holds the body as sent: one with none of these is not a request body.
BODY_KEYS = frozenset({"messages", "input", "prompt", "contents", "model"})
NOT_A_BODY = "none of a request body's fields (model, messages, input, prompt, contents)"


def request_view(stream: Stream) -> RequestView | None:
    """The stream's request as the page shows it; None when the capture has none."""
    request, line = stream.request, stream.request_line
    if line is not None and line.source in ("har", "curl"):
        return _har_view(request, line.method, line.url, stream.dialect_name, line.source)
    if not request:  # none kept (an export, a capture converted to the timed format)
        return None
    method = line.method if line is not None else None
    url = line.url if line is not None else None
    view = read_request(request, stream.dialect_name, method=method, url=url)
    if view.note is None and not BODY_KEYS & request.keys():
        return replace(view, note=NOT_A_BODY)
    return view


def read_request(
    body: Any,
    dialect: str | None,
    *,
    method: str | None = None,
    url: str | None = None,
    source: str = "recording",
) -> RequestView:
    """A request body read by the reader of ``dialect`` (or of the dialect its shape names)."""
    if not isinstance(body, dict):
        return RequestView(method, url, source, dialect, note=NOT_AN_OBJECT)
    if body.keys() == {"body"} and isinstance(body["body"], str):
        # A proxied call whose body was not JSON: what it was, never its bytes (docs/proxy.md).
        return RequestView(method, url, source, dialect, note=body["body"])
    name = dialect if dialect in READERS else guess(body, url)
    if name is None:
        return RequestView(method, url, source, dialect, note="no reader knows this body's shape")
    draft = READERS[name](body, url)
    return RequestView(
        method,
        url,
        source,
        name,
        params=tuple(draft.params),
        tools=tuple(draft.tools),
        messages=tuple(draft.messages),
        note="; ".join(draft.notes) or None,
    )


def guess(body: dict[str, Any], url: str | None) -> str | None:
    """The dialect a body's own fields name, when the stream's dialect is not known."""
    path = url or ""
    if "contents" in body or ":streamGenerateContent" in path or "generateContent" in path:
        return "gemini"
    if "/converse" in path or "inferenceConfig" in body or "toolConfig" in body:
        return "bedrock-converse"
    if "/api/chat" in path or "/api/generate" in path:
        return "ollama"
    if "input" in body or "instructions" in body:
        return "openai-responses"
    if "system" in body and "messages" in body and isinstance(body.get("max_tokens"), int):
        return "anthropic-messages"
    if "messages" in body:
        return "chat-completions"
    if "prompt" in body:
        return "completions"
    return None


def _har_view(
    summary: dict[str, Any] | None,
    method: str | None,
    url: str | None,
    dialect: str | None,
    source: str = "har",
) -> RequestView:
    """A HAR entry's or curl output's request: its posted body when it was JSON; else what
    is known of it and why not the body (``note``)."""
    kept = summary or {}
    if "body" in kept:
        return read_request(kept["body"], dialect, method=method, url=url, source=source)
    note = kept.get("note") if isinstance(kept.get("note"), str) else None
    return RequestView(method, url, source, dialect, note=note or "the entry posted no JSON body")
