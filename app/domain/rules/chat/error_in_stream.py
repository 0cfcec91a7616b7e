"""error-in-stream: an error object inside a 200 stream."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...events import StreamError
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    errors = evidence.of(StreamError)
    if errors:
        error = errors[0]
        shape = "in OpenAI's shape" if openai_shaped(error.error) else "not in OpenAI's shape"
        yield Hit(
            f"an error inside the stream ({shape}): {error.message[:200]}", error.raw, len(errors)
        )


def openai_shaped(error: Any) -> bool:
    """OpenAI's error object: a message and a type, as strings."""
    return (
        isinstance(error, dict)
        and isinstance(error.get("message"), str)
        and isinstance(error.get("type"), str)
    )


RULE = Rule(
    id="error-in-stream",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="error inside the stream",
    what='A payload of the stream is an error (`{"error": ...}` or an `event: error`), after the response began as a success.',
    why='The status said 200, so only clients that look at each payload see the failure; the error\'s shape decides whether they can read it (OpenAI\'s is `{"error": {"message", "type", "param", "code"}}`).',
    breaks=(
        "openai-python (raises APIError for a payload with an `error` key, its message from `error.message`)",
        "clients that trust the status code (the error is taken as content, or dropped)",
    ),
    sources=(
        "https://github.com/ggml-org/llama.cpp/issues/16109",
        "https://github.com/ggml-org/llama.cpp/issues/14566",
        "https://github.com/huggingface/text-generation-inference/issues/2668",
    ),
    check=check,
)
