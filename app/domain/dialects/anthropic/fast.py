"""The commonest Anthropic Messages payload read in one step (fastpath.py, ``FastPath``): a
``content_block_delta`` carrying text or thinking for a block that was started, read as
``AnthropicInterpreter._block_delta`` reads it. Anything else goes the full way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import msgspec

from ...events import ReasoningDelta, TextDelta
from ...fastpath import FastPath

if TYPE_CHECKING:
    from ...events import RawEvent
    from .interpreter import AnthropicInterpreter

# orjson reads integers past 64 bits as floats (or refuses them): those go the full way.
Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Delta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    type: Literal["text_delta", "thinking_delta"]
    text: str | None = None
    thinking: str | None = None


class _BlockDelta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    type: Literal["content_block_delta"]
    index: Int
    delta: _Delta


def _read(it: AnthropicInterpreter, raw: RawEvent, value: _BlockDelta) -> bool:
    block = it.blocks.get(value.index)
    if block is None or block.stopped:  # never started, or stopped: the full reading says so
        return False
    delta, events = value.delta, it.stream.events  # it.add, written out: this runs per event
    if delta.type == "text_delta" and delta.text is not None:
        raw.choices = raw.output = True
        events.append(
            TextDelta(
                seq=len(events),
                raw=raw.index,
                t=raw.t,
                choice=0,
                text=delta.text,
                block=value.index,
            )
        )
        return True
    if delta.type == "thinking_delta" and delta.thinking is not None:
        raw.choices = raw.reasoning = True
        events.append(
            ReasoningDelta(
                seq=len(events),
                raw=raw.index,
                t=raw.t,
                choice=0,
                text=delta.thinking,
                field="thinking",
                block=value.index,
            )
        )
        return True
    return False


FAST = FastPath(msgspec.json.Decoder(_BlockDelta).decode, _read)
