"""logprobs-missing: logprobs asked for, none came."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..chat.family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    request = evidence.request
    if request is not None and request.logprobs and evidence.first_logprobs is None:
        yield Hit("the request set logprobs: true, but no chunk carried logprobs")


RULE = Rule(
    id="logprobs-missing",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="logprobs asked, none came",
    what="The request set `logprobs: true` but no chunk carried logprobs.",
    why="Servers that ignore the parameter leave every confidence and alternative view empty without an error.",
    breaks=("every client that asked for logprobs (silently empty)",),
    sources=(
        "https://docs.anthropic.com/en/api/openai-sdk",
        "https://github.com/ggml-org/llama.cpp/issues/10783",
    ),
    check=check,
    needs_request=True,
)
