"""usage-choices-key-missing: a usage chunk without a choices key."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted, times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    return sighted(
        evidence,
        "usage_without_choices_key",
        lambda n, _: times(n, "usage came without a choices key"),
    )


RULE = Rule(
    id="usage-choices-key-missing",
    dialects=CHAT_FAMILY,
    severity="error",
    title="usage chunk without choices",
    what="A chunk carries `usage` but has no `choices` key at all.",
    why="The spec's usage chunk has `choices: []`; `choices` is a required field of a chunk.",
    breaks=("openai-python (a chunk without `choices` fails validation)",),
    sources=("https://github.com/ROCm/ATOM/issues/1711",),
    check=check,
)
