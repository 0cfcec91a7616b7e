"""OpenAI chat completions (``chat.completion.chunk`` streams), the dialect most servers speak.

Assembly rules in docs/assembly.md: choices by index, tool calls routed by index with the
fallbacks for servers that send none, provider extras kept, payloads that are not chunks
classified, errors inside the stream kept with everything before them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...events import Extra, Meta, Payload, RawEvent, Usage
from ...fastpath import Item
from ...interpret import PayloadInterpreter
from ...payloads import CHAT_CHUNK, classify
from ...stream import Stream
from ..base import NAMED, SHAPED, Dialect, Sniffed, UsageFields
from . import labels
from .assemble import assemble
from .chunks import ChoiceReader
from .fast import read_fast
from .run import read_run
from .sighted import sight_chunk, sight_id
from .toolcalls import ChoiceToolCalls

KNOWN_CHUNK_KEYS = frozenset(
    {"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "service_tier"}
)
META_KEYS = ("id", "object", "created", "model", "system_fingerprint", "service_tier")
NAME = "chat-completions"


class ChatInterpreter(PayloadInterpreter):
    """``choices`` (readers by index), ``meta`` (the response's identity so far) and
    ``first_id`` are read by the fast path (app/domain/dialects/chat/fast.py) too."""

    dialect = NAME

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self.choices: dict[int, ChoiceReader] = {}
        self.meta: dict[str, Any] = {}
        self._extras: dict[str, Any] = {}
        self._usage: Any = None
        self.first_id: str | None = None
        self.with_logprobs = False  # which way the fast path reads this stream's chunks

    def not_ours(self) -> str:
        return CHAT_CHUNK

    def payload(self, raw: RawEvent, data: bytes | str, data_offset: int = 0) -> None:
        if (
            type(data) is bytes
            and not self.done
            and raw.event != "error"
            and read_fast(self, raw, data)
        ):
            return
        super().payload(raw, data, data_offset)

    def run(self, items: Sequence[Item], i: int, stop: int, kept: list[RawEvent]) -> int:
        return read_run(self, items, i, stop, kept)

    def value(self, raw: RawEvent, value: Any) -> None:
        if raw.event == "error" or (isinstance(value, dict) and "error" in value):
            self.error(raw, value.get("error", value) if isinstance(value, dict) else value)
            if not (isinstance(value, dict) and "choices" in value):
                return
        if isinstance(value, dict):
            self._object(raw, value)
        else:
            self.other(raw, value)

    def close(self) -> None:
        """Close open tool calls and say what was missing."""
        for _, reader in sorted(self.choices.items()):
            reader.end(None)
        if not self.done and not self.errored and self.choices:
            self.sight(None, "done_missing")
        if not self.choices and not self.meta and any(r.kind == "event" for r in self.stream.raw):
            self.note(
                None,
                "no_chunks",
                "warning",
                "no chat completion chunk in this stream: nothing to assemble (see its payloads)",
            )

    def end_calls(self, choice: int, tools: ChoiceToolCalls, raw: RawEvent | None) -> None:
        for state in tools.open_calls():
            state.ended = True
            self.end_call(
                raw,
                choice=choice,
                call=state.call,
                call_id=state.id,
                name=state.name,
                arguments=state.arguments,
            )

    # ------------------------------------------------------------------ chunks
    def _object(self, raw: RawEvent, value: dict[str, Any]) -> None:
        kind = value.get("object")
        is_chunk = "choices" in value or kind == "chat.completion.chunk"
        if not is_chunk:
            self.other(raw, value)
            return
        special = kind not in ("chat.completion.chunk", None) or (
            "moderation" in value or "prompt_filter_results" in value
        )
        if special:
            category, summary = classify(value)
            self.add(Payload(category=category, summary=summary, value=self.kept(value)), raw)
        self._chunk(raw, value, extras=not special)

    def _chunk(self, raw: RawEvent, chunk: dict[str, Any], extras: bool) -> None:
        self._check_meta(raw, chunk)
        sight_chunk(self, raw, chunk)
        if extras and not KNOWN_CHUNK_KEYS.issuperset(chunk):
            self._chunk_extras(raw, chunk)
        usage = chunk.get("usage")
        if usage is not None and usage != self._usage:
            if isinstance(usage, dict):
                self._usage = usage
                self.add(Usage(usage=usage), raw)
            else:
                self.note(raw, "usage_not_object", "warning", "usage is not a JSON object; ignored")
        choices = chunk.get("choices")
        if not choices:
            if choices is not None and not isinstance(choices, list):
                self.note(raw, "choices_not_list", "error", "choices is not a list; ignored")
            return
        if not isinstance(choices, list):
            self.note(raw, "choices_not_list", "error", "choices is not a list; ignored")
            return
        raw.choices = True
        for position, choice in enumerate(choices):
            self._choice(raw, choice, position)

    def _choice(self, raw: RawEvent, choice: Any, position: int) -> None:
        if not isinstance(choice, dict):
            self.note(raw, "choice_not_object", "error", "a choice is not a JSON object; ignored")
            return
        index = choice.get("index", 0)
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            self.note(raw, "choice_index_invalid", "error", f"choice index {index!r} is not valid")
            return
        reader = self.choices.get(index)
        if reader is None:
            reader = self.choices[index] = ChoiceReader(index, self)
            self.sight(raw, "choice_new", index)
        reader.read(raw, choice, position)

    def _check_meta(self, raw: RawEvent, chunk: dict[str, Any]) -> None:
        chunk_id = chunk.get("id")
        if chunk_id:
            if self.first_id is None:
                self.first_id = chunk_id
            elif chunk_id != self.meta.get("id"):
                sight_id(self, raw, self.meta.get("id"), chunk_id)
        meta = self.meta
        if not meta:
            fields = {k: chunk[k] for k in META_KEYS if chunk.get(k) not in (None, "")}
            if fields.get("id") or fields.get("model"):
                meta.update(fields)
                self.add(Meta(fields=fields), raw)
            return
        if chunk_id:
            meta["id"] = chunk_id
        changed = {
            k: chunk[k]
            for k in ("model", "system_fingerprint")
            if chunk.get(k) not in (None, "") and chunk.get(k) != meta.get(k)
        }
        if changed:
            meta.update(changed)
            self.add(Meta(fields=changed), raw)

    def _chunk_extras(self, raw: RawEvent, chunk: dict[str, Any]) -> None:
        changed = {
            k: v
            for k, v in chunk.items()
            if k not in KNOWN_CHUNK_KEYS and self._extras.get(k, _UNSET) != v
        }
        if changed:
            self._extras.update(changed)
            self.add(Extra(scope="chunk", choice=None, fields=changed), raw)
            groq = changed.get("x_groq")
            if isinstance(groq, dict) and isinstance(groq.get("usage"), dict):
                self.add(Usage(usage=groq["usage"], source="x_groq.usage"), raw)


_UNSET = object()


def sniff(event: str | None, value: dict[str, Any]) -> Sniffed | None:
    kind = value.get("object")
    if kind in ("chat.completion.chunk", "chat.completion"):
        return NAMED, f"object {kind}"
    if "choices" in value:  # completions' choices with text are surer of themselves
        return SHAPED, "a choices field"
    return None


CHAT = Dialect(
    name=NAME,
    title="OpenAI chat completions",
    interpreter=ChatInterpreter,
    sniff=sniff,
    assemble=assemble,
    usage=UsageFields(
        "usage",
        "prompt_tokens",
        "completion_tokens",
        "completion_tokens_details.reasoning_tokens",
        "prompt_tokens_details.cached_tokens",
    ),
    usage_help={
        "prompt_tokens": "tokens in the prompt",
        "completion_tokens": "tokens generated (reasoning included)",
        "total_tokens": "prompt plus completion, as the server counts them",
    },
    labels=labels.LABELS,
)
