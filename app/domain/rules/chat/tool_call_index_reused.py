"""tool-call-index-reused: two tool calls with different ids on one index."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    return sighted(evidence, "tool_index_reused", _describe)


def _describe(count: int, value: tuple[object, object, object]) -> str:
    index, before, after = value
    return f"call {after!r} started on index {index}, which call {before!r} already held" + (
        "" if count == 1 else f" ({count} times)"
    )


RULE = Rule(
    id="tool-call-index-reused",
    dialects=CHAT_FAMILY,
    severity="error",
    title="two calls on one index",
    what="A fragment starts a new call (a new id and a name) on an index another call already holds.",
    why='Clients merge fragments by index: the second call\'s id, name and arguments are appended to the first\'s (`{"path":"a"}{"path":"b"}`), and one call is lost.',
    breaks=(
        "openai-python `ChatCompletionStreamState` (the calls merge into one)",
        "LiteLLM `ollama_chat` (arguments merged)",
    ),
    sources=(
        "https://github.com/ollama/ollama/issues/15457",
        "https://github.com/BerriAI/litellm/issues/33678",
    ),
    check=check,
)
