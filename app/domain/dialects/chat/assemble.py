"""Folding a timeline into one ``chat.completion`` object, by the rules of docs/assembly.md.

The result has the shape of a non-streaming OpenAI response: choices placed by index (gaps and
any order allowed), each with ``message`` (role, content, refusal, tool_calls, and provider text
fields such as ``reasoning_content`` under their own names), ``logprobs`` and ``finish_reason``
(the last non-null one, or ``"none"`` when none came); top-level ``usage`` is the last non-null
usage. Provider extras are kept under their own names at the level they came from.

Logprob lists are lists of JSON fragments (``orjson.Fragment``, one per chunk, each holding
that chunk's entries): serialise the result with orjson, or call ``plain()`` for ordinary
Python values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ...events import (
    Event,
    Extra,
    Finish,
    Logprobs,
    Meta,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)

NO_FINISH = "none"


@dataclass
class _Call:
    id: str | None
    name: str | None
    type: str | None
    parts: list[str] = field(default_factory=list)


@dataclass
class _Choice:
    content: list[str] = field(default_factory=list)
    parts: list[dict[str, Any]] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    reasoning: dict[str, list[str]] = field(default_factory=dict)
    calls: dict[int, _Call] = field(default_factory=dict)
    logprobs: dict[str, list[bytes]] = field(default_factory=dict)
    finish: str | int | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    delta_extras: dict[str, Any] = field(default_factory=dict)


def assemble(events: list[Event]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    usage: dict[str, Any] | None = None
    fallback_usage: dict[str, Any] | None = None
    choices: dict[int, _Choice] = {}

    def at(index: int) -> _Choice:
        found = choices.get(index)
        if found is None:
            found = choices[index] = _Choice()
        return found

    for event in events:
        if isinstance(event, TextDelta):
            choice = choices.get(event.choice) or at(event.choice)
            choice.content.append(event.text)
            if event.part or choice.parts:
                _add_part(choice.parts, "text", event.text)
        elif isinstance(event, Logprobs):
            choice = choices.get(event.choice) or at(event.choice)
            kept = choice.logprobs.get(event.field)
            if kept is None:
                kept = choice.logprobs[event.field] = []
            kept.append(event.entries)
        elif isinstance(event, ReasoningDelta):
            choice = at(event.choice)
            choice.reasoning.setdefault(event.field, []).append(event.text)
            if event.part:
                _add_part(choice.parts, "thinking", event.text)
        elif isinstance(event, RefusalDelta):
            at(event.choice).refusal.append(event.text)
        elif isinstance(event, ToolCallArgs):
            at(event.choice).calls[event.call].parts.append(event.text)
        elif isinstance(event, ToolCallStart):
            calls = at(event.choice).calls
            if event.call in calls:
                calls[event.call].id = event.id
                calls[event.call].name = event.name
            else:
                calls[event.call] = _Call(event.id, event.name, event.type)
        elif isinstance(event, ToolCallEnd):
            call = at(event.choice).calls.get(event.call)
            if call is not None:
                call.id, call.name = event.id, event.name
        elif isinstance(event, Finish):
            at(event.choice).finish = event.reason
        elif isinstance(event, Usage):
            if event.source == "usage":
                usage = event.usage
            else:
                fallback_usage = event.usage
        elif isinstance(event, Meta):
            for key, value in event.fields.items():
                if key == "id":
                    meta.setdefault("id", value)
                else:
                    meta[key] = value
        elif isinstance(event, Extra):
            _merge_extra(event, extras, at)
    return _build(meta, extras, usage or fallback_usage, choices)


def _add_part(parts: list[dict[str, Any]], kind: str, text: str) -> None:
    last = parts[-1] if parts else None
    if kind == "text":
        if last is not None and last["type"] == "text":
            last["text"] += text
        else:
            parts.append({"type": "text", "text": text})
    elif last is not None and last["type"] == "thinking":
        last["thinking"][0]["text"] += text
    else:
        parts.append({"type": "thinking", "thinking": [{"type": "text", "text": text}]})


def _merge_extra(event: Extra, extras: dict[str, Any], at: Any) -> None:
    if event.scope == "chunk":
        target = extras
    elif event.scope == "choice":
        target = at(event.choice).extras
    else:
        _merge_delta_extra(at(event.choice).delta_extras, event.fields)
        return
    for key, value in event.fields.items():
        old = target.get(key)
        if value is None and old is not None:
            continue  # keep the last non-null value, as for finish_reason and usage
        if isinstance(old, dict) and isinstance(value, dict):
            target[key] = {**old, **value}
        else:
            target[key] = value


# Indexed delta lists whose items are text deltas: OpenRouter's reasoning_details mirror
# ``reasoning`` fragment by fragment. Other indexed lists (Groq's executed_tools) repeat whole
# values, so only these fields concatenate.
TEXT_ITEM_FIELDS: dict[str, tuple[str, ...]] = {"reasoning_details": ("text", "summary", "data")}


def _merge_delta_extra(target: dict[str, Any], fields: dict[str, Any]) -> None:
    """Unknown delta fields: lists extend (items with an ``index`` merge by it), the rest is
    replaced by the last value (``channel``, ``token_id`` are per-chunk labels, not text)."""
    for key, value in fields.items():
        old = target.get(key)
        if isinstance(value, list) and isinstance(old, list):
            target[key] = _merge_list(old, value, TEXT_ITEM_FIELDS.get(key, ()))
        elif value is not None or key not in target:
            target[key] = value


def _merge_item(old: dict[str, Any], new: dict[str, Any], text_keys: tuple[str, ...]) -> dict:
    merged = {**old, **new}
    for key in text_keys:
        if isinstance(old.get(key), str) and isinstance(new.get(key), str):
            merged[key] = old[key] + new[key]
        elif new.get(key) is None and old.get(key) is not None:
            merged[key] = old[key]
    return merged


def _index_of(item: Any) -> int | str | None:
    """An item's ``index``, when it is one that can be a key (not a list, not a bool)."""
    if isinstance(item, dict):
        index = item.get("index")
        if isinstance(index, (int, str)) and not isinstance(index, bool):
            return index
    return None


def _merge_list(old: list[Any], new: list[Any], text_keys: tuple[str, ...] = ()) -> list[Any]:
    merged = list(old)
    by_index = {key: pos for pos, item in enumerate(merged) if (key := _index_of(item)) is not None}
    for item in new:
        key = _index_of(item)
        pos = by_index.get(key) if key is not None else None
        if pos is None:
            if key is not None:
                by_index[key] = len(merged)
            merged.append(item)
        else:
            merged[pos] = _merge_item(merged[pos], item, text_keys)
    return merged


def _build(
    meta: dict[str, Any],
    extras: dict[str, Any],
    usage: dict[str, Any] | None,
    choices: dict[int, _Choice],
) -> dict[str, Any]:
    completion: dict[str, Any] = {
        "id": meta.get("id"),
        "object": "chat.completion",
        "created": meta.get("created"),
        "model": meta.get("model"),
        "system_fingerprint": meta.get("system_fingerprint"),
    }
    if "service_tier" in meta:
        completion["service_tier"] = meta["service_tier"]
    completion["choices"] = [_choice(i, choices[i]) for i in sorted(choices)]
    completion["usage"] = usage
    for key, value in extras.items():
        completion.setdefault(key, value)
    return completion


def _choice(index: int, acc: _Choice) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": acc.parts if acc.parts else ("".join(acc.content) if acc.content else None),
        "refusal": "".join(acc.refusal) if acc.refusal else None,
        "tool_calls": [_tool_call(c) for c in acc.calls.values()] or None,
    }
    for name, texts in acc.reasoning.items():
        if name != "thinking":
            message[name] = "".join(texts)
    for key, value in acc.delta_extras.items():
        message.setdefault(key, value)
    logprobs = None
    if acc.logprobs:
        logprobs = {
            "content": _join(acc.logprobs.get("content")),
            "refusal": _join(acc.logprobs.get("refusal")),
        }
    out: dict[str, Any] = {
        "index": index,
        "message": message,
        "logprobs": logprobs,
        "finish_reason": acc.finish or NO_FINISH,
    }
    for key, value in acc.extras.items():
        out.setdefault(key, value)
    return out


def _tool_call(call: _Call) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": call.type or "function",
        "function": {"name": call.name, "arguments": "".join(call.parts)},
    }


def _join(parts: list[bytes] | None) -> list[orjson.Fragment] | None:
    """The entries of every chunk as one JSON list, without parsing or copying them: each
    chunk's items (JSON text without brackets) becomes a fragment of the list."""
    if not parts:
        return None
    return [orjson.Fragment(part) for part in parts if part]


def plain(value: Any) -> Any:
    """The completion as ordinary Python values (fragments parsed)."""
    return orjson.loads(orjson.dumps(value))
