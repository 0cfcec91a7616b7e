"""Gemini ``streamGenerateContent`` streams (docs/dialects.md, "Gemini").

Every payload is a whole ``GenerateContentResponse`` chunk: SSE ``data:`` lines with
``alt=sse``, or the elements of ONE JSON array streamed element by element without it (the
``json`` capture reader gives each element as a payload). A chunk holds ``candidates`` (the
candidate index is the output), each with ``content.parts`` (answer ``text``, ``thought: true``
text, ``functionCall`` whole or streamed by Vertex as ``partialArgs``, ``executableCode``,
``codeExecutionResult``, ...), ``finishReason`` (a name, or an integer in some clients' output:
kept as sent), ``safetyRatings``, ``groundingMetadata`` and ``citationMetadata``; and at the top
``usageMetadata`` (cumulative, often on every chunk), ``modelVersion``, ``responseId`` and, for
a blocked prompt, ``promptFeedback.blockReason``.

Each candidate is read by ``app/domain/dialects/gemini/candidate.py`` (its parts as blocks, for the player's
lanes), its function calls by ``app/domain/dialects/gemini/calls.py``; the final object is assembled in
``app/domain/dialects/gemini/assemble.py``.
"""

from __future__ import annotations

from typing import Any

from ...events import Extra, Meta, RawEvent, Usage
from ...interpret import PayloadInterpreter
from ...stream import Stream
from ..base import SHAPED, Dialect, Sniffed, UsageFields
from ..unknown import GEMINI_LIVE
from . import labels
from .assemble import assemble
from .candidate import CandidateReader
from .fast import FAST, shared

NAME = "gemini"
META_KEYS = ("modelVersion", "responseId", "createTime")
KNOWN_KEYS = frozenset({*META_KEYS, "candidates", "usageMetadata", "promptFeedback"})
PLAIN_KEYS = KNOWN_KEYS - {"promptFeedback"}  # a chunk with only these has no extras


class GeminiInterpreter(PayloadInterpreter):
    dialect = NAME
    fast = FAST  # app/domain/dialects/gemini/fast.py (reads candidates, identity and usage)

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self.candidates: dict[int, CandidateReader] = {}
        self._meta: dict[str, Any] = {}
        self.identity: tuple[Any, ...] | None = None
        self._extras: dict[str, Any] = {}
        self.usage: Any = None

    def value(self, raw: RawEvent, value: Any) -> None:
        if not isinstance(value, dict):
            self.other(raw, value)
            return
        if "error" in value:
            self.error(raw, value["error"])
            return
        candidates = value.get("candidates")
        if candidates is None and sniff(raw.event, value) is None:
            self.other(raw, value)
            return
        self._meta_of(raw, value)
        if isinstance(candidates, list):
            for position, candidate in enumerate(candidates):
                self._candidate(raw, position, candidate)
        elif candidates is not None:
            self.note(raw, "candidate_shape", "error", "candidates is not a list; not read")
        if not PLAIN_KEYS.issuperset(value):
            self._chunk_extras(raw, value)
        usage = value.get("usageMetadata")
        if isinstance(usage, dict) and usage != self.usage:
            self.usage = usage = shared(usage, self.usage)
            self.add(Usage(usage=usage, source="usageMetadata"), raw)

    def close(self) -> None:
        for _, reader in sorted(self.candidates.items()):
            reader.end(None)
        finished = any(reader.finished for reader in self.candidates.values())
        if self.candidates and not finished and not self.errored:
            self.sight(None, "final_missing", "a finishReason")

    # ------------------------------------------------------------------ the chunk
    def _meta_of(self, raw: RawEvent, value: dict[str, Any]) -> None:
        identity = (value.get("modelVersion"), value.get("responseId"), value.get("createTime"))
        if identity == self.identity:
            return
        self.identity = identity
        changed = {k: value[k] for k in META_KEYS if k in value and self._meta.get(k) != value[k]}
        if changed:
            self._meta.update(changed)
            self.add(Meta(fields=changed), raw)

    def _chunk_extras(self, raw: RawEvent, value: dict[str, Any]) -> None:
        changed = {
            k: v
            for k, v in value.items()
            if (k == "promptFeedback" or k not in KNOWN_KEYS) and self._extras.get(k) != v
        }
        if not changed:
            return
        self._extras.update(changed)
        self.add(Extra(scope="chunk", choice=None, fields=changed), raw)
        feedback = changed.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason") is not None:
            reason = feedback["blockReason"]
            text = f"the prompt was blocked ({reason})"
            if feedback.get("blockReasonMessage"):
                text += f": {feedback['blockReasonMessage']}"
            self.error(raw, {"message": text, **feedback}, code=reason)

    def _candidate(self, raw: RawEvent, position: int, candidate: Any) -> None:
        if not isinstance(candidate, dict):
            self.note(raw, "candidate_shape", "error", f"candidate {position} is not an object")
            return
        index = candidate.get("index", position)
        if not isinstance(index, int) or isinstance(index, bool):
            index = position
        reader = self.candidates.get(index)
        if reader is None:
            reader = self.candidates[index] = CandidateReader(self, index)
        reader.read(raw, candidate)


# ---------------------------------------------------------------------- registration
def sniff(event: str | None, value: dict[str, Any]) -> Sniffed | None:
    if GEMINI_LIVE.intersection(value):  # the Live API's messages: not this dialect's chunks
        return None
    for key in ("candidates", "promptFeedback", "usageMetadata"):
        if key in value:
            return SHAPED, key
    return None


GEMINI = Dialect(
    name=NAME,
    title="Gemini streamGenerateContent",
    interpreter=GeminiInterpreter,
    sniff=sniff,
    assemble=assemble,
    usage=UsageFields(
        "usageMetadata",
        "promptTokenCount",
        "candidatesTokenCount",
        "thoughtsTokenCount",
        "cachedContentTokenCount",
    ),
    usage_help={
        "promptTokenCount": "tokens in the prompt (with cached content)",
        "cachedContentTokenCount": "prompt tokens read from cached content",
        "candidatesTokenCount": "tokens generated in all candidates (without thoughts)",
        "thoughtsTokenCount": "tokens of thinking",
        "toolUsePromptTokenCount": "tokens of tool results fed back (code execution, search)",
        "totalTokenCount": "prompt + candidates + thoughts + tool-use prompt tokens",
    },
    no_arguments=None,  # a functionCall without args: the SDK's FunctionCall.args is None
    usage_replaces=True,  # usageMetadata with every chunk, the last one kept (app/domain/dialects/gemini/assemble.py)
    labels=labels.LABELS,
    view=labels.view,
)
