"""The common chat-completion chunk read in one step (docs/assembly.md is unchanged by it).

Most chunks of a stream have one shape: the response's id and model as before, no usage, and
choices whose delta holds only text (``content``, ``reasoning_content`` or ``reasoning``),
with or without logprobs and without a finish reason. ``msgspec`` decodes such a payload
straight into the typed structures below (checking every type and refusing any other key as it
reads), and ``read_fast`` turns them into the events the full reading would give, without
building a dict per object and walking it by hand.

Anything else (the first chunk, a finish or usage chunk, tool calls, refusals, extras, an id or
model that changed, a choice seen for the first time, text that is not exact JSON) is refused
before anything is recorded, and the full reading takes it (chat.py, chunks.py). msgspec may
accept inside a ``Raw`` what orjson refuses (invalid UTF-8, 1e400): a ``Raw`` is read with
``orjson`` before use, so the fast path accepts only payloads orjson reads, and reads them as
the full path does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec
import orjson

from ..events import Logprobs, ReasoningDelta, TextDelta
from ..jsontext import too_deep

if TYPE_CHECKING:
    from ..events import RawEvent
    from .chat import ChatInterpreter

NULL = msgspec.Raw(b"null")


class _Delta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None


class _Logprobs(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: msgspec.Raw = NULL
    refusal: None = None


class _Choice(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    delta: _Delta
    index: int = 0
    logprobs: _Logprobs | None = None
    finish_reason: None = None


class _Chunk(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    choices: list[_Choice]
    id: str | None = None
    object: Literal["chat.completion.chunk"] | None = None
    created: int | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    service_tier: str | None = None
    usage: None = None


_decode = msgspec.json.Decoder(_Chunk).decode
_REFUSED = (msgspec.ValidationError, msgspec.DecodeError)


def read_fast(it: ChatInterpreter, raw: RawEvent, data: bytes) -> bool:
    """Read one payload of the common shape (module docstring) into ``it``'s stream; False,
    with nothing recorded, when it is not one."""
    try:
        chunk = _decode(data)
    except _REFUSED:
        return False
    meta = it.meta
    if not meta or not chunk.choices:
        return False
    chunk_id = chunk.id
    if chunk_id and (chunk_id != meta.get("id") or it.first_id is None):
        return False
    for key in ("model", "system_fingerprint"):
        value = getattr(chunk, key)
        if value and value != meta.get(key):
            return False
    readers = it.choices
    kept: list[tuple[bytes, int] | None] = []
    for choice in chunk.choices:
        if choice.index not in readers:
            return False
        lp = choice.logprobs
        if lp is None or lp.content == NULL:
            kept.append(None)
            continue
        if too_deep(data):
            return False
        try:
            entries = orjson.loads(memoryview(lp.content))
        except orjson.JSONDecodeError:
            return False
        if not entries:
            kept.append(None)
        elif isinstance(entries, list):
            # Sliced: an exact-size copy, as chunks.py keeps it.
            kept.append((orjson.dumps(entries)[1:-1], len(entries)))
        else:
            return False
    it.text = data
    raw.choices = True
    events = it.stream.events
    index, t = raw.index, raw.t
    for choice, logprobs in zip(chunk.choices, kept, strict=True):
        number, delta = choice.index, choice.delta
        for field in ("reasoning_content", "reasoning"):
            text = getattr(delta, field)
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
            readers[number].sent_text.add("content")
            events.append(TextDelta(seq=len(events), raw=index, t=t, choice=number, text=content))
        elif content == "":
            readers[number].sent_empty.add("content")
        if logprobs is not None:
            events.append(
                Logprobs(
                    seq=len(events),
                    raw=index,
                    t=t,
                    choice=number,
                    field="content",
                    count=logprobs[1],
                    entries=logprobs[0],
                )
            )
    return True
