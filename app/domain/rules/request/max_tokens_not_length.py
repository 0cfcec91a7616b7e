"""max-tokens-not-length: the answer was cut at max_tokens but the finish reason is not length."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import Finish, Usage
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..chat.family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    request = evidence.request
    if request is None or not request.max_tokens:
        return
    usages = evidence.of(Usage)
    tokens = usages[-1].usage.get("completion_tokens") if usages else None
    if type(tokens) is not int or tokens < request.max_tokens:
        return
    for finish in evidence.of(Finish):
        if finish.reason not in ("length", ""):
            yield Hit(
                f"{tokens} completion tokens of max_tokens {request.max_tokens}, "
                f"but choice {finish.choice} finished with {finish.reason!r}",
                finish.raw,
            )
            return


RULE = Rule(
    id="max-tokens-not-length",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="cut at max_tokens, finish not length",
    what="The completion used all of the request's `max_tokens` (by its usage) but finished with another reason than `length`.",
    why="`length` is how a client knows the answer was cut; with `stop` a truncated answer looks complete.",
    breaks=('clients that continue or warn on `finish_reason == "length"`',),
    sources=(
        "https://github.com/llm-d/llm-d-inference-sim/issues/29",
        "https://github.com/ggml-org/llama.cpp/issues/7198",
        "https://github.com/mudler/LocalAI/pull/10448",
    ),
    check=check,
    needs_request=True,
)
