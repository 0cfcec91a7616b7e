"""The commonest Bedrock ConverseStream event read in one step (fastpath.py, ``FastPath``): a
``contentBlockDelta`` frame with text for a block already open (padding ``p`` allowed, as
AWS sends it); read as ``BedrockInterpreter._block_delta`` reads it. Anything else goes the
full way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import msgspec

from ...events import TextDelta
from ...fastpath import FastPath

if TYPE_CHECKING:
    from ...events import RawEvent
    from .interpreter import BedrockInterpreter

# orjson reads integers past 64 bits as floats (or refuses them): those go the full way.
Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Delta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    text: str
    p: str | None = None


class _BlockDelta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    contentBlockIndex: Int
    delta: _Delta
    p: str | None = None


def _read(it: BedrockInterpreter, raw: RawEvent, value: _BlockDelta) -> bool:
    index = value.contentBlockIndex
    if raw.event != "contentBlockDelta" or index < 0 or index not in it.blocks:
        return False
    raw.choices = raw.output = True
    events = it.stream.events  # it.add, written out: this runs per frame
    events.append(
        TextDelta(
            seq=len(events), raw=raw.index, t=raw.t, choice=0, text=value.delta.text, block=index
        )
    )
    return True


FAST = FastPath(msgspec.json.Decoder(_BlockDelta).decode, _read)
