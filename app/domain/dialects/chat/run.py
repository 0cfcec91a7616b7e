"""A whole body's chat chunks read in runs (docs/assembly.md is unchanged by it).

``read_run`` is ``PayloadInterpreter.run`` for chat completions: the SSE items of one read
(a capture is read in 64 KiB blocks) are placed and read in one loop that keeps the stream's
state in locals, as long as each is the commonest chunk: one choice already seen, a text or
reasoning delta, the stream's identity, and

* without logprobs, decoded by msgspec into app/domain/dialects/chat/fast.py's typed structures (what they
  accept, orjson reads too, with the same values);
* with logprobs, decoded by msgspec into the typed structures below, which check every
  entry as they read it (what they accept, orjson reads too: numbers that overflow a double,
  text that is not UTF-8 and deep nesting are refused). The entries are then sliced out of
  the payload as sent (``_entries``), as the full reading keeps them (chunks.py, sent.py),
  when the payload ends the way its typed structure says, compactly: the content list is
  then the last value of the chunk's logprobs, choice and choices. Any other layout goes the
  one-step way.

Every other payload is read by ``it.payload`` (app/domain/dialects/chat/fast.py's one-step reading, else the full
reading), as when read alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec
from msgspec import UNSET, UnsetType

from ...events import TextDelta
from .fast import _REFUSED, Int, _decode, _read_choice

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...events import Event, RawEvent
    from ...fastpath import Item
    from .interpreter import ChatInterpreter


class _Top(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    token: str
    logprob: float
    bytes: list[Int] | UnsetType | None = UNSET


class _Entry(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    token: str
    logprob: float
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
    """The logprob entries of a one-choice payload as sent, without the brackets (an
    exact-size copy), or None when the payload does not end as its structure says.

    Keys cannot sit inside a string unescaped, and ``"content":`` can open no list but the
    logprobs' content here (the delta's content is a string), so its last occurrence, when a
    list follows, opens the list the typed reading kept (a key sent twice is its last value).
    When the payload ends with exactly the closings and the null fields its structure has
    after that list (written compactly, or as Python's ``json.dumps`` writes them), the list
    is the last value of the logprobs, the choice and the chunk, and runs to the bracket
    before them."""
    choice = chunk.choices[0]
    scores = choice.logprobs
    assert isinstance(scores, _Scores)
    at = data.rfind(_CONTENT_KEY)
    if at < 0:
        return None
    start = at + len(_CONTENT_KEY)  # a value follows: the typed reading read one
    if data[start] == 0x20:  # ": ["
        start += 1
    if data[start] != 0x5B:  # not a list: the delta's content
        return None
    sent = scores.refusal is not UNSET, choice.finish_reason is not UNSET, chunk.usage is not UNSET
    compact, spaced = _TAILS[sent]
    if data.endswith(compact):
        return data[start + 1 : len(data) - len(compact)]
    if data.endswith(spaced):
        return data[start + 1 : len(data) - len(spaced)]
    return None


_CONTENT_KEY = b'"content":'


def _tails(comma: bytes, colon: bytes) -> dict[tuple[bool, bool, bool], bytes]:
    """What follows the entries' closing bracket, by which of the logprobs' refusal, the
    choice's finish reason and the chunk's usage were sent (each null here): the ends of the
    logprobs, the choice, the choices and the chunk, with these separators."""
    return {
        (refusal, finish, usage): b"]"
        + (comma + b'"refusal"' + colon + b"null") * refusal
        + b"}"
        + (comma + b'"finish_reason"' + colon + b"null") * finish
        + b"}]"
        + (comma + b'"usage"' + colon + b"null") * usage
        + b"}"
        for refusal in (False, True)
        for finish in (False, True)
        for usage in (False, True)
    }


_COMPACT, _SPACED = _tails(b",", b":"), _tails(b", ", b": ")
_TAILS = {sent: (_COMPACT[sent], _SPACED[sent]) for sent in _COMPACT}


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
    scored = (
        it.with_logprobs
    )  # the stream's chunks carry logprobs (app/domain/dialects/chat/fast.py found one)
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
