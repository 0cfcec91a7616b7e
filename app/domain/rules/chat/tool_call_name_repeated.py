"""tool-call-name-repeated: a tool call's name sent again on the fragments that continue it."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted, times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    return sighted(
        evidence,
        "tool_name_repeated",
        lambda n, value: times(n, f"the name {value!r} was sent again on a later fragment"),
    )


RULE = Rule(
    id="tool-call-name-repeated",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="tool name repeated",
    what="A fragment continuing a call repeats the call's name.",
    why="The name is sent once, on the call's first fragment; clients that concatenate fragment strings call `get_weatherget_weather`, which no tool is named.",
    breaks=("openai-python `ChatCompletionStreamState` (names concatenate)",),
    sources=("https://github.com/ggml-org/llama.cpp/issues/12379",),
    check=check,
)
