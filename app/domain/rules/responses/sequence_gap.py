"""sequence-gap: ``sequence_number`` skips, repeats or goes back."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import each_sighted
from . import RESPONSES, SPEC


def check(evidence: Evidence) -> Iterator[Hit]:
    yield from each_sighted(evidence, "sequence_gap")


RULE = Rule(
    id="sequence-gap",
    dialects=RESPONSES,
    severity="warning",
    title="sequence_number gap",
    what="An event's `sequence_number` is not the one after the event before it: it skips "
    "(events missing) or repeats or goes back (events repeated or out of order).",
    why="Every Responses streaming event carries a `sequence_number`, one more than the last; "
    "clients order events by it and resume a dropped stream after the last one they applied "
    "(`starting_after`). A gap means events were lost (text, arguments) or renumbered by a "
    "proxy that edits the stream; a resumed client skips or repeats what lies in it.",
    breaks=(
        "clients that resume or order by `sequence_number` (strict Responses parsers reject "
        "or mis-order the stream)",
    ),
    sources=(
        "https://github.com/ENTERPILOT/GoModel/pull/953",
        "https://github.com/SamSaffron/term-llm/pull/878",
        SPEC,
    ),
    check=check,
)
