"""tool-call-arguments-not-string: tool-call arguments sent as a JSON object, not a string."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted, times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    return sighted(
        evidence,
        "tool_args_not_string",
        lambda n, _: times(n, "arguments came as JSON, not as a string"),
    )


RULE = Rule(
    id="tool-call-arguments-not-string",
    dialects=CHAT_FAMILY,
    severity="error",
    title="arguments not a string",
    what="A fragment's `function.arguments` is a JSON object (or another non-string) instead of a string of JSON text.",
    why="The spec makes arguments a string that clients concatenate fragment by fragment and parse at the end; an object cannot be concatenated.",
    breaks=(
        "Vercel AI SDK (its chunk schema wants `arguments` as a string)",
        "clients that concatenate argument strings (a TypeError on the object)",
    ),
    sources=("https://github.com/huggingface/text-generation-inference/issues/2136",),
    check=check,
)
