"""What the page shows of Anthropic Messages (labels.py): each content block's role, what a
``*_tool_result`` block found (paired with the call its ``tool_use_id`` names), redacted
thinking's size, compaction summaries, and citations with the text they quote."""

from __future__ import annotations

from typing import Any

from ...events import BlockDelta, BlockStart, Citation, Event, ToolCallStart
from ..labels import Labels, View
from ..viewparts import MAX_LINES, line, note, plain_citation

ROLES = {
    "text": "text",
    "thinking": "reasoning",
    "redacted_thinking": "reasoning",
    "tool_use": "tool_call",
    "server_tool_use": "server_call",
    "mcp_tool_use": "server_call",
    "compaction": "compaction",
}
SERVER_CALLS = frozenset(k for k, role in ROLES.items() if role == "server_call")

LABELS = Labels()


def view(event: Event) -> View | None:
    if isinstance(event, BlockStart):
        return _block(event.type, event.value)
    if isinstance(event, BlockDelta):
        return {"as": "text"} if event.field == "content" else None
    if isinstance(event, Citation):
        return plain_citation(event.value)
    if isinstance(event, ToolCallStart) and event.type in SERVER_CALLS:
        return {"role": "server_call"}
    return None


def _block(kind: str, value: Any) -> View | None:
    value = value if isinstance(value, dict) else {}
    if kind.endswith("_tool_result"):
        found: View = {"role": "tool_result"}
        if isinstance(value.get("tool_use_id"), str):
            found["result"] = {"for": {"id": value["tool_use_id"]}, "lines": result_lines(value)}
        return found
    if kind == "fallback":
        return _fallback(value)
    role = ROLES.get(kind)
    if role is None:
        return None
    found = {"role": role}
    if kind == "redacted_thinking" and isinstance(value.get("data"), str):
        found["notes"] = [note("redacted", "redacted thinking", value["data"])]
    if kind == "compaction":
        found["text"] = value["content"] if isinstance(value.get("content"), str) else ""
    return found


def _fallback(value: dict[str, Any]) -> View | None:
    """A ``fallback`` block: another model serves what follows it, said where it came (the
    final message's ``model`` becomes that one: docs/dialects.md)."""
    to, came = value.get("to"), value.get("from")
    model = to.get("model") if isinstance(to, dict) else None
    if not isinstance(model, str):
        return None
    was = came.get("model") if isinstance(came, dict) else None
    words = f"model switched to {model}" + (
        f" (a fallback from {was})" if isinstance(was, str) else ""
    )
    return {"role": "note", "notes": [{"note": "fallback", "text": words}]}


def result_lines(value: dict[str, Any]) -> list[dict[str, Any]]:
    """What a ``*_tool_result`` block found: its error, search results, text, or a code
    run's output, one line each."""
    lines = []
    if value.get("is_error") is True:
        lines.append(line("error", "is_error: true"))
    content = value.get("content")
    for item in content if isinstance(content, list) else [content]:
        if not isinstance(item, dict):
            if item is not None:
                lines.append(line("content", item))
            continue
        lines.extend(_item_lines(item))
    return lines[:MAX_LINES]


def _item_lines(item: dict[str, Any]) -> list[dict[str, Any]]:
    kind = item.get("type")
    kind = "" if kind is None else kind if isinstance(kind, str) else str(kind)
    if kind.endswith("_error") or "error_code" in item:
        code = item.get("error_code")
        return [line("error", kind if code is None else code)]
    if kind == "web_search_result" or (kind.endswith("_result") and "url" in item):
        title = item.get("title")
        return [
            line("result", title if title is not None else item.get("url") or "", item.get("url"))
        ]
    if kind == "text":
        return [line("text", item.get("text") if item.get("text") is not None else "")]
    if "stdout" in item or "stderr" in item or "return_code" in item:
        lines = []
        if item.get("stdout"):
            lines.append(line("stdout", item["stdout"]))
        if item.get("stderr"):
            lines.append(line("stderr", item["stderr"]))
        if "return_code" in item:
            lines.append(line("return code", _string(item["return_code"])))
        files = item.get("content")
        for file in files if isinstance(files, list) else []:
            got = file.get("file_id") if isinstance(file, dict) else None
            lines.append(line("file", got if got is not None else file))
        return lines
    return [line(kind or "content", item)]


def _string(value: Any) -> str:
    """``String(value)`` as the page wrote it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)
