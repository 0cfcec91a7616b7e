"""What a client judge is held against (docs/judges.md): Streamscope's own reading of a stream in
the few fields every mainstream client gives back, and the comparison of a client's reading with
it, one field at a time.

A *reference* is ``{"text", "reasoning", "tool_calls", "finish", "usage"}`` of the first output
(choice 0, the only candidate or message): ``tool_calls`` as ``[{"id", "name", "arguments"}]``
with the arguments as streamed, ``finish`` as the dialect spells it, ``usage`` as
``{"prompt_tokens", "completion_tokens"}`` or None when the stream had none. A client's reading
has the same keys, but only those the client reports: a key it leaves out is not compared.
"""

from __future__ import annotations

import json
from typing import Any

from .stream import Stream

FIELDS = ("text", "reasoning", "tool_calls", "finish", "usage")
VERDICTS = ("ok", "differs", "crash", "not installed", "timeout")
MAX_SHOWN = 2000  # characters of a value a verdict shows (text, arguments): the rest is cut


def reference(normalized: dict[str, Any] | None) -> dict[str, Any]:
    """The reference of a stream from its ``normalized`` summary (normalize.py)."""
    normalized = normalized or {}
    outputs = normalized.get("outputs") or []
    first = next((o for o in outputs if o.get("index") == 0), outputs[0] if outputs else None)
    usage = normalized.get("usage")
    return {
        "text": first["text"] if first else "",
        "reasoning": first["reasoning"] if first else "",
        "tool_calls": [
            {"id": call["id"], "name": call["name"], "arguments": call["arguments"]}
            for call in (first["tool_calls"] if first else [])
        ],
        "finish": first["stop_reason"] if first else None,
        "usage": (
            {
                "prompt_tokens": usage.get("input_tokens"),
                "completion_tokens": usage.get("output_tokens"),
            }
            if isinstance(usage, dict)
            else None
        ),
    }


def difference(ours: dict[str, Any], theirs: dict[str, Any]) -> tuple[str, Any, Any] | None:
    """The first field (in ``FIELDS`` order) where a client's reading is not ours: the field's
    name and both values; None when every field the client reports agrees."""
    for name in FIELDS:
        if name not in theirs:
            continue
        mine, other = ours.get(name), theirs[name]
        if name == "tool_calls":
            found = _calls_difference(mine or [], other or [])
            if found is not None:
                return found
        elif name == "usage":
            if not _usage_agrees(mine, other):
                return name, mine, other
        elif name == "finish":
            if not _finish_agrees(mine, other, bool(ours.get("tool_calls"))):
                return name, mine, other
        elif (mine or "") != (other or ""):
            return (name, *_window(mine, other))
    return None


def _calls_difference(mine: list[dict], other: list[dict]) -> tuple[str, Any, Any] | None:
    if len(mine) != len(other):
        return "tool_calls", [_call_shown(c) for c in mine], [_call_shown(c) for c in other]
    for number, (a, b) in enumerate(zip(mine, other, strict=True)):
        if a.get("name") != b.get("name"):
            return f"tool_calls[{number}].name", a.get("name"), b.get("name")
        # A client makes up an id where the stream sent none (Gemini's calls have none).
        if a.get("id") is not None and a.get("id") != b.get("id"):
            return f"tool_calls[{number}].id", a.get("id"), b.get("id")
        if _arguments(a.get("arguments")) != _arguments(b.get("arguments")):
            return (
                f"tool_calls[{number}].arguments",
                _shown(a.get("arguments")),
                _shown(b.get("arguments")),
            )
    return None


def _arguments(value: Any) -> Any:
    """Arguments as a comparable value: parsed JSON where the text is JSON (a client that parses
    them gives an object), none at all (``""``, ``{}``, None) as one value."""
    if isinstance(value, str):
        if value.strip() == "":
            return {}
        try:
            return json.loads(value)
        except ValueError:
            return value
    return {} if value is None else value


def _usage_agrees(mine: Any, other: Any) -> bool:
    if not mine and not other:
        return True
    if not isinstance(mine, dict) or not isinstance(other, dict):
        return False
    return all(mine.get(key) == other.get(key) for key in ("prompt_tokens", "completion_tokens"))


# The Vercel AI SDK's own finish reasons (its ``finishReason``), which its judges report where
# the provider keeps no raw reason (a Responses stream that completed): each raw reason of the
# dialects read as the one it stands for.
UNIFIED_FINISH = {
    "stop": ("stop", "end_turn", "stop_sequence", "completed", "STOP", "eos"),
    "length": ("length", "max_tokens", "MAX_TOKENS", "max_output_tokens", "incomplete"),
    "content-filter": ("content_filter", "SAFETY", "RECITATION", "refusal", "PROHIBITED_CONTENT"),
    "tool-calls": ("function_call", "tool_calls", "tool_use"),
}


def _finish_agrees(mine: Any, other: Any, calls: bool) -> bool:
    """The same finish reason, or the SDK's name for ours (a stream that stopped with calls
    made finishes with ``tool-calls`` there)."""
    if _text(mine) == _text(other):
        return True
    if other not in UNIFIED_FINISH or mine is None:
        return False
    if other == "tool-calls" and calls and mine in UNIFIED_FINISH["stop"]:
        return True
    return mine in UNIFIED_FINISH[other]


def _text(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


def _shown(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_SHOWN:
        return value[:MAX_SHOWN] + "…"
    return value


def _window(mine: Any, other: Any) -> tuple[Any, Any]:
    """Two texts that differ, cut to ``MAX_SHOWN`` characters around where they first differ
    (``…`` marks a cut), so that a long text still shows its difference."""
    if not isinstance(mine, str) or not isinstance(other, str):
        return _shown(mine), _shown(other)
    if max(len(mine), len(other)) <= MAX_SHOWN:
        return mine, other
    at = next(
        (i for i, (a, b) in enumerate(zip(mine, other, strict=False)) if a != b),
        min(len(mine), len(other)),
    )
    start = max(0, at - MAX_SHOWN // 4)

    def cut(text: str) -> str:
        part = text[start : start + MAX_SHOWN]
        return ("…" if start else "") + part + ("…" if start + MAX_SHOWN < len(text) else "")

    return cut(mine), cut(other)


def _call_shown(call: dict) -> dict:
    return {
        "id": call.get("id"),
        "name": call.get("name"),
        "arguments": _shown(call.get("arguments")),
    }


def verdict(
    client: str,
    version: str | None,
    api: str,
    outcome: str,
    *,
    field: str | None = None,
    ours: Any = None,
    theirs: Any = None,
    error: str | None = None,
) -> dict[str, Any]:
    """One verdict as the contract has it (docs/judges.md, "Verdicts")."""
    return {
        "client": client,
        "version": version,
        "verdict": outcome,
        "field": field,
        "ours": ours,
        "theirs": theirs,
        "error": error,
        "api": api,
    }


def judged(
    client: str, version: str | None, api: str, ours: dict[str, Any], theirs: dict[str, Any]
) -> dict[str, Any]:
    """The verdict on a client that read the stream to its end: ``ok`` or ``differs``."""
    found = difference(ours, theirs)
    if found is None:
        return verdict(client, version, api, "ok")
    name, mine, other = found
    return verdict(client, version, api, "differs", field=name, ours=mine, theirs=other)


def first_line(text: str, limit: int = 500) -> str:
    """An exception's first line, cut at ``limit`` characters."""
    line = next((part for part in text.strip().splitlines() if part.strip()), "")
    return line[:limit]


def judged_bytes(stream: Stream) -> bytes | None:
    """The bytes a client would have read for this stream: its body from its first raw event to
    the end of its last (one stream of a file that holds several is sliced alone). None for a
    stream the judges cannot read: no events, or not server-sent events (the clients read only
    those: NDJSON, JSON arrays, binary frames and documentation blocks are not a server's
    answer as they would get it)."""
    if stream.container != "sse" or not stream.raw:
        return None
    return stream.source.slice(stream.raw[0].byte, stream.raw[-1].end)
