"""Legacy completions (``text_completion`` chunks), docs/dialects.md "Legacy completions".

OpenAI's ``/v1/completions`` and the servers that copy it (vLLM, llama.cpp): each chunk has
``choices[]`` with ``text`` by choice ``index`` (n > 1 interleaves them), ``finish_reason`` on
a choice's last chunk (Azure repeats it on a trailing empty chunk: said once), provider fields
such as vLLM's ``stop_reason`` (kept as choice extras), a usage chunk with empty ``choices``
when asked for, and logprobs in the old shape, turned into chat entries for the timeline
(``app/domain/dialects/completions/logprobs.py``). The final object is the ``text_completion`` the SDK's chunks
concatenate to: each choice's text, logprobs in the old shape, last finish reason, and usage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ...events import Event, Extra, Finish, Logprobs, Meta, RawEvent, TextDelta, Usage
from ...fastpath import Item
from ...interpret import PayloadInterpreter
from ...stream import Stream
from ..base import NAMED, SPECIFIC, Dialect, Sniffed, UsageFields, int_or_none
from ..chat.sighted import sight_chunk, sight_id
from . import labels
from .fast import FAST
from .logprobs import entries, is_old_shape, rebuild
from .run import read_run

NAME = "completions"
OBJECT = "text_completion"
KNOWN_CHUNK_KEYS = frozenset(
    {"id", "object", "created", "model", "system_fingerprint", "choices", "usage"}
)
KNOWN_CHOICE_KEYS = frozenset({"index", "text", "logprobs", "finish_reason"})
META_KEYS = ("id", "object", "created", "model", "system_fingerprint")
_UNSET = object()


class CompletionsInterpreter(PayloadInterpreter):
    dialect = NAME
    fast = FAST  # app/domain/dialects/completions/fast.py (reads meta, counts chunks)

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self.meta: dict[str, Any] = {}
        self._extras: dict[str, Any] = {}
        self._choice_extras: dict[int, dict[str, Any]] = {}
        self._finish: dict[int, str] = {}
        self.seen: set[int] = set()  # choice indices read so far (the fast path reads only these)
        self._usage: Any = None
        self.chunks = 0

    def run(self, items: Sequence[Item], i: int, stop: int, kept: list[RawEvent]) -> int:
        return read_run(self, items, i, stop, kept)

    def value(self, raw: RawEvent, value: Any) -> None:
        if raw.event == "error" or (isinstance(value, dict) and "error" in value):
            self.error(raw, value.get("error", value) if isinstance(value, dict) else value)
            return
        if isinstance(value, dict) and is_completion_chunk(value):
            self._chunk(raw, value)
        else:
            self.other(raw, value)

    def close(self) -> None:
        if self.chunks and not self.done and not self.errored:
            self.sight(None, "done_missing")

    def _chunk(self, raw: RawEvent, chunk: dict[str, Any]) -> None:
        self.chunks += 1
        sight_chunk(self, raw, chunk)
        chunk_id = chunk.get("id")
        if chunk_id and self.meta.get("id") and chunk_id != self.meta["id"]:
            sight_id(self, raw, self.meta["id"], chunk_id)
        changed = {k: chunk[k] for k in META_KEYS if chunk.get(k) not in (None, "")}
        changed = {k: v for k, v in changed.items() if self.meta.get(k) != v}
        if changed and (self.meta or "id" in changed or "model" in changed):
            self.meta.update(changed)
            self.add(Meta(fields=changed), raw)
        if not KNOWN_CHUNK_KEYS.issuperset(chunk):
            fields = _changed(chunk, KNOWN_CHUNK_KEYS, self._extras)
            if fields:
                self.add(Extra(scope="chunk", choice=None, fields=fields), raw)
        usage = chunk.get("usage")
        if isinstance(usage, dict) and usage != self._usage:
            self._usage = usage
            self.add(Usage(usage=usage), raw)
        elif usage is not None and not isinstance(usage, dict):
            self.note(raw, "usage_not_object", "warning", "usage is not a JSON object; ignored")
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            if choices is not None:
                self.note(raw, "choices_not_list", "error", "choices is not a list; ignored")
            return
        if choices:
            raw.choices = True
        for choice in choices:
            self._choice(raw, choice)

    def _choice(self, raw: RawEvent, choice: Any) -> None:
        if not isinstance(choice, dict):
            self.note(raw, "choice_not_object", "error", "a choice is not a JSON object; ignored")
            return
        index = int_or_none(choice.get("index", 0))
        if index is None or index < 0:
            message = f"choice index {choice.get('index')!r} is not valid"
            self.note(raw, "choice_index_invalid", "error", message)
            return
        if index not in self.seen:
            self.seen.add(index)
            self.sight(raw, "choice_new", index)
        text = choice.get("text")
        if isinstance(text, str) and text:
            raw.output = True
            self.add(TextDelta(choice=index, text=text), raw)
        elif text is not None and not isinstance(text, str):
            self.note(raw, "text_not_string", "error", f"choice {index}: text is not a string")
        logprobs = choice.get("logprobs")
        if logprobs:
            self._logprobs(raw, index, logprobs)
        if not KNOWN_CHOICE_KEYS.issuperset(choice):
            fields = _changed(choice, KNOWN_CHOICE_KEYS, self._choice_extras.setdefault(index, {}))
            if fields:
                self.add(Extra(scope="choice", choice=index, fields=fields), raw)
        reason = choice.get("finish_reason")
        if reason is not None and index in self._finish:
            self.sight(raw, "finish_again", (index, reason))
        if reason is not None and self._finish.get(index) != reason:
            self._finish[index] = str(reason)
            self.add(Finish(choice=index, reason=str(reason)), raw)

    def _logprobs(self, raw: RawEvent, index: int, logprobs: Any) -> None:
        if isinstance(logprobs, dict) and is_old_shape(logprobs):
            found, problem = entries(logprobs)
            if problem:
                self.note(raw, "logprobs_shape", "warning", f"choice {index}: {problem}")
        elif isinstance(logprobs, dict) and isinstance(logprobs.get("content"), list):
            found = logprobs["content"]  # already chat-shaped, as some servers send them
        else:
            self.note(
                raw, "logprobs_shape", "warning", f"choice {index}: logprobs in no known shape"
            )
            return
        if found:
            data = orjson.dumps(found)[1:-1]
            self.add(Logprobs(choice=index, field="content", count=len(found), entries=data), raw)


def _changed(value: dict[str, Any], known: frozenset[str], last: dict[str, Any]) -> dict[str, Any]:
    """Fields outside the known ones whose value changed since they were last sent."""
    fields = {k: v for k, v in value.items() if k not in known and last.get(k, _UNSET) != v}
    last.update(fields)
    return fields


def is_completion_chunk(value: dict[str, Any]) -> bool:
    """A ``text_completion`` chunk, or (from servers that leave ``object`` out) a chunk whose
    first choice has ``text`` and no chat ``delta`` or ``message``."""
    kind = value.get("object")
    if kind == OBJECT:
        return True
    if kind is not None:
        return False
    choices = value.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return (
        isinstance(first, dict) and "text" in first and not ("delta" in first or "message" in first)
    )


# ---------------------------------------------------------------------- the final object
@dataclass
class _Choice:
    text: list[str] = field(default_factory=list)
    logprobs: list[bytes] = field(default_factory=list)
    finish: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)


def assemble(events: list[Event]) -> dict[str, Any]:
    """The ``text_completion`` the chunks concatenate to, choices in index order."""
    meta: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    usage: dict[str, Any] | None = None
    choices: dict[int, _Choice] = {}
    for event in events:
        if isinstance(event, TextDelta):
            choices.setdefault(event.choice, _Choice()).text.append(event.text)
        elif isinstance(event, Logprobs):
            choices.setdefault(event.choice, _Choice()).logprobs.append(event.entries)
        elif isinstance(event, Finish):
            choices.setdefault(event.choice, _Choice()).finish = str(event.reason)
        elif isinstance(event, Usage):
            usage = event.usage
        elif isinstance(event, Meta):
            meta.update({k: v for k, v in event.fields.items() if k != "id" or "id" not in meta})
        elif isinstance(event, Extra) and event.scope == "choice" and event.choice is not None:
            choices.setdefault(event.choice, _Choice()).extras.update(event.fields)
        elif isinstance(event, Extra):
            extras.update(event.fields)
    completion: dict[str, Any] = {
        "id": meta.get("id"),
        "object": OBJECT,
        "created": meta.get("created"),
        "model": meta.get("model"),
    }
    if "system_fingerprint" in meta:
        completion["system_fingerprint"] = meta["system_fingerprint"]
    completion["choices"] = [_choice(i, choices[i]) for i in sorted(choices)]
    completion["usage"] = usage
    for key, value in extras.items():
        completion.setdefault(key, value)
    return completion


def _choice(index: int, acc: _Choice) -> dict[str, Any]:
    out: dict[str, Any] = {
        "index": index,
        "text": "".join(acc.text),
        "logprobs": _logprobs(acc.logprobs),
        "finish_reason": acc.finish,
    }
    for key, value in acc.extras.items():
        out.setdefault(key, value)
    return out


def _logprobs(parts: list[bytes]) -> dict[str, Any] | None:
    """The old shape again for entries made from it (they carry ``text_offset``); chat-shaped
    ones as they came."""
    if not parts:
        return None
    found = orjson.loads(b"[" + b",".join(parts) + b"]")
    return rebuild(found) if found and "text_offset" in found[0] else {"content": found}


# ---------------------------------------------------------------------- registration
def sniff(event: str | None, value: dict[str, Any]) -> Sniffed | None:
    if value.get("object") == OBJECT:
        return NAMED, f"object {OBJECT}"
    if is_completion_chunk(value):
        return SPECIFIC, "choices with text and no delta"
    return None


COMPLETIONS = Dialect(
    name=NAME,
    title="OpenAI legacy completions",
    interpreter=CompletionsInterpreter,
    sniff=sniff,
    assemble=assemble,
    usage=UsageFields("usage", "prompt_tokens", "completion_tokens"),
    usage_help={
        "prompt_tokens": "tokens in the prompt",
        "completion_tokens": "tokens generated, over all choices",
        "total_tokens": "prompt plus completion",
    },
    labels=labels.LABELS,
)
