"""tool-call-index-missing: tool-call fragments without an ``index``."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    sightings = evidence.sightings
    first = sightings.first("tool_index_missing")
    if first is not None:
        count = sightings.count("tool_index_missing")
        yield Hit(f"{count} tool-call fragment(s) without an index", first.raw, count)


RULE = Rule(
    id="tool-call-index-missing",
    dialects=CHAT_FAMILY,
    severity="error",
    title="tool-call fragment without index",
    what="A `tool_calls` fragment in a delta has no `index` (or `index: null`).",
    why="The spec gives every fragment the index of the call it belongs to; clients merge "
    "fragments by it. Without it a client cannot tell a new call from the rest of the last one.",
    breaks=(
        "openai-python `ChatCompletionStreamState` / `chat.completions.stream` (TypeError or "
        "KeyError on a missing index)",
        "OpenLLMetry's OpenAI instrumentation (crash)",
        "logfire",
    ),
    sources=(
        "https://github.com/ollama/ollama/issues/7881",
        "https://github.com/openai/openai-python/issues/2806",
        "https://github.com/traceloop/openllmetry/issues/3697",
    ),
    check=check,
)
