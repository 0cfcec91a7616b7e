"""One Gemini candidate, chunk by chunk (docs/dialects.md, "Gemini"): its parts as blocks,
text, thought text, signatures, function calls (``app/domain/dialects/gemini/calls.py``), whole parts, its other
fields as extras (citations out of them), and its finish reason.

Blocks are the player's lanes: a new block when the part kind changes (``thought``, ``text``,
``functionCall``); a part that carries a ``thoughtSignature`` is a block of its own (Gemini's
rule: a signed part is never merged with another), except inside a streamed function call; a
part that comes whole (code, its result, inline data, any kind we do not know) too.
"""

from __future__ import annotations

import weakref
from typing import Any

import orjson

from ...events import (
    BlockStart,
    BlockStop,
    Citation,
    Extra,
    Finish,
    RawEvent,
    ReasoningDelta,
    Signature,
    TextDelta,
)
from ...interpret import PayloadInterpreter
from .calls import CandidateCalls
from .reasons import finish_label

CANDIDATE_KEYS = frozenset({"content", "finishReason", "index"})
PART_FLAGS = frozenset({"thought", "thoughtSignature", "partMetadata"})
STREAMED_KINDS = frozenset({"text", "thought", "functionCall"})  # one block for a run of them
CITATION_LISTS = (("citationMetadata", "citations"), ("groundingMetadata", "groundingSupports"))


class CandidateReader:
    def __init__(self, interpreter: PayloadInterpreter, index: int) -> None:
        # A weak reference: a strong one back to the interpreter (which holds this reader)
        # would make a cycle that keeps a dropped capture alive until a collection found it.
        self._it: PayloadInterpreter = weakref.proxy(interpreter)
        self.index = index
        self.calls = CandidateCalls(interpreter, index)
        self.block: int | None = None  # the open block
        self.kind: str | None = None  # what it holds
        self.sealed = False  # the last part carried a signature: the next opens a new block
        self.blocks = 0
        self.extras: dict[str, Any] = {}
        self.finished = False
        self.reason: str | int | None = None  # the first finish, and where it came
        self.finished_at: int | None = None

    def read(self, raw: RawEvent, candidate: dict[str, Any]) -> None:
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else content
        if isinstance(parts, list):
            for part in parts:
                self._part(raw, part)
        elif parts is not None:
            message = f"candidate {self.index}: content.parts is not a list; not read"
            self._it.note(raw, "part_shape", "error", message)
        if not CANDIDATE_KEYS.issuperset(candidate):
            self._extras(raw, candidate)
        reason = candidate.get("finishReason")
        if reason is None:
            return
        if isinstance(reason, bool) or not isinstance(reason, str | int):
            message = f"finishReason {reason!r} is neither a name nor a number"
            self._it.note(raw, "candidate_shape", "warning", message)
            reason = orjson.dumps(reason).decode()
        if self.finished:  # a finish on an earlier chunk too (the finish-every-chunk rule)
            self._it.sight(raw, "finish_repeated", (self.index, self.reason, self.finished_at))
        else:
            self.reason, self.finished_at = reason, raw.index
        self.end(raw)
        self.finished = True
        self._it.add(Finish(choice=self.index, reason=reason, label=finish_label(reason)), raw)

    def end(self, raw: RawEvent | None) -> None:
        """Its finish, or the end of the stream: the open call and block end."""
        self.calls.end_open(raw)
        self._stop(raw)

    # ------------------------------------------------------------------ parts
    def _part(self, raw: RawEvent, part: Any) -> None:
        if not isinstance(part, dict):
            message = f"candidate {self.index}: a part is not an object; not read"
            self._it.note(raw, "part_shape", "error", message)
            return
        kind = _kind(part)
        signature = part.get("thoughtSignature")
        if kind is not None:
            self._block(raw, kind, part, isinstance(signature, str))
            if kind == "functionCall":
                self.calls.part(raw, part["functionCall"])
            elif kind in ("text", "thought"):
                self._text(raw, part.get("text"), kind)
        if isinstance(signature, str):
            self._it.add(Signature(choice=self.index, block=self.block, signature=signature), raw)
            self.sealed = True
        if kind is not None and kind not in STREAMED_KINDS:
            self._stop(raw)

    def _block(self, raw: RawEvent, kind: str, part: dict[str, Any], signed: bool) -> None:
        """Open a block for this part unless it goes on with the open one: the same kind of
        streamed part, neither it nor the last one signed, or the next part of a streamed
        function call."""
        streamed = kind in STREAMED_KINDS
        if streamed and self.block is not None and self.kind == kind:
            if kind == "functionCall" and self.calls.streaming:
                return
            if not self.sealed and not signed:
                return
        self._stop(raw)
        if kind != "functionCall":
            self.calls.end_open(raw)
        self.block, self.kind, self.sealed = self.blocks, kind, False
        self.blocks += 1
        value = None if streamed else part
        self._it.add(BlockStart(choice=self.index, block=self.block, type=kind, value=value), raw)
        if kind == "executableCode":
            raw.choices = raw.output = True

    def _text(self, raw: RawEvent, text: Any, kind: str) -> None:
        if not isinstance(text, str):
            message = f"candidate {self.index}: a part's text is not a string; not read"
            self._it.note(raw, "part_shape", "error", message)
            return
        if not text:
            return
        if kind == "thought":
            raw.choices = raw.reasoning = True
            event = ReasoningDelta(choice=self.index, text=text, field="thought", block=self.block)
            self._it.add(event, raw)
        else:
            raw.choices = raw.output = True
            self._it.add(TextDelta(choice=self.index, text=text, block=self.block), raw)

    def _stop(self, raw: RawEvent | None) -> None:
        if self.block is None:
            return
        stop = BlockStop(choice=self.index, block=self.block)
        self._it.add(stop, raw)
        if raw is None:
            stop.t = self._it.last_t()
        self.block = self.kind = None

    # ------------------------------------------------------------------ other fields
    def _extras(self, raw: RawEvent, candidate: dict[str, Any]) -> None:
        seen = self.extras
        changed = {
            k: v for k, v in candidate.items() if k not in CANDIDATE_KEYS and seen.get(k) != v
        }
        if not changed:
            return
        self.extras = {**seen, **changed}
        self._it.add(Extra(scope="choice", choice=self.index, fields=changed), raw)
        for holder, key in CITATION_LISTS:
            old = seen.get(holder)
            before = old.get(key) if isinstance(old, dict) else None
            new = changed[holder].get(key) if isinstance(changed.get(holder), dict) else None
            for item in new if isinstance(new, list) else ():
                if not (isinstance(before, list) and item in before):
                    citation = Citation(choice=self.index, block=self.block, value=item)
                    self._it.add(citation, raw)


def _kind(part: dict[str, Any]) -> str | None:
    """What a part holds: ``thought`` / ``text`` / ``functionCall`` / the key of a whole part
    (``executableCode``, ``codeExecutionResult``, ``inlineData``, ...; a part with only flags,
    such as a lone ``thoughtSignature``, is named by its first); None for an empty part."""
    if "functionCall" in part:
        return "functionCall"
    if "text" in part:
        return "thought" if part.get("thought") is True else "text"
    return next((key for key in part if key not in PART_FLAGS), next(iter(part), None))
