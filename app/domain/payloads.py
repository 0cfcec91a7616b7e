"""Naming payloads that are not plain chunks (docs/assembly.md, rule 9)."""

from __future__ import annotations

from typing import Any

CHAT_CHUNK = "not a chat completion chunk"


def classify(value: dict[str, Any], not_ours: str = CHAT_CHUNK) -> tuple[str, str]:
    """Name a payload that is not a plain chunk (docs/assembly.md, rule 9); ``not_ours`` says
    what it is not, in the words of the dialect being read ("not a chat completion chunk")."""
    kind = value.get("object")
    if value.get("type") == "ping":
        return "ping", "keep-alive ping payload"
    if "prompt_filter_results" in value:
        return "prompt_filter_results", "Azure prompt filter results (no choices yet)"
    if kind == "chat.completion.done":
        return "completion_done", "Perplexity end-of-stream chunk (carries the finish reason)"
    if kind == "chat.completion":
        return "completion", "a whole (non-streaming) chat completion"
    if "moderation" in value:
        return "moderation", "moderation results"
    if isinstance(value.get("type"), str):
        return "foreign_event", f"an event of type {value['type']!r}, {not_ours}"
    if kind:
        return "unknown", f"an object of type {kind!r}, {not_ours}"
    return "unknown", f"a JSON object, {not_ours}"
