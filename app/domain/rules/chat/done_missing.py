"""done-missing: the stream ended without data: [DONE]."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY, all_finished


def check(evidence: Evidence) -> Iterator[Hit]:
    if "done_missing" in evidence.sightings and all_finished(evidence):
        yield Hit("every choice finished, but data: [DONE] never came")


RULE = Rule(
    id="done-missing",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="no [DONE]",
    what="Every choice finished, but the stream ended without `data: [DONE]`.",
    why="`[DONE]` is how an OpenAI stream says it is over; clients that wait for it hang until the connection closes, or report the stream as cut.",
    breaks=("clients that read until `[DONE]` (they wait for the socket to close)",),
    sources=(
        "https://github.com/ikawrakow/ik_llama.cpp/issues/467",
        "https://github.com/deepseek-ai/DeepSeek-V3/issues/1608",
    ),
    check=check,
)
