"""finish-reason-missing: a choice that ended without a finish reason."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import Done, StreamError
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY, unfinished


def check(evidence: Evidence) -> Iterator[Hit]:
    if not evidence.has(Done) or evidence.has(StreamError):
        return  # without [DONE] the stream was cut: stream-truncated says that
    for choice in unfinished(evidence):
        yield Hit(f"choice {choice} ended without a finish reason")


RULE = Rule(
    id="finish-reason-missing",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="no finish reason",
    what="The stream said it was done (`[DONE]`) but a choice never sent a `finish_reason`.",
    why="Clients cannot tell a complete answer from one cut at max_tokens or by a filter; some wait for a finish reason that never comes.",
    breaks=(
        "openai-python `chat.completions.stream` (`finish_reason` None in the final completion)",
        "clients that wait for a finish reason to close the message",
    ),
    sources=("https://github.com/vllm-project/vllm/issues/19662",),
    check=check,
)
