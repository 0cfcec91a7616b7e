"""chunk-id-changed: the chunk id changed within one stream."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted, times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    return sighted(evidence, "chunk_id_changed", _describe)


def _describe(count: int, value: tuple[object, object]) -> str:
    before, after = value
    return times(count, "the chunk id changed") + f" (first from {before!r} to {after!r})"


RULE = Rule(
    id="chunk-id-changed",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="chunk id changed",
    what="A chunk's `id` differs from the one before it in the same stream.",
    why="Every chunk of one response carries the response's id. A new id per chunk (or two responses spliced into one stream) splits traces and makes clients that key responses by id see several.",
    breaks=(
        "observability tools that group chunks by id (one trace per chunk)",
        "openai-python `ChatCompletionStreamState` keeps the first id",
    ),
    sources=(
        "https://github.com/BerriAI/litellm/issues/1571",
        "https://github.com/microsoft/foundry-local/issues/144",
    ),
    check=check,
)
