"""usage-with-choices: the usage chunk still has choices."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    if evidence.sightings.count("usage_with_choices") == 1:
        yield from sighted(
            evidence, "usage_with_choices", lambda n, _: "the usage chunk has non-empty choices"
        )


RULE = Rule(
    id="usage-with-choices",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="usage chunk with choices",
    what="The one chunk that carries `usage` also carries non-empty `choices`.",
    why="The spec's usage chunk has `choices: []`; clients that handle a usage chunk apart count its choice twice or drop it.",
    breaks=("LangChain.js (usage double-counted)",),
    sources=("https://github.com/BerriAI/litellm/issues/28735",),
    check=check,
)
