"""choices-count: the request's n and the choices that came differ."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..chat.family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    request = evidence.request
    if request is None:
        return
    asked = request.n if request.n is not None else 1
    got = evidence.sightings.count("choice_new")
    if got and got != asked:
        yield Hit(f"the request asked for n={asked}, {got} choice(s) came")


RULE = Rule(
    id="choices-count",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="n asked, other count came",
    what="The request asked for `n` choices and another number of choices came.",
    why="Clients index the choices they asked for: missing ones are empty answers, extra ones are dropped.",
    breaks=(
        "Anthropic's OpenAI compatibility (n must be 1)",
        "SGLang with n > 1 (only the last index finished)",
    ),
    sources=(
        "https://github.com/sgl-project/sglang/issues/8417",
        "https://docs.anthropic.com/en/api/openai-sdk",
    ),
    check=check,
    needs_request=True,
)
