"""stream-truncated: the stream ended without its dialect's final event."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import StreamError
from ...findings.engine import ANY
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..chat.family import all_finished


def check(evidence: Evidence) -> Iterator[Hit]:
    if evidence.has(StreamError):
        return  # the stream said why it ended: error-in-stream
    final = evidence.sightings.first("final_missing")
    if final is not None:
        yield Hit(f"the stream ended without {final.value}")
    elif "done_missing" in evidence.sightings and not all_finished(evidence):
        yield Hit("the stream ended without data: [DONE] and before every choice finished")


RULE = Rule(
    id="stream-truncated",
    dialects=ANY,
    severity="warning",
    title="stream cut short",
    what="The stream ended before the event its dialect ends with: `[DONE]` or a finish reason in chat completions, `message_stop` (Anthropic, Bedrock), `response.completed` (Responses), a `finishReason` (Gemini), `done: true` (Ollama), `message-end` (Cohere).",
    why="A cut stream looks like a short answer to most clients: the text is kept and nothing says it is incomplete.",
    breaks=("every client that keeps a partial answer without saying so",),
    sources=(
        "https://github.com/deepseek-ai/DeepSeek-V3/issues/1608",
        "https://github.com/ikawrakow/ik_llama.cpp/issues/467",
    ),
    check=check,
)
