"""choice-index-unexpected: a choice index the request did not ask for, or a new one on every chunk."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    new = evidence.sightings
    count = new.count("choice_new")
    if count < 2:
        return
    asked = evidence.request.n if evidence.request is not None else None
    if asked is not None:
        for sighting in new.samples("choice_new"):
            if sighting.value >= asked:
                yield Hit(
                    f"choice {sighting.value} came, but the request asked for n={asked}",
                    sighting.raw,
                )
                return
    elif count >= 3 and count * 2 > evidence.metrics.chunks:
        first = new.samples("choice_new")[1]
        yield Hit(
            f"{count} choice indices in {evidence.metrics.chunks} chunks: a new choice on almost every chunk",
            first.raw,
            count,
        )


RULE = Rule(
    id="choice-index-unexpected",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="unexpected choice index",
    what="A chunk's choice `index` is one the request's `n` did not ask for (0 to n-1), or each chunk opens a new choice.",
    why="Clients assemble one message per choice index: text spread over indices comes out as many one-token answers, and `choices[0]` holds a fragment.",
    breaks=(
        "openai-python `ChatCompletionStreamState` (one choice per index)",
        "Vercel AI SDK (reads choice 0)",
    ),
    sources=(
        "https://github.com/microsoft/foundry-local/issues/144",
        "https://github.com/vercel/ai/issues/4031",
    ),
    check=check,
)
