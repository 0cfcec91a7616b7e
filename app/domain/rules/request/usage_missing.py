"""usage-missing: usage asked for, none came."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import Usage
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..chat.family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    request = evidence.request
    if request is not None and request.include_usage and not evidence.has(Usage):
        yield Hit("stream_options.include_usage was true, but no usage came")


RULE = Rule(
    id="usage-missing",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="usage asked, none came",
    what="The request set `stream_options.include_usage: true`, but no usage came.",
    why="Token accounting for streamed calls depends on that last usage chunk; without it cost and quota tools count nothing.",
    breaks=(
        "Langfuse, LlamaIndex, Phoenix and every cost tracker (no token usage for the streamed call)",
    ),
    sources=("https://github.com/openai/openai-openapi/pull/240",),
    check=check,
    needs_request=True,
)
