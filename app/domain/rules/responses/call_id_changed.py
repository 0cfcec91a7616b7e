"""call-id-changed: a function call's ``call_id`` differs between its added and done item."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import each_sighted
from . import RESPONSES, SPEC


def check(evidence: Evidence) -> Iterator[Hit]:
    yield from each_sighted(evidence, "call_id_changed")


RULE = Rule(
    id="call-id-changed",
    dialects=RESPONSES,
    severity="warning",
    title="function call_id changed",
    what="A `function_call` item's `call_id` at `output_item.done` is not the one its "
    "`output_item.added` gave.",
    why="The `call_id` is what the client's `function_call_output` names to answer the call. "
    "A client that issues the call as it is added answers with the first id, one that waits "
    "for the done item with the second: one of them sends an output the API does not match to "
    "the call (a 400, or a tool result detached from its call). Streamscope takes the done "
    "item's id.",
    breaks=(
        "clients that take the call from `output_item.added` (streaming agents that start the "
        "tool early)",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/pull/47916",
        SPEC,
    ),
    check=check,
)
