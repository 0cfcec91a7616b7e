"""The common chat-completion chunk read in one step (docs/assembly.md is unchanged by it).

Most chunks of a stream have one shape: the response's id and model as before, no usage, and
choices whose delta holds only text (``content``, ``reasoning_content`` or ``reasoning``),
with or without logprobs and without a finish reason. ``read_fast`` turns such a payload into
the events the full reading gives (chat.py, chunks.py), without building a dict per object and
walking it by hand:

* without logprobs, ``msgspec`` decodes the payload straight into the typed structures below,
  checking every type and refusing any other key as it reads. Every field is typed (no
  ``Raw``, no ``Any``; integers bounded to 64 bits), so what it accepts orjson reads too,
  with the same values (duplicate keys: the last one, as orjson);
* with logprobs, the payload is read by ``orjson`` as the full reading does (so exactly the
  same payloads are accepted) and ``msgspec.convert`` checks its shape with the same types;
  the entries are kept as sent (sent.py), as the full reading keeps them.

Anything else (the first chunk, a finish or usage chunk, tool calls, refusals, extras, an id or
model that changed, a choice seen for the first time, JSON orjson refuses) is refused before
anything is recorded, and the full reading takes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
import orjson

from ...events import Logprobs, ReasoningDelta, TextDelta
from ...jsontext import too_deep
from .chunks import choice_entries

if TYPE_CHECKING:
    from ...events import RawEvent
    from .interpreter import ChatInterpreter

# orjson reads integers past 64 bits as floats (or refuses them): those go the full way.
Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Delta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None


class _Logprobs(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: Any = None  # only after orjson read the payload: entries as orjson read them
    refusal: None = None


class _Choice(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    delta: _Delta
    index: Int = 0
    logprobs: None = None
    finish_reason: None = None


class _LogprobsChoice(_Choice, forbid_unknown_fields=True, gc=False):
    logprobs: _Logprobs | None = None  # type: ignore[assignment]


class _Chunk(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    choices: list[_Choice]
    id: str | None = None
    object: Literal["chat.completion.chunk"] | None = None
    created: Int | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    service_tier: str | None = None
    usage: None = None


class _LogprobsChunk(_Chunk, forbid_unknown_fields=True, gc=False):
    choices: list[_LogprobsChoice]  # type: ignore[assignment]


_decode = msgspec.json.Decoder(_Chunk).decode
_REFUSED = (msgspec.ValidationError, msgspec.DecodeError)


def _typed(data: bytes) -> _Chunk | None:
    """Without logprobs: msgspec reads the payload into the typed structures."""
    try:
        return _decode(data)
    except _REFUSED:
        return None


def _with_logprobs(data: bytes) -> _Chunk | None:
    """With logprobs: orjson reads the payload (as the full reading does), msgspec checks it.
    Everything the other way accepts, this one accepts too."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if too_deep(data):
        return None
    try:
        return msgspec.convert(value, _LogprobsChunk)
    except _REFUSED:
        return None


def _chunk(it: ChatInterpreter, data: bytes) -> _Chunk | None:
    """The payload as a chunk of the common shape, or None. A stream's chunks have one shape:
    the way that read the last one is tried first (without looking for logprobs in the text),
    the other one next (the logprobs way accepts all the typed way does, so it is final)."""
    if it.with_logprobs:
        return _with_logprobs(data)
    chunk = _typed(data)
    if chunk is None:
        chunk = _with_logprobs(data)
        if chunk is not None:
            it.with_logprobs = True
    return chunk


def read_fast(it: ChatInterpreter, raw: RawEvent, data: bytes) -> bool:
    """Read one payload of the common shape (module docstring) into ``it``'s stream; False,
    with nothing recorded, when it is not one."""
    chunk = _chunk(it, data)
    if chunk is None:
        return False
    meta = it.meta
    if not meta or not chunk.choices:
        return False
    chunk_id = chunk.id
    if chunk_id and (chunk_id != meta.get("id") or it.first_id is None):
        return False
    model, fingerprint = chunk.model, chunk.system_fingerprint
    if (model and model != meta.get("model")) or (
        fingerprint and fingerprint != meta.get("system_fingerprint")
    ):
        return False
    readers = it.choices
    choices = chunk.choices
    if len(choices) == 1:  # the common case, without the lists below
        choice = choices[0]
        if choice.index not in readers:
            return False
        entries = choice.logprobs.content if choice.logprobs is not None else None
        if entries and not isinstance(entries, list):
            return False
        it.text = data
        raw.choices = True
        _read_choice(
            it, raw, choice, choice_entries(data, 0, "content", entries) if entries else None
        )
        return True
    kept: list[bytes | None] = []
    for position, choice in enumerate(choices):
        if choice.index not in readers:
            return False
        entries = choice.logprobs.content if choice.logprobs is not None else None
        if entries and not isinstance(entries, list):
            return False
        kept.append(choice_entries(data, position, "content", entries) if entries else None)
    it.text = data
    raw.choices = True
    for choice, logprobs in zip(choices, kept, strict=True):
        _read_choice(it, raw, choice, logprobs)
    return True


def _read_choice(
    it: ChatInterpreter, raw: RawEvent, choice: _Choice, logprobs: bytes | None
) -> None:
    """One choice's events, as ChoiceReader.read gives them for this shape (chunks.py).
    ``logprobs`` is its entries as JSON text without the brackets (sliced: an exact-size copy,
    as chunks.py keeps it)."""
    events = it.stream.events
    index, t = raw.index, raw.t
    number, delta = choice.index, choice.delta
    if delta.reasoning_content or delta.reasoning:
        for field, text in (
            ("reasoning_content", delta.reasoning_content),
            ("reasoning", delta.reasoning),
        ):
            if text:
                raw.reasoning = True
                events.append(
                    ReasoningDelta(
                        seq=len(events), raw=index, t=t, choice=number, text=text, field=field
                    )
                )
    content = delta.content
    if content:
        raw.output = True
        it.choices[number].sent_text.add("content")
        events.append(TextDelta(seq=len(events), raw=index, t=t, choice=number, text=content))
    elif content == "":
        it.choices[number].sent_empty.add("content")
    if logprobs is not None:
        count = len(choice.logprobs.content) if choice.logprobs is not None else 0
        events.append(
            Logprobs(
                seq=len(events),
                raw=index,
                t=t,
                choice=number,
                field="content",
                count=count,
                entries=logprobs,
            )
        )
