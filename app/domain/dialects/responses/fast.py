"""The commonest OpenAI Responses event read in one step (fastpath.py, ``FastPath``): an
``output_text.delta`` for an output item already added, next in sequence, with no logprobs
(or an empty list); ``ResponsesInterpreter.read_fast`` reads it as ``_text_delta`` does.
Anything else goes the full way."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

# orjson reads integers past 64 bits as floats (or refuses them): those go the full way.
Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class TextDeltaEvent(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    type: Literal["response.output_text.delta"]
    output_index: Int
    delta: str
    content_index: Int | None = None
    item_id: str | None = None
    sequence_number: Int | None = None
    logprobs: Annotated[list[Any], msgspec.Meta(max_length=0)] | None = None
    obfuscation: str | None = None


decode = msgspec.json.Decoder(TextDeltaEvent).decode
