"""The final object of an Ollama stream (docs/dialects.md, "Ollama"): what the ollama client
holds at the end, folded from the timeline.

ollama-python yields each line as it comes; its user keeps the done line and joins the
fragments. So: the first line's ``model`` and ``created_at`` (the done line's ``created_at``
when it sent one), ``done``, ``done_reason``, the done line's counts and durations, and the
whole message: for ``/api/chat`` ``message`` with ``role``, all ``content``, all ``thinking``
(when any came) and every ``tool_calls`` entry in order (``function.name``,
``function.arguments`` as an object, and the ``id`` / ``function.index`` newer servers send,
which the client's model drops); for ``/api/generate`` ``response`` and ``thinking``. Any other
field (``context``, ...) as last sent, and the ``logprobs`` of every line joined.
"""

from __future__ import annotations

import contextlib
from typing import Any

import orjson

from ...events import (
    Done,
    Event,
    Extra,
    Finish,
    Logprobs,
    Meta,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)

COUNTS = (
    "total_duration",
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
)


def assemble(events: list[Event]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    texts: list[str] = []
    thinking: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    logprobs: list[Any] = []
    extras: dict[str, Any] = {}
    usage: dict[str, Any] = {}
    out: dict[str, Any] = {"done": False, "done_reason": None}
    for event in events:
        if isinstance(event, TextDelta):
            texts.append(event.text)
        elif isinstance(event, ReasoningDelta):
            thinking.append(event.text)
        elif isinstance(event, ToolCallStart):
            calls[event.call] = _call(event)
        elif isinstance(event, ToolCallEnd) and event.call in calls and event.arguments:
            with contextlib.suppress(orjson.JSONDecodeError):  # its tool_end says where
                calls[event.call]["function"]["arguments"] = orjson.loads(event.arguments)
        elif isinstance(event, Logprobs):
            logprobs += event.entry_list()
        elif isinstance(event, Meta):
            meta.update(event.fields)
        elif isinstance(event, Finish):
            out["done_reason"] = event.reason
        elif isinstance(event, Usage):
            usage = event.usage
        elif isinstance(event, Extra) and event.scope == "chunk":
            extras.update(event.fields)
        elif isinstance(event, Done):
            out["done"] = True
    message = meta.pop("message", None)
    final = {**meta, **out, **{k: usage[k] for k in COUNTS if k in usage}}
    if isinstance(message, dict):
        final["message"] = {**message, "content": "".join(texts)}
        holder = final["message"]
    else:
        final["response"] = "".join(texts)
        holder = final
    if thinking:
        holder["thinking"] = "".join(thinking)
    if calls:
        holder["tool_calls"] = [calls[number] for number in sorted(calls)]
    final.update(extras)
    if logprobs:
        final["logprobs"] = logprobs
    return final


def _call(event: ToolCallStart) -> dict[str, Any]:
    function: dict[str, Any] = {"name": event.name}
    if event.index is not None:
        function["index"] = event.index
    call: dict[str, Any] = {"function": function}
    if event.id is not None:
        call["id"] = event.id
    if event.type != "function":
        call["type"] = event.type
    return call
