"""empty-choices-chunk: a chunk with choices: [] that is not the usage chunk."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted, times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    return sighted(evidence, "empty_choices", _describe)


def _describe(count: int, keys: list[str]) -> str:
    besides = f" (it has {', '.join(keys)})" if keys else ""
    return times(count, "a chunk came with choices: [] and no usage") + besides


RULE = Rule(
    id="empty-choices-chunk",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="chunk with empty choices",
    what="A chunk has `choices: []` and no `usage` (Azure's first chunk with `prompt_filter_results`, a trailing filter chunk).",
    why="Clients that read `chunk.choices[0]` on every chunk raise IndexError.",
    breaks=(
        "Langfuse (IndexError)",
        "pydantic-ai",
        "logfire",
        "Portkey gateway (crash)",
        "AutoGen (a trailing filter chunk)",
    ),
    sources=(
        "https://github.com/langfuse/langfuse/issues/2833",
        "https://github.com/Portkey-AI/gateway/issues/1629",
        "https://github.com/microsoft/autogen/issues/6465",
    ),
    check=check,
)
