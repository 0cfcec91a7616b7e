"""The aggregated ``GenerateContentResponse`` of a Gemini stream (docs/dialects.md, "Gemini").

google-genai has no accumulator (it yields chunk by chunk), so the rule is ours: per
candidate, the parts in order, a block of text (or of thought text) joined into one part, a
function call one part with its whole ``args`` (Vertex's streamed fragments folded in), a part
that came whole kept as sent, each ``thoughtSignature`` on the part that carried it; the last
``finishReason`` and the last value of every other candidate field (``safetyRatings``,
``groundingMetadata``, ``citationMetadata``, ``finishMessage``, ...); at the top the last
``usageMetadata``, ``promptFeedback``, ``modelVersion``, ``responseId``, and any other field as
last sent. Folded from the timeline, never from the payloads.
"""

from __future__ import annotations

import contextlib
from typing import Any

import orjson

from ...events import (
    BlockStart,
    Event,
    Extra,
    Finish,
    Meta,
    ReasoningDelta,
    Signature,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from ..appends import Appends


class _Candidate:
    def __init__(self, index: int) -> None:
        self.index = index
        self.parts: list[dict[str, Any]] = []
        self.calls: dict[int, dict[str, Any]] = {}  # call number -> its functionCall
        self.fields: dict[str, Any] = {}
        self.appends = Appends()  # the parts' text, joined in to_json (appends.py)

    def text(self, text: str) -> None:
        if not self.parts or "text" not in self.parts[-1]:
            self.parts.append({"text": ""})
        self.appends.add(self.parts[-1], "text", text)  # the block's part (BlockStart opened it)

    def to_json(self) -> dict[str, Any]:
        self.appends.close()
        out: dict[str, Any] = {"content": {"parts": self.parts, "role": "model"}}
        if "finishReason" in self.fields:
            out["finishReason"] = self.fields.pop("finishReason")
        out["index"] = self.index
        out.update(self.fields)
        return out


def assemble(events: list[Event]) -> dict[str, Any]:
    candidates: dict[int, _Candidate] = {}
    top: dict[str, Any] = {}
    meta: dict[str, Any] = {}

    def at(index: int) -> _Candidate:
        found = candidates.get(index)
        if found is None:
            found = candidates[index] = _Candidate(index)
        return found

    for event in events:
        if type(event) is Usage:  # with every chunk: first (a subclass reaches the last test)
            top["usageMetadata"] = event.usage
        elif isinstance(event, TextDelta | ReasoningDelta):
            at(event.choice).text(event.text)
        elif isinstance(event, BlockStart):
            _open(at(event.choice), event)
        elif isinstance(event, ToolCallStart):
            _call(at(event.choice), event)
        elif isinstance(event, ToolCallEnd):
            _args(at(event.choice), event)
        elif isinstance(event, Signature):
            target = at(event.choice)
            if not target.parts:
                target.parts.append({})
            target.parts[-1]["thoughtSignature"] = event.signature
        elif isinstance(event, Finish):
            at(event.choice).fields["finishReason"] = event.reason
        elif isinstance(event, Extra):
            if event.scope == "choice" and event.choice is not None:
                at(event.choice).fields.update(event.fields)
            elif event.scope == "chunk":
                top.update(event.fields)
        elif isinstance(event, Usage):
            top["usageMetadata"] = event.usage
        elif isinstance(event, Meta):
            meta.update(event.fields)
    response: dict[str, Any] = {"candidates": [candidates[i].to_json() for i in sorted(candidates)]}
    if "promptFeedback" in top:
        response["promptFeedback"] = top.pop("promptFeedback")
    response["usageMetadata"] = top.pop("usageMetadata", None)
    response.update(meta)
    response.update(top)
    return response


def _open(candidate: _Candidate, event: BlockStart) -> None:
    if event.type == "text":
        candidate.parts.append({"text": ""})
    elif event.type == "thought":
        candidate.parts.append({"text": "", "thought": True})
    elif isinstance(event.value, dict):
        candidate.parts.append(dict(event.value))  # a part that came whole


def _call(candidate: _Candidate, event: ToolCallStart) -> None:
    call = candidate.calls.get(event.call)
    if call is None:
        call = candidate.calls[event.call] = {}
        candidate.parts.append({"functionCall": call})
    for key, value in (("id", event.id), ("name", event.name)):
        if value is not None:
            call[key] = value


def _args(candidate: _Candidate, event: ToolCallEnd) -> None:
    call = candidate.calls.get(event.call)
    if call is None or not event.arguments:
        return
    # Arguments are JSON we wrote from the sent object; should they not parse, the call's
    # tool_end says where, and the part keeps no args.
    with contextlib.suppress(orjson.JSONDecodeError):
        call["args"] = orjson.loads(event.arguments)
