"""role-repeated: the role sent on more than the first delta of a choice."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    seen: set[int] = set()
    for sighting in evidence.sightings.samples("role"):
        choice, role = sighting.value
        if choice in seen and role:
            count = evidence.sightings.count("role") - len(seen)
            yield Hit(f"choice {choice} sent its role {role!r} again", sighting.raw, count)
            return
        seen.add(choice)


RULE = Rule(
    id="role-repeated",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="role repeated",
    what="A choice's delta carries `role` again after its first chunk.",
    why="The role comes once, on the first delta. Clients that accumulate deltas concatenate it: `assistantassistant`.",
    breaks=("openai-python `ChatCompletionStreamState` (role `assistantassistant`)",),
    sources=("https://github.com/ollama/ollama/issues/17166",),
    check=check,
)
