"""Reading one choice of one chunk: its delta, logprobs, finish reason and extras."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from ...events import (
    Extra,
    Finish,
    Logprobs,
    RawEvent,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
)
from ...sent import sent_items
from .toolcalls import ChoiceToolCalls, Routed, ToolCallState

if TYPE_CHECKING:
    from .interpreter import ChatInterpreter


def choice_entries(
    payload: bytes | str | None, position: int, field: str, entries: list[Any]
) -> bytes:
    """The logprob entries (``field``: content or refusal) of the choice at ``position`` in a
    chat chunk, as sent (sent.py): every reading of a chat chunk keeps them this way."""
    return sent_items(payload, ("choices", position, "logprobs", field), entries)


KNOWN_CHOICE_KEYS = frozenset({"index", "delta", "message", "logprobs", "finish_reason"})
KNOWN_DELTA_KEYS = frozenset(
    {"role", "content", "refusal", "tool_calls", "reasoning_content", "reasoning"}
)
# Notes of the tool-call router that are wire facts for the rules (docs/rules.md), not
# problems of reading: sighted, not said as diagnostics.
SIGHTED_NOTES = frozenset({"tool_args_not_string"})
REASONING_FIELDS = ("reasoning_content", "reasoning")
_UNSET = object()


class ChoiceReader:
    """State of one choice across the stream: its tool calls and last extras."""

    def __init__(self, index: int, interpreter: ChatInterpreter) -> None:
        self.index = index
        self.tools = ChoiceToolCalls()
        self._extras: dict[str, Any] = {}
        self.sent_empty: set[str] = set()  # "content"/"refusal" sent as "" ...
        self.sent_text: set[str] = set()  # ... and those sent with text
        # A weak reference: a strong one back to the interpreter (which holds this reader)
        # would make a cycle that keeps a dropped capture alive until a full collection.
        self._it: ChatInterpreter = weakref.proxy(interpreter)

    def read(self, raw: RawEvent, choice: dict[str, Any], position: int) -> None:
        """One choice of a chunk: ``position`` is its place in the chunk's ``choices``."""
        delta = choice.get("delta")
        if delta is None:
            delta = choice.get("message")  # a whole completion, or a done chunk
        if isinstance(delta, dict):
            if delta:
                self._delta(raw, delta)
        elif delta is not None:
            self._it.note(raw, "delta_not_object", "error", "delta is not a JSON object; ignored")
        elif isinstance(choice.get("text"), str):  # legacy completions stream
            self._text(raw, choice["text"], None)
        logprobs = choice.get("logprobs")
        if logprobs:
            self._logprobs(raw, logprobs, position)
        if not KNOWN_CHOICE_KEYS.issuperset(choice):
            self._choice_extras(raw, choice, mirrored_text=isinstance(delta, dict))
        reason = choice.get("finish_reason")
        if reason is not None:
            self.end(raw)
            self._it.add(Finish(choice=self.index, reason=str(reason)), raw)

    def end(self, raw: RawEvent | None) -> None:
        """The choice is over (its finish reason, or the end of the stream): a field that was
        only ever sent as "" gets one empty event, so the assembled message keeps "" as sent
        (docs/assembly.md, rule 2); then its open tool calls end."""
        for field in sorted(self.sent_empty - self.sent_text):
            self.sent_text.add(field)
            empty = TextDelta if field == "content" else RefusalDelta
            self._it.add(empty(choice=self.index, text=""), raw)
        self._it.end_calls(self.index, self.tools, raw)

    # ------------------------------------------------------------------ delta
    def _delta(self, raw: RawEvent, delta: dict[str, Any]) -> None:
        if "role" in delta:
            self._it.sight(raw, "role", (self.index, delta["role"]))
        for field in REASONING_FIELDS:
            text = delta.get(field)
            if text and isinstance(text, str):
                raw.reasoning = True
                self._it.add(ReasoningDelta(choice=self.index, text=text, field=field), raw)
        content = delta.get("content")
        if content:
            if isinstance(content, str):
                self._text(raw, content, None)
            elif isinstance(content, list):
                self._parts(raw, content)
        elif content == "":
            self.sent_empty.add("content")
        refusal = delta.get("refusal")
        if refusal and isinstance(refusal, str):
            raw.output = True
            self.sent_text.add("refusal")
            self._it.add(RefusalDelta(choice=self.index, text=refusal), raw)
        elif refusal == "":
            self.sent_empty.add("refusal")
        tool_calls = delta.get("tool_calls")
        if tool_calls:
            self._tool_calls(raw, tool_calls)
        if not KNOWN_DELTA_KEYS.issuperset(delta):
            fields = {k: v for k, v in delta.items() if k not in KNOWN_DELTA_KEYS}
            self._it.add(Extra(scope="delta", choice=self.index, fields=fields), raw)

    def _text(self, raw: RawEvent, text: str, part: str | None) -> None:
        if text:
            raw.output = True
            self.sent_text.add("content")
            self._it.add(TextDelta(choice=self.index, text=text, part=part), raw)

    def _parts(self, raw: RawEvent, parts: list[Any]) -> None:
        """Mistral streams content as typed parts: text parts are content, thinking is reasoning."""
        for part in parts:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and isinstance(part.get("text"), str):
                self._text(raw, part["text"], "text")
            elif kind == "thinking":
                text = _thinking_text(part.get("thinking"))
                if text:
                    raw.reasoning = True
                    event = ReasoningDelta(
                        choice=self.index, text=text, field="thinking", part="thinking"
                    )
                    self._it.add(event, raw)
            else:
                self._it.note(
                    raw,
                    "unknown_content_part",
                    "info",
                    f"content part of type {kind!r} is not text or thinking; shown as an extra",
                )
                self._it.add(
                    Extra(scope="delta", choice=self.index, fields={"content": [part]}), raw
                )

    def _tool_calls(self, raw: RawEvent, fragments: Any) -> None:
        if not isinstance(fragments, list):
            self._it.note(raw, "tool_calls_not_list", "error", "tool_calls is not a list; ignored")
            return
        for fragment in fragments:
            if not isinstance(fragment, dict):
                self._it.note(raw, "tool_call_not_object", "error", "a tool call is not an object")
                continue
            reused = self.tools.holder(fragment)
            routed = self.tools.route(fragment)
            for code, message in routed.notes:
                if code in SIGHTED_NOTES:
                    self._it.sight(raw, code, message)
                else:
                    self._it.note(raw, code, "warning", message)
            state = routed.state
            self._sight_fragment(raw, fragment, routed, reused)
            if routed.started or routed.identity_changed:
                start = ToolCallStart(
                    choice=self.index,
                    call=state.call,
                    index=state.index,
                    id=state.id,
                    name=state.name,
                    type=state.type,
                )
                self._it.add(start, raw)
            if routed.arguments:
                raw.output = True
                self._it.add(
                    ToolCallArgs(choice=self.index, call=state.call, text=routed.arguments), raw
                )

    def _sight_fragment(
        self, raw: RawEvent, fragment: dict[str, Any], routed: Routed, holder: ToolCallState | None
    ) -> None:
        """What the tool-call rules judge of one fragment (docs/rules.md): an index left out,
        an id or name sent again on a fragment that continues its call, a name sent as "" there,
        an index that another call held."""
        state = routed.state
        if fragment.get("index") is None:
            self._it.sight(raw, "tool_index_missing", state.call)
        if routed.started:
            if holder is not None and holder is not state:
                fact = "tool_index_reused" if state.name else "tool_id_changed"
                self._it.sight(raw, fact, (fragment.get("index"), holder.id, state.id))
            return
        if fragment.get("id") and fragment.get("id") == state.id and not routed.identity_changed:
            self._it.sight(raw, "tool_id_repeated", state.id)
        function = fragment.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        if name and name == state.name and not routed.identity_changed:
            self._it.sight(raw, "tool_name_repeated", name)
        elif name == "" and state.name:
            self._it.sight(raw, "tool_name_empty", state.name)

    # ------------------------------------------------------------------ logprobs, extras
    def _logprobs(self, raw: RawEvent, logprobs: Any, position: int) -> None:
        if not isinstance(logprobs, dict):
            self._it.note(raw, "logprobs_shape", "warning", "logprobs is not an object; ignored")
            return
        if "tokens" in logprobs or "token_logprobs" in logprobs:
            self._it.sight(raw, "logprobs_completions_shape", sorted(logprobs))
        for field in ("content", "refusal"):
            entries = logprobs.get(field)
            if entries:
                if isinstance(entries, list):
                    event = Logprobs(
                        choice=self.index,
                        field=field,
                        count=len(entries),
                        entries=choice_entries(self._it.text, position, field, entries),
                    )
                    self._it.add(event, raw)
                else:
                    self._it.note(raw, "logprobs_shape", "warning", f"logprobs.{field} not a list")

    def _choice_extras(self, raw: RawEvent, choice: dict[str, Any], mirrored_text: bool) -> None:
        """Choice-level extras, when their value changes. Next to a delta, a choice-level
        ``text`` (TGI) only repeats the delta's content: it is not kept twice."""
        changed = {
            k: v
            for k, v in choice.items()
            if k not in KNOWN_CHOICE_KEYS
            and not (mirrored_text and k == "text")
            and self._extras.get(k, _UNSET) != v
        }
        if changed:
            self._extras.update(changed)
            self._it.add(Extra(scope="choice", choice=self.index, fields=changed), raw)


def _thinking_text(thinking: Any) -> str:
    if isinstance(thinking, str):
        return thinking
    if isinstance(thinking, list):
        return "".join(
            p["text"] for p in thinking if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""
