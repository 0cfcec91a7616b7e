"""The commonest Gemini chunk read in one step (fastpath.py, ``FastPath``): one candidate
already seen, with one text (or thought) part that goes on with its open block, no finish
reason, the same model and response id, and usage counters; read as ``GeminiInterpreter.value``
and ``CandidateReader.read`` read it. Anything else goes the full way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from ...events import ReasoningDelta, TextDelta, Usage
from ...fastpath import FastPath

if TYPE_CHECKING:
    from ...events import RawEvent
    from .interpreter import GeminiInterpreter

# orjson reads integers past 64 bits as floats (or refuses them): those go the full way.
Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
# Usage counters as orjson reads them: every value typed, so none is read otherwise.
UsageValue = Int | str | list[dict[str, str | Int]]


class _Part(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    text: str
    thought: bool | None = None


class _Content(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    parts: list[_Part]
    role: str | None = None


class _Candidate(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: _Content
    index: Int | None = None
    finishReason: None = None


class _Chunk(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    candidates: list[_Candidate]
    usageMetadata: dict[str, UsageValue] | None = None
    modelVersion: str | None = None
    responseId: str | None = None
    createTime: str | None = None


def _read(it: GeminiInterpreter, raw: RawEvent, chunk: _Chunk) -> bool:
    if (chunk.modelVersion, chunk.responseId, chunk.createTime) != it.identity:
        return False
    if len(chunk.candidates) != 1 or len(chunk.candidates[0].content.parts) != 1:
        return False
    candidate = chunk.candidates[0]
    index = candidate.index if candidate.index is not None else 0
    reader = it.candidates.get(index)
    part = candidate.content.parts[0]
    kind = "thought" if part.thought is True else "text"
    if reader is None or reader.block is None or reader.kind != kind or reader.sealed:
        return False  # a block opens (or there is no reader yet): the full way
    text = part.text
    events = it.stream.events  # it.add, written out: this runs per chunk
    if text and kind == "thought":
        raw.choices = raw.reasoning = True
        events.append(
            ReasoningDelta(
                seq=len(events),
                raw=raw.index,
                t=raw.t,
                choice=index,
                text=text,
                field="thought",
                block=reader.block,
            )
        )
    elif text:
        raw.choices = raw.output = True
        events.append(
            TextDelta(
                seq=len(events), raw=raw.index, t=raw.t, choice=index, text=text, block=reader.block
            )
        )
    usage: Any = chunk.usageMetadata
    if usage is not None and usage != it.usage:
        it.usage = usage = shared(usage, it.usage)
        events.append(
            Usage(seq=len(events), raw=raw.index, t=raw.t, usage=usage, source="usageMetadata")
        )
    return True


def shared(usage: dict[str, Any], before: Any) -> dict[str, Any]:
    """``usage`` with each list that equals the one the last usage held replaced by that very
    list. Gemini sends its usage with every chunk, token details and all, and only the counts
    change: a 100k-chunk stream kept 100k copies of the same details (docs/performance.md,
    "The collector"). Nothing changes a usage object once read, so sharing is safe."""
    if isinstance(before, dict):
        for key, value in usage.items():
            if type(value) is list and value == before.get(key):
                usage[key] = before[key]
    return usage


FAST = FastPath(msgspec.json.Decoder(_Chunk).decode, _read)
