"""finish-reason-repeated: a choice's finish_reason sent more than once."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import Finish
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    counts: dict[int, int] = {}
    second: dict[int, int | None] = {}
    for finish in evidence.of(Finish):
        if finish.reason == "":
            continue  # finish-reason-empty says that
        counts[finish.choice] = counts.get(finish.choice, 0) + 1
        if counts[finish.choice] == 2:
            second[finish.choice] = finish.raw
    # Legacy completions keep a finish reason once: the reading sights it sent again.
    for sighting in evidence.sightings.samples("finish_again"):
        choice = sighting.value[0]
        second.setdefault(choice, sighting.raw)
        counts[choice] = max(counts.get(choice, 1), 2)
    for choice, raw in sorted(second.items(), key=lambda item: item[0]):
        yield Hit(f"choice {choice} sent a finish reason {counts[choice]} times", raw)


RULE = Rule(
    id="finish-reason-repeated",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="finish reason twice",
    what="One choice has a non-null `finish_reason` on more than one chunk.",
    why="The finish reason ends a choice: clients that close the message at the first one drop "
    "what comes after it, and clients that count them count two responses.",
    breaks=(
        "Qwen Code (OpenRouter's two `tool_calls` finish chunks)",
        "clients of gateways that put `stop` on every chunk",
    ),
    sources=(
        "https://github.com/sgl-project/sglang/issues/8417",
        "https://github.com/QwenLM/qwen-code/issues/2403",
        "https://github.com/QuantumNous/new-api/issues/378",
    ),
    check=check,
)
