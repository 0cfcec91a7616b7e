"""The commonest legacy completions chunk read in one step (fastpath.py, ``FastPath``): the
response's id, model and the rest as before, no usage, choices with text and neither logprobs
nor a finish reason, read as ``CompletionsInterpreter._chunk`` reads it. Anything else goes the
full way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import msgspec

from ...events import TextDelta
from ...fastpath import FastPath

if TYPE_CHECKING:
    from ...events import RawEvent
    from .interpreter import CompletionsInterpreter

# orjson reads integers past 64 bits as floats (or refuses them): those go the full way.
Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Choice(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    text: str | None = None
    index: Int = 0
    logprobs: None = None
    finish_reason: None = None


class _Chunk(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    choices: list[_Choice]
    object: Literal["text_completion"]
    id: str | None = None
    created: Int | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    usage: None = None


def _read(it: CompletionsInterpreter, raw: RawEvent, chunk: _Chunk) -> bool:
    known = it.meta.get  # a field sent with a new value is a Meta event: the full way
    if (
        chunk.object != known("object")
        or (chunk.id and chunk.id != known("id"))
        or (chunk.created is not None and chunk.created != known("created"))
        or (chunk.model and chunk.model != known("model"))
        or (chunk.system_fingerprint and chunk.system_fingerprint != known("system_fingerprint"))
    ):
        return False
    choices = chunk.choices
    seen = it.seen
    if not choices or (
        choices[0].index not in seen if len(choices) == 1 else _any_unseen(choices, seen)
    ):
        return False  # a choice seen for the first time (or an invalid index): the full way
    it.chunks += 1
    raw.choices = True
    events = it.stream.events  # it.add, written out: this runs per chunk
    for choice in choices:
        if choice.text:
            raw.output = True
            events.append(
                TextDelta(
                    seq=len(events), raw=raw.index, t=raw.t, choice=choice.index, text=choice.text
                )
            )
    return True


def _any_unseen(choices: list[_Choice], seen: set[int]) -> bool:
    return any(choice.index not in seen for choice in choices)


decode = msgspec.json.Decoder(_Chunk).decode
FAST = FastPath(decode, _read)
