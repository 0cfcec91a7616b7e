"""finish-reason-empty: finish_reason sent as an empty string."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import Finish
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    empty = [f for f in evidence.of(Finish) if f.reason == ""]
    if empty:
        yield Hit(times(len(empty), 'finish_reason was ""'), empty[0].raw, len(empty))


RULE = Rule(
    id="finish-reason-empty",
    dialects=CHAT_FAMILY,
    severity="warning",
    title='finish reason ""',
    what='A choice\'s `finish_reason` is `""` instead of `null` (or a reason).',
    why='A client takes any non-null finish reason as the end of the choice: with `""` on content chunks it closes the message at the first chunk, and `""` is no reason it can map.',
    breaks=(
        "clients that end a choice at its first non-null finish reason (the message ends at the first chunk)",
        'clients that map finish reasons ("" is none of them)',
    ),
    sources=(
        "https://github.com/sgl-project/sglang/issues/3912",
        "https://github.com/ollama/ollama/issues/4357",
    ),
    check=check,
)
