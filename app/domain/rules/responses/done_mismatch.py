"""done-mismatch: a ``.done`` event's whole text or arguments differ from its deltas."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import each_sighted
from . import RESPONSES, SPEC


def check(evidence: Evidence) -> Iterator[Hit]:
    yield from each_sighted(evidence, "done_mismatch")


RULE = Rule(
    id="done-mismatch",
    dialects=RESPONSES,
    severity="warning",
    title=".done differs from its deltas",
    what="A `.done` event (`output_text.done`, `function_call_arguments.done`, ...) carries a "
    "whole text or arguments that are not the deltas before it put together.",
    why="The `.done` text is the deltas' sum. Clients that show the deltas and those that take "
    "the `.done` (or the final snapshot) then disagree on the answer: text trimmed, "
    "re-formatted or lost. Streamscope keeps the deltas.",
    breaks=(
        "openai-python `responses.stream` (its snapshot is built from the deltas, "
        "`get_final_response()` from the final event: the two differ)",
        "clients that take only `.done` text",
    ),
    sources=(
        "https://github.com/mlx-node/mlx-node/pull/45",
        SPEC,
    ),
    check=check,
)
