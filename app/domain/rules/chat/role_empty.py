"""role-empty: a delta whose role is an empty string."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    for sighting in evidence.sightings.samples("role"):
        if sighting.value[1] == "":
            yield Hit(f'choice {sighting.value[0]} sent role ""', sighting.raw)
            return


RULE = Rule(
    id="role-empty",
    dialects=CHAT_FAMILY,
    severity="error",
    title='role ""',
    what='A delta carries `role: ""`.',
    why="`role` is `assistant` (or absent); schema-checking clients refuse the chunk.",
    breaks=(
        "Vercel AI SDK `@ai-sdk/openai-compatible` (type validation error)",
        "@langchain/openai `ChatOpenAI` (the delta becomes a ChatMessageChunk: its tool calls are dropped)",
    ),
    sources=(
        "https://github.com/vercel/ai/issues/15464",
        "https://github.com/langchain-ai/langchainjs/issues/11468",
    ),
    check=check,
)
