"""What the page shows of OpenAI Responses (labels.py): each output item's role; the calls that
come as items of their own (a card each, with its progress and the code or input it streams),
what a server call's done item found, encrypted reasoning's size, and annotations."""

from __future__ import annotations

from typing import Any

from ...events import BlockDelta, BlockStart, BlockStop, Citation, Event, Payload, ToolCallStart
from ..labels import Labels, View
from ..viewparts import MAX_LINES, line, note, plain_citation

# Calls that come as an item of their own, without tool_start: the server's, then the client's.
SERVER_ITEMS = (
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_list_tools",
)
CLIENT_ITEMS = (
    "computer_call",
    "local_shell_call",
    "shell_call",
    "apply_patch_call",
    "custom_tool_call",
    "mcp_approval_request",
)
ITEMS = frozenset(SERVER_ITEMS + CLIENT_ITEMS)
ROLES = {
    "message": "text",
    "reasoning": "reasoning",
    "function_call": "tool_call",
    "mcp_call": "server_call",
    **dict.fromkeys(SERVER_ITEMS, "server_call"),
    **dict.fromkeys(CLIENT_ITEMS, "tool_call"),
    "shell_call_output": "tool_result",
    "apply_patch_call_output": "tool_result",
}
# What a client's call printed or did, by the call it answers (its call_id).
OUTPUT_ITEMS = frozenset({"shell_call_output", "apply_patch_call_output"})
SERVER_CALLS = frozenset(k for k, role in ROLES.items() if role == "server_call")
RESULT_ON_STOP = ITEMS | {"mcp_call"}  # their done item carries what the call found
# An item call's streamed code, input, shell commands or patch diff.
ARGS_FIELDS = frozenset({"code", "input", "commands", "diff"})

LABELS = Labels()


def view(event: Event) -> View | None:
    if isinstance(event, BlockStart):
        return _start(event.type, event.value)
    if isinstance(event, BlockStop):
        return _stop(event.value)
    if isinstance(event, BlockDelta):
        return {"as": "args"} if event.field in ARGS_FIELDS else None
    if isinstance(event, Citation):
        return plain_citation(event.value)
    if isinstance(event, Payload):
        return _progress(event)
    if isinstance(event, ToolCallStart) and event.type in SERVER_CALLS:
        return {"role": "server_call"}
    return None


def _start(kind: str, value: Any) -> View | None:
    role = ROLES.get(kind)
    found: View = {"role": role} if role else {}
    item = value if isinstance(value, dict) else {}
    if kind in ITEMS:
        found |= {"item": True, **_identity(kind, item)}
    if isinstance(item.get("status"), str):
        found["status"] = item["status"]
    encrypted = item.get("encrypted_content")
    if isinstance(encrypted, str) and encrypted:
        found["notes"] = [note("encrypted", "encrypted reasoning", encrypted)]
    return found or None


def _stop(value: Any) -> View | None:
    """The done item: its identity, status, encrypted reasoning, and what its call found
    (``type`` is the item's own)."""
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind in OUTPUT_ITEMS:
        return _output_result(value)
    found: View = _identity(kind if isinstance(kind, str) else None, value)
    if isinstance(value.get("status"), str):
        found["status"] = value["status"]
    encrypted = value.get("encrypted_content")
    if encrypted is not None:
        ok = isinstance(encrypted, str) and encrypted
        found["notes"] = [note("encrypted", "encrypted reasoning", encrypted)] if ok else []
    lines = result_lines(value) if kind in RESULT_ON_STOP else []
    if lines:
        found["result"] = {"for": "self", "lines": lines}
    return found


def _identity(kind: str | None, item: dict[str, Any]) -> View:
    """An item call's card: its name (the item's, else its type), id and any code it holds
    (a shell call's commands, one a line; an apply_patch call's operation and diff)."""
    name = item.get("name")
    ids = [v for v in (item.get("call_id"), item.get("id")) if isinstance(v, str)]
    code = item.get("code")
    return {
        "name": name if isinstance(name, str) else kind,
        "id": ids[0] if ids else None,
        "code": code if isinstance(code, str) else _code_of(item),
    }


def _code_of(item: dict[str, Any]) -> str | None:
    action, operation = item.get("action"), item.get("operation")
    commands = action.get("commands") if isinstance(action, dict) else None
    if isinstance(commands, list) and all(isinstance(c, str) for c in commands):
        return "\n".join(commands)
    if isinstance(operation, dict):
        head = " ".join(str(operation[k]) for k in ("type", "path") if operation.get(k))
        diff = operation.get("diff")
        return f"{head}\n{diff}" if isinstance(diff, str) and diff else head or None
    return None


def _output_result(item: dict[str, Any]) -> View:
    """A shell_call_output / apply_patch_call_output item: what the client's run printed
    (stdout, stderr, how it ended) or did, as the result of the call it names."""
    lines = []
    for output in _list(item.get("output")):
        if not isinstance(output, dict):
            lines.append(line("output", output))
            continue
        for key in ("stdout", "stderr"):
            if output.get(key):
                lines.append(line(key, output[key]))
        outcome = output.get("outcome")
        if isinstance(outcome, dict):
            code = outcome.get("exit_code")
            lines.append(
                line("outcome", f"exit {code}" if code is not None else outcome.get("type"))
            )
    if isinstance(item.get("output"), str):
        lines.append(line("output", item["output"]))
    found: View = {"result": {"for": {"id": item.get("call_id")}, "lines": lines[:MAX_LINES]}}
    if isinstance(item.get("status"), str):
        found["status"] = item["status"]
    return found


def _progress(event: Payload) -> View | None:
    """A server call's progress (``response.web_search_call.searching``): its item's status."""
    value = event.value
    if event.category != "server_tool" or not isinstance(value, dict):
        return None
    index, kind = value.get("output_index"), value.get("type")
    if isinstance(index, int) and not isinstance(index, bool) and isinstance(kind, str):
        return {"block": index, "status": kind.split(".")[-1]}
    return None


def result_lines(item: dict[str, Any]) -> list[dict[str, Any]]:
    """What a server call's done item says it found: queries, sources, results, outputs."""
    lines = []
    action = item.get("action")
    if isinstance(action, dict):
        if "query" in action:
            lines.append(line("query", action["query"]))
        for query in _list(action.get("queries")):
            lines.append(line("query", query))
        if isinstance(action.get("url"), str):
            label = action.get("type")
            lines.append(line("url" if label is None else label, action["url"], action["url"]))
        for found in _list(action.get("sources")):
            if isinstance(found, dict):
                text = _first(found, "url", "name", "type")
                lines.append(line("source", "" if text is None else text, found.get("url")))
    for query in _list(item.get("queries")):
        lines.append(line("query", query))
    for found in _list(item.get("results")):
        if isinstance(found, dict):
            text = ": ".join(str(v) for v in (found.get("filename"), found.get("text")) if v)
            lines.append(line("result", text or found))
    for output in _list(item.get("outputs")):
        if not isinstance(output, dict):
            continue
        if output.get("type") == "logs":
            logs = output.get("logs")
            lines.append(line("logs", "" if logs is None else logs))
        elif output.get("type") == "image":
            url = output.get("url")
            lines.append(line("image", "" if url is None else url, url))
        else:
            kind = output.get("type")
            lines.append(line("output" if kind is None else kind, output))
    if isinstance(item.get("result"), str):
        lines.append(line("result", f"{len(item['result']):,} characters (not shown)"))
    if item.get("output") is not None:
        lines.append(line("output", item["output"]))
    if item.get("error") is not None:
        lines.append(line("error", item["error"]))
    for tool in _list(item.get("tools")):
        name = tool.get("name") if isinstance(tool, dict) else None
        lines.append(line("tool", tool if name is None else name))
    return lines[:MAX_LINES]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _first(value: dict[str, Any], *keys: str) -> Any:
    return next((value[k] for k in keys if value.get(k) is not None), None)
