"""A whole body's chat chunks read in runs (docs/assembly.md is unchanged by it).

``read_run`` is ``PayloadInterpreter.run`` for chat completions: the SSE items of one read
(a capture is read in 64 KiB blocks) are placed and read in one loop that keeps the stream's
state in locals, as long as each is the commonest chunk: one choice already seen, a text or
reasoning delta, the stream's identity, and

* without logprobs, decoded by msgspec into chat_fast.py's typed structures (what they
  accept, orjson reads too, with the same values);
* with logprobs, decoded by msgspec into the typed structures below; a chunk with logprob
  entries only when the payload is exactly what msgspec writes back for them (``_entries``):
  compact, keys in the order OpenAI sends them, nothing sent twice, logprobs under 1e16 in
  size. Such a payload is read by orjson to the same values, and orjson writes those values
  as msgspec does (tests/test_reading_runs.py), so its logprob entries, sliced out of the
  payload, are the very text ``orjson.dumps`` gives for them, as the full reading keeps them
  (chunks.py). The typed structures bound the depth, so no depth scan is needed either.

Every other payload is read by ``it.payload`` (chat_fast.py's one-step reading, else the full
reading), as when read alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from ..events import TextDelta
from .chat_fast import _REFUSED, Int, _decode, _read_choice

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..events import Event, RawEvent
    from ..fastpath import Item
    from .chat import ChatInterpreter


# From 1e16 up, orjson writes an exponent as "e+16" and msgspec as "e16": a logprob that
# large (none is) goes the other way, so what is sliced out is what orjson would write.
Float = Annotated[float, msgspec.Meta(gt=-1e16, lt=1e16)]


class _Top(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    token: str
    logprob: Float
    bytes: list[Int] | UnsetType | None = UNSET


class _Entry(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    token: str
    logprob: Float
    bytes: list[Int] | UnsetType | None = UNSET
    top_logprobs: list[_Top] | UnsetType = UNSET


class _ScoredDelta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: str | UnsetType | None = UNSET
    reasoning_content: str | UnsetType | None = UNSET
    reasoning: str | UnsetType | None = UNSET


class _Scores(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: list[_Entry] | UnsetType | None = UNSET
    refusal: UnsetType | None = UNSET


class _ScoredChoice(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    index: Int
    delta: _ScoredDelta
    logprobs: _Scores | UnsetType | None = UNSET
    finish_reason: UnsetType | None = UNSET


class _ScoredChunk(msgspec.Struct, forbid_unknown_fields=True, gc=False, kw_only=True):
    id: str | UnsetType = UNSET
    object: Literal["chat.completion.chunk"] | UnsetType = UNSET
    created: Int | UnsetType = UNSET
    model: str | UnsetType = UNSET
    service_tier: str | UnsetType = UNSET
    system_fingerprint: str | UnsetType = UNSET
    choices: list[_ScoredChoice]
    usage: UnsetType | None = UNSET


_decode_scored = msgspec.json.Decoder(_ScoredChunk).decode
_encode = msgspec.json.Encoder().encode
_ENTRIES_AT = b'"logprobs":{"content":['


def read_run(
    it: ChatInterpreter, items: Sequence[Item], i: int, stop: int, kept: list[RawEvent]
) -> int:
    """Place and read ``items[i:stop]`` (``PayloadInterpreter.run``): runs of common chunks
    here (``_common_run``), every other payload by ``it.payload``."""
    events = it.stream.events
    while i < stop and not it.done:
        i, other = _common_run(it, items, i, stop, kept, events)
        if other is None:
            break
        it.payload(other.raw, other.data or b"", other.data_offset)
    return i


def _entries(chunk: _ScoredChunk, data: bytes) -> bytes | None:
    """The logprob entries of a canonical one-choice payload, as their JSON text without
    the brackets (an exact-size copy), or None when it is not canonical. Keys cannot sit
    inside a string unescaped, so the first ``"logprobs":{"content":[`` is the choice's; what
    follows the entries is known from which fields were sent."""
    if _encode(chunk) != data:
        return None
    choice = chunk.choices[0]
    scores = choice.logprobs
    assert isinstance(scores, _Scores)
    tail = 5  # ] } } ] }: the ends of entries, logprobs, choice, choices and chunk
    tail += len(b',"refusal":null') * (scores.refusal is not UNSET)
    tail += len(b',"finish_reason":null') * (choice.finish_reason is not UNSET)
    tail += len(b',"usage":null') * (chunk.usage is not UNSET)
    return data[data.index(_ENTRIES_AT) + len(_ENTRIES_AT) : len(data) - tail]


def _common_run(
    it: ChatInterpreter,
    items: Sequence[Item],
    i: int,
    stop: int,
    kept: list[RawEvent],
    events: list[Event],
) -> tuple[int, Item | None]:
    """Place and read items from ``i`` while they are common chunks (module docstring), with
    the stream's state in locals. Returns where it stopped and the item it placed but left
    to ``it.payload`` (None: the item at ``i`` is not a one-line payload, or ``stop`` was
    reached)."""
    meta = it.meta
    common = bool(meta) and it.first_id is not None
    scored = it.with_logprobs  # the stream's chunks carry logprobs (chat_fast.py found one)
    decode = _decode_scored if scored else _decode
    want_id, model_was = meta.get("id"), meta.get("model")
    fingerprint_was, readers = meta.get("system_fingerprint"), it.choices
    while i < stop:
        item = items[i]
        data = item.data
        if data is None or b"\n" in data:
            return i, None
        raw = item.raw
        raw.index = len(kept)
        kept.append(raw)
        i += 1
        if not common or raw.event == "error":
            return i, item
        try:
            chunk = decode(data)
        except _REFUSED:
            return i, item
        choices = chunk.choices
        chunk_id, model, fingerprint = chunk.id, chunk.model, chunk.system_fingerprint
        if (
            len(choices) != 1
            or (chunk_id and chunk_id != want_id)
            or (model and model != model_was)
            or (fingerprint and fingerprint != fingerprint_was)
        ):
            return i, item
        choice = choices[0]
        number = choice.index
        reader = readers.get(number)
        if reader is None:
            return i, item
        delta = choice.delta
        if scored:
            scores = choice.logprobs
            entries = None
            if scores and scores.content:  # typed, a payload without entries needs no slicing
                entries = _entries(chunk, data)  # type: ignore[arg-type]
                if entries is None:
                    return i, item
            it.text = data
            raw.choices = True
            _read_choice(it, raw, choice, entries)  # type: ignore[arg-type]
            continue
        it.text = data
        raw.choices = True
        if delta.reasoning_content or delta.reasoning:
            _read_choice(it, raw, choice, None)  # type: ignore[arg-type]
            continue
        content = delta.content  # _read_choice's text case, inlined: this runs per chunk
        if content:
            raw.output = True
            reader.sent_text.add("content")
            events.append(
                TextDelta(seq=len(events), raw=raw.index, t=raw.t, choice=number, text=content)
            )
        elif content == "":
            reader.sent_empty.add("content")
    return i, None
