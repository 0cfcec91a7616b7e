"""One shape for every dialect: what ``inspect --json`` prints as ``normalized``
(docs/dialects.md, "Normalized").

``outputs`` has one entry per output (a chat or completions choice, a Gemini candidate; the
other dialects have one): ``text`` is all answer text in order, ``reasoning`` all
thinking/reasoning text, ``refusal`` the refusal text (a chat or Responses refusal, an Anthropic
refusal's reason) or None when it did not refuse, ``tool_calls`` each call's id, name and argument string as streamed
(for dialects that send argument objects, their JSON text), ``stop_reason`` as the dialect
spells it. ``usage`` holds the shared counters read from the dialect's own final usage;
``errors`` the errors reported inside the stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .dialects.base import Dialect
from .events import (
    BlockStart,
    BlockStop,
    Comment,
    Done,
    Event,
    Finish,
    Logprobs,
    Meta,
    Payload,
    ReasoningDelta,
    RefusalDelta,
    StreamError,
    TextDelta,
    ToolCallEnd,
    Usage,
)


def normalized(events: Sequence[Event], dialect: Dialect, completion: dict[str, Any]) -> dict:
    outputs: dict[int, dict[str, Any]] = {}
    texts: dict[int, list[str]] = {}
    reasoning: dict[int, list[str]] = {}
    refusals: dict[int, list[str]] = {}

    def at(index: int) -> dict[str, Any]:
        found = outputs.get(index)
        if found is None:
            found = outputs[index] = {"index": index, "tool_calls": [], "stop_reason": None}
            texts[index], reasoning[index] = [], []
        return found

    errors = []
    for event in events:
        if type(event) in _NOT_READ:  # usage with every chunk (Gemini), logprobs with most
            continue
        if isinstance(event, TextDelta):
            parts = texts.get(event.choice)
            if parts is None:
                at(event.choice)
                parts = texts[event.choice]
            parts.append(event.text)
        elif isinstance(event, ReasoningDelta):
            at(event.choice)
            reasoning[event.choice].append(event.text)
        elif isinstance(event, RefusalDelta):
            at(event.choice)
            refusals.setdefault(event.choice, []).append(event.text)
        elif isinstance(event, ToolCallEnd):
            at(event.choice)["tool_calls"].append(
                {
                    "id": event.id,
                    "name": event.name,
                    "arguments": event.arguments or dialect.no_arguments,
                }
            )
        elif isinstance(event, Finish):
            at(event.choice)["stop_reason"] = event.reason
        elif isinstance(event, StreamError):
            errors.append({"message": event.message, "code": event.code, "t": event.t})
    for index, output in outputs.items():
        output["text"] = "".join(texts[index])
        output["reasoning"] = "".join(reasoning[index])
        output["refusal"] = "".join(refusals[index]) if index in refusals else None
    usage = dialect.final_usage(completion)
    return {
        "outputs": [_ordered(outputs[i]) for i in sorted(outputs)],
        "usage": dialect.usage_counts(usage) if isinstance(usage, dict) else None,
        "errors": errors,
    }


# Kinds this fold does not read (exact types: a subclass still goes through the checks).
_NOT_READ = frozenset({Logprobs, Usage, Meta, BlockStart, BlockStop, Done, Comment, Payload})


def _ordered(output: dict[str, Any]) -> dict[str, Any]:
    keys = ("index", "text", "reasoning", "refusal", "tool_calls", "stop_reason")
    return {key: output[key] for key in keys}
