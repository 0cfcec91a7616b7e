"""top-logprobs-count: top_logprobs asked for k alternatives, another number came."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..chat.family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    request = evidence.request
    if request is None or not request.top_logprobs:
        return
    first, entry = evidence.first_logprobs, evidence.first_logprob_entry
    if entry is None or first is None:
        return
    got = entry.get("top_logprobs")
    count = len(got) if isinstance(got, list) else 0
    if count != request.top_logprobs:
        yield Hit(
            f"top_logprobs asked for {request.top_logprobs}, the first token has {count}", first.raw
        )


RULE = Rule(
    id="top-logprobs-count",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="top_logprobs count",
    what="The request asked for `top_logprobs: k` and the entries carry another number of alternatives.",
    why="Alternative views and calibration tools expect k alternatives per token.",
    breaks=("tools that show or score the top-k alternatives",),
    sources=(
        "https://github.com/InternLM/lmdeploy/issues/1548",
        "https://github.com/huggingface/text-generation-inference/issues/2108",
    ),
    check=check,
    needs_request=True,
)
