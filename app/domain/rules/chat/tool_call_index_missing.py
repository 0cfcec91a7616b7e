"""tool-call-index-missing: tool-call fragments without an ``index``."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted, times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    return sighted(
        evidence,
        "tool_index_missing",
        lambda n, _: times(n, "a tool-call fragment came without an index"),
    )


RULE = Rule(
    id="tool-call-index-missing",
    dialects=CHAT_FAMILY,
    severity="error",
    title="tool-call fragment without index",
    what="A `tool_calls` fragment in a delta has no `index` (or `index: null`).",
    why="The spec gives every fragment the index of the call it belongs to and clients merge "
    "fragments by it: without one a client cannot tell a new call from the rest of the last.",
    breaks=(
        "openai-python 3.57 `ChatCompletionStreamState` / `chat.completions.stream` (TypeError: "
        "list indices must be integers or slices, not NoneType)",
        "Vercel AI SDK `@ai-sdk/openai` 3.0 (AI_TypeValidationError: its chunk schema wants an "
        "index)",
        "OpenLLMetry's OpenAI instrumentation (crash)",
    ),
    sources=(
        "https://github.com/ollama/ollama/issues/7881",
        "https://github.com/openai/openai-python/issues/2806",
        "https://github.com/traceloop/openllmetry/issues/3697",
    ),
    check=check,
)
