"""The commonest Ollama line read in one step (fastpath.py, ``FastPath``): a line that is not
the last (``done: false``), of the same model, with message content or thinking (``/api/chat``)
or a response (``/api/generate``), no tool calls, logprobs or other fields; read as
``OllamaInterpreter.value`` reads it. Anything else goes the full way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec
from msgspec import UNSET, UnsetType

from ...events import ReasoningDelta, TextDelta
from ...fastpath import FastPath

if TYPE_CHECKING:
    from ...events import RawEvent
    from .interpreter import OllamaInterpreter


class _Message(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    role: str | None = None
    content: str | None = None
    thinking: str | None = None


class _Line(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    done: Literal[False]
    # Present or not matters to the full reading (a null model is a model change): UNSET.
    model: str | UnsetType = UNSET
    created_at: str | None = None
    message: _Message | UnsetType | None = UNSET
    response: str | UnsetType | None = UNSET
    thinking: str | None = None


def _read(it: OllamaInterpreter, raw: RawEvent, line: _Line) -> bool:
    first = it.first
    if first is None or (line.model is not UNSET and line.model != first.get("model")):
        return False  # a Meta event: the full way
    message = line.message
    if isinstance(message, _Message):
        text, thinking = message.content, message.thinking
    elif message is None or line.response is not UNSET:
        text = line.response if isinstance(line.response, str) else None
        thinking = line.thinking
    else:
        return False  # neither message nor response: not a line
    events, index, t = it.stream.events, raw.index, raw.t  # it.add, written out: per line
    if thinking:
        raw.choices = raw.reasoning = True
        events.append(
            ReasoningDelta(
                seq=len(events), raw=index, t=t, choice=0, text=thinking, field="thinking"
            )
        )
    if text:
        raw.choices = raw.output = True
        events.append(TextDelta(seq=len(events), raw=index, t=t, choice=0, text=text))
    return True


FAST = FastPath(msgspec.json.Decoder(_Line).decode, _read)
