"""item-id-changed: an output item's id differs between its ``.added``, deltas and ``.done``."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import each_sighted
from . import RESPONSES, SPEC


def check(evidence: Evidence) -> Iterator[Hit]:
    yield from each_sighted(evidence, "item_id_changed")


RULE = Rule(
    id="item-id-changed",
    dialects=RESPONSES,
    severity="warning",
    title="output item id changed",
    what="An event for an output item names it by an `item_id` (or, at `output_item.done`, an "
    "`id`) other than the one `output_item.added` gave it.",
    why="An output item keeps one id from `output_item.added` through its deltas and "
    "`output_item.done` to the final `response.output`; clients correlate deltas with their "
    "item, and send the item back by id (`previous_response_id`, reasoning items). A server "
    "that mints a new id per event breaks that correlation. Streamscope reads events by "
    "`output_index`.",
    breaks=(
        "clients that key items by id (the Vercel AI SDK's OpenAI Responses provider keys text "
        "parts by `item_id`; the openai-agents SDK correlates streamed text with its item)",
    ),
    sources=(
        "https://github.com/EricLBuehler/mistral.rs/issues/1944",
        "https://github.com/smg-project/smg/issues/160",
        "https://github.com/BerriAI/litellm/pull/36375",
        SPEC,
    ),
    check=check,
)
