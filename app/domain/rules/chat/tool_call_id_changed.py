"""tool-call-id-changed: a tool call's id that changes, or the whole id sent again on every fragment."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted, times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    yield from sighted(
        evidence,
        "tool_id_repeated",
        lambda n, value: times(n, f"the call's whole id {value!r} was sent again"),
    )
    yield from sighted(
        evidence,
        "tool_id_changed",
        lambda n, value: times(n, f"call {value[1]!r} went on under the id {value[2]!r}"),
    )


RULE = Rule(
    id="tool-call-id-changed",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="tool-call id changed or repeated",
    what="A fragment continuing a call carries a different id, or repeats the call's whole id.",
    why="The id is sent once, on the call's first fragment. Clients that accumulate fragments concatenate strings: a repeated id becomes `abcabc`, and the tool result sent back under it matches no call; a changed id splits one call in two.",
    breaks=(
        "openai-python `ChatCompletionStreamState` (ids concatenate)",
        "langchain4j (id `abcabc`)",
        "pool (id changes after the first chunk)",
    ),
    sources=(
        "https://github.com/langchain4j/langchain4j/issues/4544",
        "https://github.com/poolsideai/pool/issues/9",
    ),
    check=check,
)
