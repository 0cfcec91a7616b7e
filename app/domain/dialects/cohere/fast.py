"""The commonest Cohere v2 payload read in one step (fastpath.py, ``FastPath``): a
``content-delta`` with text or thinking for a content block that was started, read as
``CohereInterpreter._content_delta`` reads it. Anything else goes the full way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import msgspec

from ...events import ReasoningDelta, TextDelta
from ...fastpath import FastPath

if TYPE_CHECKING:
    from ...events import RawEvent
    from .interpreter import CohereInterpreter

# orjson reads integers past 64 bits as floats (or refuses them): those go the full way.
Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Content(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    text: str | None = None
    thinking: str | None = None


class _Message(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: _Content


class _Delta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    message: _Message


class _ContentDelta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    type: Literal["content-delta"]
    index: Int
    delta: _Delta


def _read(it: CohereInterpreter, raw: RawEvent, value: _ContentDelta) -> bool:
    index = value.index
    if index < 0 or index not in it.open_blocks:  # the full reading says what is wrong
        return False
    content = value.delta.message.content
    events, number, t = it.stream.events, raw.index, raw.t  # it.add, written out: per event
    if content.thinking:
        raw.choices = raw.reasoning = True
        events.append(
            ReasoningDelta(
                seq=len(events),
                raw=number,
                t=t,
                choice=0,
                text=content.thinking,
                field="thinking",
                block=index,
            )
        )
    if content.text:
        raw.choices = raw.output = True
        events.append(
            TextDelta(seq=len(events), raw=number, t=t, choice=0, text=content.text, block=index)
        )
    return True


FAST = FastPath(msgspec.json.Decoder(_ContentDelta).decode, _read)
